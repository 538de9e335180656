"""Issue 13: the budget goes to the rules for the file in hand.

On a real-shaped tree (nested docs several levels deep, many always-apply rules, four
files touched in one turn, a later turn in another area), at the default budget every
file touched this turn gets its nearest doc in full, and earlier turns' docs cannot push
it out."""

from __future__ import annotations

from pathlib import Path

import pytest

from providers.core.provider import contribute
from providers.markdown import strip_artifacts
from providers.scoped_docs.priority import RETIRE_AFTER
from providers.scoped_docs.provider import ScopedDocsProvider
from providers.scoped_docs.settings import DEFAULT_TOKEN_BUDGET
from tests.support.files import write
from tests.support.requests import COUNTER, request

PARAGRAPH = "Keep this rule in mind when you edit the code here. " * 6 + "\n\n"


def doc(title: str, paragraphs: int) -> str:
    return f"# {title}\n\n" + PARAGRAPH * paragraphs


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "agent"
    (root / ".git").mkdir(parents=True)
    # Deep nested docs on the way to one file (3-4 levels, each sizeable).
    for rel in (
        "internal/CLAUDE.md",
        "internal/telemetry/CLAUDE.md",
        "internal/telemetry/drivers/CLAUDE.md",
        "internal/telemetry/drivers/otlpgrpc/CLAUDE.md",
    ):
        write(root, rel, doc(rel, 4))
    for area in ("policy", "config", "registry", "kernelcallback"):
        write(root, f"internal/{area}/CLAUDE.md", doc(f"{area} rules", 3))
        write(root, f"internal/{area}/{area}.go", "package x\n")
    write(root, "internal/telemetry/drivers/otlpgrpc/otlpgrpc.go", "package x\n")
    # Many always-apply rules, alphabetically first.
    for i in range(6):
        write(root, f".clinerules/a{i}-always.md", doc(f"always {i}", 3))
    write(root, ".clinerules/go.md", "---\npaths: ['**/*.go']\n---\n" + doc("Go", 2))
    return root


def shown_in_full(result: object, root: Path, rel: str) -> bool:
    for section in result.sections:  # type: ignore[attr-defined]
        if section.label.startswith(rel + " ("):
            return section.text == strip_artifacts((root / rel).read_text()) and not (
                section.truncated
            )
    return False


def test_each_file_touched_this_turn_gets_its_nearest_doc_in_full(tree: Path) -> None:
    provider = ScopedDocsProvider(watcher_factory=None)
    provider.configure({"watch": False})
    try:
        deep = "internal/telemetry/drivers/otlpgrpc/otlpgrpc.go"
        first = contribute(provider, request(tree, (deep,), budget=DEFAULT_TOKEN_BUDGET), COUNTER)
        assert shown_in_full(first, tree, "internal/telemetry/drivers/otlpgrpc/CLAUDE.md")
        four = tuple(
            f"internal/{a}/{a}.go" for a in ("policy", "config", "registry", "kernelcallback")
        )
        second = contribute(
            provider, request(tree, (deep, *four), budget=DEFAULT_TOKEN_BUDGET), COUNTER
        )
        for area in ("policy", "config", "registry", "kernelcallback"):
            assert shown_in_full(second, tree, f"internal/{area}/CLAUDE.md"), area
        assert sum(s.tokens for s in second.sections) <= DEFAULT_TOKEN_BUDGET
        # The deep doc from turn 1 did not push them out; it is still named.
        index = second.sections[-1].text
        assert (
            "internal/telemetry/drivers/otlpgrpc/CLAUDE.md"
            in "".join(s.label for s in second.sections) + index
        )
    finally:
        provider.close()


def test_a_doc_not_needed_for_several_turns_retires_to_the_index(tree: Path) -> None:
    provider = ScopedDocsProvider(watcher_factory=None)
    provider.configure({"watch": False})
    try:
        touched: tuple[str, ...] = ("internal/policy/policy.go",)
        contribute(provider, request(tree, touched, budget=50_000), COUNTER)
        for i in range(RETIRE_AFTER):
            touched = (*touched, f"internal/config/f{i}.go")
            result = contribute(provider, request(tree, touched, budget=50_000), COUNTER)
        labels = [s.label for s in result.sections]
        assert not any(label.startswith("internal/policy/CLAUDE.md") for label in labels)
        assert "- internal/policy/CLAUDE.md: " in result.sections[-1].text
        assert "not needed for 3+ turns" in result.sections[-1].text
        again = contribute(provider, request(tree, touched, budget=50_000), COUNTER)
        assert again is result  # the same request gives the same answer
    finally:
        provider.close()
