"""One kept history as bytes: what :mod:`history_cache` writes and reads. Pure.

The columns of a :class:`~providers.file_tree.history.History` (paths, each commit's path
ids, per-path activity, per-directory activity) after a format line and a JSON header
naming the root and HEAD it was mined for, the columns' sizes and a CRC, compressed with
zlib (paths share long prefixes: about a fifth of the size). Reading checks everything it
can and answers None for anything else: a file cut short, damaged, of another format,
weighting or byte order, or written for another root or commit.
"""

from __future__ import annotations

import json
import sys
import zlib
from array import array
from itertools import accumulate, chain

from providers.file_tree.history import (
    HALF_LIFE_COMMITS,
    HOT_HALF_LIFE_COMMITS,
    MAX_COMMITS,
    History,
)
from providers.file_tree.history_columns import Activity, PathColumn

MAX_RAW_BYTES = 256 * 1024 * 1024
"""The most a file may expand to when read."""

_IDS = "I"
FORMAT = (
    f"context-providers file-tree history 1 {sys.byteorder} {array(_IDS).itemsize} "
    f"{MAX_COMMITS} {HALF_LIFE_COMMITS} {HOT_HALF_LIFE_COMMITS}\n"
).encode()
"""The first line: a file of another version, byte order or weighting is foreign."""
_COLUMNS = 6


def encode(root: str, head: str, history: History) -> bytes:
    """``history``, mined for ``root`` at ``head``, as a file's bytes."""
    dirs = tuple(history.dir_activity)
    columns = (
        history.paths.joined(),
        array(_IDS, map(len, history.commits)).tobytes(),
        array(_IDS, chain.from_iterable(history.commits)).tobytes(),
        _activities(history).tobytes(),
        _joined(dirs),
        array("d", history.dir_activity.values()).tobytes(),
    )
    body = b"".join(columns)
    header = {
        "root": root,
        "head": head,
        "counts": [len(history.paths), len(history.commits), len(dirs)],
        "sizes": [len(column) for column in columns],
        "crc": zlib.crc32(body),
    }
    return FORMAT + json.dumps(header).encode() + b"\n" + zlib.compress(body, 1)


def decode(data: bytes, root: str, head: str) -> History | None:
    """The history in ``data`` if it is whole and was written for ``root`` at ``head``."""
    try:
        return _decode(data, root, head)
    except (ValueError, KeyError, TypeError, IndexError, OverflowError, zlib.error):
        return None


def _decode(data: bytes, root: str, head: str) -> History | None:
    if not data.startswith(FORMAT):
        return None
    line, _, packed = data[len(FORMAT) :].partition(b"\n")
    header = json.loads(line)
    if header["root"] != root or header["head"] != head:
        return None  # another repository's, or another commit's (a copied file)
    sizes = [int(size) for size in header["sizes"]]
    count, commit_count, dir_count = (int(n) for n in header["counts"])
    if len(sizes) != _COLUMNS or min(sizes) < 0:
        return None
    inflate = zlib.decompressobj()
    body = inflate.decompress(packed, MAX_RAW_BYTES)
    if not inflate.eof or inflate.unused_data or len(body) != sum(sizes):
        return None  # cut short, or more than was written
    if zlib.crc32(body) != header["crc"]:
        return None
    ends = list(accumulate(sizes))
    parts = [body[start:end] for start, end in zip([0, *ends[:-1]], ends, strict=True)]
    lengths, ids, activity, dir_values = array(_IDS), array(_IDS), array("d"), array("d")
    lengths.frombytes(parts[1])
    ids.frombytes(parts[2])
    activity.frombytes(parts[3])
    dir_values.frombytes(parts[5])
    paths, dirs = PathColumn(parts[0], count), _split(parts[4], dir_count)
    if (
        len(lengths) != commit_count
        or sum(lengths) != len(ids)
        or len(activity) != count
        or len(dir_values) != dir_count
        or (ids and max(ids) >= count)
    ):
        return None
    offsets = [0, *accumulate(lengths)]
    commits = (ids[offsets[i] : offsets[i + 1]] for i in range(commit_count))
    return History.of(paths, commits, activity, dict(zip(dirs, dir_values, strict=True)))


def _activities(history: History) -> array[float]:
    activity = history.activity
    if isinstance(activity, Activity):
        return activity.column()
    return array("d", (activity[path] for path in history.paths))


def _joined(names: tuple[str, ...]) -> bytes:
    return "\0".join(names).encode("utf-8", "surrogateescape")


def _split(column: bytes, count: int) -> tuple[str, ...]:
    names = tuple(column.decode("utf-8", "surrogateescape").split("\0")) if count else ()
    if len(names) != count:
        raise ValueError(f"{len(names)} names where {count} were written")
    return names
