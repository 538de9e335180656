"""Gitignore lines compiled to regexes that mean exactly what git means: the one copy.

git reads a line (``dir.c``: ``add_patterns_from_buffer``, ``trim_trailing_spaces``,
``parse_path_pattern``) and matches it with ``wildmatch`` (``wildmatch.c``). We
translate both into one regex per line, so a walk or a thousand rule globs
cost one C-level regex call per path and rule. What git does, and so we do:

* a line is a C string: it ends at a NUL. An empty line or one starting with
  ``#`` is nothing; trailing spaces go unless escaped (``x\\ `` keeps one),
  tabs stay. One leading ``!`` negates, one trailing ``/`` means "directories
  only"; what is left empty (``!``, ``/``, spaces) matches no name.
* a pattern with no other ``/`` is matched against the last name of the path
  (any depth), every other one against the whole path from its base (one
  leading ``/`` dropped).
* matching is byte by byte on the path as the file system holds it
  (:func:`path_bytes`): ``?`` is one byte, not one character, so ``??``
  matches ``é``; nothing is case-folded (``core.ignoreCase`` is not read).
* ``?``, ``*`` and brackets never match ``/``; ``**`` matches across
  directories only as a whole name (``**/``, ``/**/``, ``/**``), else it is ``*``.
  git first compares the literal start of a path pattern and hands wildmatch
  the rest, which then begins there, so ``a**/b`` is ``a`` then ``**/b``:
  it matches ``ab``, ``a/b`` and ``ax/y/b``.
* brackets as wildmatch parses them: a ``]`` first is a member, ``\\`` escapes,
  a range's first character is a member before the range (``[z-a]`` matches
  ``z``), ``!`` or ``^`` negates, twelve ASCII POSIX classes (git's own ctype:
  ``[[:space:]]`` is tab, newline, CR and space), ``[:`` without ``:]`` is
  literal.
* a pattern wildmatch would abort on (a trailing ``\\``, an unclosed
  bracket, an unknown class) matches nothing; it still compiles, as a rule
  that never matches, so no line ever fails.

A :class:`Rule`'s regexes are ``re.match``-ed against :func:`path_bytes` of a
repo-relative POSIX path. ``tests/repository/data/gitignore_cases.txt`` holds
git's own verdicts on several hundred lines, and the tests compare with git
itself case by case and file for file.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

_NEVER = "(?!)"
_FLAGS = re.DOTALL  # "." is any byte: names may hold newlines
_NAMED_GROUP = re.compile(rb"\(\?P<[A-Za-z_][A-Za-z0-9_]*>")
_BACKREF = re.compile(rb"\\[1-9]|\(\?P=")
_SPECIAL = frozenset(b"*?[\\")
"""git's ``is_glob_special``: where the literal start of a pattern ends."""
_SLASH = ord("/")
_FS_ENCODING = sys.getfilesystemencoding()
_FS_ERRORS = sys.getfilesystemencodeerrors()


def _ascii(*spans: tuple[int, int]) -> frozenset[int]:
    return frozenset(b for lo, hi in spans for b in range(lo, hi + 1))


_UPPER = _ascii((0x41, 0x5A))
_LOWER = _ascii((0x61, 0x7A))
_DIGIT = _ascii((0x30, 0x39))
_CLASSES: dict[bytes, frozenset[int]] = {
    # git's sane ctype (ctype.c), ASCII only; isgraph and isblank are the C locale's.
    b"alnum": _UPPER | _LOWER | _DIGIT,
    b"alpha": _UPPER | _LOWER,
    b"blank": frozenset(b" \t"),
    b"cntrl": _ascii((0x00, 0x1F), (0x7F, 0x7F)),
    b"digit": _DIGIT,
    b"graph": _ascii((0x21, 0x7E)),
    b"lower": _LOWER,
    b"print": _ascii((0x20, 0x7E)),
    b"punct": _ascii((0x21, 0x2F), (0x3A, 0x40), (0x5B, 0x60), (0x7B, 0x7E)),
    b"space": frozenset(b" \t\n\r"),
    b"upper": _UPPER,
    b"xdigit": _DIGIT | _ascii((0x41, 0x46), (0x61, 0x66)),
}


