"""Issue 23 item 1: finding and reading skills, and fitting their catalog to a budget that
the kernel counts (its tokenizer may be denser than our estimate).

Layout: google-gemini/gemini-cli's ``.gemini/skills/`` (paths only; our texts), with a
hidden folder and a skill deeper than the six levels Codex searches.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from providers.core.budget import fallback_token_count
from providers.rules.skill_listing import SHORTENED, fit_listing
from providers.rules.skills import Skill, cut, find_skill_files, load_skill
from tests.support.files import make_repo, write


class DenseCounter:
    """A kernel whose tokenizer counts twice what the fallback formula estimates."""

    epoch = 0

    def count(self, text: str) -> int:
        return 2 * fallback_token_count(text)

    def count_many(self, texts: Sequence[str]) -> list[int]:
        return [self.count(t) for t in texts]


def test_skill_folders_are_searched_six_levels_deep_hidden_ones_skipped(tmp_path: Path) -> None:
    root = make_repo(tmp_path)
    write(root, ".gemini/skills/docs-writer/SKILL.md", "---\nname: docs-writer\n---\nx\n")
    write(root, ".gemini/skills/docs-writer/references/docs-auditing.md", "# Audit\n")
    write(root, ".gemini/skills/.system/hidden/SKILL.md", "---\nname: hidden\n---\nx\n")
    write(root, ".gemini/skills/group/ci/SKILL.md", "---\nname: ci\n---\nx\n")
    write(root, ".gemini/skills/a/b/c/d/e/f/g/SKILL.md", "---\nname: deep\n---\nx\n")
    found, _ = find_skill_files(root, ".gemini/skills")
    assert sorted(found) == [
        ".gemini/skills/docs-writer/SKILL.md",
        ".gemini/skills/group/ci/SKILL.md",
    ]


def test_a_cut_keeps_whole_words() -> None:
    assert cut("Deploy the service", 100) == "Deploy the service"
    assert cut("Deploy the service", 12) == "Deploy the\u2026"
    assert cut("Deploy the service", 6) == ""
    assert cut("Deploy the service", 8) == "Deploy\u2026"


def catalog(root: Path, count: int) -> list[Skill]:
    skills = []
    for i in range(count):
        rel = f".gemini/skills/s{i}/SKILL.md"
        write(root, rel, f"---\nname: s{i}\ndescription: {'a careful job ' * (i + 2)}\n---\nx\n")
        loaded = load_skill(root, rel, ".gemini/skills")
        assert isinstance(loaded, Skill)
        skills.append(loaded)
    return skills


@pytest.mark.parametrize("budget", [40, 80, 160, 320, 640])
def test_the_kernels_count_is_the_judge(tmp_path: Path, budget: int) -> None:
    """context-conformance.md: the section the kernel recounts is within the budget, even
    when its tokenizer is denser than our estimate."""
    skills = catalog(make_repo(tmp_path), 12)
    listing = fit_listing(skills, [], budget, DenseCounter())
    if listing is not None:
        assert listing.tokens == DenseCounter().count(listing.text) <= budget


def test_descriptions_share_the_room_equally(tmp_path: Path) -> None:
    """Short descriptions keep all of theirs; the long ones are cut to one length."""
    skills = catalog(make_repo(tmp_path), 6)
    full = fit_listing(skills, [], 10_000, DenseCounter())
    assert full is not None and not full.truncated
    listing = fit_listing(skills, [], full.tokens - 30, DenseCounter())
    assert listing is not None and listing.shortened and listing.left_out == 0
    assert SHORTENED in listing.text
    lines = [line for line in listing.text.splitlines() if line.startswith("- s")]
    assert lines[0] == f"- s0: {'a careful job ' * 2}".rstrip() + " (.gemini/skills/s0/SKILL.md)"
    cut_lengths = {len(line.split(": ", 1)[1].rsplit(" (", 1)[0]) for line in lines[3:]}
    assert max(cut_lengths) - min(cut_lengths) <= len("careful ")  # one length, whole words


def test_a_skills_folder_leading_out_of_the_repository_is_not_looked_into(
    tmp_path: Path,
) -> None:
    """Nothing outside the repository is read, its folder names included."""
    outside = tmp_path / "home-skills"
    write(outside, "private/SKILL.md", "---\nname: private\ndescription: mine\n---\nx\n")
    root = make_repo(tmp_path / "repo")
    (root / ".claude").mkdir()
    (root / ".claude" / "skills").symlink_to(outside)
    found, _ = find_skill_files(root, ".claude/skills")
    assert found == []
