"""The bridge's shell commands: ``context-providers setup``, ``doctor`` and ``hook``.

``hook`` is here for completeness (``context-providers hook claude < input.json``);
the command ``setup`` writes runs ``providers/clients/hook.py`` directly, which skips
this module, argparse and ``site`` altogether.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from providers.cli.console import CommandParser
from providers.clients import doctor, facts, setup
from providers.clients.hook import main as hook_main

SETUP_DESCRIPTION = """\
Register the context-providers hooks in a client's settings (merged into what is
there; running it again changes nothing; --remove takes out exactly what it added).
Then every session of that client in a git repository gets, with nothing else to
configure: at its start the convention files and rules the client does not load by
itself, git status and the file tree; after each file it reads or edits, that file's
scoped docs (each once per session); at each prompt, what changed since."""


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
        "--only",
        default=",".join(setup.PARTS),
        help="which parts: start (session start), prompt (what changed), tool (scoped "
        "docs after file reads and edits); comma-separated, default all",
    )
    for part, default in (("start", 6000), ("prompt", 2000), ("tool", 2000)):
        parser.add_argument(
            f"--{part}-budget",
            type=int,
            metavar="N",
            help=f"tokens the {part} event may add (default {default})",
        )
    parsed = parser.parse_args(args)
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
        sys.stderr.write(f"error: {error}\n")
        return 1
    sys.stdout.write(report)
    return 0


def doctor_main(args: list[str], *, prog: str) -> int:
    parser = CommandParser(
        prog=prog,
        description="Show the running background processes, the hook settings in force "
        "and the last problems the hooks and providers logged.",
    )
    parser.add_argument("--repo", type=Path, default=Path("."), help="for project settings")
    parser.add_argument("--lines", type=int, default=20, help="problems to show (20)")
    parsed = parser.parse_args(args)
    sys.stdout.write(doctor.report(parsed.repo.resolve(), parsed.lines))
    return 0


def hook_command_main(args: list[str], *, prog: str) -> int:
    del prog
    return hook_main(args)
