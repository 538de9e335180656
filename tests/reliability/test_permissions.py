"""Issue 15 item 7: permission denied is classified (context-conformance.md: ``source_unavailable``
for an unreadable source), or a note where one file or directory is involved; never a crash.

The providers run in a child process that permissions apply to: as root, one without the
capabilities that bypass them (``setpriv``); otherwise the test user as it is."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT, git

PROBE = """
import json, sys
sys.path.insert(0, {root!r})
from providers.core.budget import FallbackCounter
from providers.core.errors import ProviderError
from providers.registry import ProviderHandle
from providers.core.provider import contribute
from providers.core.types import ContextRequest, ModelTarget
from providers.registry import PROVIDERS
out = {{}}
for entry in PROVIDERS:
    provider = ProviderHandle(entry.factory).load_now()
    try:
        provider.configure({{}} if entry.package == "repo_conventions" else {{"watch": False}})
        request = ContextRequest(2000, {wd!r}, ModelTarget("m"), files_touched=("src/a.py",))
        answer = contribute(provider, request, FallbackCounter())
        out[entry.package] = ["ok", "".join(s.text for s in answer.sections)]
    except ProviderError as error:
        out[entry.package] = [error.category.value, error.message]
    except Exception as error:
        out[entry.package] = ["crash", repr(error)]
    finally:
        getattr(provider, "close", lambda: None)()
print(json.dumps(out))
"""


def unprivileged() -> list[str]:
    if os.geteuid() != 0:
        return []
    if shutil.which("setpriv") is None:
        pytest.skip("running as root without setpriv: permissions cannot be tested")
    caps = "-dac_override,-dac_read_search"
    return ["setpriv", f"--inh-caps={caps}", f"--bounding-set={caps}"]


def probe(wd: Path) -> dict[str, list[str]]:
    code = PROBE.format(root=str(REPO_ROOT), wd=str(wd))
    result = subprocess.run(
        [*unprivileged(), sys.executable, "-c", code], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    answers: dict[str, list[str]] = json.loads(result.stdout.strip().splitlines()[-1])
    assert not [p for p, (kind, _) in answers.items() if kind == "crash"], answers
    return answers


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    path = tmp_path / "repo"
    (path / "src" / "deep").mkdir(parents=True)
    (path / ".claude" / "rules").mkdir(parents=True)
    (path / "AGENTS.md").write_text("# Agents\n\nBe kind.\n")
    (path / "src" / "a.py").write_text("a\n")
    (path / "src" / "deep" / "b.py").write_text("b\n")
    (path / ".claude" / "rules" / "py.md").write_text("---\npaths: ['src/**']\n---\nPy rule\n")
    git(path, "init", "-q")
    git(path, "add", "-A")
    git(path, "commit", "-qm", "one")
    return path


def locked(path: Path) -> None:
    path.chmod(0)


def test_a_directory_above_the_working_directory(repo: Path) -> None:
    locked(repo / "src")
    try:
        answers = probe(repo / "src" / "deep")
    finally:
        (repo / "src").chmod(0o755)
    for kind, message in answers.values():
        assert kind == "source_unavailable" and "permission denied" in message


def test_the_git_directory(repo: Path) -> None:
    locked(repo / ".git")
    try:
        answers = probe(repo)
    finally:
        (repo / ".git").chmod(0o755)
    assert answers["git_status"][0] == "source_unavailable"
    assert ".git cannot be read: permission denied" in answers["git_status"][1]
    assert answers["file_tree"][0] == "ok" and "a.py" in answers["file_tree"][1]
    assert answers["repo_conventions"] == ["ok", "# Agents\n\nBe kind.\n"]


def test_the_claude_directory_is_a_note(repo: Path) -> None:
    locked(repo / ".claude")
    try:
        answers = probe(repo)
    finally:
        (repo / ".claude").chmod(0o755)
    assert answers["repo_conventions"][0] == "ok"
    assert "[.claude/CLAUDE.md not checked: permission denied]" in answers["repo_conventions"][1]
    assert answers["scoped_docs"][0] == "ok"
    assert ".claude/rules/: not read (permission denied)" in answers["scoped_docs"][1]


def test_one_unreadable_convention_file_is_a_note(repo: Path) -> None:
    locked(repo / "AGENTS.md")
    try:
        answers = probe(repo)
    finally:
        (repo / "AGENTS.md").chmod(0o644)
    assert answers["repo_conventions"][0] == "ok"
    assert "[AGENTS.md not loaded: permission denied]" in answers["repo_conventions"][1]
