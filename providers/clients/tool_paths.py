"""The files a hook's tool call names: a file tool's path keys, an ``apply_patch`` body's
headers, a shell command's file arguments (Codex's shell, Claude Code's ``Bash``, Gemini
CLI's ``run_shell_command``), read only where the words can be read with certainty.
Pure: no I/O.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from typing import Any, Final

from providers.clients.facts import FACTS


def paths_from_tool_input(
    client: str, tool_name: str, tool_input: Mapping[str, Any]
) -> tuple[str, ...]:
    """The file paths a tool call names (as the model wrote them: maybe relative), or ()
    when the tool is not a file tool or its input cannot be read with certainty."""
    for tool in FACTS[client].file_tools:
        if tool.name != tool_name:
            continue
        if tool.kind == "paths":
            return tuple(
                value for key in tool.path_keys if isinstance(value := tool_input.get(key), str)
            )
        command = tool_input.get("command")
        if tool.kind == "shell":
            if isinstance(command, list) and all(isinstance(a, str) for a in command):
                return paths_from_argv(command)
            return paths_from_shell(command) if isinstance(command, str) else ()
        patch = command if isinstance(command, str) else tool_input.get("patch")
        return paths_from_patch(patch) if isinstance(patch, str) else ()
    return ()


PATCH_HEADERS: Final = ("*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: ")
"""Codex's patch format names each file on one of these lines."""


def paths_from_patch(patch: str) -> tuple[str, ...]:
    """The files a Codex ``apply_patch`` patch adds, updates, deletes or moves to."""
    found: list[str] = []
    for line in patch.splitlines():
        for header in PATCH_HEADERS:
            if line.startswith(header) and (path := line[len(header) :].strip()):
                found.append(path)
    return tuple(dict.fromkeys(found))


SHELLS: Final = frozenset({"bash", "sh", "zsh", "dash"})
CONNECTORS: Final = frozenset({"|", "||", "&&", ";"})
# Options that take a value as the next word, per reader; other short options are flags.
VALUE_OPTIONS: Final[Mapping[str, frozenset[str]]] = {
    "cat": frozenset(),
    "head": frozenset({"-n", "-c", "--lines", "--bytes"}),
    "tail": frozenset({"-n", "-c", "--lines", "--bytes"}),
    "nl": frozenset({"-b", "-d", "-f", "-h", "-i", "-l", "-n", "-s", "-v", "-w"}),
    "sed": frozenset({"-e", "-f", "-l", "--expression", "--file", "--line-length"}),
    "grep": frozenset(
        {
            "-e",
            "-f",
            "-m",
            "-A",
            "-B",
            "-C",
            "-d",
            "-D",
            "--regexp",
            "--file",
            "--max-count",
            "--include",
            "--exclude",
            "--exclude-dir",
            "--context",
            "--after-context",
            "--before-context",
        }
    ),
    "rg": frozenset(
        {
            "-e",
            "-f",
            "-g",
            "-t",
            "-T",
            "-m",
            "-A",
            "-B",
            "-C",
            "-M",
            "-d",
            "-E",
            "-r",
            "-j",
            "--regexp",
            "--file",
            "--glob",
            "--iglob",
            "--type",
            "--type-not",
            "--max-count",
            "--max-depth",
            "--context",
            "--after-context",
            "--before-context",
            "--replace",
            "--threads",
            "--max-columns",
            "--sort",
            "--sortr",
            "--encoding",
            "--color",
        }
    ),
}
# Long options known to take no value; any other long option without "=" is not understood.
LONG_FLAGS: Final = frozenset(
    {
        "--quiet",
        "--silent",
        "--number",
        "--show-all",
        "--line-number",
        "--no-heading",
        "--heading",
        "--hidden",
        "--no-ignore",
        "--ignore-case",
        "--smart-case",
        "--fixed-strings",
        "--word-regexp",
        "--files-with-matches",
        "--count",
        "--with-filename",
        "--no-filename",
        "--recursive",
        "--json",
        "--vimgrep",
        "--follow",
        "--files",
        "--multiline",
        "--column",
        "--invert-match",
        "--only-matching",
        "--extended-regexp",
        "--regexp-extended",
        "--posix",
        "--null-data",
        "--separate",
        "--unbuffered",
        "--no-messages",
        "--case-sensitive",
    }
)
PATTERN_OPTIONS: Final = frozenset({"-e", "-f", "--regexp", "--file", "--expression", "--files"})
"""Options after which a sed script or grep/rg pattern is no longer the first operand."""


