"""The main job: ``python -m providers preview DIR``.

Launches the providers of ``DIR``'s ``agent.hcl`` (or of its repository's;
without one, the four providers with their defaults, and the first lines say
which) as real processes through the reference host, runs a short scripted
session (turn 1 touches nothing, later turns touch files;
``DIR/.preview-session.json`` may script it, and carry a note to print
first), and prints each turn: the whole prompt on turn 1, then only the
sections that changed and a line naming the rest; a table that fits the
terminal; the problems; and the warnings at the end.

``DIR`` is previewed as the kernel would send it: inside a repository, that
repository with the working directory at ``DIR``, never written to. A folder
in no repository, or one named with ``--scratch`` (sample_repo), runs in a
scratch copy made into a git repository with one commit, where each touched
file is edited the way an agent would (a line appended), so every provider
has something real to show.

Exit 0 after a session, 2 on bad input (no such directory, a broken
``agent.hcl``) or a scratch copy git could not make (one line naming the
category), 1 when no provider could start (said first, on stderr).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from providers.cli.console import EXIT_ERROR, CommandParser
from providers.cli.scratch import previewed_repository
from providers.core.errors import invalid_request
from providers.core.types import ContextRequest, ModelTarget
from providers.goplugin.convert import section_text
from providers.host.agent_config import (
    AgentConfig,
    ConfigError,
)
from providers.host.bringup import open_plugins
from providers.host.chain import NO_CAP, Section, TurnResult, assemble_prompt, run_turn
from providers.host.render import rendered_turn
from providers.host.repo_config import resolve

EXIT_FAILED = 1
"""No provider could start: the preview has nothing to show."""

DEFAULT_TURNS: list[dict[str, Any]] = [{"files_touched": []}]
PREVIEW_MODEL = ModelTarget("preview-model", context_window=200_000, effective_ceiling=180_000)


def turn_table(result: TurnResult, *, width: int = 100) -> str:
    """The turn's sections as a table no wider than ``width``: the label column gives way
    (cut with an ellipsis), the other columns are short."""
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
    spare = width - (sum(widths) + 2 * 4)
    if spare < 0:
        widths[1] = max(len("label"), widths[1] + spare)
        rows = [(r[0], fit(r[1], widths[1]), *r[2:]) for r in rows]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)) for row in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(line.rstrip() for line in lines)


def fit(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def touch(repo: Path, paths: list[str]) -> None:
    """Edit each touched file like an agent would (create it if it does not exist yet)."""
    for rel in paths:
        path = repo / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a", encoding="utf-8") as handle:
            handle.write("# edited during the preview session\n")


@dataclass(frozen=True)
class Script:
    """The preview's scripted session: the files each turn touches, and a note to print
    first (sample_repo's says its broken imports and rules are there on purpose)."""

    turns: list[list[str]]
    note: str = ""
    scratch: bool = False
    """The folder is a project of its own (``"scratch": true``: sample_repo, inside our
    checkout's repository): previewed as with ``--scratch``."""


def run(
    directory: Path,
    out: TextIO,
    *,
    scratch: bool = False,
    render: bool = False,
    kernel_compat: bool = False,
) -> int:
    """``kernel_compat``: the reference host answers CountTokens UNIMPLEMENTED, as the
    upstream kernel does, so the providers' own fallback counts every section."""
    directory = directory.expanduser()
    if not directory.is_dir():
        what = "not a directory" if directory.exists() else "no such directory"
        sys.stderr.write(f"error: {invalid_request(f'{what}: {directory}')}\n")
        return EXIT_ERROR
    directory = directory.resolve()
    try:
        resolved = resolve(directory, gate=False)
    except ConfigError as exc:
        sys.stderr.write(f"error: {exc}\n")
        return EXIT_ERROR
    script = load_script(directory)
    with previewed_repository(directory, scratch=scratch or script.scratch) as where:
        out.write(f"{where.note}\n({resolved.source_line})\n")
        for note in resolved.notes:
            out.write(f"(note: {note})\n")
        if script.note:
            out.write(f"(note: {script.note})\n")
        out.write("\n")
        return _run(
            where.working_directory,
            resolved.config,
            script,
            out,
            edit=where.scratch,
            render=render,
            kernel_compat=kernel_compat,
        )


def load_script(directory: Path) -> Script:
    path = directory / ".preview-session.json"
    data: Any = {}
    if path.is_file():
        data = json.loads(path.read_text(encoding="utf-8"))
    turns = [list(turn.get("files_touched", [])) for turn in data.get("turns", DEFAULT_TURNS)]
    return Script(turns, str(data.get("note", "")), data.get("scratch") is True)


def _run(
    directory: Path,
    config: AgentConfig,
    script: Script,
    out: TextIO,
    *,
    edit: bool,
    render: bool = False,
    kernel_compat: bool = False,
) -> int:
    logs: list[str] = []
    with open_plugins(
        config,
        ceilings=(PREVIEW_MODEL.effective_ceiling,),
        log_sink=logs.append,
        count_tokens=not kernel_compat,
    ) as plugins:
        if not plugins.slots:
            sys.stderr.write(
                "error: no provider could start:\n"
                + "".join(f"  - {warning}\n" for warning in plugins.warnings)
            )
            return EXIT_FAILED
        session_id = str(uuid.uuid4())
        edited: set[str] = set()
        previous: dict[tuple[str, str], str] = {}
        problems = 0
        for number, touched in enumerate(script.turns, start=1):
            if edit:
                touch(directory, [p for p in touched if p not in edited])
                edited.update(touched)
            request = ContextRequest(
                token_budget=NO_CAP,
                working_directory=str(directory),
                model_target=PREVIEW_MODEL,
                files_touched=tuple(touched),
                session_id=session_id,
                turn_id=f"turn-{number}",
            )
            result = run_turn(plugins.slots, request)
            out.write(f"{'=' * 30} turn {number} {'=' * 30}\n")
            out.write(f"files_touched: {', '.join(touched) or '(none)'}\n\n")
            out.write(changed_prompt(result, previous, number))
            out.write(turn_table(result, width=terminal_width()) + "\n")
            turn_problems = [f"{o.name}: {p}" for o in result.outcomes for p in o.problems]
            problems += len(turn_problems)
            out.write("".join(f"! {line}\n" for line in turn_problems))
            if render:
                out.write("\n" + rendered_turn(plugins.slots, result))
            out.write("\n")
            previous = {key_of(s): section_text(s) for s in result.chain}
        if logs:
            out.write("provider logs:\n" + "".join(f"  {line}\n" for line in logs))
        out.write(warnings_text(plugins.warnings, problems))
    return 0


def key_of(section: Section) -> tuple[str, str]:
    return (section.provider, section.label)


def changed_prompt(result: TurnResult, previous: Mapping[tuple[str, str], str], number: int) -> str:
    """The turn's assembled prompt; after the first turn, only the sections whose text
    changed, and one line naming the ones that did not (and the ones gone)."""
    if number == 1:
        return result.prompt() + "\n"
    changed = [s for s in result.chain if previous.get(key_of(s)) != section_text(s)]
    same = [s for s in result.chain if previous.get(key_of(s)) == section_text(s)]
    gone = sorted(set(previous) - {key_of(s) for s in result.chain})
    lines = [assemble_prompt(changed)] if changed else []
    if same:
        names = ", ".join(f"{s.provider}: {s.label}" for s in same)
        lines.append(f"(unchanged since turn {number - 1}: {names})\n")
    if gone:
        names = ", ".join(f"{provider}: {label}" for provider, label in gone)
        lines.append(f"(gone since turn {number - 1}: {names})\n")
    return "".join(lines) + "\n"


def warnings_text(warnings: Sequence[str], problems: int) -> str:
    """The session's warnings, never "(none)" after problems were shown under the turns."""
    head = "warnings:"
    if problems:
        head += f" {problems} shown under their turns (lines starting with !)"
    if warnings:
        return head + "\n" + "".join(f"  - {w}\n" for w in warnings)
    return head + ("\n" if problems else " none\n")


def terminal_width() -> int:
    return shutil.get_terminal_size((100, 24)).columns


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
        "directory",
        type=Path,
        metavar="DIR",
        help="a repository, or a directory in one (its agent.hcl, else the four providers)",
    )
    parser.add_argument(
        "--scratch",
        action="store_true",
        help="preview DIR as a project of its own, in a scratch git copy where the "
        "scripted turns edit the files they touch (default for a folder in no git "
        'repository, and for one whose .preview-session.json says "scratch": true; '
        "DIR is never written to)",
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
        scratch=args.scratch,
        render=args.render,
        kernel_compat=args.kernel_compat,
    )
