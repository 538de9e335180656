"""Hostile repositories for issue 20: real config, real programs that leave a mark when run.

A *trap* is a program (a shell command or an executable script) that writes a
file into ``marks/`` when anything runs it. Each test arms a repository with
one, first proves with plain git that the trap is real (git does run it), then
runs the four providers over the repository and asserts that no mark appeared
and that each still answered what it should.
"""

from __future__ import annotations

import os
import stat
import subprocess
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from providers.core.budget import FallbackCounter
from providers.core.provider import contribute
from providers.core.types import ContextRequest, ModelTarget
from providers.file_tree.provider import FileTreeProvider
from providers.git_status.provider import GitStatusProvider
from providers.repo_conventions.provider import RepoConventionsProvider
from providers.scoped_docs.provider import ScopedDocsProvider

PY_RULE = '---\nglobs: "**/*.py"\nalwaysApply: false\n---\nPython files: type hints everywhere.\n'
TOUCHED = ("src/app.py",)


def run_git(
    repo: Path, *args: str, env: Mapping[str, str] | None = None, check: bool = True
) -> subprocess.CompletedProcess[bytes]:
    """Plain git, as a user would run it: the repository's config obeyed."""
    done = subprocess.run(
        ["git", "-C", str(repo), *args],
        capture_output=True,
        check=False,
        env={**os.environ, **(env or {})},
        stdin=subprocess.DEVNULL,
        timeout=60,
    )
    if check and done.returncode != 0:
        raise AssertionError(f"git {args} failed: {done.stderr.decode(errors='replace')}")
    return done


@dataclass
class Traps:
    """Where marks go, and programs that leave them."""

    marks: Path

    def command(self, name: str, then: str = "cat") -> str:
        """A shell command for config that git runs with the shell (filters, textconv)."""
        return f'touch "{self.marks}/{name}"; {then}'

    def script(self, name: str, body: str = "exit 0\n") -> str:
        """An executable file (for settings git executes without a shell)."""
        path = self.marks.parent / "programs" / name
        path.parent.mkdir(exist_ok=True)
        path.write_text(f'#!/bin/sh\ntouch "{self.marks}/{name}"\n{body}')
        path.chmod(path.stat().st_mode | stat.S_IXUSR)
        return str(path)

    def left(self) -> list[str]:
        return sorted(p.name for p in self.marks.iterdir())

    def clear(self) -> None:
        for mark in self.marks.iterdir():
            mark.unlink()

    def sprung_by(self, action: Any, *names: str) -> None:
        """Prove a trap is real: ``action()`` (plain git) leaves the marks ``names``."""
        self.clear()
        action()
        assert set(names) <= set(self.left()), f"the trap did not spring: {self.left()}"
        self.clear()


def make_traps(tmp_path: Path) -> Traps:
    marks = tmp_path / "marks"
    marks.mkdir()
    return Traps(marks)


def project_files(path: Path) -> Path:
    """A small project every provider has something to say about (files only)."""
    files = {
        "AGENTS.md": "# Conventions\n\nBe kind to the build.\n",
        "src/app.py": "print('app')\n",
        "data.txt": "data\n",
        ".cursor/rules/py.mdc": PY_RULE,
    }
    for rel, text in files.items():
        (path / rel).parent.mkdir(parents=True, exist_ok=True)
        (path / rel).write_text(text)
    return path


def base_repo(path: Path) -> Path:
    """:func:`project_files`, committed on ``main``."""
    project_files(path)
    run_git(path, "init", "-q", "-b", "main")
    run_git(path, "add", "-A")
    run_git(path, "commit", "-q", "-m", "initial")
    return path


@dataclass(frozen=True)
class Answers:
    """Each provider's section texts, joined, after the turns."""

    conventions: str
    status: str
    tree: str
    docs: str


def _text(contribution: Any) -> str:
    return "\n".join(section.text for section in contribution.sections)


def _providers() -> Iterator[Any]:
    yield RepoConventionsProvider()
    yield GitStatusProvider()
    yield FileTreeProvider()
    yield ScopedDocsProvider()


def four_answers(
    working_directory: Path, touched: Sequence[str] = TOUCHED, *, between: Any = None
) -> Answers:
    """Two turns of all four providers through ``contribute`` (the file tree's history
    mined after the first), ``between()`` run between them; the second turn's texts."""
    providers = list(_providers())
    request = ContextRequest(
        token_budget=2000,
        working_directory=str(working_directory),
        model_target=ModelTarget("test-model"),
        files_touched=tuple(touched),
    )
    texts: list[str] = []
    try:
        for provider in providers:
            provider.configure(
                {} if isinstance(provider, RepoConventionsProvider) else {"watch": False}
            )
        for turn in range(2):
            texts = []
            for provider in providers:
                texts.append(_text(contribute(provider, request, FallbackCounter())))
                if hasattr(provider, "answer_sent"):
                    provider.answer_sent()
                miner = getattr(provider, "_miner", None)
                if miner is not None:
                    miner.wait(30)  # the history is mined once the answer is out
            if turn == 0 and between is not None:
                between()
    finally:
        for provider in providers:
            close = getattr(provider, "close", None)
            if close is not None:
                close()
    return Answers(*texts)


def assert_answers_right(answers: Answers, *, status: bool = True) -> None:
    """What each provider must still say about :func:`base_repo`."""
    assert "Be kind to the build." in answers.conventions
    assert "src/" in answers.tree and "AGENTS.md" in answers.tree
    assert "type hints everywhere" in answers.docs
    if status:
        assert answers.status.startswith("On branch main"), answers.status
