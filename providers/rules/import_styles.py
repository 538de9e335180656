"""What ``@path`` means in a file: the reading of the tool whose file it is.

An ``@`` in a convention or rule file is an import only where the file's own tool makes
it one (issue 22 item 6), and then it resolves as that tool resolves it:

- **Claude Code** (``CLAUDE.md``, ``CLAUDE.local.md``, ``.claude/CLAUDE.md``,
  ``.claude/rules/``): relative to the importing file, never to the working directory;
  ``@~/`` from the home directory. Measured on Claude Code 2.1.328: ``@b.md`` in
  ``sub/a.md`` reads ``sub/b.md`` even with a ``b.md`` at the root, and
  ``@.claude/rules/x`` in a ``.claude/rules/`` file reads nothing.
- **Gemini CLI**, and Qwen Code, its fork (``GEMINI.md``, ``QWEN.md``): relative to the
  importing file (its memport, ``path.resolve(dirname(file), target)``); ``@~/`` is no
  import there (its finder wants ``.``, ``/`` or a letter after the ``@``).
- **Cursor** (``.cursorrules``, ``.cursor/rules/``): ``@file`` in a rule attaches that
  file when the rule applies; the path is a workspace path, so from the repository root,
  and the attached file's own ``@`` are not followed.
- **Google Antigravity** (``.agents/rules/``): relative to the rule file; ``@/path`` is
  that absolute path when it exists, else the path under the repository root.
- **AGENTS.md** (``AGENT.md``, ``AGENTS.override.md``, ``AGENTS.local.md`` too): read by
  several tools; Claude Code's reading, the one tool of them that expands it (when there
  is no ``CLAUDE.md``), measured like the above. Codex, Copilot, Cursor and Cline show
  it as written, and a model reading ``@docs/x.md`` there takes it for the same file.
- **No imports** (the text stays as written; the model may follow a mention itself):
  Cline (``.clinerules``: its rules are read and joined, nothing more), GitHub Copilot
  (its instructions link files with Markdown links), Windsurf, Continue, Kiro (its
  ``#[[file:path]]`` is not an ``@``), Roo Code and Kilo Code, Junie's guidelines,
  Aider's ``CONVENTIONS.md``, Zed's ``.rules``.
- Any other file (a ``paths`` entry of the user's): Claude Code's reading.

A target that does not exist is no import in any of them: the text stays as written and
no note says it is missing (Claude Code skips it silently; Gemini CLI's own "Import
failed" comment is a difference docs/configuration.md states).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from pathlib import Path, PurePosixPath


class Base(Enum):
    """What a relative import path is relative to."""

    FILE = "the importing file"
    ROOT = "the repository root"


@dataclass(frozen=True)
class ImportStyle:
    """One tool's ``@`` imports: whether there are any and where they point."""

    tool: str
    expands: bool = True
    base: Base = Base.FILE
    home: bool = True
    """``@~/path`` is an import from the home directory (Claude Code's documented form)."""
    absolute_else_root: bool = False
    """``@/path``: that absolute path when it exists, else the path under the root."""
    follows: bool = True
    """The imported file's own ``@`` are imports too."""

    def candidate(self, root: Path, importer: Path, target: str) -> Path | None:
        """Where ``target`` (what follows the ``@``) points from the file ``importer``,
        unresolved; ``None`` when it is no import for this tool."""
        if not self.expands:
            return None
        if target.startswith("~"):
            # ``~user/`` is no import in any of them (Claude Code takes ``~/`` only).
            if not (self.home and target.startswith("~/")):
                return None
            return Path(os.path.expanduser(target))
        if self.absolute_else_root and target.startswith("/"):
            absolute = Path(target)
            return absolute if os.path.lexists(absolute) else root / target.lstrip("/")
        return (root if self.base is Base.ROOT else importer.parent) / target

    @property
    def inner(self) -> ImportStyle:
        """The style of the files this one imports."""
        return self if self.follows else NO_IMPORTS


