"""Bring-up as wire-contract.md orders it: launch -> Describe -> GetCapabilities ->
decode the provider block against config_schema -> Configure; then turns.

A host that keeps its providers for long (the bridge's background process) may run our
own in its process instead of launching them (``in_process``, :mod:`.inprocess`): the
same calls, the same checks, no process.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from providers._gen.pluggableharness.common.v1 import common_pb2
from providers._gen.pluggableharness.context.v1 import context_pb2
from providers.core.types import AttrType, ConfigAttribute
from providers.goplugin.convert import attr_type_name, config_to_proto, stability_from_proto
from providers.host.agent_config import (
    AgentConfig,
    ProviderDeclaration,
    budget_sum_warning,
    resolve_command,
    stability_order_warning,
)
from providers.host.call_errors import call_errors, context_error_of
from providers.host.chain import Plugin, Slot
from providers.host.decode import DecodeError, decode_block
from providers.host.inprocess import InProcessPlugin
from providers.host.plugin_start import LaunchError
from providers.registry import ProviderEntry

RPC_TIMEOUT_S = 10.0


@dataclass
class Plugins:
    """The declared providers running as plugins (or in this process), in declaration
    order (one slot each), and the warnings bringing them up gave; :meth:`close` stops
    every one."""

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
    from providers.host.callback_server import KernelCallbacks  # grpcio: only for a process
    from providers.host.launcher import PluginProcess

    callbacks = KernelCallbacks(
        label=declaration_name, log_sink=log_sink, count_tokens=count_tokens
    )
    plugin = PluginProcess.launch(command, local_name=declaration_name, callbacks=callbacks)
    return configured(plugin, declaration_name, block)


def bring_up_here(declaration: ProviderDeclaration, entry: ProviderEntry) -> Slot:
    """One of our providers, configured as a plugin is, in this process
    (:mod:`providers.host.inprocess`); raises LaunchError with the reason."""
    plugin = InProcessPlugin.start(entry.factory, local_name=declaration.local_name)
    return configured(plugin, declaration.local_name, declaration.block)


def configured(plugin: Plugin, declaration_name: str, block: Mapping[str, Any]) -> Slot:
    """Describe -> GetCapabilities -> decode ``block`` against the schema -> Configure,
    on a started ``plugin``: its slot, or LaunchError (the plugin closed)."""
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
        except call_errors() as call:
            detail = context_error_of(call)
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
    in_process: bool = False,
    max_processes: int | None = None,
) -> None:
    """Bring up every declared provider into ``session`` (its slots in declaration
    order; each failure a warning).

    ``in_process``: a declaration of one of our sources runs in this process (unless
    ``dev_overrides`` names a program for it); ``max_processes``: at most this many
    plugin processes, the declarations past it refused with a warning.
    """
    starts: list[tuple[ProviderDeclaration, Callable[[], Slot]]] = []
    processes = 0
    for declaration in config.providers:
        name = declaration.local_name
        entry = declaration.ours if _runs_here(declaration, config) else None
        if in_process and entry is not None:
            starts.append((declaration, functools.partial(bring_up_here, declaration, entry)))
            continue
        command = resolve_command(declaration, config.dev_overrides)
        if command is None:
            session.warnings.append(
                f'provider "{name}" ({declaration.source}) is declared but not installed; skipped'
            )
        elif max_processes is not None and processes >= max_processes:
            session.warnings.append(
                f'provider "{name}" ({declaration.source}) not started: at most '
                f"{max_processes} plugin processes per repository (providers of other "
                "sources than ours each run as one)"
            )
        else:
            processes += 1
            launch = functools.partial(
                bring_up,
                name,
                command,
                declaration.block,
                log_sink=log_sink,
                count_tokens=count_tokens,
            )
            starts.append((declaration, launch))

    def start(item: tuple[ProviderDeclaration, Callable[[], Slot]]) -> Slot | str:
        declaration, launch = item
        try:
            return launch()
        except LaunchError as exc:
            failure: Exception = exc
        except call_errors() as exc:  # a call of the bring-up failed
            failure = exc
        return f'provider "{declaration.local_name}" not started: {failure}'

    def record(outcome: Slot | str) -> None:
        if isinstance(outcome, str):
            session.warnings.append(outcome)
        else:
            session.slots.append(outcome)

    # Only plugin processes are brought up side by side: theirs is waiting on a child.
    # Ours are imports and calls in this interpreter, which threads would only make
    # contend for its lock (a background process's start: about 20 ms more for four).
    launched = [i for i, (d, _) in enumerate(starts) if not (in_process and _runs_here(d, config))]
    if concurrently and len(launched) > 1:
        outcomes: dict[int, Future[Slot | str]] = {}
        with ThreadPoolExecutor(max_workers=len(launched), thread_name_prefix="bring-up") as pool:
            for index in launched:
                outcomes[index] = pool.submit(start, starts[index])
            for index, item in enumerate(starts):
                if index not in outcomes:
                    outcomes[index] = _done(start, item)
        # Every bring-up is over here; a bug in one is raised once the others' slots are
        # in the session, so that closing it stops them all.
        futures = [outcomes[index] for index in range(len(starts))]
        for future in futures:
            if future.exception() is None:
                record(future.result())
        failed = next((f.exception() for f in futures if f.exception() is not None), None)
        if failed is not None:
            raise failed
    else:
        for item in starts:
            record(start(item))
    for warning in (
        budget_sum_warning([s.budget for s in session.slots], ceilings),
        stability_order_warning([(s.name, s.stability) for s in session.slots]),
    ):
        if warning:
            session.warnings.append(warning)


def _runs_here(declaration: ProviderDeclaration, config: AgentConfig) -> bool:
    """One of ours with no ``dev_overrides`` program: it runs in this process."""
    return declaration.ours is not None and declaration.local_name not in config.dev_overrides


def _done(
    call: Callable[[tuple[ProviderDeclaration, Callable[[], Slot]]], Slot | str],
    item: tuple[ProviderDeclaration, Callable[[], Slot]],
) -> Future[Slot | str]:
    """``call(item)`` run now, as a finished future (its exception kept, as a pool's)."""
    future: Future[Slot | str] = Future()
    try:
        future.set_result(call(item))
    except Exception as error:  # a bug: raised with the others' (see bring_up_all)
        future.set_exception(error)
    return future
