"""Writes ``gitignore_cases.txt``: git's own verdicts on a corpus of ignore patterns.

Run from the repository root with the git to record::

    python -m tests.repository.data.make_gitignore_cases

The corpus (format: :mod:`tests.repository.gitignore_oracle`): every pattern/text
pair of git's ``t/t3070-wildmatch.sh`` read as an ignore line, with the text
as a path (and once more one directory deeper); the ignore files of git's
``t/t0008-ignores.sh``; the examples of gitignore(5); the cases issue 12
names; and generated combinations of every construct wildmatch knows (each
kind of bracket, class, escape, ``*``/``**``/``?``, anchoring, trailing
``/``, ``!``, trailing spaces and tabs) with paths made to match them, and
mutated to nearly match. Verdicts are git's, never expected values of ours:
``tests/repository/test_gitignore_cases.py`` checks ours against them and re-derives
them from the installed git.
"""

from __future__ import annotations

import random
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

from providers.repository.wildmatch import path_bytes
from tests.repository.gitignore_oracle import (
    CASES_FILE,
    Case,
    format_case,
    git_verdicts,
    isolated_env,
)

SEED = 12

# (text, pattern) as in git's t/t3070-wildmatch.sh, in its order.
WILDMATCH = [
    ("foo", "foo"),
    ("foo", "bar"),
    ("", ""),
    ("foo", "???"),
    ("foo", "??"),
    ("foo", "*"),
    ("foo", "f*"),
    ("foo", "*f"),
    ("foo", "*foo*"),
    ("foobar", "*ob*a*r*"),
    ("aaaaaaabababab", "*ab"),
    ("foo*", "foo\\*"),
    ("foobar", "foo\\*bar"),
    ("f\\oo", "f\\\\oo"),
    ("foo\\", "foo\\"),
    ("ball", "*[al]?"),
    ("ten", "[ten]"),
    ("ten", "**[!te]"),
    ("ten", "**[!ten]"),
    ("ten", "t[a-g]n"),
    ("ten", "t[!a-g]n"),
    ("ton", "t[!a-g]n"),
    ("ton", "t[^a-g]n"),
    ("a]b", "a[]]b"),
    ("a-b", "a[]-]b"),
    ("a]b", "a[]-]b"),
    ("aab", "a[]-]b"),
    ("aab", "a[]a-]b"),
    ("]", "]"),
    ("foo/baz/bar", "foo*bar"),
    ("foo/baz/bar", "foo**bar"),
    ("foobazbar", "foo**bar"),
    ("foo/baz/bar", "foo/**/bar"),
    ("foo/baz/bar", "foo/**/**/bar"),
    ("foo/b/a/z/bar", "foo/**/bar"),
    ("foo/b/a/z/bar", "foo/**/**/bar"),
    ("foo/bar", "foo/**/bar"),
    ("foo/bar", "foo/**/**/bar"),
    ("foo/bar", "foo?bar"),
    ("foo/bar", "foo[/]bar"),
    ("foo/bar", "foo[^a-z]bar"),
    ("foo/bar", "f[^eiu][^eiu][^eiu][^eiu][^eiu]r"),
    ("foo-bar", "f[^eiu][^eiu][^eiu][^eiu][^eiu]r"),
    ("foo", "**/foo"),
    ("XXX/foo", "**/foo"),
    ("bar/baz/foo", "**/foo"),
    ("bar/baz/foo", "*/foo"),
    ("foo/bar/baz", "**/bar*"),
    ("deep/foo/bar/baz", "**/bar/*"),
    ("deep/foo/bar/baz/", "**/bar/*"),
    ("deep/foo/bar/baz/", "**/bar/**"),
    ("deep/foo/bar", "**/bar/*"),
    ("deep/foo/bar/", "**/bar/**"),
    ("foo/bar/baz", "**/bar**"),
    ("foo/bar/baz/x", "*/bar/**"),
    ("deep/foo/bar/baz/x", "*/bar/**"),
    ("deep/foo/bar/baz/x", "**/bar/*/*"),
    ("acrt", "a[c-c]st"),
    ("acrt", "a[c-c]rt"),
    ("]", "[!]-]"),
    ("a", "[!]-]"),
    ("", "\\"),
    ("\\", "\\"),
    ("XXX/\\", "*/\\"),
    ("XXX/\\", "*/\\\\"),
    ("@foo", "@foo"),
    ("foo", "@foo"),
    ("[ab]", "\\[ab]"),
    ("[ab]", "[[]ab]"),
    ("[ab]", "[[:]ab]"),
    ("[ab]", "[[::]ab]"),
    ("[ab]", "[[:digit]ab]"),
    ("[ab]", "[\\[:]ab]"),
    ("?a?b", "\\??\\?b"),
    ("abc", "\\a\\b\\c"),
    ("foo", ""),
    ("foo/bar/baz/to", "**/t[o]"),
    ("a1B", "[[:alpha:]][[:digit:]][[:upper:]]"),
    ("a", "[[:digit:][:upper:][:space:]]"),
    ("A", "[[:digit:][:upper:][:space:]]"),
    ("1", "[[:digit:][:upper:][:space:]]"),
    ("1", "[[:digit:][:upper:][:spaci:]]"),
    (" ", "[[:digit:][:upper:][:space:]]"),
    (".", "[[:digit:][:upper:][:space:]]"),
    (".", "[[:digit:][:punct:][:space:]]"),
    ("5", "[[:xdigit:]]"),
    ("f", "[[:xdigit:]]"),
    ("D", "[[:xdigit:]]"),
    (
        "_",
        "[[:alnum:][:alpha:][:blank:][:cntrl:][:digit:][:graph:][:lower:][:print:][:punct:][:space:][:upper:][:xdigit:]]",
    ),
    (".", "[^[:alnum:][:alpha:][:blank:][:cntrl:][:digit:][:lower:][:space:][:upper:][:xdigit:]]"),
    ("5", "[a-c[:digit:]x-z]"),
    ("b", "[a-c[:digit:]x-z]"),
    ("y", "[a-c[:digit:]x-z]"),
    ("q", "[a-c[:digit:]x-z]"),
    ("]", "[\\\\-^]"),
    ("[", "[\\\\-^]"),
    ("-", "[\\-_]"),
    ("]", "[\\]]"),
    ("\\]", "[\\]]"),
    ("\\", "[\\]]"),
    ("ab", "a[]b"),
    ("a[]b", "a[]b"),
    ("ab[", "ab["),
    ("ab", "[!"),
    ("ab", "[-"),
    ("-", "[-]"),
    ("-", "[a-"),
    ("-", "[!a-"),
    ("-", "[--A]"),
    ("5", "[--A]"),
    (" ", "[ --]"),
    ("$", "[ --]"),
    ("-", "[ --]"),
    ("0", "[ --]"),
    ("-", "[---]"),
    ("-", "[------]"),
    ("j", "[a-e-n]"),
    ("-", "[a-e-n]"),
    ("a", "[!------]"),
    ("[", "[]-a]"),
    ("^", "[]-a]"),
    ("^", "[!]-a]"),
    ("[", "[!]-a]"),
    ("^", "[a^bc]"),
    ("-b]", "[a-]b]"),
    ("\\", "[\\]"),
    ("\\", "[\\\\]"),
    ("\\", "[!\\\\]"),
    ("G", "[A-\\\\]"),
    ("aaabbb", "b*a"),
    ("aabcaa", "*ba*"),
    (",", "[,]"),
    (",", "[\\\\,]"),
    ("\\", "[\\\\,]"),
    ("-", "[,-.]"),
    ("+", "[,-.]"),
    ("-.]", "[,-.]"),
    ("2", "[\\1-\\3]"),
    ("3", "[\\1-\\3]"),
    ("4", "[\\1-\\3]"),
    ("\\", "[[-\\]]"),
    ("[", "[[-\\]]"),
    ("]", "[[-\\]]"),
    ("-", "[[-\\]]"),
    ("-adobe-courier-bold-o-normal--12-120-75-75-m-70-iso8859-1", "-*-*-*-*-*-*-12-*-*-*-m-*-*-*"),
    ("-adobe-courier-bold-o-normal--12-120-75-75-X-70-iso8859-1", "-*-*-*-*-*-*-12-*-*-*-m-*-*-*"),
    ("-adobe-courier-bold-o-normal--12-120-75-75-/-70-iso8859-1", "-*-*-*-*-*-*-12-*-*-*-m-*-*-*"),
    (
        "XXX/adobe/courier/bold/o/normal//12/120/75/75/m/70/iso8859/1",
        "XXX/*/*/*/*/*/*/12/*/*/*/m/*/*/*",
    ),
    (
        "XXX/adobe/courier/bold/o/normal//12/120/75/75/X/70/iso8859/1",
        "XXX/*/*/*/*/*/*/12/*/*/*/m/*/*/*",
    ),
    ("abcd/abcdefg/abcdefghijk/abcdefghijklmnop.txt", "**/*a*b*g*n*t"),
    ("abcd/abcdefg/abcdefghijk/abcdefghijklmnop.txtz", "**/*a*b*g*n*t"),
    ("foo", "*/*/*"),
    ("foo/bar", "*/*/*"),
    ("foo/bba/arr", "*/*/*"),
    ("foo/bb/aa/rr", "*/*/*"),
    ("foo/bb/aa/rr", "**/**/**"),
    ("abcXdefXghi", "*X*i"),
    ("ab/cXd/efXg/hi", "*X*i"),
    ("ab/cXd/efXg/hi", "*/*X*/*/*i"),
    ("ab/cXd/efXg/hi", "**/*X*/**/*i"),
    ("foo", "fo"),
    ("foo/bar", "foo/bar"),
    ("foo/bar", "foo/*"),
    ("foo/bba/arr", "foo/*"),
    ("foo/bba/arr", "foo/**"),
    ("foo/bba/arr", "foo*"),
    ("foo/bba/arr", "foo**"),
    ("foo/bba/arr", "foo/*arr"),
    ("foo/bba/arr", "foo/**arr"),
    ("foo/bba/arr", "foo/*z"),
    ("foo/bba/arr", "foo/**z"),
    ("ab/cXd/efXg/hi", "*Xg*i"),
    ("a", "[A-Z]"),
    ("A", "[A-Z]"),
    ("A", "[a-z]"),
    ("a", "[a-z]"),
    ("a", "[[:upper:]]"),
    ("A", "[[:upper:]]"),
    ("A", "[[:lower:]]"),
    ("a", "[[:lower:]]"),
    ("A", "[B-Za]"),
    ("a", "[B-Za]"),
    ("A", "[B-a]"),
    ("a", "[B-a]"),
    ("z", "[Z-y]"),
    ("Z", "[Z-y]"),
]

