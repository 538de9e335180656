"""Bring-up as wire-contract.md orders it: launch -> Describe -> GetCapabilities ->
decode the provider block against config_schema -> Configure; then turns.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import grpc

from providers._gen.pluggableharness.common.v1 import common_pb2
from providers._gen.pluggableharness.context.v1 import context_pb2
from providers.core.types import AttrType, ConfigAttribute
from providers.goplugin.convert import attr_type_name, config_to_proto, stability_from_proto
from providers.goplugin.status import context_error_from
from providers.host.agent_config import (
    AgentConfig,
    ProviderDeclaration,
    budget_sum_warning,
    resolve_command,
    stability_order_warning,
)
from providers.host.callback_server import KernelCallbacks
from providers.host.chain import Slot
from providers.host.decode import DecodeError, decode_block
from providers.host.launcher import LaunchError, PluginProcess

RPC_TIMEOUT_S = 10.0


@dataclass
class Plugins:
    """The declared providers running as plugins, in declaration order (one slot each),
    and the warnings bringing them up gave; :meth:`close` stops every process."""

    slots: list[Slot] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def close(self) -> None:
        for slot in self.slots:
            slot.plugin.close()


def schema_from_proto(attributes: Any) -> tuple[ConfigAttribute, ...]:
    return tuple(
        ConfigAttribute(
            a.name,
            AttrType(attr_type_name(a.type)),
            a.description,
            required=a.required,
            object_attributes=schema_from_proto(a.object_attributes),
        )
        for a in attributes
    )


def bring_up(
    declaration_name: str,
    command: list[str],
    block: Mapping[str, Any],
    *,
    log_sink: Callable[[str], None] | None = None,
    count_tokens: bool = True,
) -> Slot:
    """Launch and configure one provider; raises LaunchError with the reason.

    ``count_tokens=False`` answers CountTokens UNIMPLEMENTED, as the upstream kernel does.
    """
    callbacks = KernelCallbacks(
        label=declaration_name, log_sink=log_sink, count_tokens=count_tokens
    )
    plugin = PluginProcess.launch(command, local_name=declaration_name, callbacks=callbacks)
    try:
        producer = plugin.stub.Describe(
            context_pb2.DescribeRequest(), timeout=RPC_TIMEOUT_S
        ).producer
        if producer.category != common_pb2.CATEGORY_CONTEXT:
            raise LaunchError(f"{declaration_name}: not a context provider")
        caps = plugin.stub.GetCapabilities(
            context_pb2.GetCapabilitiesRequest(), timeout=RPC_TIMEOUT_S
        ).capabilities
        try:
            decoded = decode_block(schema_from_proto(caps.config_schema.attributes), block)
        except DecodeError as error:
            raise LaunchError(
                f'config: decode provider config: provider "{declaration_name}": {error}'
            ) from error
        try:
            plugin.stub.Configure(config_to_proto(decoded), timeout=RPC_TIMEOUT_S)
        except grpc.RpcError as call:
            detail = context_error_from(call)
            raise LaunchError(
                f"{declaration_name}: Configure failed: {detail.message if detail else call}"
            ) from call
    except BaseException:
        plugin.close()
        raise
    # null (omitted) or 0 (the spec's zero value for an omitted number): the default.
    budget = decoded.get("token_budget") or caps.default_token_budget
    stability = stability_from_proto(caps.stability)
    return Slot(
        plugin,
        int(budget),
        stability.value if stability else "unspecified",
        caps.compactor,
    )


@contextlib.contextmanager
def open_plugins(
    config: AgentConfig,
    *,
    ceilings: tuple[int, ...] = (),
    log_sink: Callable[[str], None] | None = None,
    count_tokens: bool = True,
    concurrently: bool = False,
) -> Iterator[Plugins]:
    """Every declared, installed provider brought up; closed on exit. ``count_tokens``
    as in :func:`bring_up`; ``concurrently`` launches them all at once (a background
    process that must answer its first hook soon), in declaration order all the same."""
    session = Plugins()
    try:
        bring_up_all(
            config,
            session,
            ceilings=ceilings,
            log_sink=log_sink,
            count_tokens=count_tokens,
            concurrently=concurrently,
        )
        yield session
    finally:
        session.close()


def bring_up_all(
    config: AgentConfig,
    session: Plugins,
    *,
    ceilings: tuple[int, ...] = (),
    log_sink: Callable[[str], None] | None = None,
    count_tokens: bool = True,
    concurrently: bool = False,
) -> None:
    """Bring up every declared provider into ``session`` (its slots in declaration
    order; each failure a warning)."""
    commands = []
    for declaration in config.providers:
        command = resolve_command(declaration, config.dev_overrides)
        if command is None:
            session.warnings.append(
                f'provider "{declaration.local_name}" ({declaration.source}) is declared '
                "but not installed; skipped"
            )
        else:
            commands.append((declaration, command))

    def start(item: tuple[ProviderDeclaration, list[str]]) -> Slot | str:
        declaration, command = item
        try:
            return bring_up(
                declaration.local_name,
                command,
                declaration.block,
                log_sink=log_sink,
                count_tokens=count_tokens,
            )
        except (LaunchError, grpc.RpcError) as exc:
            return f'provider "{declaration.local_name}" not started: {exc}'

    def record(outcome: Slot | str) -> None:
        if isinstance(outcome, str):
            session.warnings.append(outcome)
        else:
            session.slots.append(outcome)

    if concurrently and len(commands) > 1:
        with ThreadPoolExecutor(max_workers=len(commands), thread_name_prefix="bring-up") as pool:
            futures = [pool.submit(start, item) for item in commands]
        # Every bring-up is over here; a bug in one is raised once the others' slots are
        # in the session, so that closing it stops them all.
        for future in futures:
            if future.exception() is None:
                record(future.result())
        failed = next((f.exception() for f in futures if f.exception() is not None), None)
        if failed is not None:
            raise failed
    else:
        for item in commands:
            record(start(item))
    for warning in (
        budget_sum_warning([s.budget for s in session.slots], ceilings),
        stability_order_warning([(s.name, s.stability) for s in session.slots]),
    ):
        if warning:
            session.warnings.append(warning)
