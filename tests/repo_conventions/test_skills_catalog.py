"""Issue 23 item 1: a skills catalog in repo conventions (static): one entry per skill
(name, description, where its SKILL.md is), deduplicated across locations, skills not
for the model left out, fitted by whole entries (descriptions shortened before entries
are dropped, the closing note naming what was left out) within its share of the budget.

Layouts are real repositories' trees (paths only; every text is ours):
google-gemini/gemini-cli's ``.gemini/skills/`` (twelve skills, some with ``references/``
and ``scripts/``), cline/cline's ``.agents/skills/``, RooCodeInc/Roo-Code's
``.roo/skills/``, and Zaoqu-Liu/mbti-typing-skill's one skill copied into
``.claude/skills/``, ``.cline/skills/`` and ``.github/skills/``.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from providers.core.budget import FallbackCounter
from providers.core.provider import contribute
from providers.core.types import Contribution
from providers.repo_conventions.provider import RepoConventionsProvider
from providers.rules.skill_listing import HEADER, SHORTENED
from tests.support.files import make_repo, write
from tests.support.requests import labels, request, texts

GEMINI_CLI_SKILLS = (
    "agent-tui",
    "async-pr-review",
    "behavioral-evals",
    "ci",
    "code-reviewer",
    "docs-changelog",
    "docs-writer",
    "github-issue-creator",
    "pr-address-comments",
    "pr-creator",
    "review-duplication",
    "string-reviewer",
)


def skill(name: str, description: str, extra: str = "", body: str = "Steps.\n") -> str:
    return f"---\nname: {name}\ndescription: {description}\n{extra}---\n# {name}\n\n{body}"


def gemini_cli_tree(root: Path) -> Path:
    """google-gemini/gemini-cli: ``.gemini/skills/<name>/SKILL.md`` with bundled files."""
    make_repo(root)
    write(root, "GEMINI.md", "# Gemini CLI\n\nA terminal agent.\n")
    for name in GEMINI_CLI_SKILLS:
        words = name.replace("-", " ")
        write(root, f".gemini/skills/{name}/SKILL.md", skill(name, f"Use for {words} work."))
    write(root, ".gemini/skills/behavioral-evals/references/running.md", "# Running\n")
    write(root, ".gemini/skills/ci/scripts/ci.mjs", "export {}\n")
    write(root, ".gemini/skills/async-pr-review/policy.toml", "x = 1\n")
    return root


def ask(root: Path, budget: int = 4000, cwd: Path | None = None, **config: object) -> Contribution:
    provider = RepoConventionsProvider()
    provider.configure(config)
    return contribute(provider, request(root, budget=budget, cwd=cwd), FallbackCounter())


def entries(result: Contribution) -> list[str]:
    lines = texts(result).get("skills", "").splitlines()
    return [line for line in lines if line.startswith("- ") and line.endswith("SKILL.md)")]


def test_the_catalog_is_a_static_section_after_the_convention_files(tmp_path: Path) -> None:
    root = gemini_cli_tree(tmp_path)
    result = ask(root)
    assert labels(result) == ["GEMINI.md", "skills"]
    catalog = texts(result)["skills"]
    assert catalog.startswith(HEADER + "\n")
    assert entries(result)[0] == (
        "- agent-tui: Use for agent tui work. (.gemini/skills/agent-tui/SKILL.md)"
    )
    assert len(entries(result)) == len(GEMINI_CLI_SKILLS)  # bundled files are not skills
    assert "references" not in catalog and "ci.mjs" not in catalog
    section = result.sections[-1]
    assert section.stability.value == "static" and not section.truncated


def test_every_tools_folder_is_read_and_listed_by_name(tmp_path: Path) -> None:
    """cline/cline's ``.agents/skills`` and RooCodeInc/Roo-Code's ``.roo/skills`` side by side:
    one catalog, by name."""
    root = make_repo(tmp_path)
    write(root, ".agents/skills/opentui/SKILL.md", skill("opentui", "Build terminal UIs."))
    write(root, ".agents/skills/cline-sdk/SKILL.md", skill("cline-sdk", "The Cline SDK."))
    write(root, ".agents/skills/cline-sdk/references/agent/api.md", "# API\n")
    write(root, ".roo/skills/roo-translation/SKILL.md", skill("roo-translation", "Translate."))
    write(root, ".claude/skills/review/SKILL.md", skill("review", "Review a diff."))
    assert [e.split(":")[0] for e in entries(ask(root))] == [
        "- cline-sdk",
        "- opentui",
        "- review",
        "- roo-translation",
    ]


def test_one_skill_in_several_places_is_listed_once(tmp_path: Path) -> None:
    """Zaoqu-Liu/mbti-typing-skill copies its skill into three tools' folders: the same name
    and text is one entry, at the first folder in precedence; a symlinked folder (the same
    real file) is one entry; the same name with other text is another skill."""
    root = make_repo(tmp_path)
    text = skill("mbti-typing", "Type a personality from a conversation.")
    for folder in (".claude/skills", ".cline/skills", ".github/skills"):
        write(root, f"{folder}/mbti-typing/SKILL.md", text)
    write(root, ".agents/skills/deploy/SKILL.md", skill("deploy", "Deploy to staging."))
    os.makedirs(root / ".cursor")
    os.symlink("../.agents/skills", root / ".cursor/skills")
    write(root, ".codex/skills/deploy/SKILL.md", skill("deploy", "Deploy with Codex's steps."))
    assert entries(ask(root)) == [
        "- deploy: Deploy to staging. (.agents/skills/deploy/SKILL.md)",
        "- deploy: Deploy with Codex's steps. (.codex/skills/deploy/SKILL.md)",
        "- mbti-typing: Type a personality from a conversation. "
        "(.claude/skills/mbti-typing/SKILL.md)",
    ]


def test_skills_not_for_the_model_and_conditional_ones_are_not_listed(tmp_path: Path) -> None:
    """Claude Code's ``disable-model-invocation: true`` (also Copilot's and Cursor's key) and
    Codex's ``agents/openai.yaml`` ``allow_implicit_invocation: false`` keep a skill out;
    a ``paths:`` skill waits for a matching file (scoped docs)."""
    root = make_repo(tmp_path)
    write(
        root,
        ".claude/skills/ship/SKILL.md",
        skill("ship", "Ship.", "disable-model-invocation: true\n"),
    )
    write(root, ".agents/skills/release/SKILL.md", skill("release", "Release."))
    write(
        root,
        ".agents/skills/release/agents/openai.yaml",
        "policy:\n  allow_implicit_invocation: false\n",
    )
    write(root, ".agents/skills/lint/SKILL.md", skill("lint", "Lint."))
    write(root, ".agents/skills/lint/agents/openai.yaml", "interface:\n  display_name: Lint\n")
    write(
        root, ".claude/skills/api/SKILL.md", skill("api", "API rules.", "paths: ['src/api/**']\n")
    )
    write(root, ".claude/skills/all/SKILL.md", skill("all", "Everywhere.", "paths: ['**']\n"))
    assert [e.split(":")[0] for e in entries(ask(root))] == ["- all", "- lint"]


def test_what_a_skill_says_of_itself(tmp_path: Path) -> None:
    """No name: the folder's; Claude Code's ``when_to_use`` follows the description; no
    description: the body's first line; a description over 1,536 characters is cut; a
    front matter that does not parse is named, not listed."""
    root = make_repo(tmp_path)
    write(
        root, ".claude/skills/bare/SKILL.md", "---\nallowed-tools: Read\n---\n# Bare steps\n\nx\n"
    )
    write(
        root,
        ".claude/skills/when/SKILL.md",
        skill("when", "Plan.", "when_to_use: before big changes\n"),
    )
    write(root, ".claude/skills/long/SKILL.md", skill("long", "word " * 400))
    write(root, ".claude/skills/broken/SKILL.md", "---\nname: [broken\n---\nx\n")
    result = ask(root, budget=8000)
    found = {e.split(":")[0][2:]: e for e in entries(result)}
    assert found["bare"] == "- bare: Bare steps (.claude/skills/bare/SKILL.md)"
    assert found["when"] == "- when: Plan. - before big changes (.claude/skills/when/SKILL.md)"
    long_description = found["long"].split(": ", 1)[1].rsplit(" (", 1)[0]
    assert len(long_description) <= 1536 and long_description.endswith("\u2026")
    catalog = texts(result)["skills"]
    assert "- .claude/skills/broken/SKILL.md: not listed, front matter is not valid YAML" in catalog
    assert "broken (" not in catalog


def test_the_folders_down_to_the_working_directory_are_read(tmp_path: Path) -> None:
    """Codex reads ``.agents/skills`` in every folder from the project root down to its
    working directory; so do we (a folder off that path is scoped docs')."""
    root = make_repo(tmp_path)
    write(root, ".agents/skills/root-skill/SKILL.md", skill("root-skill", "At the root."))
    write(root, "apps/web/.agents/skills/web-deploy/SKILL.md", skill("web-deploy", "Web deploy."))
    write(root, "apps/api/.agents/skills/api-deploy/SKILL.md", skill("api-deploy", "API deploy."))
    assert [e.split(":")[0] for e in entries(ask(root, cwd=root / "apps/web"))] == [
        "- root-skill",
        "- web-deploy",
    ]


def many_skills(root: Path, count: int = 40, *, agents_md: bool = True) -> Path:
    make_repo(root)
    if agents_md:
        write(root, "AGENTS.md", "# Agents\n\n" + "Keep the build green. " * 30 + "\n")
    for i in range(count):
        description = f"Skill number {i} " + "does a careful multi-step job " * (1 + i % 5)
        write(root, f".agents/skills/s{i:02d}/SKILL.md", skill(f"s{i:02d}", description))
    return root


@pytest.mark.parametrize("budget", [150, 300, 450, 600, 900, 1200, 2000, 4000])
def test_fitted_within_its_share_descriptions_shortened_before_entries_go(
    tmp_path: Path, budget: int
) -> None:
    """The budget is a hard invariant for all sections together; every skill keeps an entry
    (descriptions shortened, the note saying so) until not even names fit, and then the
    closing note names the folders left out."""
    root = many_skills(tmp_path)
    result = ask(root, budget=budget)
    assert sum(s.tokens for s in result.sections) <= budget
    catalog = texts(result).get("skills", "")
    listed = entries(result)
    if len(listed) == 40:
        complete = all("job (" in e and "\u2026" not in e for e in listed)
        assert (SHORTENED in catalog) == (not complete)
    elif listed:
        assert all(": " not in e for e in listed)  # names and paths only, then the note
        note = catalog.split("more skills left out to fit")[1]
        assert f"s{len(listed):02d}" in note and "- .agents/skills: " in note


def test_more_budget_never_lists_fewer_skills(tmp_path: Path) -> None:
    """The catalog alone (no convention file to share the budget with) grows with it."""
    root = many_skills(tmp_path, agents_md=False)
    shown = [len(entries(ask(root, budget=b))) for b in range(100, 2400, 100)]
    assert shown == sorted(shown) and shown[-1] == 40


def test_the_share_comes_first_and_unused_room_goes_back(tmp_path: Path) -> None:
    """``skills_share``: the catalog's part of the budget before the files; files that leave
    room let it have more; ``skills = false`` turns it off."""
    root = many_skills(tmp_path)
    small = ask(root, budget=1600, skills_share=10)
    assert texts(small)["AGENTS.md"].startswith("# Agents")
    catalog = next(s for s in small.sections if s.label == "skills")
    assert catalog.tokens > 160  # the convention file left it more than its 10%
    assert sum(s.tokens for s in small.sections) <= 1600
    assert labels(ask(root, skills=False)) == ["AGENTS.md"]


def test_a_warm_turn_reads_nothing_and_an_edit_is_seen(tmp_path: Path) -> None:
    root = gemini_cli_tree(tmp_path)
    provider = RepoConventionsProvider()
    provider.configure({})
    first = contribute(provider, request(root), FallbackCounter())
    assert contribute(provider, request(root), FallbackCounter()) is first
    write(
        root, ".gemini/skills/ci/SKILL.md", skill("ci", "Run CI locally with the bundled script.")
    )
    again = contribute(provider, request(root), FallbackCounter())
    assert "Run CI locally" in texts(again)["skills"]