def path_bytes(text: str) -> bytes:
    """``text`` as the file system spells it (``os.fsencode``), the bytes git matches.

    A lone surrogate ``os.fsencode`` refuses (no file can be named so; it can
    come from config) is kept as UTF-8 anyway: no pattern or path ever fails.
    """
    try:
        return text.encode(_FS_ENCODING, _FS_ERRORS)  # os.fsencode, without its checks
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogatepass")


def _trim_trailing_spaces(line: str) -> str:
    """git's ``trim_trailing_spaces``: spaces only, not tabs; ``\\ `` keeps its space."""
    if not line.endswith(" "):
        return line
    cut: int | None = None
    i = 0
    while i < len(line):
        if line[i] == " ":
            if cut is None:
                cut = i
        elif line[i] == "\\":
            i += 1
            if i == len(line):
                return line
            cut = None
        else:
            cut = None
        i += 1
    return line if cut is None else line[:cut]


def _literal(byte: int) -> str:
    return chr(byte) if chr(byte).isalnum() and byte < 0x80 else f"\\x{byte:02x}"


def _byte_class(members: Iterable[int]) -> str:
    """A regex class for exactly ``members``; never-matching when empty."""
    ordered = sorted(set(members))
    if not ordered:
        return _NEVER
    spans: list[str] = []
    start = prev = ordered[0]
    for byte in [*ordered[1:], -1]:
        if byte == prev + 1:
            prev = byte
            continue
        spans.append(f"\\x{start:02x}" + (f"-\\x{prev:02x}" if prev != start else ""))
        start = prev = byte
    return "[" + "".join(spans) + "]"


def _bracket(pattern: bytes, at: int) -> tuple[str, int] | None:
    """The class opened by ``[`` at ``at`` and the index after its ``]``; None: wildmatch aborts."""
    end = len(pattern)
    i = at + 1
    negated = i < end and pattern[i] in b"!^"
    if negated:
        i += 1
    members: set[int] = set()
    previous = 0  # wildmatch's prev_ch: 0 after a range or a class
    while True:  # the first member is read before looking for "]": "[]a]" holds "]"
        if i >= end:
            return None
        byte = pattern[i]
        if byte == 0x5C:  # backslash: the next byte, whatever it is
            i += 1
            if i >= end:
                return None
            byte = pattern[i]
            members.add(byte)
        elif byte == 0x2D and previous and i + 1 < end and pattern[i + 1] != 0x5D:
            i += 1
            last = pattern[i]
            if last == 0x5C:
                i += 1
                if i >= end:
                    return None
                last = pattern[i]
            members.update(range(previous, last + 1))  # empty when reversed
            byte = 0
        elif byte == 0x5B and i + 1 < end and pattern[i + 1] == 0x3A:  # "[:"
            close = pattern.find(b"]", i + 2)
            if close < 0:
                return None
            if close - (i + 2) < 1 or pattern[close - 1] != 0x3A:
                members.add(byte)  # no ":]": a literal "[", read on from the ":"
            else:
                found = _CLASSES.get(pattern[i + 2 : close - 1])
                if found is None:
                    return None
                members.update(found)
                i = close
                byte = 0
        else:
            members.add(byte)
        previous = byte
        i += 1
        if i < end and pattern[i] == 0x5D:
            break
    chosen = set(range(256)) - members if negated else members
    chosen.discard(_SLASH)  # with WM_PATHNAME a class never matches "/"
    return _byte_class(chosen), i + 1


def _name_part(runs: list[list[str]], fast: bool) -> str:
    """One name's stretch of pattern: ``runs`` are the one-byte pieces between its ``*``.

    Every ``*`` but the last takes the shortest text after which the next run
    matches, and keeps it (an atomic group): where each run matches exactly
    one byte per piece, the leftmost fit is never worse, and regex
    backtracking over several stars would be exponential (git's own
    ``*a*a*a*a*a*a*a*a`` test). The last ``*`` backtracks as usual: what
    follows must end the name.
    """
    if len(runs) == 1:
        return "".join(runs[0])
    if not fast:  # the plain translation, for tests of this one
        return "[^/]*".join("".join(run) for run in runs)
    first, *middle, last = runs
    kept = "".join(f"(?>[^/]*?{''.join(run)})" for run in middle)
    return "".join(first) + kept + "[^/]*" + "".join(last)


