"""A provider run as a command: what it would contribute, without a kernel.

``python -m providers.<name> [--repo DIR] [--scratch] [--budget N]
[--files-touched P ...] [--config JSON] [--json]``. The answer opens with the
repository it is about: ``--repo DIR`` is a working directory as the kernel
would send it (inside a repository, that repository); a folder in no
repository, or one named with ``--scratch`` (``--repo sample_repo --scratch``
shows sample_repo, not the checkout around it), is previewed as a scratch git
copy (``cli.scratch``; a second line names what its commit lacks).
Tokens are counted with the kernel's fallback formula (there is no kernel to
ask). Exit 0 on success; on bad input, or a scratch copy git could not make, exit 2
with a message naming the error category.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import textwrap
from pathlib import Path
from typing import Any

from providers.cli.console import EXIT_ERROR, CommandParser, command_name
from providers.cli.scratch import previewed_repository
from providers.core.budget import FallbackCounter
from providers.core.errors import ProviderError, invalid_request
from providers.core.identity import (
    configured_name,
    local_name_from_env,
    package_version,
    section_provider_name,
)
from providers.core.provider import ContextProvider, contribute
from providers.core.types import Capabilities, ConfigAttribute, ContextRequest, ModelTarget
from providers.registry import ProviderEntry, ProviderHandle


def description(entry: ProviderEntry) -> str:
    """What the program is, and its two ways of running, for ``--help``."""
    what = (
        f"{entry.script}: the {entry.title} context provider for the PluggableHarness "
        f"kernel (context-providers {package_version()}): {entry.summary}."
    )
    modes = (
        "Launched by the kernel (go-plugin's magic cookie in its environment), it serves "
        "the plugin protocol over gRPC. Run any other way, as now, it previews what it "
        "would contribute for a repository: its sections, their tokens (counted with the "
        "kernel's fallback, ceil(utf8_bytes / 4)) and stability."
    )
    return "\n\n".join(textwrap.fill(paragraph, 80) for paragraph in (what, modes))


def _hcl_type(attribute: ConfigAttribute) -> str:
    kind, _, element = attribute.type.value.partition("_")
    return f"{kind}({element})" if element else kind


def _default_text(value: Any) -> str:
    if value is None:
        return "unset"
    try:
        return json.dumps(value)
    except TypeError:
        return str(value)


def attributes_help(capabilities: Capabilities) -> str:
    """The provider block's attributes (agent.hcl, or ``--config`` as JSON) with the
    defaults the provider really uses: its schema's, and its advertised budget."""
    lines = ["provider block attributes (agent.hcl; --config takes them as JSON):"]
    for attribute in capabilities.config_schema:
        default = attribute.default
        if attribute.name == "token_budget":
            default = capabilities.default_token_budget
        lines.append(
            f"  {attribute.name} ({_hcl_type(attribute)}, default {_default_text(default)})"
        )
        lines.extend(
            textwrap.wrap(
                attribute.description,
                76,
                initial_indent=" " * 6,
                break_on_hyphens=False,
                subsequent_indent=" " * 6,
            )
        )
    return "\n".join(lines)


def build_parser(entry: ProviderEntry, capabilities: Capabilities) -> argparse.ArgumentParser:
    parser = CommandParser(
        prog=command_name(entry.script, entry.module),
        description=description(entry),
        epilog=attributes_help(capabilities),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {package_version()}")
    parser.add_argument(
        "--repo",
        type=Path,
        metavar="DIR",
        help="the working directory to preview, as the kernel would send it: a directory "
        "inside a repository means that repository (default: the current directory); a "
        "folder in no git repository is previewed as a scratch git copy",
    )
    parser.add_argument(
        "--scratch",
        action="store_true",
        help="preview --repo DIR as a project of its own: a scratch git copy of it with "
        "everything committed (DIR is never written to)",
    )
    parser.add_argument(
        "--budget",
        type=int,
        metavar="N",
        help=f"token_budget (default: {capabilities.default_token_budget}, the provider's)",
    )
    parser.add_argument(
        "--files-touched",
        nargs="*",
        default=[],
        metavar="PATH",
        help="files the agent touched, relative to the working directory",
    )
    parser.add_argument(
        "--config", default="{}", metavar="JSON", help="provider block as a JSON object"
    )
    parser.add_argument("--model", default="standalone", metavar="ID", help="model_target.id")
    parser.add_argument("--json", action="store_true", help="print the ContextContribution")
    return parser


def main(entry: ProviderEntry, argv: list[str]) -> int:
    provider = ProviderHandle(entry.factory).load_now()
    args = build_parser(entry, provider.capabilities()).parse_args(argv)
    try:
        config = json.loads(args.config)
    except json.JSONDecodeError as exc:
        sys.stderr.write(f"error: invalid_request: --config is not JSON ({exc})\n")
        return EXIT_ERROR
    if not isinstance(config, dict):
        sys.stderr.write("error: invalid_request: --config must be a JSON object\n")
        return EXIT_ERROR
    repo = (args.repo if args.repo is not None else Path.cwd()).expanduser()
    if not repo.is_dir():
        what = "is a file, not a directory" if repo.exists() else "does not exist"
        sys.stderr.write(f"error: {invalid_request(f'--repo {args.repo} {what}')}\n")
        return EXIT_ERROR
    repo = repo.resolve()
    with previewed_repository(repo, scratch=args.scratch) as previewed:
        # JSON readers parse stdout whole: the repository line goes to stderr for them.
        (sys.stderr if args.json else sys.stdout).write(previewed.note + "\n")
        return _preview(provider, args, config, previewed.working_directory, repo)


def _preview(
    provider: ContextProvider,
    args: argparse.Namespace,
    config: dict[str, Any],
    working: Path,
    shown: Path,
) -> int:
    try:
        if working.is_dir():
            os.chdir(working)  # relative config paths resolve against the kernel's cwd
        provider.configure(config)
        budget = provider.capabilities().default_token_budget
        if isinstance(config.get("token_budget"), int | float):
            budget = int(config["token_budget"])
        if args.budget is not None:
            budget = args.budget
        request = ContextRequest(
            token_budget=budget,
            working_directory=str(working),
            model_target=ModelTarget(args.model),
            files_touched=tuple(args.files_touched),
        )
        contribution = contribute(provider, request, FallbackCounter())
    except ProviderError as error:
        sys.stderr.write(f"error: {error}\n")
        return EXIT_ERROR
    name = section_provider_name(
        configured_name(config), local_name_from_env(os.environ), provider.identity().name
    )
    if args.json:
        from google.protobuf import json_format

        from providers.goplugin.convert import contribution_to_proto

        message = contribution_to_proto((), contribution.sections, name)
        sys.stdout.write(json_format.MessageToJson(message) + "\n")
        return 0
    if not contribution.sections:
        why = contribution.why_empty or f"nothing for {shown} at budget {budget}"
        sys.stdout.write(f"({name}: nothing to contribute: {why})\n")
    total = 0
    for section in contribution.sections:
        total += section.tokens
        flags = f"{section.tokens} tokens, {section.stability.value}"
        flags += ", truncated" if section.truncated else ""
        sys.stdout.write(f"=== {section.label} ({flags}) ===\n{section.text.rstrip()}\n\n")
    sys.stdout.write(
        f"--- {name}: {len(contribution.sections)} section(s), {total}/{budget} tokens\n"
    )
    return 0
