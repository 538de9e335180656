"""The provider contract, and only that: types, errors (the spec's five categories),
request checking, the provider protocol, config schema, the budget fitter, section
identity, the left-out note and the Render tree.

Pure: no I/O beyond a ``stat`` (request checking), no threads of its own, no gRPC or
generated code, no parsers, no environment reads, no printing. ``tests/test_layers.py``
checks it imports no other layer and none of ctypes, select, subprocess, watchfiles,
yaml, markdown_it or grpc.
"""
