"""Each dialect's globs match as its own tool's library does (the generated case file says).

``tests/rules/data/glob_cases.txt`` holds what minimatch (Continue), picomatch
(Cline) and VS Code's glob (Copilot) answer for thousands of (pattern, path)
pairs; ``tests/rules/make_glob_cases.py`` regenerates it. Every line must
agree with our matcher, or fall under a :data:`DIFFERENCES` entry that says
why we chose otherwise.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from providers.core.provider import contribute
from providers.repository.sources import FileKey
from providers.repository.wildmatch import joined, path_bytes
from providers.rules.dialects import DIALECTS, ScopeKind
from providers.rules.flavours import MAX_PATTERN_CHARS, Flavour
from providers.rules.globs import GlobError, GlobSet, parse_globs
from providers.rules.load import Problem, Rule, default_reader, load_rule
from providers.rules.vscode_glob import compile_vscode, vscode_regex
from providers.scoped_docs.index import RuleIndex
from providers.scoped_docs.provider import ScopedDocsProvider
from providers.scoped_docs.sections import INDEX_LABEL
from tests.support.files import make_repo, write
from tests.support.requests import COUNTER, request, texts

CASES = Path(__file__).parent / "data" / "glob_cases.txt"
FLAVOURS = {
    "minimatch": Flavour.MINIMATCH,
    "picomatch": Flavour.PICOMATCH,
    "vscode": Flavour.VSCODE,
    "claude": Flavour.CLAUDE,
}
ERROR = "E"


@dataclass(frozen=True)
class Difference:
    """Where we answer otherwise than the tool's library, on purpose."""

    flavours: frozenset[str]
    applies: Callable[[str, str], bool]
    """(pattern, path) -> whether this difference covers the case."""
    ours: str
    """What we answer instead: "1", "0" or "E" (a Problem for the rule)."""
    reason: str


def _is(*patterns: str) -> Callable[[str, str], bool]:
    return lambda pattern, _path: pattern in patterns


ALL = frozenset(FLAVOURS)

DIFFERENCES: tuple[Difference, ...] = (
    Difference(
        ALL,
        _is("foo\\", "[z-a]", "**/[z-a].ts", "!"),
        ERROR,
        "a dangling backslash, a reversed range and a lone '!' are typos the libraries read "
        "as 'match nothing' (or, for '!', 'match everything'); we report the rule instead",
    ),
    Difference(
        frozenset(("minimatch", "claude")),
        lambda pattern, path: pattern.startswith("./"),
        "?",
        "a leading './' is dropped (authors mean the repository root); minimatch and Claude "
        "Code compare it literally and never match, picomatch drops it as we do",
    ),
    Difference(
        frozenset(("vscode",)),
        lambda pattern, path: pattern.startswith("./"),
        "?",
        "a leading './' is dropped as for every dialect; VS Code prefixes '**/' and then never "
        "matches the '.' segment",
    ),
    Difference(
        frozenset(("vscode",)),
        lambda pattern, path: _vscode_at_ws(pattern, path) != _vscode_at_ws(pattern, path, ""),
        "?",
        "VS Code matches the absolute path, so a pattern can take in part of the workspace "
        "folder's own path ('*/*' matches the top-level 'a.ts' through the folder's name, a "
        "negated class like '[!.]' its '/'); that depends on where the repository is checked "
        "out, so we match repo-relative paths only (the case file's workspace is /ws)",
    ),
)


def _vscode_at_ws(pattern: str, path: str, workspace: str = "/ws/") -> bool:
    """Our port of VS Code's glob on ``workspace + path``, as Copilot prepends ``**/``."""
    body = pattern.strip()
    if not body.startswith(("/", "**/")):
        body = "**/" + body
    regex = compile_vscode(vscode_regex(body, ignore_case=True))
    return regex.match(path_bytes(workspace + path)) is not None


def _cases() -> list[tuple[str, str, str, str]]:
    rows = []
    for line in CASES.read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            flavour, pattern, path, verdict = line.split("\t")
            rows.append((flavour, pattern, path, verdict))
    return rows


def ours(flavour: str, pattern: str, path: str) -> str:
    try:
        globs = GlobSet(parse_globs(pattern), FLAVOURS[flavour])
    except GlobError:
        return ERROR
    return "1" if globs.match(path) is not None else "0"


def _difference(flavour: str, pattern: str, path: str) -> Difference | None:
    for difference in DIFFERENCES:
        if flavour in difference.flavours and difference.applies(pattern, path):
            return difference
    return None


def test_case_file_is_large_and_covers_every_flavour() -> None:
    rows = _cases()
    assert len(rows) > 10_000
    assert {row[0] for row in rows} == set(FLAVOURS)