# (ignore file lines, [(path, is_dir)]): t0008-ignores.sh, gitignore(5), issue 12.
FILES: list[tuple[list[str], list[tuple[str, bool]]]] = [
    # t0008: the top-level, a/ and a/b/ files of its set-up, each on its own
    (
        ["one", "ignored-*", "top-level-dir/"],
        [
            ("one", False),
            ("a/one", False),
            ("not-ignored", False),
            ("ignored-and-untracked", False),
            ("a/ignored-but-in-index", False),
            ("top-level-dir", True),
            ("top-level-dir/x", False),
            ("top-level-dir", False),
        ],
    ),
    (
        ["two*", "*three"],
        [
            ("two", False),
            ("twooo", False),
            ("three", False),
            ("3-three", False),
            ("b/twooo", False),
            ("threeX", False),
        ],
    ),
    (
        [
            "four",
            "five",
            "# this comment should affect the line numbers",
            "six",
            "ignored-dir/",
            "# and so should this blank line:",
            "",
            "!on*",
            "!two",
        ],
        [
            ("four", False),
            ("six", False),
            ("on", False),
            ("one", False),
            ("two", False),
            ("ignored-dir", True),
            ("ignored-dir/foo", False),
            ("ignored-dir/twoooo", False),
            ("seven", False),
        ],
    ),
    (["/git/"], [("git", True), ("git/foo", False), ("git-foo", True), ("git-foo/bar", False)]),
    (
        ["git/"],
        [
            ("git", True),
            ("git/foo", False),
            ("git-foo", True),
            ("git-foo/bar", False),
            ("x/git", True),
            ("x/git/y", False),
        ],
    ),
    (
        ["data/**", "!data/**/", "!data/**/*.txt"],
        [
            ("file", False),
            ("data/file", False),
            ("data/data1/file1", False),
            ("data/data1/file1.txt", False),
            ("data/data2/file2", False),
            ("data/data2/file2.txt", False),
            ("data/data1", True),
        ],
    ),
    (["foo**/bar"], [("foobar", False), ("foo/bar", False), ("foox/y/bar", False)]),
    (["whitespace/trailing   "], [("whitespace/trailing", False), ("whitespace/untracked", False)]),
    (
        ["whitespace/trailing\\ \\ "],
        [("whitespace/trailing  ", False), ("whitespace/trailing", False)],
    ),
    (["whitespace/trailing 1 \\    "], [("whitespace/trailing 1  ", False)]),
    (["whitespace/trailing 2 \\\\\\\\"], [("whitespace/trailing 2 \\\\", False)]),
    (["whitespace/trailing 3 \\\\\\\\ "], [("whitespace/trailing 3 \\\\", False)]),
    (["whitespace/trailing 4   \\\\\\    "], [("whitespace/trailing 4   \\ ", False)]),
    (["whitespace/trailing 5 \\\\ \\\\\\   "], [("whitespace/trailing 5 \\ \\ ", False)]),
    (["whitespace/trailing 6 \\\\a\\\\"], [("whitespace/trailing 6 \\a\\", False)]),
    # gitignore(5)
    (["doc/frotz/"], [("doc/frotz", True), ("a/doc/frotz", True), ("doc/frotz", False)]),
    (["frotz/"], [("frotz", True), ("a/frotz", True), ("frotz", False)]),
    (["doc/frotz"], [("doc/frotz", False), ("a/doc/frotz", False), ("doc/frotz/x", False)]),
    (["*.html", "!foo.html"], [("a.html", False), ("foo.html", False), ("d/foo.html", False)]),
    (["/*.c"], [("cat-file.c", False), ("mozilla-sha1/sha1.c", False)]),
    (["**/foo"], [("foo", False), ("a/foo", True), ("a/b/foo", False)]),
    (["**/foo/bar"], [("foo/bar", False), ("a/foo/bar", False), ("a/foo/x/bar", False)]),
    (["abc/**"], [("abc", True), ("abc/x", False), ("abc/x/y", False), ("x/abc/y", False)]),
    (["a/**/b"], [("a/b", False), ("a/x/b", False), ("a/x/y/b", False), ("ab", False)]),
    (["foo/*"], [("foo/test.json", False), ("foo/bar", True), ("foo/bar/hello.c", False)]),
    (
        ["/*", "!/foo", "/foo/*", "!/foo/bar"],
        [("foo/bar/x", False), ("foo/baz", False), ("other", False), ("foo", True)],
    ),
    (["hello.*"], [("hello.c", False), ("hello", False), ("d/hello.x", True)]),
    (["\\!important!.txt"], [("!important!.txt", False)]),
    (["\\#hash"], [("#hash", False)]),
    (["#hash"], [("#hash", False)]),
    # issue 12: brackets, classes, "**" in odd places, whitespace, what git never matches
    (["[!a]"], [("b", False), ("a", False), ("x/b", False)]),
    (["x[!a]y"], [("x/y", False), ("xby", False)]),
    (["abc/**/"], [("abc/f", False), ("abc/d", True), ("abc/d/e", True), ("abc/d/f", False)]),
    (["a**/b"], [("ab", False), ("a/b", False), ("ax/y/b", False), ("xa/b", False)]),
    (["x/a**/c"], [("x/ab/d/c", False), ("x/ac", False), ("x/a/c", False)]),
    (["x\t"], [("x\t", False), ("x", False)]),
    (["x\\ "], [("x ", False), ("x", False)]),
    (["x\\    "], [("x ", False), ("x  ", False)]),
    (["foo\\"], [("foo", False), ("foo\\", False)]),
    (["foo\\/"], [("foo", True), ("foo\\", True)]),
    (["!"], [("x", False)]),
    (["/"], [("x", False)]),
    (["!/"], [("x", True)]),
    (["[z-a]"], [("z", False), ("a", False), ("m", False)]),
    (["[z-a]b"], [("b", False), ("zb", False)]),
    (["[abc"], [("[abc", False), ("a", False)]),
    (["a["], [("a[", False)]),
    (["[\\]]"], [("]", False), ("\\", False)]),
    (["[a\\-z]"], [("-", False), ("b", False), ("a", False), ("z", False)]),
    (["[[:digit:]]"], [("5", False), ("x", False)]),
    (["[[:alpha:]]x"], [("bx", False), ("1x", False)]),
    (["[[:space:]]"], [("\x0b", False), ("\x0c", False), ("\r", False), (" ", False)]),
    (["??"], [("\u00e9", False)]),
    (["?"], [("\u00e9", False)]),
    (["[\u00e9]"], [("\u00e9", False)]),
    (["[\u00e9]?"], [("\u00e9", False)]),
    (["*", "!*/"], [("d", True), ("d/f", False), ("f", False)]),
    (["*.o", "!keep.o", "keep.o/"], [("keep.o", False), ("keep.o", True), ("a.o", False)]),
]