def paths_from_shell(command: str) -> tuple[str, ...]:
    """The files a shell command reads, for the conservative forms only.

    Codex reads files by shell (``cat src/a.py``, ``sed -n '1,80p' src/a.py``,
    ``nl -ba src/a.py | sed -n 1,40p``, ``rg -n foo src``: operands may be directories).
    Anything with an unquoted variable, substitution, glob or ``~``, a redirection or
    subshell, ``cd``, an edit (``sed -i``) or a command outside cat, head, tail, nl, sed,
    grep and rg gives no path at all: a wrong path would scope context to the wrong file,
    a missed one only leaves it out.
    """
    if _has_unquoted_expansion(command):
        return ()
    try:
        lexer = shlex.shlex(command, posix=True, punctuation_chars="|&;<>()")
        lexer.whitespace_split = True
        words = list(lexer)
    except ValueError:
        return ()
    found: list[str] = []
    simple: list[str] = []
    for word in [*words, ";"]:
        if word in CONNECTORS:
            paths = _argv_paths(simple) if simple else []
            if paths is None:
                return ()
            found += paths
            simple = []
        elif word and set(word) <= set("|&;<>()"):
            return ()  # a redirection, a subshell or a background job
        else:
            simple.append(word)
    return tuple(dict.fromkeys(found))


def _has_unquoted_expansion(command: str) -> bool:
    """Whether the shell would expand something in ``command`` (outside single quotes:
    ``$`` and backquotes; outside any quotes: globs, braces, a leading ``~``)."""
    quote = ""
    previous = " "
    escaped = False
    for ch in command:
        if escaped:
            escaped = False
        elif quote == "'":
            quote = "" if ch == "'" else quote
        elif ch == "\\":
            escaped = True
        elif ch in "$`":
            return True
        elif quote == '"':
            quote = "" if ch == '"' else quote
        elif ch in "'\"":
            quote = ch
        elif ch in "*?[{" or (ch == "~" and previous in " \t=:"):
            return True
        previous = ch
    return False


def paths_from_argv(argv: Sequence[str]) -> tuple[str, ...]:
    """:func:`paths_from_shell` for a command already split into words (no shell
    expansion happens to them), e.g. ``["bash", "-lc", "cat src/a.py"]``."""
    result = _argv_paths(list(argv))
    return () if result is None else tuple(dict.fromkeys(result))


def _argv_paths(argv: list[str]) -> list[str] | None:
    """Paths one simple command reads; [] for a command that reads none from its
    arguments (a filter in a pipe), None when the command is not understood."""
    name = argv[0].rsplit("/", 1)[-1] if argv else ""
    if name in SHELLS and len(argv) == 3 and argv[1] in ("-c", "-lc"):
        inner = argv[2]
        return None if _has_unquoted_expansion(inner) else _words_paths(inner)
    if name not in VALUE_OPTIONS:
        return None
    takes_value = VALUE_OPTIONS[name]
    operands: list[str] = []
    pattern_given = False
    args = iter(argv[1:])
    for word in args:
        if word == "--":
            operands += list(args)
            break
        if not word.startswith("-") or word == "-":
            operands.append(word)
            continue
        if name == "sed" and (word.startswith("-i") or word.startswith("--in-place")):
            return None  # an edit, not a read
        if word.startswith("--"):
            option = word.split("=", 1)[0]
            pattern_given |= option in PATTERN_OPTIONS
            if word in takes_value:
                if next(args, None) is None:
                    return None
            elif "=" not in word and word not in LONG_FLAGS:
                return None
            continue
        # A cluster of short options, read as getopt does: the first one that takes a
        # value takes the rest of the word, or the next word when nothing is left.
        for i, letter in enumerate(word[1:], start=1):
            if f"-{letter}" not in takes_value:
                continue
            pattern_given |= f"-{letter}" in PATTERN_OPTIONS
            if i == len(word) - 1 and next(args, None) is None:
                return None
            break
    if name == "sed":
        if not (
            {"-n", "--quiet", "--silent"} & set(argv)
            or any(w.startswith("-") and not w.startswith("--") and "n" in w for w in argv[1:])
        ):
            return None  # sed without -n prints the file whole: still a read, but rare
        if not pattern_given:
            operands = operands[1:]  # the sed script
    elif name in ("grep", "rg") and not pattern_given:
        operands = operands[1:]  # the pattern
    return [word for word in operands if word != "-"]


def _words_paths(command: str) -> list[str] | None:
    paths = paths_from_shell(command)
    return list(paths) if paths or not command.strip() else None
