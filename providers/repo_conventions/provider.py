"""The repo conventions provider: discover -> load -> render, cached by file keys.

1. discover: which convention files exist (``discover.py``), in precedence order;
2. load: read, strip, expand imports (``load.py``);
3. render: one section per distinct file, fitted to the budget by whole
   markdown units, the root file's opening sections first; what is left out is
   named in a closing note.

A turn where no involved file changed costs a handful of ``stat`` calls and
returns the previous sections byte for byte (prompt-cache friendly).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from providers.core.budget import TokenCounter, fit
from providers.core.config import COMMON_ATTRIBUTES, non_negative_int, resolve_config
from providers.core.errors import invalid_request
from providers.core.identity import published_identity
from providers.core.markdown import split_lines, split_units
from providers.core.render import left_out_note
from providers.core.request import checked_working_directory
from providers.core.sources import FileKey, Unavailable
from providers.core.types import (
    AttrType,
    Capabilities,
    ConfigAttribute,
    ContextRequest,
    Contribution,
    Identity,
    Section,
    Stability,
    Unit,
)
from providers.repo_conventions.discover import (
    DEFAULT_PATHS,
    candidate_keys,
    discover,
    unresolved,
)
from providers.repo_conventions.load import (
    MARKDOWN_SUFFIXES,
    ImportPolicy,
    Loaded,
    dependency_keys,
    load,
)
from providers.repository.layout import RepoRoots, find_root

log = logging.getLogger(__name__)

NAME = "repo-conventions"
DEFAULT_BUDGET = 4000

SCHEMA: tuple[ConfigAttribute, ...] = (
    *COMMON_ATTRIBUTES,
    ConfigAttribute(
        "paths",
        AttrType.LIST_STRING,
        "Convention files to read, in precedence order, relative to the repository "
        "root; globs allowed. Replaces the default list.",
        default=DEFAULT_PATHS,
    ),
    ConfigAttribute(
        "max_import_depth", AttrType.NUMBER, "How many @import hops to follow.", default=5
    ),
    ConfigAttribute(
        "import_allow",
        AttrType.LIST_STRING,
        "Directories outside the repository that @imports may read (~ expands; "
        "allows @~/ imports when it includes the home directory).",
        default=(),
    ),
    ConfigAttribute(
        "max_file_bytes",
        AttrType.NUMBER,
        "Files larger than this are not read (reported instead).",
        default=1024 * 1024,
    ),
)


@dataclass(frozen=True)
class _Settings:
    patterns: tuple[str, ...]
    explicit: bool
    policy: ImportPolicy


@dataclass(frozen=True)
class _Cached:
    """Everything a warm turn needs to prove nothing changed, and the answer."""

    root: Path
    candidates: tuple[object, ...]
    dependencies: tuple[str, ...]
    keys: tuple[FileKey | None, ...]
    budget: int
    model_id: str
    contribution: Contribution


class RepoConventionsProvider:
    """Static context from the repository's convention files."""

    def __init__(self) -> None:
        self._settings = _Settings(DEFAULT_PATHS, False, ImportPolicy())
        self._cache: _Cached | None = None
        self._roots = RepoRoots()

    def identity(self) -> Identity:
        return published_identity(NAME)

    def capabilities(self) -> Capabilities:
        return Capabilities(DEFAULT_BUDGET, Stability.STATIC, SCHEMA)

    def configure(self, config: Mapping[str, Any]) -> None:
        """Resolve config; explicitly declared paths must name something.

        Relative paths are checked against the repository of the process's
        working directory (the kernel's cwd, where relative config paths
        resolve); at Contribute time they are read relative to the request's
        repository root.
        """
        values = resolve_config(SCHEMA, config)
        depth = non_negative_int(values, "max_import_depth")
        max_bytes = non_negative_int(values, "max_file_bytes")
        non_negative_int(values, "token_budget")
        patterns = tuple(values["paths"])
        explicit = "paths" in config
        if explicit:
            missing = unresolved(find_root(Path.cwd()), patterns)
            if missing:
                raise invalid_request(
                    "declared convention path(s) resolve to nothing: " + ", ".join(missing)
                )
        allowed = tuple(Path(p).expanduser().resolve() for p in values["import_allow"])
        self._settings = _Settings(
            patterns,
            explicit,
            ImportPolicy(
                max_depth=depth if depth is not None else 5,
                allowed_roots=allowed,
                max_bytes=max_bytes if max_bytes is not None else 1024 * 1024,
            ),
        )
        self._cache = None

    def collect(self, request: ContextRequest, counter: TokenCounter) -> Contribution:
        working_directory = checked_working_directory(request)
        if request.token_budget == 0:
            return Contribution()
        assert request.model_target is not None
        root = self._roots.root(working_directory)
        candidates = candidate_keys(root, self._settings.patterns)
        cached = self._cache
        if (
            cached is not None
            and cached.root == root
            and cached.candidates == candidates
            and cached.budget == request.token_budget
            and cached.model_id == request.model_target.id
            and dependency_keys(cached.dependencies) == cached.keys
        ):
            return cached.contribution
        found = discover(root, self._settings.patterns)
        loaded, notes, dependencies = self._load_all(root, found)
        contribution = _render(loaded, notes, request.token_budget, counter)
        deps = tuple(dependencies)
        self._cache = _Cached(
            root,
            candidates,
            deps,
            dependency_keys(deps),
            request.token_budget,
            request.model_target.id,
            contribution,
        )
        return contribution

    def _load_all(
        self, root: Path, found: Sequence[str]
    ) -> tuple[list[Loaded], list[str], dict[str, None]]:
        """Load every file once; drop duplicates (same inode or same expanded text)."""
        loaded: list[Loaded] = []
        notes: list[str] = []
        dependencies: dict[str, None] = {}
        inodes: set[tuple[int, int]] = set()
        texts: set[str] = set()
        warned: set[str] = set()
        for path in found:
            result = load(root, path, self._settings.policy)
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
        return loaded, notes, dependencies


def _units(item: Loaded) -> list[Unit]:
    if item.path.lower().endswith(MARKDOWN_SUFFIXES):
        return split_units(item.text, item.path)
    return split_lines(item.text, item.path)


def _render(
    loaded: Sequence[Loaded], notes: Sequence[str], budget: int, counter: TokenCounter
) -> Contribution:
    """One section per file; the budget covers them all; the note closes the last one."""
    units = [unit for item in loaded for unit in _units(item)]
    order = [item.path for item in loaded]
    problems = "\n".join(notes) + "\n" if notes else ""

    def render(kept: Sequence[Unit], dropped: Sequence[Unit]) -> tuple[str, ...]:
        by_file: dict[str, list[Unit]] = {path: [] for path in order}
        for unit in kept:
            by_file[unit.group].append(unit)
        texts = ["".join(u.text for u in by_file[path]) for path in order]
        closing = problems + left_out_note(
            _whole_files(dropped, kept), how_to_read="read these files for the rest"
        )
        if closing:
            last = max((i for i, t in enumerate(texts) if t), default=None)
            if last is None:
                texts.append(closing)
            else:
                texts[last] = texts[last].rstrip("\n") + "\n\n" + closing
        return tuple(texts)

    result = fit(units, budget, render, counter)
    if result is None:
        if units or notes:
            log.warning("token budget %d is too small for any convention content", budget)
        return Contribution()
    rendered = render(result.kept, result.dropped)
    labels = [path for path, text in zip(order, rendered, strict=False) if text]
    if len(rendered) > len(order):
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
