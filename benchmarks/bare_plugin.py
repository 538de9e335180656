"""The floor: a bare grpcio plugin started the same way as ours (stdout reserved, cookie,
grpc imported, unix socket, health service, handshake line), with no provider at all.

Its ContextService.Contribute does no work: it answers with the request's
prior sections, so a benchmark can time a round trip that carries exactly
the bytes a real turn carries both ways."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def main() -> None:
    out = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    if os.environ.get("PLUGGABLEHARNESS_AGENT_PLUGIN") is None:
        sys.stderr.write("not launched by a host\n")
        raise SystemExit(1)
    from concurrent import futures

    import grpc
    from grpc_health.v1 import health, health_pb2, health_pb2_grpc

    from providers._gen.pluggableharness.context.v1 import context_pb2, context_pb2_grpc

    class Echo(context_pb2_grpc.ContextServiceServicer):
        def Contribute(self, request, context):  # type: ignore[no-untyped-def]
            return context_pb2.ContextContribution(sections=request.prior_sections)

    server = grpc.server(
        futures.ThreadPoolExecutor(max_workers=8),
        options=[("grpc.max_receive_message_length", 256 * 1024 * 1024)],
    )
    context_pb2_grpc.add_ContextServiceServicer_to_server(Echo(), server)
    servicer = health.HealthServicer()
    servicer.set("plugin", health_pb2.HealthCheckResponse.SERVING)
    health_pb2_grpc.add_HealthServicer_to_server(servicer, server)
    path = os.path.join(tempfile.mkdtemp(prefix="bare-"), "plugin.sock")
    server.add_insecure_port(f"unix:{path}")
    server.start()
    out.write(f"1|1|unix|{path}|grpc\n")
    out.flush()
    server.wait_for_termination()


if __name__ == "__main__":
    main()