def test_every_case_matches_the_library_or_a_stated_difference() -> None:
    unexplained: list[str] = []
    used: set[str] = set()
    for flavour, pattern, path, verdict in _cases():
        got = ours(flavour, pattern, path)
        if got == verdict:
            continue
        difference = _difference(flavour, pattern, path)
        if difference is None or difference.ours not in ("?", got):
            unexplained.append(f"{flavour} {pattern!r} {path!r}: library {verdict}, ours {got}")
        else:
            used.add(difference.reason)
    assert unexplained == [], "\n".join(unexplained[:40])
    assert used == {d.reason for d in DIFFERENCES}, "a difference no case needs any more"


def test_agreement_rate_outside_the_differences() -> None:
    rows = _cases()
    agree = sum(1 for f, p, path, v in rows if ours(f, p, path) == v)
    assert agree / len(rows) > 0.95


# -- always-on forms ----------------------------------------------------------


@pytest.mark.parametrize("value", ["**", "*", "**/*", "src/**, **"])
def test_copilot_apply_to_everything_is_always(value: str) -> None:
    scope = DIALECTS["copilot"].interpret({"applyTo": value})
    assert scope.kind is ScopeKind.ALWAYS


def test_copilot_other_apply_to_is_globs_and_case_insensitive() -> None:
    scope = DIALECTS["copilot"].interpret({"applyTo": "src/*.ts"})
    assert scope.kind is ScopeKind.GLOBS
    globs = GlobSet(scope.patterns, DIALECTS["copilot"].flavour)
    assert globs.match("SRC/A.TS") is not None  # ignoreCase: true
    assert globs.match("lib/src/a.ts") is not None  # "**/" prepended
    assert globs.match("src/deep/a.ts") is None


@pytest.mark.parametrize(
    ("apply_to", "path", "applies"),
    [
        ("src/**/", "src/a.ts", True),  # VS Code drops the empty last segment: src/**
        ("src/**/", "lib/a.ts", False),
        ("src/**/**", "src/a.ts", False),  # the second ** is dropped: a path ending in "/"
        ("src/*/", "src/a.ts", True),
        ("src[!.]a.ts", "src/a.ts", True),  # a negated class matches a separator
        ("[!.]*", ".env", False),
        ("*[!.]", "src/a.ts", True),
        ("src/[!.]*", "src/.env", False),
    ],
)
def test_copilot_trailing_slashes_and_negated_classes_as_vscode(
    apply_to: str, path: str, applies: bool
) -> None:
    """Issue 23 item 8: VS Code's ``glob.ts`` decides (its verdicts are in the case file)."""
    scope = DIALECTS["copilot"].interpret({"applyTo": apply_to})
    globs = GlobSet(scope.patterns, DIALECTS["copilot"].flavour)
    assert (globs.match(path) is not None) is applies


def test_copilot_brace_label_names_the_alternative() -> None:
    globs = GlobSet(["src/*.{ts,tsx}"], DIALECTS["copilot"].flavour)
    found = globs.match("lib/src/a.tsx")
    assert found is not None and (found.written, found.expanded) == ("src/*.{ts,tsx}", "src/*.tsx")


def test_claude_paths_everything_is_always() -> None:
    assert DIALECTS["claude"].interpret({"paths": ["**"]}).kind is ScopeKind.ALWAYS
    assert DIALECTS["claude"].interpret({}).kind is ScopeKind.ALWAYS
    assert DIALECTS["claude"].interpret({"paths": ["src/**"]}).kind is ScopeKind.GLOBS


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "r")


def _load(root: Path, rel: str, dialect: str, text: str) -> Rule | Problem | None:
    write(root, rel, text)
    return load_rule(root, rel, DIALECTS[dialect], default_reader)


def test_cline_empty_paths_turns_the_rule_off(root: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="providers.rules.load")
    assert DIALECTS["cline"].interpret({"paths": []}).kind is ScopeKind.MANUAL
    assert _load(root, ".clinerules/off.md", "cline", "---\npaths: []\n---\nOFF\n") is None
    assert any("off.md" in r.getMessage() and r.levelno == logging.DEBUG for r in caplog.records)
    on = _load(root, ".clinerules/on.md", "cline", "---\ndescription: x\n---\nON\n")
    assert isinstance(on, Rule) and on.always


def test_cline_matches_dotfiles_and_negated_patterns() -> None:
    globs = GlobSet(["*.env", "!src/**"], DIALECTS["cline"].flavour)
    assert globs.match(".env") is not None  # dot: true
    assert globs.match("lib/a.py") is not None  # "!src/**" matches what is not under src
    assert globs.match("src/a.py") is None


