"""``context-providers explain [FILE ...]`` (issue 23 item 9): every convention file, rule,
skill and ignore file of a real repository, which provider sends it, and why the others
are not sent, taken from the providers' own answers."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from providers.cli.explain import main
from tests.conftest import GIT_ENV, script
from tests.support.files import write

AGENT_HCL = """\
required_providers {
  repo_conventions = {
    source  = "github.com/context-providers/context-providers/repo-conventions"
    version = "~> 0.1"
  }
  file_tree = {
    source  = "github.com/context-providers/context-providers/file-tree"
    version = "~> 0.1"
  }
  scoped_docs = {
    source  = "github.com/context-providers/context-providers/scoped-docs"
    version = "~> 0.1"
  }
}

provider "repo_conventions" {
  token_budget = 120
}

provider "file_tree" {}

provider "scoped_docs" {
  rule_dirs = { ".windsurf/rules" = "off" }
}
"""

FILES = {
    "agent.hcl": AGENT_HCL,
    "AGENTS.md": "# Agents\n\nShort.\n",
    "CLAUDE.md": "@AGENTS.md\n",
    "GEMINI.md": "# Gemini\n\n" + "A long line of Gemini advice. " * 40 + "\n",
    ".cursor/rules/ts.mdc": "---\nglobs: src/**/*.ts\n---\nTS rules\n",
    ".cursor/rules/py.mdc": "---\nglobs: '*.py'\n---\nPY rules\n",
    ".cursor/rules/broken.mdc": "---\nglobs: [a, b\n---\nBROKEN\n",
    ".cursor/rules/manual.mdc": "---\ndescription:\n---\nHand only\n",
    ".clinerules/open.md": "---\npaths: src/**\n  oops: indented: more\n---\nFAIL OPEN\n",
    ".continue/rules/top.md": "---\nglobs: '*.ts'\n---\nTop level only\n",
    ".claude/rules/web.md": "---\npaths: SRC/*.TS\n---\nWeb\n",
    ".kiro/steering/api.md": "---\ninclusion: auto\ndescription: REST API design\n---\nAPI\n",
    ".windsurf/rules/off.md": "---\ntrigger: always_on\n---\nOff\n",
    ".claude/skills/deploy/SKILL.md": "---\nname: deploy\ndescription: Ship it\n---\nSteps\n",
    ".claude/skills/web/SKILL.md": "---\nname: web\ndescription: Web\npaths: src/**\n---\nW\n",
    ".claude/skills/hidden/SKILL.md": "---\ndisable-model-invocation: true\n---\nH\n",
    ".cursorignore": "secret/\n",
    ".aiexclude": "secret/\n",
    ".gitignore": "build/\n",
    "src/a.ts": "x\n",
    "secret/key.txt": "k\n",
}


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("explain") / "repo"
    for rel, text in FILES.items():
        write(root, rel, text)
    env = {**GIT_ENV, "PATH": "/usr/bin:/bin", "HOME": str(root)}
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "init"]):
        subprocess.run(["git", "-C", str(root), *args], check=True, env=env)
    return root


def _report(repo: Path, capsys: pytest.CaptureFixture[str], *files: str) -> dict[str, Any]:
    assert main(["--repo", str(repo), "--json", *files]) == 0
    return dict(json.loads(capsys.readouterr().out))


def _one(report: dict[str, Any], path: str, about: str = "") -> dict[str, str]:
    found = [i for i in report["items"] if i["path"] == path and i["about"] == about]
    assert len(found) == 1, (path, about, found)
    return dict(found[0])


@pytest.fixture(scope="module")
def report(repo: Path) -> dict[str, Any]:
    out = subprocess.run(
        [script("context-providers"), "explain", "--json", "--repo", str(repo), "src/a.ts",
         "secret/key.txt", "lib/x.py"],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    return dict(json.loads(out.stdout))


def test_convention_files_sent_copied_and_over_budget(report: dict[str, Any]) -> None:
    assert _one(report, "AGENTS.md")["sent_by"] == "repo conventions"
    assert "a copy of AGENTS.md" in _one(report, "CLAUDE.md")["how"]
    gemini = _one(report, "GEMINI.md")
    assert gemini["sent_by"] == "" and "over repo conventions' token budget: needs" in gemini["how"]
    assert "(token_budget 120 -> " in gemini["how"]


def test_rules_for_a_touched_file(report: dict[str, Any]) -> None:
    ts = _one(report, ".cursor/rules/ts.mdc", "src/a.ts")
    assert ts["sent_by"] == "scoped docs" and 'applies via "src/**/*.ts"' in ts["how"]
    web = _one(report, ".claude/rules/web.md", "src/a.ts")  # Claude Code ignores case
    assert web["sent_by"] == "scoped docs" and web["tool"] == "Claude Code"
    py = _one(report, ".cursor/rules/py.mdc", "src/a.ts")
    assert py["how"] == 'no match: the closest of its patterns is "*.py"'
    top = _one(report, ".continue/rules/top.md", "src/a.ts")
    assert "top level only" in top["how"]
    assert _one(report, ".cursor/rules/py.mdc", "lib/x.py")["sent_by"] == "scoped docs"


def test_why_other_rules_are_not_sent(report: dict[str, Any]) -> None:
    broken = _one(report, ".cursor/rules/broken.mdc")
    assert broken["sent_by"] == "" and "(front matter line 2)" in broken["how"]
    fail_open = _one(report, ".clinerules/open.md")  # always on, behind GEMINI.md's budget
    assert fail_open["sent_by"] == "" and "over repo conventions' token budget" in fail_open["how"]
    assert "applied as Cline does" in fail_open["how"] and "front matter line" in fail_open["how"]
    assert "applies it on request" in _one(report, ".cursor/rules/manual.mdc")["how"]
    kiro = _one(report, ".kiro/steering/api.md")
    assert kiro["sent_by"] == "scoped docs" and "REST API design" in kiro["how"]
    off = _one(report, ".windsurf/rules/")
    assert off["tool"] == "Windsurf" and 'rule_dirs sets it to "off"' in off["how"]


def test_skills(report: dict[str, Any]) -> None:
    deploy = _one(report, ".claude/skills/deploy/SKILL.md")
    assert deploy["sent_by"] == "repo conventions" and "skills catalog as deploy" in deploy["how"]
    assert "not for the model" in _one(report, ".claude/skills/hidden/SKILL.md")["how"]
    web = _one(report, ".claude/skills/web/SKILL.md", "src/a.ts")
    assert web["sent_by"] == "scoped docs"
    assert "no match" in _one(report, ".claude/skills/web/SKILL.md", "lib/x.py")["how"]


def test_ignore_files(report: dict[str, Any]) -> None:
    assert _one(report, ".cursorignore")["sent_by"] == "file tree"
    assert _one(report, ".gitignore")["how"].startswith("honoured")
    assert _one(report, ".aiexclude")["how"] == "not honoured: not in ai_ignore_files"
    hides = _one(report, ".cursorignore", "secret/key.txt")
    assert hides["how"] == "hides it from the file tree"


def test_text_output_names_each_file_and_exits_0(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--repo", str(repo / "src"), "a.ts"]) == 0  # from the working directory
    out = capsys.readouterr().out
    assert out.startswith(f"(repository: {repo}")
    assert "\nConvention files:\n  AGENTS.md\n      repo conventions: sent whole" in out
    assert "\nFor src/a.ts:\n" in out
    assert "  .cursor/rules/py.mdc (Cursor)\n      not sent: no match:" in out


def test_without_agent_hcl_the_defaults_apply(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "plain"
    write(root, "AGENTS.md", "# A\n")
    write(root, ".windsurf/rules/on.md", "---\ntrigger: always_on\n---\nOn\n")
    report = _report(root, capsys)
    assert report["agent_hcl"] == "agent.hcl: none; the defaults"
    assert _one(report, ".windsurf/rules/on.md")["sent_by"] == "repo conventions"


def test_a_monorepo_package_rule_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A path-only layout like a pnpm monorepo: a package's own .claude/rules."""
    root = tmp_path / "mono"
    for rel in ("package.json", "packages/web/package.json", "packages/api/src/server.ts"):
        write(root, rel)
    write(root, "packages/web/.claude/rules/ui.md", "---\npaths: '*.tsx'\n---\nUI\n")
    write(root, "packages/web/src/App.tsx")
    (root / ".git").mkdir()
    report = _report(root, capsys, "packages/web/src/App.tsx", "packages/api/src/server.ts")
    sent = _one(report, "packages/web/.claude/rules/ui.md", "packages/web/src/App.tsx")
    assert sent["sent_by"] == "scoped docs"


def test_a_bad_repo_is_an_argument_error(tmp_path: Path) -> None:
    assert main(["--repo", str(tmp_path / "missing")]) == 2
