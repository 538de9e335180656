"""providers.repository.wildmatch: gitignore lines as git reads them, and the module's API.

design.md principle 5: each heuristic once. The ignore rules, the scoped-docs
globs, their prefilter and the unmatched-pattern check all compile patterns
here. Whether a pattern means what git means is pinned against git itself
(``test_gitignore_cases.py``, ``test_gitignore_trees.py``); this file pins
the API, that no line ever fails, that the fast regexes (atomic groups)
match what plain backtracking would, that pathological patterns stay fast,
and that the pattern rules stay in this one module.
"""

from __future__ import annotations

import ast
import re
import time
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from providers.repository import wildmatch
from providers.repository.wildmatch import (
    Rule,
    RuleSet,
    compile_rules,
    joined,
    matcher,
    path_bytes,
)
from tests.conftest import REPO_ROOT

# Patterns of every kind gitignore(5) describes: floating, anchored, directory-only,
# "**" in each position, classes, escapes, negations, and lines git never matches.
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
    "a**/b",
    "[[:digit:]]*",
    "foo\\",
    "[abc",
]
PATHS = st.lists(st.sampled_from(["a", "b", "c", "build", "x.o", "keep.o", "docs", "x.md", "1"]))
PROPERTY = settings(max_examples=300, deadline=None)


def one(line: str) -> Rule:
    (rule,) = compile_rules([line])
    return rule


def test_compile_rules_skips_lines_that_are_no_patterns() -> None:
    """Empty, comments, blank once trailing spaces go, and what is empty once ``!`` and a
    trailing ``/`` go: git keeps those, but they match no name."""
    rules = compile_rules(["# c", "", "  ", "/", "!", "!/", "a\0b", "*.o", "!keep.o"])
    assert [rule.include for rule in rules] == [True, True, False]
    assert compile_rules([]) == []


def test_rule_set_pairs_every_line_with_its_entry() -> None:
    rules = RuleSet(["*.o", "/", "# c", "!keep.o"]).rules
    assert len(rules) == 4
    assert rules[1] is None and rules[2] is None
    assert rules[0] is not None and rules[0].include
    assert rules[3] is not None and not rules[3].include
    assert RuleSet([""]).rules == (None,)


def test_rule_set_decides_like_rule_globs() -> None:
    """The precedence rule globs have always had: the last line matching the path itself
    decides, else the last matching a directory above it; so a negation can take a file
    back out of an included directory."""
    rules = RuleSet(["src/**", "!src/gen/**"])
    assert rules.decide("src/a.py") is True
    assert rules.decide("src/gen/a.py") is False
    assert rules.decide("lib/a.py") is None
    assert rules.decide("/src/a.py") is True  # a leading "/" or "./" is dropped
    assert rules.decide("./src/gen/a.py") is False
    assert RuleSet(["!x.py", "src/"]).decide("src/x.py") is False  # the file itself wins
    assert RuleSet(["src/", "!src/x.py"]).decide("src/x.py") is False
    assert RuleSet(["!src/", "src/"]).decide("src/x.py") is True  # no line on the file
    assert RuleSet(["src/", "!src/"]).decide("src/x.py") is False
    assert RuleSet(["**", "!tests/"]).decide("tests/a.py") is True


@pytest.mark.parametrize(
    ("line", "path", "is_dir", "expected"),
    [
        ("*.o", "a.o", False, True),
        ("*.o", "a.o/b", False, False),  # only through the directory a.o
        ("build/", "build", True, True),
        ("build/", "build", False, False),  # a file named build
        ("build/", "build/x", False, False),
        ("*", "anything", False, True),
        ("a/**", "a/b", True, True),
        ("a/**", "a", True, False),
        ("abc/**/", "abc/f", False, False),  # issue 12: files directly in abc stay
        ("abc/**/", "abc/d", True, True),
        ("a**/b", "ab", False, True),  # git compares "a" itself, then "**/b" begins
        ("a**/b", "a/x/b", False, True),
        ("x[!a]y", "x/y", False, False),  # a class never matches "/"
        ("??", "\u00e9", False, True),  # bytes, not characters
        ("?", "\u00e9", False, False),
        ("[z-a]", "z", False, True),  # a range's first character is a member
        ("x\t", "x", False, False),  # tabs stay
        ("x\\  ", "x ", False, True),  # an escaped space stays, the rest go
        ("foo\\", "foo", False, False),  # git never matches these: neither do we
        ("[abc", "[abc", False, False),
        ("[[:foo:]]", "a", False, False),
    ],
)
def test_matches_entry_reads_lines_as_git_does(
    line: str, path: str, is_dir: bool, expected: bool
) -> None:
    assert one(line).matches_entry(path, is_dir) is expected


def test_matches_also_reaches_below_a_matching_directory() -> None:
    rule = one("build/")
    assert rule.matches("build/x")
    assert rule.matches("a/build/x/y")
    assert not rule.matches("build")
    assert one("*.o").matches("a.o/b")


def test_matcher_matches_one_pattern() -> None:
    test = matcher("src/*.py")
    assert test("src/a.py")
    assert test("./src/a.py")
    assert not test("lib/a.py")
    assert not matcher("!src/*.py")("src/a.py")
    assert not matcher("# comment")("# comment")