def test_continue_negation_excludes_and_dotfiles_stay_out() -> None:
    globs = GlobSet(["**/*.ts", "!**/gen/**"], DIALECTS["continue"].flavour)
    assert globs.match("src/a.ts") is not None
    assert globs.match("src/gen/a.ts") is None
    assert globs.match(".hidden/a.ts") is None  # minimatch without dot: true


# -- crash cases: a Problem for that rule only --------------------------------

BAD = ["foo\\\\", "!", "[z-a]"]
"""As YAML double-quoted strings: ``foo\\``, ``!``, ``[z-a]``."""


@pytest.mark.parametrize("dialect", ["copilot", "cline", "claude", "continue", "cursor"])
@pytest.mark.parametrize("bad", BAD)
def test_bad_pattern_is_a_problem_for_that_rule_only(root: Path, dialect: str, bad: str) -> None:
    key = DIALECTS[dialect].glob_keys[0]
    folder = {
        "copilot": (".github/instructions", ".instructions.md"),
        "cline": (".clinerules", ".md"),
        "claude": (".claude/rules", ".md"),
        "continue": (".continue/rules", ".md"),
        "cursor": (".cursor/rules", ".mdc"),
    }[dialect]
    broken = _load(root, f"{folder[0]}/bad{folder[1]}", dialect, f'---\n{key}: "{bad}"\n---\nB\n')
    assert isinstance(broken, Problem), broken
    assert "not applied" in broken.note
    good = _load(root, f"{folder[0]}/good{folder[1]}", dialect, f'---\n{key}: "src/**"\n---\nG\n')
    assert isinstance(good, Rule) and good.match("src/a.py") is not None


def test_bad_pattern_through_the_provider(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    write(repo, ".github/instructions/bad.instructions.md", '---\napplyTo: "[z-a]"\n---\nBAD\n')
    write(repo, ".github/instructions/ok.instructions.md", '---\napplyTo: "src/**"\n---\nOKAY\n')
    write(repo, "src/a.py", "x\n")
    provider = ScopedDocsProvider()
    try:
        result = contribute(provider, request(repo, ("src/a.py",)), COUNTER)
    finally:
        provider.close()
    sections = texts(result)
    everything = "".join(sections.values())
    assert "OKAY" in everything and "BAD\n" not in everything
    notes = [line for line in sections[INDEX_LABEL].splitlines() if "bad.instructions.md" in line]
    assert len(notes) == 1 and "not applied" in notes[0] and "reversed" in notes[0]


# -- bounds --------------------------------------------------------------------


@pytest.mark.parametrize("flavour", list(Flavour))
def test_many_stars_stay_linear(flavour: Flavour) -> None:
    """``*a*a*...*b`` on a long name took seconds with naive ``[^/]*`` runs."""
    globs = GlobSet(["*a*a*a*a*a*a*a*a*a*a*a*a*b", "**/*a*a*a*a*a*a*b/**/*a*a*a*a*a*c"], flavour)
    started = time.monotonic()
    assert globs.match("a" * 300) is None
    assert globs.match("/".join(["a" * 60] * 20)) is None
    assert time.monotonic() - started < 1.0
    assert globs.match("xaaaaaaaaaaaab") is not None


@pytest.mark.parametrize("flavour", list(Flavour))
def test_overlong_pattern_is_refused(flavour: Flavour) -> None:
    with pytest.raises(GlobError):
        GlobSet(["a" * (MAX_PATTERN_CHARS + 1)], flavour)


def test_prefilter_never_misses_a_flavoured_rule() -> None:
    """The index joins inclusion regexes; case-insensitive and negated ones must survive that."""
    key = FileKey(0, 0, 0, 0)
    rules = [
        Rule("c.md", "copilot", "x", key, globs=GlobSet(["src/*.ts"], Flavour.VSCODE)),
        Rule("k.md", "cline", "x", key, globs=GlobSet(["!docs/**"], Flavour.PICOMATCH)),
        Rule("m.md", "continue", "x", key, globs=GlobSet(["*.md"], Flavour.MINIMATCH)),
        Rule("g.md", "cursor", "x", key, globs=GlobSet(["*.py"])),
    ]
    index = RuleIndex(rules, bucket_size=4)
    for path in ("SRC/A.TS", "lib/src/b.ts", "x.md", "docs/x.md", "a/b.py", "docs/a.py"):
        expected = {r.path for r in rules if r.match(path) is not None}
        assert expected <= {r.path for r in index.candidates(path)}, path


def test_every_flavour_joins_into_one_prefilter() -> None:
    regexes = [
        inclusion.regex
        for flavour in Flavour
        for inclusion in GlobSet(["src/*.ts", "!docs/**"], flavour).inclusions()
        if inclusion.regex is not None
    ]
    assert joined(regexes) is not None
