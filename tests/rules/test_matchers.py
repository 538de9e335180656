"""One matcher per flavour behind one seam: what a leading ``!`` means differs by tool."""

from __future__ import annotations

import pytest

from providers.rules.flavours import Flavour, GlobTranslationError
from providers.rules.matchers import MATCHERS


def test_every_flavour_has_a_matcher() -> None:
    assert set(MATCHERS) == set(Flavour)


@pytest.mark.parametrize(
    ("flavour", "included", "excluded"),
    [
        (Flavour.GITIGNORE, ["src/a.ts"], ["src/gen/a.ts", "lib/a.ts"]),  # a later ! undoes
        (Flavour.MINIMATCH, ["src/a.ts"], ["src/gen/a.ts", "lib/a.ts"]),  # ! excludes
        (Flavour.PICOMATCH, ["src/a.ts", "lib/a.ts"], []),  # !p: whatever p does not match
        (Flavour.VSCODE, ["src/a.ts", "src/gen/a.ts"], ["lib/a.ts"]),  # ! is a character
    ],
)
def test_a_leading_bang_means_what_the_tool_says(
    flavour: Flavour, included: list[str], excluded: list[str]
) -> None:
    matcher = MATCHERS[flavour](["src/**", "!src/gen/**"])
    assert [p for p in included if matcher.match(p) is None] == []
    assert [p for p in excluded if matcher.match(p) is not None] == []


@pytest.mark.parametrize("flavour", list(Flavour))
def test_only_exclusions_and_typos(flavour: Flavour) -> None:
    """A typo is refused by every flavour; only exclusions leave something to match with
    (everything else, or, for VS Code, a pattern that starts with ``!``)."""
    with pytest.raises(GlobTranslationError):
        MATCHERS[flavour](["src/[z-a].ts"])
    assert MATCHERS[flavour](["!docs/**"])
    assert not MATCHERS[flavour]([])


@pytest.mark.parametrize("flavour", list(Flavour))
def test_inclusions_carry_the_pattern_as_written(flavour: Flavour) -> None:
    inclusions = MATCHERS[flavour](["*.{ts,tsx}"]).inclusions()
    assert [(i.written, i.expanded) for i in inclusions] == [
        ("*.{ts,tsx}", "*.ts"),
        ("*.{ts,tsx}", "*.tsx"),
    ]
    assert all(i.regex is not None for i in inclusions)
    floating = (Flavour.GITIGNORE, Flavour.VSCODE, Flavour.CLAUDE)
    assert {i.floats for i in inclusions} == {flavour in floating}
