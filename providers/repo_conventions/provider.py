"""The repo conventions provider: discover -> load -> fit, cached by file keys.

1. discover: which convention files exist (``discover.py``), in precedence order,
   then the rule files that always apply (``always_rules.py``), in stated order;
2. load: read, strip, expand imports (:mod:`providers.rules.expand`);
3. fit: one section per distinct file, fitted to the budget by whole
   markdown units, the root file's opening sections first; what is left out is
   named in a closing note.

A turn where no involved file changed costs a handful of ``stat`` calls and
returns the previous sections byte for byte (prompt-cache friendly).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from providers.core.budget import TokenCounter, fit
from providers.core.deadline import Deadline
from providers.core.identity import published_identity
from providers.core.left_out import left_out_note
from providers.core.render_tree import Node, markdown_section
from providers.core.request import Turn
from providers.core.types import (
    Capabilities,
    Contribution,
    Identity,
    Section,
    Stability,
    Unit,
)
from providers.markdown import split_lines, split_units
from providers.repo_conventions.always_rules import AlwaysRules
from providers.repo_conventions.discover import (
    candidate_keys,
    discover,
    unreachable,
)
from providers.repo_conventions.settings import (
    DEFAULT_TOKEN_BUDGET,
    NAME,
    SCHEMA,
    settings_from,
)
from providers.repo_conventions.skills_catalog import SkillsCatalog, with_catalog
from providers.repository.layout import RepoRoots
from providers.repository.sources import FileKey, Unavailable
from providers.rules.conventions import HUMAN_CONVENTION_FILES, cwd_convention_paths
from providers.rules.expand import MARKDOWN_SUFFIXES, Expanded, dependency_keys, load_expanded

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class _Cached:
    """Everything a warm turn needs to prove nothing changed, and the answer."""

    root: Path
    candidates: tuple[object, ...]
    dependencies: tuple[str, ...]
    keys: tuple[FileKey | None, ...]
    budget: int
    model_id: str
    epoch: int
    contribution: Contribution


class RepoConventionsProvider:
    """Static context from the repository's convention files."""

    def __init__(self) -> None:
        self._settings = settings_from({})  # an empty provider block: the schema's defaults
        self._cache: _Cached | None = None
        self._roots = RepoRoots()
        self._always = AlwaysRules()
        self._skills = SkillsCatalog()
        self._files: dict[str, Expanded] = {}
        """Each file as last loaded (with its imports), reused while none of them changed."""
        self._files_root: Path | None = None

    def identity(self) -> Identity:
        return published_identity(NAME)

    def capabilities(self) -> Capabilities:
        return Capabilities(DEFAULT_TOKEN_BUDGET, Stability.STATIC, SCHEMA)

    def configure(self, config: Mapping[str, Any]) -> None:
        """Check the config (declared paths must name something); drop the cache."""
        self._settings = settings_from(config)
        self._cache = None
        self._files = {}

    def render(self, label: str, text: str) -> Node:
        """Render: a convention file as a collapsed section of markdown."""
        return markdown_section(label, text)

    def collect(self, turn: Turn, counter: TokenCounter) -> Contribution:
        epoch = counter.epoch  # before fitting: a stand-in count moves it on
        root = self._roots.root(turn.working_directory)
        patterns = self._patterns(root, turn.working_directory)
        deadline = turn.deadline
        # Half the time at most for the rule directories: the convention files come first.
        scan = deadline.part(0.5)
        rules = self._always.paths(root, scan) if self._settings.always_rules else ()
        skills = self._skills.found(root, turn.working_directory) if self._settings.skills else None
        candidates = (*candidate_keys(root, patterns), rules, skills)
        cached = self._cache
        if (
            cached is not None
            and cached.root == root
            and cached.candidates == candidates
            and cached.budget == turn.token_budget
            and cached.model_id == turn.model_id
            and cached.epoch == counter.epoch
            and dependency_keys(cached.dependencies) == cached.keys
        ):
            return cached.contribution
        found = discover(root, patterns)
        loaded, notes, dependencies, complete = self._load_all(
            root, [*found, *(p for p in rules if p not in found)], deadline
        )
        if self._settings.always_rules:
            notes.extend(self._always.notes())
            complete = complete and not self._always.unread
        notes.extend(
            f"[{path} not checked: permission denied]" for path in unreachable(root, patterns)
        )
        if not found and not self._settings.explicit:
            notes.extend(_human_conventions(root))
        contribution = with_catalog(
            skills,
            turn.token_budget,
            self._settings.skills_share,
            counter,
            lambda tokens: _fitted(loaded, notes, tokens, counter),
        )
        deps = tuple(dependencies)
        if not complete:  # what this turn had no time for comes next turn
            self._cache = None
            return contribution
        self._cache = _Cached(
            root,
            candidates,
            deps,
            dependency_keys(deps),
            turn.token_budget,
            turn.model_id,
            epoch,
            contribution,
        )
        return contribution

    def _patterns(self, root: Path, working_directory: Path) -> tuple[str, ...]:
        """The configured files, then (unless ``paths`` replaced the defaults) the
        convention files between the root and the working directory, root first."""
        if self._settings.explicit:
            return self._settings.patterns
        return (*self._settings.patterns, *cwd_convention_paths(root, working_directory))

    def _load_all(
        self, root: Path, found: Sequence[str], deadline: Deadline
    ) -> tuple[list[Expanded], list[str], dict[str, None], bool]:
        """Load every file once; drop duplicates (same inode or same expanded text).
        Files loaded on earlier turns and unchanged since are reused, so a turn that
        runs out of time leaves less to do for the next; the flag says all were read."""
        loaded: list[Expanded] = []
        notes: list[str] = []
        dependencies: dict[str, None] = {}
        inodes: set[tuple[int, int]] = set()
        texts: set[str] = set()
        warned: set[str] = set()
        memo = self._files if self._files_root == root else {}
        self._files, self._files_root = {}, root
        unread = 0
        for path in found:
            known = memo.get(path)
            result: Expanded | Unavailable
            if known is not None and dependency_keys(tuple(known.dependencies)) == tuple(
                known.dependencies.values()
            ):
                result = known
            elif deadline.expired():
                unread += 1
                dependencies[str(root / path)] = None
                continue
            else:
                result = load_expanded(root, path, self._settings.policy, deadline)
            if isinstance(result, Expanded) and result.complete:
                self._files[path] = result
            if isinstance(result, Unavailable):
                log.warning("convention file %s", result.describe())
                notes.append(f"[{result.path} not loaded: {result.reason}]")
                dependencies[str(root / path)] = None
                continue
            dependencies.update(dict.fromkeys(result.dependencies))
            for note in result.notes:
                if note not in warned:
                    warned.add(note)
                    log.warning("%s", note.strip("[]"))
            inode = (result.key.device, result.key.inode)
            if inode in inodes or result.text in texts or not result.text.strip():
                continue
            inodes.add(inode)
            texts.add(result.text)
            loaded.append(result)
        if unread:
            notes.append(
                f"[{unread:,} convention or rule files not read yet: out of time this turn; "
                "the next turn goes on]"
            )
        complete = not unread and all(item.complete for item in loaded)
        return loaded, notes, dependencies, complete