@PROPERTY
@given(st.text())
@example("[")
@example("foo\\")
@example("x\\ ")
@example("[z-a]")
@example("!")
@example("[[:")
@example("\ud800")
def test_no_line_ever_fails(line: str) -> None:
    """Every line compiles (issue 12): git accepts every line, so do we."""
    for rule in compile_rules([line]):
        rule.matches_entry("a/b", False)
        rule.matches("a/b")


PIECES = ["a", "b", "/", "*", "**", "?", "[ab]", "[!a]", "\\*", "[a-]"]


@PROPERTY
@given(
    st.lists(st.sampled_from(PIECES), min_size=1, max_size=9).map("".join),
    st.lists(st.sampled_from(["a", "b", "*", "/"]), max_size=12).map("".join),
)
@example("*a*a*b", "aaab")
@example("**/a/**/b", "a/a/b")
@example("a/**/*a*b/**/b", "a/x/ab/ab/b")
def test_the_fast_regexes_match_what_plain_backtracking_does(pattern: str, text: str) -> None:
    """Atomic groups for every ``*`` but a name's last, and every ``**`` but the last, keep
    matching fast; they must not change what matches."""
    data = path_bytes(text)
    for whole_path in (False, True):
        for start in range(len(pattern) + 1):
            fast = wildmatch._translate(path_bytes(pattern), whole_path, start)
            plain = wildmatch._translate(path_bytes(pattern), whole_path, start, fast=False)
            assert (fast is None) == (plain is None)
            if fast is None or plain is None:
                continue
            for end in ("\\Z", "(?:/|\\Z)"):
                quick = re.match((fast + end).encode(), data, re.DOTALL)
                slow = re.match((plain + end).encode(), data, re.DOTALL)
                assert bool(quick) == bool(slow), (pattern, text, whole_path, start, end)


@pytest.mark.parametrize(
    "line", ["*a" * 16, "x/" + "*a" * 16, "**/a/" * 15 + "c", "**/a/" * 12 + "*a*a*a*a/b/**"]
)
def test_pathological_patterns_stay_fast(line: str) -> None:
    """git's own exponential case (t3070) and a dozen ``**``: plain backtracking would take
    seconds to hours on one path; the walk meets every path."""
    rule = one(line)
    began = time.perf_counter()
    for text in ["a" * 60 + "b", "/".join(["a", "x"] * 30) + "/b", "a/" * 40 + "c"]:
        rule.matches_entry(text, False)
        rule.matches(text)
    assert time.perf_counter() - began < 0.5
    assert one("*a" * 16).matches_entry("ba" * 16, False)
    assert one("**/a/" * 12 + "c").matches_entry("a/x/" * 11 + "a/c", False)
    assert not one("**/a/" * 12 + "c").matches_entry("a/x/" * 11 + "c", False)


@PROPERTY
@given(PATHS.map("/".join))
def test_joined_is_the_plain_or(path: str) -> None:
    rules = [rule for rule in compile_rules(PATTERNS) if rule.include]
    combined = joined([rule.regex for rule in rules])
    assert combined is not None
    data = path_bytes(path)
    assert bool(combined.match(data)) == any(rule.regex.match(data) for rule in rules)


def test_joined_refuses_what_it_cannot_join() -> None:
    assert joined([]) is None
    assert joined([re.compile(rb"(a)\1")]) is None
    assert joined([re.compile(rb"(?P<x>a)(?P=x)")]) is None
    assert joined([re.compile(b"a"), re.compile(b"b", re.IGNORECASE)]) is None
    assert joined([re.compile(b"(?i)a"), re.compile(b"b")]) is None  # flags inside


def test_rules_compare_by_value() -> None:
    assert compile_rules(["*.o"]) == compile_rules(["*.o"])
    assert isinstance(one("*.o"), Rule)


def test_path_bytes_never_fails() -> None:
    assert path_bytes("a/\u00e9") == "a/\u00e9".encode()
    assert path_bytes("bad\udcff") == b"bad\xff"  # os.fsdecode's escape, undone
    assert path_bytes("\ud800") == "\ud800".encode("utf-8", "surrogatepass")


def test_the_pattern_rules_live_in_this_one_module() -> None:
    """No other module compiles ignore patterns: nothing imports pathspec (gone) or fnmatch,
    nor this module's private helpers."""
    offenders: list[str] = []
    own = Path(wildmatch.__file__).resolve()
    for path in sorted((REPO_ROOT / "providers").rglob("*.py")):
        if path.resolve() == own:
            continue
        rel = path.relative_to(REPO_ROOT)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                modules = [node.module or ""]
                if node.module == "providers.repository.wildmatch":
                    private = [a.name for a in node.names if a.name.startswith("_")]
                    offenders += [f"{rel}:{node.lineno} imports {name}" for name in private]
            else:
                continue
            offenders += [
                f"{rel}:{node.lineno} imports {module}"
                for module in modules
                if module.split(".")[0] in ("pathspec", "fnmatch")
            ]
    assert not offenders, offenders