CLAUDE = ImportStyle("Claude Code")
AGENTS = ImportStyle("AGENTS.md, as Claude Code reads it")
GEMINI = ImportStyle("Gemini CLI", home=False)
CURSOR = ImportStyle("Cursor", base=Base.ROOT, home=False, follows=False)
ANTIGRAVITY = ImportStyle("Google Antigravity", home=False, absolute_else_root=True)
NO_IMPORTS = ImportStyle("none", expands=False)

RULE_DIR_STYLES: tuple[tuple[str, ImportStyle], ...] = (
    (".claude/rules", CLAUDE),
    (".cursor/rules", CURSOR),
    (".agents/rules", ANTIGRAVITY),
    (".github/instructions", NO_IMPORTS),
    (".clinerules", NO_IMPORTS),
    (".windsurf/rules", NO_IMPORTS),
    (".continue/rules", NO_IMPORTS),
    (".kiro/steering", NO_IMPORTS),
    (".roo", NO_IMPORTS),
    (".kilo", NO_IMPORTS),
    (".kilocode", NO_IMPORTS),
)
"""Each built-in rule directory's style (at the root or in a folder below it); a test
checks that every directory of :data:`providers.rules.dialects.BUILTIN_RULE_DIRS` has one."""

PATH_STYLES: dict[str, ImportStyle] = {
    ".claude/CLAUDE.md": CLAUDE,
    ".github/copilot-instructions.md": NO_IMPORTS,
    ".junie/guidelines.md": NO_IMPORTS,
}
"""Files known by their repo-relative path."""

NAME_STYLES: dict[str, ImportStyle] = {
    "CLAUDE.md": CLAUDE,
    "CLAUDE.local.md": CLAUDE,
    "GEMINI.md": GEMINI,
    "QWEN.md": GEMINI,
    "AGENTS.md": AGENTS,
    "AGENT.md": AGENTS,
    "AGENTS.override.md": AGENTS,
    "AGENTS.local.md": AGENTS,
    ".cursorrules": CURSOR,
    ".clinerules": NO_IMPORTS,
    ".windsurfrules": NO_IMPORTS,
    ".rules": NO_IMPORTS,
    "CONVENTIONS.md": NO_IMPORTS,
}
"""Files known by their name, at the root or nested."""

DEFAULT_STYLE = CLAUDE
"""A file no tool claims (a ``paths`` entry of the user's)."""


def style_for(path: str) -> ImportStyle:
    """The import style of the repo-relative file ``path``: its own tool's."""
    rel = path.replace("\\", "/").lstrip("/")
    inside = f"/{rel}"
    for directory, style in RULE_DIR_STYLES:
        if f"/{directory}/" in inside:
            return style
    if rel in PATH_STYLES:
        return PATH_STYLES[rel]
    return NAME_STYLES.get(PurePosixPath(rel).name, DEFAULT_STYLE)


def refusal(root: Path, target: str, candidate: Path, allowed: Sequence[Path], block: str) -> str:
    """Why the import ``@target`` (pointing at ``candidate``, outside ``root`` and the
    ``allowed`` directories once resolved) was not read, and how to allow it: the
    ``import_allow`` entry of the provider block ``block`` that would (issue 22 item 7).
    Only what the file says is named, never a machine path of the user's."""
    where = f'the provider "{block}" block'
    lexical = Path(os.path.normpath(candidate))
    lexical = Path(os.path.realpath(lexical.parent)) / lexical.name  # the file itself unresolved
    if any(lexical == base or lexical.is_relative_to(base) for base in (root, *allowed)):
        return (
            "outside the repository: a link to a file outside it "
            f"(to read it: the directory it links to in import_allow, in {where})"
        )
    if target.startswith(("~/", "/")):
        directory = PurePosixPath(target).parent.as_posix()
        return f'outside the repository (to read it: import_allow = ["{directory}"] in {where})'
    return f"outside the repository (to read it: its directory in import_allow, in {where})"
