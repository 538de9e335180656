"""git as the oracle for ignore rules: the case file's format, trees on disk, git's verdicts.

A case is an ignore file's content, one path below it, whether that path is
a directory, and git's verdict on it, as ``git check-ignore --no-index -v``
gives it: ``ignored`` (a pattern excludes the path or a directory above it),
``negated`` (the deciding pattern is a ``!`` one) or ``none`` (no pattern
decides).

The case file (``data/gitignore_cases.txt``) holds one case a line, four
fields separated by a tab::

    <ignore file content>  <path>  file|dir  ignored|negated|none

Lines starting with ``#`` are comments. A field is the bytes as written,
except: ``\\\\`` is a backslash, ``\\xNN`` is the byte NN (used for tabs,
newlines, other unprintable characters and bytes that are not UTF-8), and a
field starting with ``#`` starts ``\\x23``. The content may hold several
lines (``\\x0a`` between them) and is written to the file with a final
newline.

Every case is laid out in a directory of its own (``c<n>/.gitignore`` and
``c<n>/<path>``), so one ``git check-ignore`` answers them all and its
patterns are rooted where ours are: at the directory of their file.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from providers.repository.ignore import GITIGNORE, IgnoreRules, PatternSet, parse_patterns
from providers.repository.wildmatch import path_bytes

VERDICTS = ("ignored", "negated", "none")
KINDS = {"file": False, "dir": True}
CASES_FILE = Path(__file__).resolve().parent / "data" / "gitignore_cases.txt"
_ESCAPE = re.compile(rb"\\(\\|x[0-9a-f]{2})")


@dataclass(frozen=True)
class Case:
    content: bytes
    path: bytes
    is_dir: bool
    verdict: str = "none"


def encode_field(data: bytes) -> str:
    """Bytes as a field: printable text kept, backslash doubled, the rest ``\\xNN``."""
    out: list[str] = []
    for char in data.decode("utf-8", "surrogateescape"):
        if char == "\\":
            out.append("\\\\")
        elif char.isprintable():
            out.append(char)
        else:
            out.extend(f"\\x{b:02x}" for b in char.encode("utf-8", "surrogateescape"))
    text = "".join(out)
    return "\\x23" + text[1:] if text.startswith("#") else text


def decode_field(text: str) -> bytes:
    def one(found: re.Match[bytes]) -> bytes:
        return b"\\" if found[1] == b"\\" else bytes([int(found[1][1:], 16)])

    return _ESCAPE.sub(one, text.encode("utf-8"))


def format_case(case: Case) -> str:
    kind = "dir" if case.is_dir else "file"
    return "\t".join([encode_field(case.content), encode_field(case.path), kind, case.verdict])


def parse_cases(text: str) -> list[Case]:
    cases: list[Case] = []
    for number, line in enumerate(text.split("\n"), 1):
        if not line or line.startswith("#"):
            continue
        fields = line.split("\t")
        if len(fields) != 4 or fields[2] not in KINDS or fields[3] not in VERDICTS:
            raise ValueError(f"line {number}: not a case: {line!r}")
        content, path = decode_field(fields[0]), decode_field(fields[1])
        cases.append(Case(content, path, KINDS[fields[2]], fields[3]))
    return cases


def read_cases(path: Path = CASES_FILE) -> list[Case]:
    return parse_cases(path.read_text(encoding="utf-8"))


def case_dir(index: int) -> str:
    return f"c{index}"


def lay_out(root: Path, cases: Sequence[Case]) -> None:
    """Each case in ``root/c<n>``: its ignore file, its path (a file or a directory)."""
    base = path_bytes(str(root))
    for index, case in enumerate(cases):
        directory = os.path.join(base, path_bytes(case_dir(index)))
        os.makedirs(directory)
        with open(os.path.join(directory, path_bytes(GITIGNORE)), "wb") as handle:
            handle.write(case.content + b"\n")
        target = os.path.join(directory, case.path)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        if case.is_dir:
            os.makedirs(target, exist_ok=True)
        elif not os.path.lexists(target):
            with open(target, "wb"):
                pass


def isolated_env(home: Path) -> dict[str, str]:
    """git with no user or system config (no global excludes, no core.ignoreCase)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "XDG_"))}
    env.update(HOME=str(home), GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull)
    return env


def git_check_ignore(
    repo: Path, paths: Sequence[bytes], env: Mapping[str, str] | None = None
) -> list[str]:
    """git's verdict on each of ``paths`` (repo-relative), one ``check-ignore -v -n`` run."""
    done = subprocess.run(
        ["git", "-C", str(repo), "check-ignore", "--no-index", "-v", "-n", "-z", "--stdin"],
        input=b"".join(p + b"\0" for p in paths),
        capture_output=True,
        check=False,
        env=env,
    )
    assert done.returncode in (0, 1), done.stderr
    fields = done.stdout.split(b"\0")
    verdicts: list[str] = []
    for index, path in enumerate(paths):
        source, _line, pattern, echoed = fields[4 * index : 4 * index + 4]
        assert echoed == path, (echoed, path)
        if not source:
            verdicts.append("none")
        else:
            verdicts.append("negated" if pattern.startswith(b"!") else "ignored")
    return verdicts


def git_verdicts(
    root: Path, cases: Sequence[Case], env: Mapping[str, str] | None = None
) -> list[str]:
    """git's verdicts on ``cases``, laid out under ``root`` (made here, a new repository)."""
    root.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True, env=env)
    lay_out(root, cases)
    paths = [path_bytes(case_dir(i)) + b"/" + case.path for i, case in enumerate(cases)]
    return git_check_ignore(root, paths, env)


def rules_verdict(rules: IgnoreRules, rel: str, is_dir: bool) -> str:
    """Our verdict in git's terms: what ``check-ignore -v`` would report."""
    if rules.excluded_path(rel, is_dir):
        return "ignored"
    parent, _, name = rel.rpartition("/")
    return "negated" if rules.matcher(parent).decide(name, is_dir) is False else "none"


def pattern_set_verdict(lines: Iterable[str], rel: str, is_dir: bool) -> str:
    """The same verdict from :class:`PatternSet`, our own patterns rooted at one directory."""
    own = PatternSet(list(lines))
    if own.excluded_path(rel, is_dir):
        return "ignored"
    return "negated" if own.decide(rel, is_dir) is False else "none"


def content_lines(content: bytes) -> list[str]:
    """The content's lines as we read an ignore file (the file ends with a newline)."""
    return parse_patterns(content + b"\n")
