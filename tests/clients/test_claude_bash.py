"""Which Bash reads Claude Code follows itself (providers.clients.claude_bash): its own
recogniser, ported; the bridge sends for the rest what a Read would have brought.
Measured on Claude Code 2.1.328 (tests/clients/test_bridge_clients.py runs it)."""

from __future__ import annotations

import pytest

from providers.clients import tool_paths
from providers.clients.claude_bash import followed_by_claude


@pytest.mark.parametrize(
    ("command", "followed"),
    [
        ("cat src/a.py", ("src/a.py",)),
        ("cat -n src/a.py", ("src/a.py",)),
        ("nl src/a.py", ("src/a.py",)),
        ("head -5 src/a.py", ("src/a.py",)),
        ("head -n 20 src/a.py", ("src/a.py",)),
        ("tail --lines=3 src/a.py", ("src/a.py",)),
        ("sed -n '1,5p' src/a.py", ("src/a.py",)),
        ("sed -n 7p src/a.py", ("src/a.py",)),
        ("grep -n x src/a.py", ("src/a.py",)),
        ("rg -i 'def ' src/a.py", ("src/a.py",)),
        ("cat src/a.py && echo ok", ("src/a.py",)),
        ("cat src/a.py; cat lib/b.py", ("src/a.py", "lib/b.py")),
    ],
)
def test_reads_it_recognises(command: str, followed: tuple[str, ...]) -> None:
    assert followed_by_claude(command) == followed


@pytest.mark.parametrize(
    "command",
    [
        "nl -ba src/a.py | sed -n 1,40p",  # a pipe: nothing (measured)
        "cat src/a.py | head -5",
        "nl -ba src/a.py",  # nl takes no option
        "cd src && cat a.py",  # cd is not a read
        "python3 src/a.py",
        "cat src/a.py > out.txt",
        "cat a.py b.py",  # one file only
        "sed -i s/1/2/ src/a.py",
        "sed -n -e 1p src/a.py",
        "sed 1,5p src/a.py",  # without -n
        "grep x src/a.py && echo ok",  # grep only alone
        "grep x 'src/*.py'",
        "head -c 10 src/a.py",
        "",
        "cat 'unterminated",
    ],
)
def test_reads_it_does_not(command: str) -> None:
    assert followed_by_claude(command) == ()


@pytest.mark.parametrize(
    "command",
    ["nl -ba src/a.py | sed -n 1,40p", "cat src/a.py | head -5", "cd src && cat a.py"],
)
def test_the_bridge_reads_what_claude_does_not_follow(command: str) -> None:
    """The one shell parser (tool_paths.paths_from_shell, Codex's) reads Claude's Bash: the
    commands Claude Code follows no file of still name one for the bridge (cd aside:
    that names none, conservatively)."""
    named = tool_paths.paths_from_tool_input("claude", "Bash", {"command": command})
    assert followed_by_claude(command) == ()
    assert named == (() if command.startswith("cd ") else ("src/a.py",))