_DIRS = ("(?:.*/)?", "(?:.*?/)??")
"""``**/``: no directory, or any run of them (greedy, and shortest first)."""
_ANY = (".*", ".*?")
"""``**`` at the end, or before ``\\/``: anything."""


def _spans(parts: Sequence[str | tuple[str, str]], fast: bool) -> str:
    """Joins ``parts``; every ``**`` but the last takes the shortest fit and keeps it.

    What comes between two ``**`` matches a fixed number of whole names, so
    its leftmost fit leaves the most for the rest, which starts with ``**``
    and can take up any slack: nothing is lost, and backtracking over every
    way to place a dozen ``**/a/`` in a deep path is gone.
    """
    stars: list[tuple[str, str]] = []
    stretches: list[list[str]] = [[]]  # the fixed parts before, between and after them
    for part in parts:
        if isinstance(part, str):
            stretches[-1].append(part)
        else:
            stars.append(part)
            stretches.append([])
    out = ["".join(stretches[0])]
    for number, (star, stretch) in enumerate(zip(stars, stretches[1:], strict=True), 1):
        fixed = "".join(stretch)
        greedy, shortest = star
        last = number == len(stars)
        out.append(greedy + fixed if last or not fast else f"(?>{shortest}{fixed})")
    return "".join(out)


def _translate(pattern: bytes, whole_path: bool, start: int, fast: bool = True) -> str | None:
    """Regex source for wildmatch's ``pattern``; None when it can never match.

    ``whole_path``: matched with WM_PATHNAME against a path (``**`` may span
    directories), else against one name. ``start`` is where git's wildmatch
    call begins (after the literal start it compared itself): ``**`` there
    counts as at the beginning. ``fast`` False: no atomic groups, the same
    language by plain backtracking.
    """
    parts: list[str | tuple[str, str]] = []
    runs: list[list[str]] = [[]]  # the current name's pieces, split at each "*"

    def end_of_name(boundary: str | tuple[str, str]) -> None:
        parts.append(_name_part(runs, fast))
        parts.append(boundary)
        runs[:] = [[]]

    i, end = 0, len(pattern)
    while i < end:
        byte = pattern[i]
        if byte == 0x5C:
            if i + 1 == end:
                return None  # escapes nothing: wildmatch compares with the NUL
            i += 2
            if pattern[i - 1] == _SLASH:
                end_of_name("/")
            else:
                runs[-1].append(_literal(pattern[i - 1]))
        elif byte == _SLASH:
            end_of_name("/")
            i += 1
        elif byte == 0x3F:
            runs[-1].append("[^/]")
            i += 1
        elif byte == 0x2A:
            j = i
            while j < end and pattern[j] == 0x2A:
                j += 1
            whole = (
                whole_path
                and j - i >= 2
                and (i == start or pattern[i - 1] == _SLASH)
                and (j == end or pattern[j] == _SLASH or pattern[j : j + 2] == b"\\/")
            )
            if not whole:
                runs.append([])
            elif j < end and pattern[j] == _SLASH:
                end_of_name(_DIRS)
                j += 1
            else:
                end_of_name(_ANY)
            i = j
        elif byte == 0x5B:
            found = _bracket(pattern, i)
            if found is None:
                return None
            source, i = found
            runs[-1].append(source)
        else:
            runs[-1].append(_literal(byte))
            i += 1
    parts.append(_name_part(runs, fast))
    return _spans(parts, fast)


@dataclass(frozen=True, slots=True)
class Rule:
    """A gitignore line that is a pattern: whether it includes (``!`` excludes), its regexes."""

    include: bool
    dir_only: bool
    """A trailing ``/``: only directories match (a symlink is no directory)."""
    regex: re.Pattern[bytes]
    """``re.match`` it: the path itself matches, or a directory above it does."""
    entry: re.Pattern[bytes]
    """``re.match`` it: the path itself matches (check ``dir_only`` too)."""

    def hits(self, data: bytes, is_dir: bool) -> bool:
        """:meth:`matches_entry` for a path already in :func:`path_bytes`."""
        return (is_dir or not self.dir_only) and self.entry.match(data) is not None

    def matches(self, path: str) -> bool:
        """The reading rule globs use: ``path`` matches, or lies below a directory that does."""
        return self.regex.match(path_bytes(path)) is not None

    def matches_entry(self, path: str, is_dir: bool) -> bool:
        """git's reading: the entry ``path`` itself matches, never through an ancestor.

        git does not match a pattern against an ancestor directory; it just
        does not descend into an excluded one.
        """
        return self.hits(path_bytes(path), is_dir)


