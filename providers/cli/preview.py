"""The main job: ``python -m providers preview DIR``.

Launches every provider declared in ``DIR/agent.hcl`` as a real process
through the reference host, runs a short scripted session (turn 1 touches
nothing, later turns touch files; ``DIR/.preview-session.json`` may script
it), and prints the assembled prompt of each turn, a table per turn and the
warnings.

Unless ``--in-place`` is given and ``DIR`` is not itself the top of a git
repository (sample_repo is plain files), the session runs in a scratch copy
made into a git repository with one commit, and each touched file is edited
the way an agent would (a line appended), so every provider has something
real to show. ``DIR`` itself is never written to.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import uuid
from pathlib import Path
from typing import Any, TextIO

from providers.cli.console import CommandParser
from providers.cli.scratch import scratch_repository
from providers.core.types import ContextRequest, ModelTarget
from providers.host.agent_config import ConfigError, load_agent_config
from providers.host.bringup import open_plugins
from providers.host.chain import TurnResult, run_turn
from providers.host.render import rendered_turn

DEFAULT_TURNS: list[dict[str, Any]] = [{"files_touched": []}]
PREVIEW_MODEL = ModelTarget("preview-model", context_window=200_000, effective_ceiling=180_000)


def load_turns(directory: Path) -> list[list[str]]:
    script = directory / ".preview-session.json"
    data: Any = {"turns": DEFAULT_TURNS}
    if script.is_file():
        data = json.loads(script.read_text(encoding="utf-8"))
    return [list(turn.get("files_touched", [])) for turn in data.get("turns", DEFAULT_TURNS)]


def turn_table(result: TurnResult) -> str:
    rows = [("provider", "label", "tokens/budget", "stability", "truncated")]
    for outcome in result.outcomes:
        accepted = {id(s) for s in outcome.accepted}
        sections = [s for s in result.chain if id(s) in accepted]
        if not sections:
            status = outcome.error_category or "nothing"
            rows.append((outcome.name, f"({status})", f"0/{outcome.budget}", "-", "-"))
        for section, recount in zip(sections, outcome.recounts, strict=False):
            rows.append(
                (
                    outcome.name,
                    section.label,
                    f"{recount}/{outcome.budget}",
                    "static" if section.stability == 1 else "dynamic",
                    "yes" if section.truncated else "no",
                )
            )
    widths = [max(len(r[i]) for r in rows) for i in range(5)]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)) for row in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(line.rstrip() for line in lines)


def touch(repo: Path, paths: list[str]) -> None:
    """Edit each touched file like an agent would (create it if it does not exist yet)."""
    for rel in paths:
        path = repo / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a", encoding="utf-8") as handle:
            handle.write("# edited during the preview session\n")


def run(
    directory: Path,
    out: TextIO,
    *,
    in_place: bool = False,
    render: bool = False,
    kernel_compat: bool = False,
) -> int:
    """``kernel_compat``: the reference host answers CountTokens UNIMPLEMENTED, as the
    upstream kernel does, so the providers' own fallback counts every section."""
    directory = directory.resolve()
    if not (directory / "agent.hcl").is_file():
        sys.stderr.write(f"error: {directory / 'agent.hcl'} not found\n")
        return 2
    if in_place or (directory / ".git").exists():
        return _run(directory, out, edit=False, render=render, kernel_compat=kernel_compat)
    with tempfile.TemporaryDirectory(prefix="preview-") as scratch:
        repo = scratch_repository(directory, Path(scratch))
        out.write(
            f"(running in a scratch git copy of {directory}: {repo}; "
            "touched files are edited there)\n\n"
        )
        return _run(repo, out, edit=True, render=render, kernel_compat=kernel_compat)


def _run(
    directory: Path, out: TextIO, *, edit: bool, render: bool = False, kernel_compat: bool = False
) -> int:
    try:
        config = load_agent_config(directory / "agent.hcl")
    except ConfigError as exc:
        sys.stderr.write(f"error: {exc}\n")
        return 2
    logs: list[str] = []
    with open_plugins(
        config,
        ceilings=(PREVIEW_MODEL.effective_ceiling,),
        log_sink=logs.append,
        count_tokens=not kernel_compat,
    ) as plugins:
        session_id = str(uuid.uuid4())
        edited: set[str] = set()
        for number, touched in enumerate(load_turns(directory), start=1):
            if edit:
                touch(directory, [p for p in touched if p not in edited])
                edited.update(touched)
            request = ContextRequest(
                token_budget=0,
                working_directory=str(directory),
                model_target=PREVIEW_MODEL,
                files_touched=tuple(touched),
                session_id=session_id,
                turn_id=f"turn-{number}",
            )
            result = run_turn(plugins.slots, request)
            out.write(f"{'=' * 30} turn {number} {'=' * 30}\n")
            out.write(f"files_touched: {', '.join(touched) or '(none)'}\n\n")
            out.write(result.prompt() + "\n")
            out.write(turn_table(result) + "\n")
            problems = [f"{o.name}: {p}" for o in result.outcomes for p in o.problems]
            for line in problems:
                out.write(f"! {line}\n")
            if render:
                out.write("\n" + rendered_turn(plugins.slots, result))
            out.write("\n")
        if logs:
            out.write("provider logs:\n" + "".join(f"  {line}\n" for line in logs))
        out.write("warnings:\n")
        out.write("".join(f"  - {w}\n" for w in plugins.warnings) or "  (none)\n")
    return 0


DESCRIPTION = """\
The main job of context-providers: launch every provider declared in DIR/agent.hcl
as a real plugin process through the reference host (the kernel's side of the
go-plugin protocol), run a short scripted session (DIR/.preview-session.json;
turn 1 touches nothing) and print each turn's assembled prompt, a table of
sections (provider, label, tokens/budget, stability, truncated) and the warnings."""


def main(argv: list[str], *, prog: str = "python -m providers preview") -> int:
    parser = CommandParser(
        prog=prog, description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "directory", type=Path, metavar="DIR", help="a repository with an agent.hcl"
    )
    parser.add_argument(
        "--in-place",
        action="store_true",
        help="run on DIR as it is (default for a git repository top; otherwise a scratch copy)",
    )
    parser.add_argument(
        "--render",
        action="store_true",
        help="after each turn, render each section through its provider's Render RPC",
    )
    parser.add_argument(
        "--kernel-compat",
        action="store_true",
        help="answer CountTokens UNIMPLEMENTED, as the upstream kernel does",
    )
    args = parser.parse_args(argv)
    return run(
        args.directory,
        sys.stdout,
        in_place=args.in_place,
        render=args.render,
        kernel_compat=args.kernel_compat,
    )
