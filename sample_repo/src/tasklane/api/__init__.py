"""HTTP layer: request parsing and routing, no storage details."""
