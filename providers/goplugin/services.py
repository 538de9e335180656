"""go-plugin's own services: health, broker, controller, stdio (go-plugin.md section 4)."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator

import grpc
from google.protobuf import empty_pb2
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from providers._gen.plugin import (
    grpc_broker_pb2,
    grpc_broker_pb2_grpc,
    grpc_controller_pb2,
    grpc_controller_pb2_grpc,
    grpc_stdio_pb2,
    grpc_stdio_pb2_grpc,
)
from providers.goplugin.callback import KernelConnection

log = logging.getLogger(__name__)

HEALTH_SERVICE_NAME = "plugin"


class Lifecycle:
    """One event that ends the process: Shutdown RPC, broker stream closed, host gone."""

    def __init__(self) -> None:
        self.stopping = threading.Event()
        self.reason = ""

    def stop(self, reason: str) -> None:
        if not self.stopping.is_set():
            self.reason = reason
            self.stopping.set()


class BrokerService(grpc_broker_pb2_grpc.GRPCBrokerServicer):
    """Keeps every ConnInfo the host sends; the stream ending means the host is leaving."""

    def __init__(self, connection: KernelConnection, lifecycle: Lifecycle) -> None:
        self._connection = connection
        self._lifecycle = lifecycle

    def StartStream(
        self,
        request_iterator: Iterator[grpc_broker_pb2.ConnInfo],
        context: grpc.ServicerContext,
    ) -> Iterator[grpc_broker_pb2.ConnInfo]:
        try:
            for info in request_iterator:
                if info.HasField("knock") and info.knock.knock:
                    continue  # multiplexing is never advertised; ignore knocks
                self._connection.offer(info.service_id, info.network, info.address)
        except grpc.RpcError:
            pass
        self._lifecycle.stop("broker stream closed by the host")
        return iter(())


class ControllerService(grpc_controller_pb2_grpc.GRPCControllerServicer):
    """Shutdown: answer at once; the main thread stops the server and exits."""

    def __init__(self, lifecycle: Lifecycle) -> None:
        self._lifecycle = lifecycle

    def Shutdown(
        self, request: grpc_controller_pb2.Empty, context: grpc.ServicerContext
    ) -> grpc_controller_pb2.Empty:
        self._lifecycle.stop("Shutdown requested by the host")
        return grpc_controller_pb2.Empty()


class StdioService(grpc_stdio_pb2_grpc.GRPCStdioServicer):
    """Ends the stream at once: holding it open would pin a worker thread for good."""

    def StreamStdio(
        self, request: empty_pb2.Empty, context: grpc.ServicerContext
    ) -> Iterator[grpc_stdio_pb2.StdioData]:
        return iter(())


def register_plugin_services(
    server: grpc.Server, connection: KernelConnection, lifecycle: Lifecycle
) -> None:
    health_servicer = health.HealthServicer()
    health_servicer.set(HEALTH_SERVICE_NAME, health_pb2.HealthCheckResponse.SERVING)
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    grpc_broker_pb2_grpc.add_GRPCBrokerServicer_to_server(
        BrokerService(connection, lifecycle), server
    )
    grpc_controller_pb2_grpc.add_GRPCControllerServicer_to_server(
        ControllerService(lifecycle), server
    )
    grpc_stdio_pb2_grpc.add_GRPCStdioServicer_to_server(StdioService(), server)