# Names for generated paths: spaces, trailing spaces, tabs, brackets, backslashes, glob
# characters, dots, unicode (composed and not), a newline, a byte that is not UTF-8.
NAMES = [
    "a",
    "b",
    "ab",
    "foo",
    "bar",
    "x y",
    "sp ",
    " lead",
    "tab\t",
    "back\\slash",
    "[x]",
    "br]",
    "star*",
    "q?",
    "!bang",
    "#hash",
    "a.b",
    ".hidden",
    "dot.",
    "..x",
    "-",
    "_",
    "\u00e9",
    "e\u0301",
    "\u65e5\u672c",
    "nl\nx",
    "bad\udcff",
    "A",
    "Z",
    "1",
]
BRACKETS = [
    ("[ab]", "a"),
    ("[!ab]", "c"),
    ("[^ab]", "a"),
    ("[a-c]", "b"),
    ("[z-a]", "z"),
    ("[]a]", "]"),
    ("[!]]", "]"),
    ("[]-a]", "^"),
    ("[[:alpha:]]", "Q"),
    ("[[:digit:][:space:]]", " "),
    ("[[:upper:]]", "\u00e9"),
    ("[[:punct:]]", "!"),
    ("[[:bogus:]]", "a"),
    ("[\\]]", "]"),
    ("[a\\-z]", "-"),
    ("[[]", "["),
    ("[[:a]", ":"),
    ("[--0]", "."),
    ("[ab", "a"),
    ("[\\", "\\"),
    ("[\u00e9]", "\u00e9"),
    ("[!\u00e9]", "x"),
    ("[[:space:]]", "\t"),
    ("[[:cntrl:]]", "\x7f"),
    ("[[:graph:]]", "~"),
    ("[!a]", "/"),
    ("[[:xdigit:]]", "F"),
    ("[[:lower:]]", "A"),
    ("[a-]", "-"),
    ("[[:]]", ":"),
    ("[[::]]", ":"),
    ("[!--/]", "."),
    ("[\\a-c]", "b"),
    ("[ --]", "$"),
    ("[*?]", "?"),
]
WHITESPACE = [" ", "  ", "\t", "\\ ", "\\  ", " \t", "\t ", "\\\t"]
SPECIAL = "*?[\\"


