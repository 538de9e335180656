"""Which files Claude Code itself follows through its Bash tool: pure.

Claude Code attaches the nested ``CLAUDE.md`` files and the ``paths:`` rules of
``.claude/rules/`` when its Read tool reads a file, and also when a Bash command is one
it recognises as a plain read. Its recogniser (2.1.328, measured against the real
client and read in its code) is narrow:

- nothing at all when the command holds a pipe or a redirection (``|``, ``<``, ``>``);
- the command split at ``&&``, ``||`` and ``;``: each part must be one of the reads
  below, or ``echo``/``printf``/``true``/``:`` when there are several parts;
- ``cat`` (only ``-n``/``--number``), ``nl`` (no option), ``bat``/``batcat`` with one
  file; ``head``/``tail`` with ``-n N``, ``--lines=N``, ``-nN`` or ``-N`` and one file;
  ``sed -n 'N,Mp' FILE`` or ``sed -n 'Np' FILE`` (no ``-e``, no ``-i``); ``grep``,
  ``egrep``, ``fgrep`` or ``rg`` with a pattern and one file, only as the whole command.

So ``cat src/a.py`` brings ``src/CLAUDE.md`` and the matching rules, but
``nl -ba src/a.py | sed -n 1,40p`` or ``cd src && cat a.py`` brings nothing, and in no
case does Bash bring a nested ``AGENTS.md`` (Read does, without a root ``CLAUDE.md``).
The bridge reads every command with :func:`providers.clients.tool_paths.paths_from_shell`
and sends for the files Claude did not follow what a Read would have brought.
"""

from __future__ import annotations

import re
import shlex
from typing import Final

SEPARATORS: Final = frozenset({"&&", "||", ";"})
FILLERS: Final = frozenset({"echo", "printf", "true", ":"})
_SED_RANGE: Final = re.compile(r"^(\d+),(\d+)p$|^(\d+)p$")
_CAT_FLAGS: Final = {
    "cat": frozenset({"-n", "--number"}),
    "nl": frozenset(),
    "bat": frozenset({"-n", "--number", "-p", "--plain"}),
    "batcat": frozenset({"-n", "--number", "-p", "--plain"}),
}
_GREP_FLAGS: Final = re.compile(r"^-[niwxEFGPHh]+$")
_RG_FLAGS: Final = re.compile(r"^-[iSswxFnNHUP]+$")
_CONTEXT: Final = re.compile(r"^-[ABC]\d+$|^--(?:after-context|before-context|context)=\d+$")
_GREP_LONG: Final = frozenset(
    {
        "--line-number",
        "--ignore-case",
        "--word-regexp",
        "--line-regexp",
        "--extended-regexp",
        "--fixed-strings",
        "--basic-regexp",
        "--perl-regexp",
        "--with-filename",
        "--no-filename",
        "--color=never",
        "--color=auto",
    }
)
_RG_LONG: Final = frozenset(
    {
        "--ignore-case",
        "--smart-case",
        "--case-sensitive",
        "--word-regexp",
        "--line-regexp",
        "--fixed-strings",
        "--line-number",
        "--no-line-number",
        "--with-filename",
        "--no-filename",
        "--multiline",
        "--pcre2",
    }
)


def followed_by_claude(command: str) -> tuple[str, ...]:
    """The files Claude Code's Bash tool treats as read by ``command`` (as written:
    maybe relative), () when it recognises none."""
    if any(ch in command for ch in "|<>"):
        return ()
    parts = _split(command)
    if not parts:
        return ()
    found: list[str] = []
    for argv in parts:
        path = _sed(argv) or _cat(argv) or _head_tail(argv)
        if path is None and len(parts) == 1:
            path = _grep(argv)
        if path is not None:
            found.append(path)
        elif len(parts) > 1 and not (argv and argv[0] in FILLERS):
            return ()
    return tuple(dict.fromkeys(found))


def _split(command: str) -> list[list[str]]:
    try:
        lexer = shlex.shlex(command, posix=True, punctuation_chars="&;|")
        lexer.whitespace_split = True
        words = list(lexer)
    except ValueError:
        return []
    parts: list[list[str]] = [[]]
    for word in words:
        if word in SEPARATORS:
            parts.append([])
        elif word and set(word) <= set("&;|"):
            return []  # a background job, or a separator it does not know
        else:
            parts[-1].append(word)
    return [p for p in parts if p]


def _sed(argv: list[str]) -> str | None:
    if argv[0] != "sed":
        return None
    quiet = False
    operands: list[str] = []
    for word in argv[1:]:
        if word.startswith("--"):
            if word.startswith("--in-place") or word == "--expression":
                return None
            quiet |= word in ("--quiet", "--silent")
        elif word.startswith("-"):
            if "i" in word or word == "-e":
                return None
            quiet |= "n" in word
        else:
            operands.append(word)
    if not quiet or len(operands) != 2 or not _SED_RANGE.match(operands[0]):
        return None
    return operands[1]


def _cat(argv: list[str]) -> str | None:
    flags = _CAT_FLAGS.get(argv[0])
    if flags is None:
        return None
    path = None
    for word in argv[1:]:
        if word.startswith("-") and word != "-":
            if word not in flags:
                return None
        elif path is not None:
            return None
        else:
            path = word
    return None if path in (None, "-") else path


def _head_tail(argv: list[str]) -> str | None:
    if argv[0] not in ("head", "tail"):
        return None
    path = None
    words = iter(argv[1:])
    for word in words:
        if word in ("-n", "--lines"):
            count = next(words, None)
            if count is None or not count.isdigit():
                return None
        elif word.startswith("--lines="):
            if not word[8:].isdigit():
                return None
        elif re.fullmatch(r"-n?\d+", word):
            continue
        elif word.startswith("-") or path is not None:
            return None
        else:
            path = word
    return None if path in (None, "-") else path


def _grep(argv: list[str]) -> str | None:
    rg = argv[0] == "rg"
    if not rg and argv[0] not in ("grep", "egrep", "fgrep"):
        return None
    short, long = (_RG_FLAGS, _RG_LONG) if rg else (_GREP_FLAGS, _GREP_LONG)
    operands: list[str] = []
    words = iter(argv[1:])
    for word in words:
        if word.startswith("-") and word != "-":
            takes = ("-A", "-B", "-C") + (
                ("--after-context", "--before-context", "--context") if rg else ()
            )
            if word in takes:
                value = next(words, None)
                if value is None or not value.isdigit():
                    return None
            elif not (_CONTEXT.match(word) or short.match(word) or word in long):
                return None
            continue
        operands.append(word)
    if len(operands) != 2 or operands[1] == "-" or re.search(r"[*?[{]", operands[1]):
        return None
    return operands[1]
