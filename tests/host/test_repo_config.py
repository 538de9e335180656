"""The one reading of a repository's agent.hcl by our hosts (host/repo_config.py) and the
trust records behind the bridge's gate (host/trust.py): issue 27 item 2, docs/safety.md."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from providers.host.repo_config import MAX_DECLARATIONS, resolve
from providers.host.trust import State, TrustStore
from providers.registry import PROVIDERS
from tests.conftest import REPO_ROOT

SOURCE = "github.com/context-providers/context-providers"
HCL = f"""\
required_providers {{
  gs = {{
    source  = "{SOURCE}/git-status"
    version = "~> 0.1"
  }}
  repo_conventions = {{
    source  = "{SOURCE}/repo-conventions"
    version = "~> 0.1"
  }}
}}
provider "gs" {{
  git            = "/tmp/evil"
  recent_commits = 2
}}
provider "repo_conventions" {{
  import_allow = ["~"]
  token_budget = 100
}}
"""


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "agent.hcl").write_text(HCL, encoding="utf-8")
    return root


def test_user_only_attributes_are_refused_from_agent_hcl_and_named(
    repo: Path, tmp_path: Path
) -> None:
    """A program (git status's git) or a place outside (import_allow) never comes from a
    repository's agent.hcl; the rest of the block does; the note names both."""
    resolved = resolve(repo, gate=False, user_config=tmp_path / "none.hcl")
    blocks = {d.local_name: d.block for d in resolved.config.providers}
    assert blocks == {"gs": {"recent_commits": 2}, "repo_conventions": {"token_budget": 100}}
    assert any('"gs": git refused' in note for note in resolved.notes)
    assert any('"repo_conventions": import_allow refused' in note for note in resolved.notes)


def test_every_user_only_attribute_is_one_that_names_a_program_or_an_outside_place() -> None:
    """The schema marks exactly these: a new attribute of that kind must be marked too."""
    marked = {(e.package, a.name) for e in PROVIDERS for a in e.schema() if a.user_only}
    assert marked == {
        ("git_status", "git"),
        ("repo_conventions", "import_allow"),
        ("scoped_docs", "import_allow"),
    }


def test_the_users_own_config_sets_them_by_local_name_or_package(
    repo: Path, tmp_path: Path
) -> None:
    own = tmp_path / "config.hcl"
    own.write_text(
        'provider "git_status" {\n  git = "/usr/bin/git"\n}\n'
        'provider "repo_conventions" {\n  import_allow = ["~/notes"]\n}\n'
    )
    resolved = resolve(repo, gate=False, user_config=own)
    blocks = {d.local_name: d.block for d in resolved.config.providers}
    assert blocks["gs"] == {"recent_commits": 2, "git": "/usr/bin/git"}
    assert blocks["repo_conventions"]["import_allow"] == ["~/notes"]


def test_the_gate_uses_agent_hcl_only_as_trusted(repo: Path, tmp_path: Path) -> None:
    store = TrustStore(tmp_path / "trusted.json")
    none = tmp_path / "none.hcl"
    untrusted = resolve(repo, gate=True, store=store, user_config=none)
    assert untrusted.verdict is not None and untrusted.verdict.state is State.UNTRUSTED
    assert not untrusted.config.declared
    assert [d.local_name for d in untrusted.config.providers] == [e.package for e in PROVIDERS]
    assert "is not trusted" in untrusted.notes[0]
    store.trust(repo)
    trusted = resolve(repo, gate=True, store=store, user_config=none)
    assert trusted.config.declared and [d.local_name for d in trusted.config.providers] == [
        "gs",
        "repo_conventions",
    ]
    (repo / "agent.hcl").write_text(HCL + "\n")
    changed = resolve(repo, gate=True, store=store, user_config=none)
    assert changed.verdict is not None and changed.verdict.state is State.CHANGED
    assert not changed.config.declared


def test_declarations_past_the_bound_are_left_out(repo: Path, tmp_path: Path) -> None:
    entries = "\n".join(
        f'  p{i} = {{\n    source  = "{SOURCE}/file-tree"\n    version = "1"\n  }}'
        for i in range(30)
    )
    (repo / "agent.hcl").write_text(f"required_providers {{\n{entries}\n}}\n")
    resolved = resolve(repo, gate=False, user_config=tmp_path / "none.hcl")
    assert len(resolved.config.providers) == MAX_DECLARATIONS
    assert any("p8, p9" in note for note in resolved.notes)


def test_a_symlinked_agent_hcl_is_never_trusted(repo: Path, tmp_path: Path) -> None:
    (tmp_path / "elsewhere.hcl").write_text(HCL)
    (repo / "agent.hcl").unlink()
    (repo / "agent.hcl").symlink_to(tmp_path / "elsewhere.hcl")
    store = TrustStore(tmp_path / "trusted.json")
    with pytest.raises(OSError, match="not a readable plain file"):
        store.trust(repo)
    assert store.verdict(repo).state is State.UNTRUSTED


def test_the_trust_record_is_the_users_alone_and_written_whole(repo: Path, tmp_path: Path) -> None:
    path = tmp_path / "cfg" / "trusted.json"
    store = TrustStore(path)
    store.trust(repo)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert [p.name for p in path.parent.iterdir()] == ["trusted.json"]
    assert store.forget(repo) and not store.forget(repo)
    assert store.verdict(repo).state is State.UNTRUSTED


def test_preview_refuses_them_too(repo: Path, tmp_path: Path) -> None:
    """``preview`` uses an untrusted agent.hcl (the user named the directory) but not
    what only the user may set: its first lines say so, and the program is never run."""
    (repo / "a.txt").write_text("a\n")
    mark = tmp_path / "ran"
    evil = tmp_path / "evil"
    evil.write_text(f'#!/bin/sh\necho ran > {mark}\nexec git "$@"\n')
    evil.chmod(0o755)
    (repo / "agent.hcl").write_text(HCL.replace("/tmp/evil", str(evil)))
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "cfg")}
    done = subprocess.run(
        [sys.executable, "-m", "providers", "preview", str(repo)],
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
        env=env,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    head = done.stdout[:2000]
    assert '"gs": git refused' in head and "import_allow refused" in head
    assert "On branch" in done.stdout and not mark.exists()
