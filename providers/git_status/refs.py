"""The repository's default branch: ``origin/HEAD``, else ``main``/``master`` when present.

Read straight from the ref files (a symbolic ref is always a loose file;
branches may be loose or in ``packed-refs``), so it costs stats, not a
process. :func:`refs_key` says when to look again. A reftable ref store has
no such files: the caller then asks ``git for-each-ref`` and hands the
output to :func:`default_branch_from_listing`.
"""

from __future__ import annotations

import os
from pathlib import Path

from providers.repository.sources import FileKey, file_keys, read_prefix

ORIGIN_HEAD = "refs/remotes/origin/HEAD"
CANDIDATES = ("main", "master")
REF_PATTERNS = (ORIGIN_HEAD, *(f"refs/heads/{name}" for name in CANDIDATES))
"""What to ask ``git for-each-ref`` for on a reftable repository."""

_REMOTE_PREFIX = "refs/remotes/origin/"
_KEY_FILES = (
    "packed-refs",
    ORIGIN_HEAD,
    *(f"refs/heads/{name}" for name in CANDIDATES),
    "reftable/tables.list",
)

_MAX_PACKED_REFS = 64 * 1024 * 1024
"""Read no more of ``packed-refs`` than this (a huge one is cut, never loaded whole)."""

RefsKey = tuple[FileKey | None, ...]


def refs_key(common_dir: Path) -> RefsKey:
    """The key of every file the answer depends on; equal key, same answer."""
    return file_keys(common_dir / name for name in _KEY_FILES)


def uses_reftable(common_dir: Path) -> bool:
    return os.path.isdir(common_dir / "reftable")


def default_branch_from_files(common_dir: Path) -> str | None:
    """The default branch by the files-backend layout, or None when there is no sign of one."""
    target = _symref_target(common_dir / ORIGIN_HEAD)
    if target is not None and target.startswith(_REMOTE_PREFIX):
        return target.removeprefix(_REMOTE_PREFIX)
    packed = _packed_ref_names(common_dir / "packed-refs")
    for name in CANDIDATES:
        ref = f"refs/heads/{name}"
        if os.path.isfile(common_dir / ref) or ref in packed:
            return name
    return None


def default_branch_from_listing(output: bytes) -> str | None:
    """The same answer from ``for-each-ref --format=%(refname)%00%(symref)`` output."""
    symrefs: dict[str, str] = {}
    for line in output.decode("utf-8", "replace").split("\n"):
        name, _, target = line.partition("\0")
        if name:
            symrefs[name] = target
    target = symrefs.get(ORIGIN_HEAD, "")
    if target.startswith(_REMOTE_PREFIX):
        return target.removeprefix(_REMOTE_PREFIX)
    for name in CANDIDATES:
        if f"refs/heads/{name}" in symrefs:
            return name
    return None


def _symref_target(path: Path) -> str | None:
    data = read_prefix(path, 4096)
    if data is None:
        return None
    text = data.decode("utf-8", "replace").strip()
    return text.removeprefix("ref:").strip() if text.startswith("ref:") else None


def _packed_ref_names(path: Path) -> frozenset[str]:
    """Names of the candidate branches found in ``packed-refs`` (``<sha> <refname>`` lines)."""
    wanted = {f"refs/heads/{name}".encode() for name in CANDIDATES}
    data = read_prefix(path, _MAX_PACKED_REFS)
    if data is None:
        return frozenset()
    found = set()
    for line in data.split(b"\n"):
        _, _, name = line.partition(b" ")
        if name in wanted:
            found.add(name.decode())
    return frozenset(found)
