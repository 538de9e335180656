"""``context-providers explain [FILE ...]``: why did (or didn't) my rule load?

For the repository around the working directory (``--repo DIR``, as the standalone
commands take it), and for each FILE as if the agent had touched it: every convention
file, rule, skill and ignore file found, which provider sends it, and for each one not
sent, why. Everything comes from the providers themselves (:mod:`~providers.cli.explain_runs`
runs them; :mod:`~providers.cli.explain_findings` and :mod:`~providers.cli.explain_more`
ask their discovery, catalogs and matchers). Exit 0; ``--json`` for machines.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from providers.cli.console import EXIT_ERROR, CommandParser
from providers.cli.explain_findings import (
    Item,
    Judge,
    RuleJudge,
    convention_items,
)
from providers.cli.explain_more import ignore_items, skill_items
from providers.cli.explain_runs import Runs, declared_providers
from providers.cli.scratch import previewed_repository
from providers.core.errors import invalid_request
from providers.repository.layout import find_root
from providers.repository.paths import normalise_touched

DESCRIPTION = """\
Why did (or didn't) a rule load? For the repository around the working directory, and
for each FILE as if the agent had touched it: every convention file, rule, skill and
ignore file found, which provider sends it, and for each one not sent, why (no match,
with the closest pattern; the budget, and how much more it needs; a copy of another
file; a broken front matter, with its line; a tool's rules turned off). The providers
run as the repository's agent.hcl declares them (or with their defaults)."""

KINDS = ("convention file", "rule", "skill", "ignore file")


def build_parser(prog: str) -> argparse.ArgumentParser:
    parser = CommandParser(prog=prog, description=DESCRIPTION)
    parser.add_argument(
        "files", nargs="*", metavar="FILE", help="files as if touched (relative to --repo)"
    )
    parser.add_argument(
        "--repo",
        type=Path,
        metavar="DIR",
        help="the working directory, as the kernel would send it: a directory inside a "
        "repository means that repository (default: the current directory)",
    )
    parser.add_argument(
        "--scratch", action="store_true", help="DIR as a project of its own (a scratch copy)"
    )
    parser.add_argument("--json", action="store_true", help="one JSON object on stdout")
    return parser


def main(argv: Sequence[str], prog: str = "context-providers explain") -> int:
    args = build_parser(prog).parse_args(list(argv))
    repo = (args.repo if args.repo is not None else Path.cwd()).expanduser()
    if not repo.is_dir():
        what = "is a file, not a directory" if repo.exists() else "does not exist"
        sys.stderr.write(f"error: {invalid_request(f'--repo {args.repo} {what}')}\n")
        return EXIT_ERROR
    with previewed_repository(repo.resolve(), scratch=args.scratch) as previewed:
        (sys.stderr if args.json else sys.stdout).write(previewed.note + "\n")
        working = previewed.working_directory
        root = find_root(working)
        touched = normalise_touched(root, working, args.files)
        declared, source = declared_providers(root)
        runs = Runs(working, tuple(args.files), declared)
        judge = Judge(root, runs)
        items = explain(judge, touched.inside)
        if args.json:
            report = {
                "repository": str(root),
                "working_directory": str(working),
                "agent_hcl": source,
                "files": list(touched.inside),
                "outside": list(touched.outside),
                "items": [item.as_json() for item in items],
            }
            sys.stdout.write(json.dumps(report, indent=2) + "\n")
        else:
            sys.stdout.write(render(items, source, touched.inside, touched.outside))
    return 0


def explain(judge: Judge, touched: Sequence[str]) -> list[Item]:
    """Every finding: convention files, rules, skills, ignore files."""
    return [
        *convention_items(judge),
        *RuleJudge(judge, touched).items(),
        *skill_items(judge, touched),
        *ignore_items(judge, touched),
    ]


def _line(item: Item) -> str:
    tool = f" ({item.tool})" if item.tool else ""
    verdict = f"{item.sent_by}: {item.how}" if item.sent_by else f"not sent: {item.how}"
    if item.kind == "ignore file" and not item.sent_by:
        verdict = item.how
    return f"  {item.path}{tool}\n      {verdict}\n"


def render(
    items: Sequence[Item], source: str, touched: Sequence[str], outside: Sequence[str]
) -> str:
    """The report as text: the repository's findings by kind, then each touched file's."""
    out = [f"{source}\n"]
    for kind in KINDS:
        found = [i for i in items if i.kind == kind and not i.about]
        if found:
            out.append(f"\n{kind.capitalize()}s:\n")
            out.extend(_line(i) for i in found)
    for path in touched:
        found = [i for i in items if i.about == path]
        out.append(f"\nFor {path}:\n")
        if found:
            out.extend(_line(i) for i in found)
        else:
            out.append("  nothing applies\n")
    for entry in outside:
        out.append(f"\n{entry}: outside the repository, not looked at\n")
    return "".join(out)
