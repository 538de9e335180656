"""The gRPC adapter and go-plugin runtime: the only package that imports grpc or the stubs."""
