"""The pure core: no gRPC, no generated code, no environment reads, no printing."""
