"""Glob values as tools write them, matched with gitignore semantics on repo-relative paths."""

from __future__ import annotations

import pytest

from providers.rules.braces import MAX_EXPANSIONS, expand_braces
from providers.rules.glob_match import specificity
from providers.rules.globs import GlobError, GlobSet, parse_globs


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (None, ()),
        ("src/**", ("src/**",)),
        ("src/**, lib/*.py", ("src/**", "lib/*.py")),
        ("src/**,lib/*.py,", ("src/**", "lib/*.py")),
        (["src/**", "lib/*.py"], ("src/**", "lib/*.py")),
        (["a/**, b/**", "c"], ("a/**", "b/**", "c")),
        ("*.{ts,tsx}", ("*.{ts,tsx}",)),  # the comma inside braces does not split
        ("./src/**", ("src/**",)),
        ("! ./gen/**", ("!gen/**",)),
        ("", ()),
        (["src/**", "src/**"], ("src/**",)),
    ],
)
def test_parse_globs_accepts_every_shape(value: object, expected: tuple[str, ...]) -> None:
    assert parse_globs(value) == expected


@pytest.mark.parametrize("value", [3, {"a": 1}, ["ok", 2], True])
def test_parse_globs_rejects_other_shapes(value: object) -> None:
    with pytest.raises(GlobError):
        parse_globs(value)


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        ("*.{ts,tsx}", ["*.ts", "*.tsx"]),
        (
            "src/{a,b}/**/*.{js,jsx}",
            ["src/a/**/*.js", "src/a/**/*.jsx", "src/b/**/*.js", "src/b/**/*.jsx"],
        ),
        ("{a,b{c,d}}.md", ["a.md", "bc.md", "bd.md"]),
        ("{only}.md", ["{only}.md"]),  # no comma: literal, as in bash
        ("{a,b.md", ["{a,b.md"]),  # unbalanced: literal
        ("plain/*.py", ["plain/*.py"]),
        ("{a,a}.md", ["a.md"]),
    ],
)
def test_brace_expansion(pattern: str, expected: list[str]) -> None:
    assert expand_braces(pattern) == expected


def test_brace_expansion_is_capped() -> None:
    pattern = "{a,b}{c,d}{e,f}{g,h}{i,j}{k,l}{m,n}{o,p}{q,r}"  # 512 alternatives
    assert MAX_EXPANSIONS < 2**9
    assert expand_braces(pattern) == [pattern]


def test_braces_match_each_alternative() -> None:
    globs = GlobSet(["*.{ts,tsx}"])
    assert globs.match("web/App.tsx") is not None
    assert globs.match("web/api.ts") is not None
    assert globs.match("web/api.js") is None
    found = globs.match("web/App.tsx")
    assert found is not None and found.written == "*.{ts,tsx}" and found.expanded == "*.tsx"


def test_pattern_without_slash_matches_at_any_depth() -> None:
    globs = GlobSet(["*.py"])
    for path in ("a.py", "src/a.py", "src/deep/er/a.py"):
        assert globs.match(path) is not None, path
    assert globs.match("a.pyc") is None


def test_pattern_with_slash_is_anchored_at_the_root() -> None:
    globs = GlobSet(["src/*.py"])
    assert globs.match("src/a.py") is not None
    assert globs.match("lib/src/a.py") is None
    assert globs.match("src/sub/a.py") is None


def test_double_star_spans_directories() -> None:
    globs = GlobSet(["src/**/test_*.py"])
    assert globs.match("src/test_a.py") is not None
    assert globs.match("src/x/y/test_a.py") is not None
    assert globs.match("tests/test_a.py") is None


def test_negation_excludes_what_an_earlier_pattern_included() -> None:
    globs = GlobSet(["src/**", "!src/gen/**"])
    assert globs.match("src/app.py") is not None
    assert globs.match("src/gen/models.py") is None


def test_negation_with_braces() -> None:
    globs = GlobSet(["**/*.ts", "!**/*.{test,spec}.ts"])
    assert globs.match("a/b.ts") is not None
    assert globs.match("a/b.test.ts") is None
    assert globs.match("a/b.spec.ts") is None


def test_only_negations_mean_everything_else() -> None:
    globs = GlobSet(["!docs/**"])
    assert globs.match("src/a.py") is not None
    assert globs.match("docs/a.md") is None


def test_hash_is_a_pattern_not_a_comment() -> None:
    globs = GlobSet(["#notes.md"])
    assert globs.match("#notes.md") is not None


def test_match_names_the_most_specific_including_pattern() -> None:
    globs = GlobSet(["**/*.py", "src/auth/**"])
    found = globs.match("src/auth/login.py")
    assert found is not None and found.written == "src/auth/**"
    found = globs.match("lib/x.py")
    assert found is not None and found.written == "**/*.py"


def test_an_inclusion_undone_by_a_later_exclusion_is_not_the_reason() -> None:
    globs = GlobSet(["src/auth/**", "!src/auth/gen/**", "**/*.py"])
    found = globs.match("src/auth/gen/x.py")
    assert found is not None and found.written == "**/*.py"


def test_specificity_orders_narrow_before_broad() -> None:
    """Deepest directory / most specific glob first: the order the labels promise."""
    ranked = [
        "src/auth/login.py",
        "src/auth/*.py",
        "src/auth/**",
        "src/**/*.py",
        "src/**",
        "*.py",
        "**",
    ]
    scores = [specificity(p) for p in ranked]
    assert scores == sorted(scores, reverse=True)
    assert len(set(scores)) == len(scores)


def test_specificity_counts_literal_leading_directories_only_when_anchored() -> None:
    assert specificity("src/auth/**")[0] == 2
    assert specificity("/Makefile")[0] == 1
    assert specificity("Makefile")[0] == 0  # floats: matches at any depth
    assert specificity("src/*/x/**")[0] == 1
