"""A provider run as a command: what it would contribute, without a kernel.

``python -m providers.<name> [--repo DIR] [--budget N] [--files-touched P ...]
[--config JSON] [--json]``. Tokens are counted with the kernel's fallback
formula (there is no kernel to ask). Exit 0 on success; on bad input, exit 2
with a message naming the error category.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from providers.core.budget import FallbackCounter
from providers.core.errors import ProviderError
from providers.core.handle import ProviderHandle
from providers.core.identity import configured_name, local_name_from_env, section_provider_name
from providers.core.provider import contribute
from providers.core.types import ContextRequest, ModelTarget
from providers.registry import ProviderEntry

EXIT_ERROR = 2


def build_parser(prog: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=prog, description="Preview what this context provider would contribute."
    )
    parser.add_argument("--repo", type=Path, default=Path.cwd(), help="working directory")
    parser.add_argument("--budget", type=int, help="token_budget (default: the provider's)")
    parser.add_argument("--files-touched", nargs="*", default=[], metavar="PATH")
    parser.add_argument("--config", default="{}", help="provider block as a JSON object")
    parser.add_argument("--model", default="standalone", help="model_target.id")
    parser.add_argument("--json", action="store_true", help="print the ContextContribution")
    return parser


def main(entry: ProviderEntry, argv: list[str]) -> int:
    args = build_parser(f"python -m {entry.module}").parse_args(argv)
    try:
        config = json.loads(args.config)
    except json.JSONDecodeError as exc:
        sys.stderr.write(f"error: invalid_request: --config is not JSON ({exc})\n")
        return EXIT_ERROR
    if not isinstance(config, dict):
        sys.stderr.write("error: invalid_request: --config must be a JSON object\n")
        return EXIT_ERROR
    provider = ProviderHandle(entry.factory).load_now()
    repo = args.repo.resolve()
    try:
        if repo.is_dir():
            os.chdir(repo)  # relative config paths resolve against the kernel's cwd
        provider.configure(config)
        budget = provider.capabilities().default_token_budget
        if isinstance(config.get("token_budget"), int | float):
            budget = int(config["token_budget"])
        if args.budget is not None:
            budget = args.budget
        request = ContextRequest(
            token_budget=budget,
            working_directory=str(repo),
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
        sys.stdout.write(f"({name}: nothing to contribute for {repo} at budget {budget})\n")
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