def escaped(name: str) -> str:
    return "".join("\\" + ch if ch in SPECIAL else ch for ch in name)


def element(rng: random.Random) -> tuple[str, str]:
    """One piece of a pattern and text it should match."""
    kind = rng.random()
    if kind < 0.35:
        name = rng.choice(NAMES)
        return escaped(name), name
    if kind < 0.5:
        return "*", rng.choice(["", "a", "x y", "\u00e9", "foo.b", "*"])
    if kind < 0.6:
        return "?", rng.choice(["a", " ", "-", "\u00e9", "?"])
    if kind < 0.7:
        return "**", rng.choice(["", "d", "d/e", "a b/\u00e9", "x"])
    if kind < 0.93:
        return rng.choice(BRACKETS)
    return rng.choice([("\\a", "a"), ("\\*", "*"), ("\\ ", " "), ("\\\\", "\\"), ("\\[", "[")])


def generated(rng: random.Random) -> tuple[str, list[tuple[str, bool]]]:
    """A pattern built from every construct, and paths that match it or nearly do."""
    segments: list[str] = []
    texts: list[str] = []
    for _ in range(rng.choice([1, 1, 2, 2, 3])):
        pieces = [element(rng) for _ in range(rng.choice([1, 1, 2, 3]))]
        segments.append("".join(p for p, _ in pieces))
        texts.append("".join(t for _, t in pieces))
    pattern = "/".join(segments)
    text = "/".join(texts)
    is_dir = False
    roll = rng.random()
    if roll < 0.15:
        pattern = "/" + pattern
    elif roll < 0.25:
        pattern = "**/" + pattern
        text = rng.choice(["", "d/", "d/e/"]) + text
    roll = rng.random()
    if roll < 0.2:
        pattern += "/"
        is_dir = True
    elif roll < 0.28:
        pattern += "/**"
        text += "/in"
    elif roll < 0.32:
        pattern += "\\"
    if rng.random() < 0.15:
        pattern += rng.choice(WHITESPACE)
    if rng.random() < 0.12:
        pattern = "!" + pattern
    elif pattern.startswith(("!", "#")) and rng.random() < 0.7:
        pattern = "\\" + pattern
    nearly = text[:-1] if len(text) > 1 else text + "z"
    paths = [
        (text, is_dir),
        (nearly, is_dir),
        (text, not is_dir),
        ("sub/" + text, is_dir),
        (text + "/in", False),
    ]
    return pattern, rng.sample(paths, 3)


