"""providers.core.wildmatch: pathspec's compiled patterns, and the shape we rely on.

design.md principle 5: each heuristic once. The ignore rules, the scoped-docs
prefilter and the unmatched-pattern check all use pathspec's compiled regexes
directly, which are pathspec's private shape. The first tests here talk to
pathspec itself and fail with a message naming what changed, so a pathspec
release that moves things breaks here, loudly, and not as wrong answers
somewhere else. The last test keeps pathspec inside the one module.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pathspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from providers.core import wildmatch
from providers.core.wildmatch import (
    PatternError,
    Rule,
    RuleSet,
    compile_rules,
    joined,
    matcher,
)
from tests.conftest import REPO_ROOT

CHANGED = "pathspec changed shape (providers/core/wildmatch.py relies on it): "
MARK = wildmatch.DIRECTORY_GROUP
# Patterns of every kind gitignore(5) describes: floating, anchored, directory-only,
# "**" in each position, classes, escapes, negations.
PATTERNS = [
    "*.o",
    "build/",
    "/target",
    "a/**",
    "**/a",
    "a/**/b",
    "a/**/b/",
    "docs/*.md",
    "*",
    "**",
    "**/",
    "*/",
    "[ab]/c",
    "a?b",
    "\\#x",
    "\\!x",
    "!keep.o",
    "!build/",
    "src/{x}",
]
PATHS = st.lists(st.sampled_from(["a", "b", "c", "build", "x.o", "keep.o", "docs", "x.md"]))
PROPERTY = settings(max_examples=200, deadline=None)


def pathspec_patterns(lines: list[str]) -> list[object]:
    return list(pathspec.GitIgnoreSpec.from_lines(lines).patterns)


# --- pathspec's shape ---------------------------------------------------------------


def test_from_lines_gives_one_pattern_per_non_empty_line() -> None:
    lines = ["# comment", "", "*.o", "   ", "/", "!keep.o", "", "build/"]
    patterns = pathspec_patterns(lines)
    expected = sum(1 for line in lines if line)
    assert len(patterns) == expected, (
        CHANGED + f"from_lines gave {len(patterns)} patterns for {expected} non-empty lines; "
        "RuleSet pairs patterns with lines by position"
    )
    includes = [getattr(p, "include", "missing") for p in patterns]
    assert includes == [None, True, None, None, False, True], (
        CHANGED + f"include flags are {includes}; comments and blank lines should be no-ops "
        "(None), negations False"
    )


@pytest.mark.parametrize("line", PATTERNS)
def test_each_pattern_has_a_compiled_str_regex(line: str) -> None:
    (pattern,) = pathspec_patterns([line])
    assert hasattr(pattern, "regex"), CHANGED + "pattern objects have no .regex attribute any more"
    regex = pattern.regex
    assert isinstance(regex, re.Pattern), CHANGED + f".regex is a {type(regex).__name__}"
    assert isinstance(regex.pattern, str), CHANGED + ".regex is not a str regex"
    assert regex.flags == re.compile("").flags, (
        CHANGED + f".regex has flags {regex.flags}; joined() needs equal flags"
    )


@pytest.mark.parametrize("line", PATTERNS)
def test_the_directory_group_is_the_only_name_and_closes_the_regex(line: str) -> None:
    (pattern,) = pathspec_patterns([line])
    source = pattern.regex.pattern
    names = set(pattern.regex.groupindex)
    assert names <= {MARK}, CHANGED + f"{line!r} compiles with group names {names}"
    assert source.count(f"(?P<{MARK}>") <= 1, CHANGED + f"{line!r} names {MARK} twice"
    if MARK in names:
        closes = source.endswith((f"(?P<{MARK}>/)", f"(?:(?P<{MARK}>/)|$)"))
        assert closes, CHANGED + f"{line!r} has {MARK} somewhere but at the end: {source}"
    assert not re.search(r"\\[1-9]|\(\?P=", source), CHANGED + f"{line!r} uses a backreference"


@pytest.mark.parametrize(
    ("line", "path", "through_directory"),
    [
        ("build/", "build/x", True),
        ("build/", "a/build/x/y", True),
        ("*.o", "a.o", False),
        ("*.o", "src/a.o", False),
        ("*.o", "a.o/b", True),
        ("/target", "target/x", True),
        ("a/**/b", "a/x/b", False),
    ],
)
def test_the_directory_group_marks_a_match_through_a_directory(
    line: str, path: str, through_directory: bool
) -> None:
    (pattern,) = pathspec_patterns([line])
    found = pattern.regex.search(path)
    assert found is not None, CHANGED + f"{line!r} no longer matches {path!r}"
    mark = found.groupdict().get(MARK)
    assert (mark is not None) == through_directory, (
        CHANGED
        + f"{line!r} on {path!r}: group {MARK} is {mark!r}, expected it "
        + ("to hold '/' (matched through a directory)" if through_directory else "to be unset")
    )
    if through_directory:
        assert mark == "/", CHANGED + f"group {MARK} holds {mark!r}, not '/'"


def test_a_directory_only_pattern_needs_the_slash() -> None:
    (pattern,) = pathspec_patterns(["build/"])
    assert pattern.regex.search("build") is None, (
        CHANGED + "'build/' matches 'build' without a '/': matches_entry reads that as a file"
    )


def test_check_file_and_match_file_keep_their_results() -> None:
    spec = pathspec.GitIgnoreSpec.from_lines(["*.o", "!keep.o"])
    assert spec.check_file("keep.o").include is False, CHANGED + "check_file().include changed"
    assert spec.check_file("a.o").include is True, CHANGED + "check_file().include changed"
    assert spec.check_file("a.py").include is None, CHANGED + "check_file().include changed"
    assert spec.match_file("a.o") is True, CHANGED + "match_file() no longer returns a bool"


def test_an_invalid_line_raises_a_value_error() -> None:
    with pytest.raises(ValueError):
        pathspec.GitIgnoreSpec.from_lines(["a\\"])


# --- the module's API ---------------------------------------------------------------


def test_compile_rules_skips_lines_that_are_no_patterns() -> None:
    rules = compile_rules(["# c", "", "  ", "/", "*.o", "!keep.o"])
    assert [rule.include for rule in rules] == [True, False]
    assert compile_rules([]) == []


def test_rule_set_pairs_every_line_with_its_entry() -> None:
    rules = RuleSet(["*.o", "/", "# c", "!keep.o"]).rules
    assert len(rules) == 4
    assert rules[1] is None and rules[2] is None
    assert rules[0] is not None and rules[0].include
    assert rules[3] is not None and not rules[3].include
    assert RuleSet([""]).rules == (None,)


def test_rule_set_decides_like_gitignore() -> None:
    rules = RuleSet(["src/**", "!src/gen/**"])
    assert rules.decide("src/a.py") is True
    assert rules.decide("src/gen/a.py") is False
    assert rules.decide("lib/a.py") is None


@pytest.mark.parametrize(
    ("line", "path", "is_dir", "expected"),
    [
        ("*.o", "a.o", False, True),
        ("*.o", "a.o/b", False, False),  # only through the directory a.o
        ("build/", "build", True, True),
        ("build/", "build", False, False),  # a file named build
        ("build/", "build/x", False, False),
        ("*", "anything", False, True),  # no directory group at all
        ("a/**", "a/b", True, True),
    ],
)
def test_matches_entry_never_goes_through_an_ancestor(
    line: str, path: str, is_dir: bool, expected: bool
) -> None:
    (rule,) = compile_rules([line])
    assert rule.matches_entry(path, is_dir) is expected


def test_matches_is_pathspecs_own_reading() -> None:
    (rule,) = compile_rules(["build/"])
    assert rule.matches("build/x")
    assert not rule.matches("build")


def test_invalid_lines_raise_pattern_error() -> None:
    for compile_one in (compile_rules, RuleSet, lambda lines: matcher(lines[0])):
        with pytest.raises(PatternError, match="Invalid git pattern"):
            compile_one(["a\\"])
    assert issubclass(PatternError, ValueError)


def test_matcher_matches_one_pattern() -> None:
    test = matcher("src/*.py")
    assert test("src/a.py")
    assert not test("lib/a.py")


@PROPERTY
@given(PATHS.map("/".join))
def test_joined_is_the_plain_or(path: str) -> None:
    rules = [rule for rule in compile_rules(PATTERNS) if rule.include]
    combined = joined([rule.regex for rule in rules])
    assert combined is not None
    assert bool(combined.match(path)) == any(rule.regex.match(path) for rule in rules)


def test_joined_refuses_what_it_cannot_join() -> None:
    assert joined([]) is None
    assert joined([re.compile(r"(a)\1")]) is None
    assert joined([re.compile(r"(?P<x>a)(?P=x)")]) is None
    assert joined([re.compile("a"), re.compile("b", re.IGNORECASE)]) is None
    assert joined([re.compile("(?i)a"), re.compile("b")]) is None  # flags inside: not joinable


def test_rules_compare_by_value() -> None:
    assert compile_rules(["*.o"]) == compile_rules(["*.o"])
    assert isinstance(compile_rules(["*.o"])[0], Rule)


# --- confinement --------------------------------------------------------------------


def test_only_wildmatch_imports_pathspec_or_names_its_group() -> None:
    """pathspec's shape stays in one module: no other module imports it or says ``ps_d``."""
    offenders: list[str] = []
    own = Path(wildmatch.__file__).resolve()
    for path in sorted((REPO_ROOT / "providers").rglob("*.py")):
        if path.resolve() == own:
            continue
        rel = path.relative_to(REPO_ROOT)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                modules = [node.module or ""]
            else:
                modules = []
                if isinstance(node, ast.Constant) and MARK in str(node.value):
                    offenders.append(f"{rel}:{node.lineno} names {MARK}")
            offenders.extend(
                f"{rel}:{node.lineno} imports {module}"
                for module in modules
                if module == "pathspec" or module.startswith("pathspec.")
            )
    assert not offenders, offenders
