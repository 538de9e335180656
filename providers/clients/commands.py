"""The bridge's shell commands: ``context-providers setup``, ``doctor``, ``trust`` and
``hook``.

``hook`` is here for completeness (``context-providers hook claude < input.json``);
the command ``setup`` writes runs the ``context-providers-hook`` launcher
(``bin/context-providers-hook``), which imports ``providers/clients/hook.py`` alone and
skips this module and argparse altogether.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from providers.cli.console import CommandParser
from providers.clients import doctor, facts, mcp_setup, places, setup, wire
from providers.clients.budgets import Budgets
from providers.clients.hook import main as hook_main
from providers.host.agent_config import ConfigError
from providers.host.repo_config import resolve
from providers.host.trust import AGENT_HCL, TrustStore, foreign_owner

SETUP_DESCRIPTION = """\
Register the context-providers hooks in a client's settings (merged into what is
there; running it again changes nothing; --remove takes out exactly what it added).
Then every session of that client in a git repository gets, with nothing else to
configure: at its start the convention files and rules the client does not load by
itself, git status and the file tree; after each file it reads or edits, that file's
scoped docs (each once per session); at each prompt, what changed since.

With --mcp it registers the MCP server instead (context-providers mcp), for
clients without hooks or users who prefer MCP: its instructions carry the
convention files and rules the client does not load by itself, and its tools
give scoped docs, the file tree, git status and the conventions on request."""


def setup_main(args: list[str], *, prog: str) -> int:
    parser = CommandParser(
        prog=prog,
        description=SETUP_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("client", choices=sorted(facts.FACTS), help="the agent client")
    parser.add_argument(
        "--scope",
        choices=("user", "project"),
        default="user",
        help="user: your settings, every repository (default); project: this repository's",
    )
    parser.add_argument("--repo", type=Path, default=Path("."), help="for --scope project")
    parser.add_argument("--print", dest="show", action="store_true", help="show, do not write")
    parser.add_argument("--remove", action="store_true", help="take our hooks out again")
    parser.add_argument(
        "--mcp",
        action="store_true",
        help="register the MCP server instead of the hooks (with --remove: remove it)",
    )
    parser.add_argument(
        "--only",
        default=",".join(setup.PARTS),
        help="which parts: start (session start), prompt (what changed), tool (scoped "
        "docs after file reads and edits); comma-separated, default all",
    )
    for part in setup.PARTS:
        default = getattr(Budgets(), part)
        parser.add_argument(
            f"--{part}-budget",
            type=int,
            metavar="N",
            help=f"tokens the {part} event may add (default {default})"
            + ("; with --mcp, the server's instructions (5000)" if part == "start" else ""),
        )
    parsed = parser.parse_args(args)
    if parsed.mcp:
        return _setup_mcp(parsed)
    parts = [p.strip() for p in parsed.only.split(",") if p.strip()]
    unknown = [p for p in parts if p not in setup.PARTS]
    if unknown or not parts:
        parser.error(f"--only takes {', '.join(setup.PARTS)}; got {parsed.only!r}")
    options = [
        f"{part}={value}"
        for part in setup.PARTS
        if (value := getattr(parsed, f"{part}_budget")) is not None
    ]
    try:
        report = setup.run(
            parsed.client,
            scope=parsed.scope,
            repo=parsed.repo.resolve(),
            remove=parsed.remove,
            show=parsed.show,
            parts=parts,
            options=options,
        )
    except setup.SetupError as error:
        return _failed(error)
    return _reported(parsed, report)


def _failed(error: setup.SetupError) -> int:
    sys.stderr.write(f"error: {error}\n")
    return 1


def _reported(parsed: argparse.Namespace, report: str) -> int:
    sys.stdout.write(report)
    _warn(parsed)
    return 0


def _warn(parsed: argparse.Namespace) -> None:
    """After a setup that wrote: the warnings (on stderr) of a project setup outside a
    git repository, and of a client that now has both the hooks and the MCP server."""
    if parsed.show or parsed.remove:
        return
    repo = parsed.repo.resolve()
    warnings = [doctor.outside_git(repo)] if parsed.scope == "project" else []
    warnings += [w for w in doctor.twice(repo) if w.startswith(f"{parsed.client} ")]
    sys.stderr.writelines(f"warning: {w}\n" for w in warnings if w)


def _setup_mcp(parsed: argparse.Namespace) -> int:
    options = [] if parsed.start_budget is None else ["--budget", str(parsed.start_budget)]
    plan = mcp_setup.plan_for(parsed.client, parsed.scope, parsed.repo.resolve(), options)
    try:
        report = mcp_setup.run(plan, remove=parsed.remove, show=parsed.show, scope=parsed.scope)
    except setup.SetupError as error:
        return _failed(error)
    return _reported(parsed, report)


def doctor_main(args: list[str], *, prog: str) -> int:
    parser = CommandParser(
        prog=prog,
        description="Show the running background processes, the hook and MCP server "
        "settings in force and the last problems the hooks, MCP servers and providers logged.",
    )
    parser.add_argument("--repo", type=Path, default=Path("."), help="for project settings")
    parser.add_argument("--lines", type=int, default=20, help="problems to show (20)")
    parsed = parser.parse_args(args)
    sys.stdout.write(doctor.report(parsed.repo.resolve(), parsed.lines))
    return 0


def hook_command_main(args: list[str], *, prog: str) -> int:
    del prog
    return hook_main(args)


TRUST_DESCRIPTION = """\
Trust a repository's agent.hcl for the hooks and the MCP server (they start in every
repository you open, so until you trust one they use the four default providers and
ignore its agent.hcl; a repository owned by another user gets nothing). Trust names the
repository and its agent.hcl as it is now: when agent.hcl changes, run this again.
Even a trusted agent.hcl cannot name a program or a place outside the repository (git
status's git, import_allow): set those in your own ~/.config/context-providers/config.hcl."""


def trust_main(args: list[str], *, prog: str) -> int:
    parser = CommandParser(
        prog=prog,
        description=TRUST_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "directory", nargs="?", type=Path, default=Path("."), help="the repository (.)"
    )
    parser.add_argument("--remove", action="store_true", help="trust it no more")
    parser.add_argument("--list", action="store_true", help="the repositories you trust")
    parsed = parser.parse_args(args)
    store = TrustStore()
    if parsed.list:
        records = store.records()
        sys.stdout.write("".join(f"{root}\n" for root in records) or "(none)\n")
        return 0
    directory = parsed.directory.expanduser()
    if not directory.is_dir():
        sys.stderr.write(f"error: no such directory: {directory}\n")
        return 1
    root = Path(places.repository_root(str(directory)) or directory.resolve())
    if parsed.remove:
        found = store.forget(root)
        _restart_background(root)
        sys.stdout.write(f"{root}: {'no longer trusted' if found else 'was not trusted'}\n")
        return 0
    try:
        verdict = store.trust(root)
        refused = resolve(root, gate=False).notes
    except (OSError, ConfigError) as error:
        sys.stderr.write(f"error: {error}\n")
        return 1
    _restart_background(root)
    hcl = root / AGENT_HCL
    what = f"its {hcl} as it is now" if hcl.is_file() else "(it has no agent.hcl)"
    sys.stdout.write(f"{verdict.root}: trusted, {what}\n")
    owner = foreign_owner(root)
    if owner is not None:
        sys.stdout.write(f"note: it is owned by another user (uid {owner})\n")
    sys.stdout.writelines(f"note: {note}\n" for note in refused)
    return 0


def _restart_background(root: Path) -> None:
    """Stop ``root``'s background process, if one runs, and wait (5 s at most) until its
    socket is gone: the next hook starts one that reads the trust anew."""
    try:
        path = places.socket_path(places.runtime_dir(create=False), str(root))
        wire.call(path, "stop", timeout=2.0)
    except (OSError, wire.WireError):
        return
    deadline = time.monotonic() + 5.0
    while os.path.exists(path) and time.monotonic() < deadline:
        time.sleep(0.02)