def _human_conventions(root: Path) -> list[str]:
    """One line naming the conventions written for people, when no agent file exists."""
    found = [name for name in HUMAN_CONVENTION_FILES if os.path.isfile(root / name)]
    if not found:
        return []
    return [
        "[No agent convention file (AGENTS.md, CLAUDE.md, ...) here; the project's "
        f"conventions for people: {', '.join(found)}]"
    ]


def _units(item: Expanded) -> list[Unit]:
    if item.path.lower().endswith(MARKDOWN_SUFFIXES):
        return split_units(item.text, item.path)
    return split_lines(item.text, item.path)


def _fitted(
    loaded: Sequence[Expanded], notes: Sequence[str], budget: int, counter: TokenCounter
) -> Contribution:
    """One section per file; the budget covers them all; the note closes the last one."""
    units = [unit for item in loaded for unit in _units(item)]
    order = [item.path for item in loaded]
    problems = "\n".join(notes) + "\n" if notes else ""

    def write(kept: Sequence[Unit], dropped: Sequence[Unit]) -> tuple[str, ...]:
        by_file: dict[str, list[Unit]] = {path: [] for path in order}
        for unit in kept:
            by_file[unit.group].append(unit)
        texts = ["".join(u.text for u in by_file[path]) for path in order]
        closing = problems + left_out_note(
            _whole_files(dropped, kept),
            how_to_read="read these files for the rest",
            partly_shown={u.group for u in kept},
        )
        if closing:
            last = max((i for i, t in enumerate(texts) if t), default=None)
            if last is None:
                texts.append(closing)
            else:
                texts[last] = texts[last].rstrip("\n") + "\n\n" + closing
        return tuple(texts)

    if not units and not notes:
        return Contribution(why_empty="no convention file in this repository")
    result = fit(units, budget, write, counter)
    if result is None:
        log.warning("token budget %d is too small for any convention content", budget)
        return Contribution(
            why_empty=f"the token budget {budget} is too small for any convention content"
        )
    written = write(result.kept, result.dropped)
    labels = [path for path, text in zip(order, written, strict=False) if text]
    if len(written) > len(order):
        labels.append("convention files")
    cut = {u.group for u in result.dropped} | ({"convention files"} if result.dropped else set())
    sections = tuple(
        Section(label, text, tokens, Stability.STATIC, truncated=label in cut)
        for label, text, tokens in zip(labels, result.texts, result.counts, strict=True)
    )
    return Contribution(sections)


def _whole_files(dropped: Sequence[Unit], kept: Sequence[Unit]) -> list[Unit]:
    """Dropped units, with a file that lost everything named as a whole file."""
    kept_groups = {u.group for u in kept}
    out: list[Unit] = []
    for unit in dropped:
        if unit.group in kept_groups:
            out.append(unit)
        else:
            out.append(Unit("", group=unit.group, name="(whole file)"))
    return out