def valid(path: str) -> bool:
    parts = path.split("/")
    return all(p and p not in (".", "..", ".git") and "\0" not in p for p in parts)


def corpus() -> Iterator[tuple[str, list[Case]]]:
    """(section title, its cases), without duplicates."""
    seen: set[Case] = set()

    def new(content: list[str], paths: list[tuple[str, bool]]) -> list[Case]:
        data = path_bytes("\n".join(content))
        found = []
        for path, is_dir in paths:
            case = Case(data, path_bytes(path), is_dir)
            if valid(path) and case not in seen:
                seen.add(case)
                found.append(case)
        return found

    cases: list[Case] = []
    for text, pattern in WILDMATCH:
        is_dir = text.endswith("/")
        text = text.removesuffix("/")
        cases += new([pattern], [(text, is_dir), ("x/" + text, is_dir)])
    yield "git's t/t3070-wildmatch.sh: each pattern on each text, and one directory deeper", cases
    cases = []
    for content, paths in FILES:
        cases += new(content, paths)
    yield "git's t/t0008-ignores.sh, gitignore(5), issue 12", cases
    rng = random.Random(SEED)
    cases = []
    for _ in range(480):
        pattern, paths = generated(rng)
        cases += new([pattern], paths)
    yield f"generated combinations (seed {SEED})", cases
    cases = []
    for _ in range(60):
        lines = [generated(rng)[0] for _ in range(rng.randint(2, 4))]
        lines = [line if rng.random() < 0.6 else "!" + line for line in lines]
        paths = [p for _, ps in (generated(rng) for _ in range(2)) for p in ps]
        cases += new(lines, paths[:4])
    yield f"generated files of several lines, negations among them (seed {SEED})", cases