def _rule(line: str) -> Rule | None:
    """The rule of one gitignore line; None when it is none (empty, a comment, nothing left)."""
    line = line.partition("\0")[0]
    if not line or line.startswith("#"):
        return None
    line = _trim_trailing_spaces(line)
    include = not line.startswith("!")
    body = line if include else line[1:]
    dir_only = body.endswith("/")
    if dir_only:
        body = body[:-1]
    if not body:
        return None  # git keeps it, but an empty pattern matches no name
    pattern = path_bytes(body)
    if _SLASH in pattern:
        pattern = pattern.removeprefix(b"/")
        start = next((i for i, b in enumerate(pattern) if b in _SPECIAL), len(pattern))
        core = _translate(pattern, True, start)
        head = ""
    else:
        core = _translate(pattern, False, 0)
        head = "(?:[^/]*/)*"  # any directories above the name
    if core is None:
        never = re.compile(_NEVER.encode(), _FLAGS)
        return Rule(include, dir_only, never, never)
    below = "/" if dir_only else "(?:/|\\Z)"
    # The last name only: no backtracking into the directories ("*+").
    entry = ("(?:[^/]*/)*+" if head else "") + core + "\\Z"
    return Rule(
        include,
        dir_only,
        re.compile((head + core + below).encode(), _FLAGS),
        re.compile(entry.encode(), _FLAGS),
    )


def compile_rules(lines: Iterable[str]) -> list[Rule]:
    """The patterns among gitignore ``lines``, in order; comments and blank lines give none."""
    return [rule for rule in map(_rule, lines) if rule is not None]


def _normalised(path: str) -> str:
    """As rule globs always read paths: one leading ``/`` or ``./`` dropped."""
    if path.startswith("/"):
        return path[1:]
    return path.removeprefix("./")


class RuleSet:
    """Gitignore lines with one entry each, decided the way rule globs decide.

    For callers that must know which line matched: ``rules[i]`` belongs to
    ``lines[i]`` (``None`` where the line is no pattern: empty, a comment, a
    lone ``/``).
    """

    __slots__ = ("rules",)

    def __init__(self, lines: Sequence[str]) -> None:
        self.rules: tuple[Rule | None, ...] = tuple(map(_rule, lines))

    def decide(self, path: str) -> bool | None:
        """True: included; False: excluded by a later negation; None: no line matches.

        Each line matches exactly as in git; the precedence is the one rule
        globs have always had (pathspec's ``GitIgnoreSpec``), not git's
        directory walk: the last line that matches the path itself decides,
        else the last one that matches a directory above it. So ``src/**``
        then ``!src/gen/**`` leaves ``src/gen/x.py`` out, where git would
        not look inside ``src/gen`` to re-include anything.
        """
        data = path_bytes(_normalised(path))
        through: bool | None = None
        for rule in reversed(self.rules):
            if rule is None or rule.regex.match(data) is None:
                continue
            if rule.hits(data, False):
                return rule.include
            if through is None:
                through = rule.include
        return through


def matcher(pattern: str) -> Callable[[str], bool]:
    """Whether a path matches the one gitignore ``pattern``, itself or through a directory."""
    rule = _rule(pattern)
    if rule is None or not rule.include:
        return lambda _path: False
    regex = rule.regex
    return lambda path: regex.match(path_bytes(_normalised(path))) is not None


def joined(regexes: Sequence[re.Pattern[bytes]]) -> re.Pattern[bytes] | None:
    """One regex that matches wherever any of ``regexes`` does, or ``None`` if it cannot be had.

    Group names go (the same name twice in one regex is an error, and a
    yes/no test needs no capture); a backreference would point elsewhere
    once joined, so it refuses; so do regexes with different flags.
    """
    if not regexes or len({regex.flags for regex in regexes}) != 1:
        return None
    sources: list[bytes] = []
    for regex in regexes:
        if _BACKREF.search(regex.pattern):
            return None
        sources.append(_NAMED_GROUP.sub(b"(?:", regex.pattern))
    try:
        return re.compile(b"|".join(b"(?:" + source + b")" for source in sources), regexes[0].flags)
    except re.error:
        return None
