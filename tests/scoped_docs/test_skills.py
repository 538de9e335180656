"""Issue 23 item 2: conditional and nested skills in scoped docs. A skill with ``paths:``,
or in a package's own skills folder (``packages/frontend/.claude/skills/``), is listed
once a touched file matches, as Claude Code lists it.

Layouts: the monorepo Claude Code's skills documentation describes (a skills folder in
``packages/frontend/``, found when a file below it is edited) and cline/cline's root
``.agents/skills/`` beside it (paths only; every text is ours).
"""

from __future__ import annotations

from pathlib import Path

from providers.core.provider import contribute
from providers.scoped_docs.provider import ScopedDocsProvider
from providers.scoped_docs.skills import LABEL
from tests.support.files import write
from tests.support.requests import COUNTER, labels, request, texts


def skill(name: str, description: str, extra: str = "") -> str:
    return f"---\nname: {name}\ndescription: {description}\n{extra}---\n# {name}\n\nSteps.\n"


def monorepo(repo: Path) -> Path:
    write(repo, ".agents/skills/create-pull-request/SKILL.md", skill("create-pull-request", "PRs."))
    write(
        repo,
        ".claude/skills/api-conventions/SKILL.md",
        skill("api-conventions", "REST naming and errors.", "paths: ['packages/api/**']\n"),
    )
    write(
        repo,
        "packages/frontend/.claude/skills/deploy/SKILL.md",
        skill("deploy", "Deploy the frontend to the CDN."),
    )
    write(
        repo,
        "packages/frontend/.agents/skills/storybook/SKILL.md",
        skill("storybook", "Stories for components.", "paths: '**/*.tsx'\n"),
    )
    write(repo, "packages/frontend/src/app.tsx", "export {}\n")
    write(repo, "packages/frontend/src/util.ts", "export {}\n")
    write(repo, "packages/api/src/routes.py", "x = 1\n")
    return repo


def listing(
    provider: ScopedDocsProvider, repo: Path, *touched: str, cwd: Path | None = None
) -> str:
    answer = contribute(provider, request(repo, touched, cwd=cwd), COUNTER)
    return texts(answer).get(LABEL, "")


def entries(text: str) -> list[str]:
    return [line.split(" (", 1)[0] for line in text.splitlines() if line.startswith("- ")]


def test_a_skill_waits_for_a_file_it_is_about(provider: ScopedDocsProvider, repo: Path) -> None:
    """Nothing touched: nothing listed (the static catalog has the unconditional ones);
    a file under ``packages/api/`` lists the ``paths:`` skill, once."""
    monorepo(repo)
    assert listing(provider, repo) == ""
    first = listing(provider, repo, "packages/api/src/routes.py")
    assert entries(first) == ["- api-conventions: REST naming and errors."]
    assert "(.claude/skills/api-conventions/SKILL.md)" in first
    again = contribute(
        provider, request(repo, ("packages/api/src/routes.py", "README.md")), COUNTER
    )
    assert entries(texts(again)[LABEL]) == ["- api-conventions: REST naming and errors."]


def test_a_packages_own_skills_are_listed_with_its_folder(
    provider: ScopedDocsProvider, repo: Path
) -> None:
    """A file below ``packages/frontend/`` lists that package's skills, named with the folder
    as Claude Code names them; its ``paths:`` skill waits for a matching file."""
    monorepo(repo)
    text = listing(provider, repo, "packages/frontend/src/util.ts")
    assert entries(text) == ["- packages/frontend:deploy: Deploy the frontend to the CDN."]
    text = listing(provider, repo, "packages/frontend/src/util.ts", "packages/frontend/src/app.tsx")
    assert entries(text) == [
        "- packages/frontend:deploy: Deploy the frontend to the CDN.",
        "- packages/frontend:storybook: Stories for components.",
    ]


def test_the_working_directorys_own_skills_are_repo_conventions(
    provider: ScopedDocsProvider, repo: Path
) -> None:
    """With the working directory in ``packages/frontend`` its skills folder is on the way
    down from the root: repo conventions lists its skills, scoped docs does not again."""
    monorepo(repo)
    text = listing(provider, repo, "packages/frontend/src/util.ts", cwd=repo / "packages/frontend")
    assert "deploy" not in text


def test_an_edited_or_deleted_skill_is_seen(provider: ScopedDocsProvider, repo: Path) -> None:
    monorepo(repo)
    listing(provider, repo, "packages/frontend/src/util.ts")
    write(
        repo,
        "packages/frontend/.claude/skills/deploy/SKILL.md",
        skill("deploy", "Deploy with the new pipeline."),
    )
    text = listing(provider, repo, "packages/frontend/src/util.ts")
    assert entries(text) == ["- packages/frontend:deploy: Deploy with the new pipeline."]
    (repo / "packages/frontend/.claude/skills/deploy/SKILL.md").unlink()
    assert listing(provider, repo, "packages/frontend/src/util.ts") == ""


def test_the_listing_and_the_docs_share_the_budget(
    provider: ScopedDocsProvider, repo: Path
) -> None:
    """The listing is fitted first to a quarter of the budget at most; the docs get the
    rest; together they never pass it."""
    monorepo(repo)
    write(repo, "packages/frontend/AGENTS.md", "# Frontend\n\n" + "Use hooks. " * 200 + "\n")
    answer = contribute(
        provider, request(repo, ("packages/frontend/src/util.ts",), budget=300), COUNTER
    )
    assert sum(s.tokens for s in answer.sections) <= 300
    assert LABEL in labels(answer)