def main() -> None:
    sections = list(corpus())
    everything = [case for _, cases in sections for case in cases]
    with tempfile.TemporaryDirectory() as tmp:
        env = isolated_env(Path(tmp))
        version = subprocess.run(
            ["git", "--version"], capture_output=True, text=True, check=True, env=env
        ).stdout.strip()
        verdicts = iter(git_verdicts(Path(tmp) / "cases", everything, env))
    patterns = {case.content for case in everything}
    lines = [
        f"# Ignore cases and {version}'s verdicts (git check-ignore --no-index -v).",
        "# Written by: python -m tests.repository.data.make_gitignore_cases (the corpus is there).",
        "# Format (tests/repository/gitignore_oracle.py): "
        "content TAB path TAB file|dir TAB verdict;",
        "# \\\\ is a backslash, \\xNN a byte, \\x0a between the content's lines.",
        f"# {len(everything)} cases, {len(patterns)} ignore files.",
    ]
    for title, cases in sections:
        lines += ["", f"# {title}"]
        for case in cases:
            lines.append(format_case(Case(case.content, case.path, case.is_dir, next(verdicts))))
    CASES_FILE.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"{CASES_FILE}: {len(everything)} cases, {len(patterns)} ignore files", file=sys.stderr)


if __name__ == "__main__":
    main()
