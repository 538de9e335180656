"""Packed paths behave as a sorted set of str, in git's (byte) order, at a third of the memory."""

from __future__ import annotations

import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from providers.file_tree import packed as packed_module
from providers.file_tree.packed import PackedPaths, encode

# "\udcff" is how a path byte that is not UTF-8 decodes (surrogateescape).
PARTS = st.sampled_from(["a", "b", "a.b", "a0", "ü", "\udcff", "é", "z", "a-b"])
PATHS = st.lists(PARTS, min_size=1, max_size=3).map("/".join)


def byte_sorted(paths: set[str]) -> list[str]:
    return sorted(paths, key=encode)


@settings(max_examples=200, deadline=None)
@given(
    start=st.sets(PATHS, max_size=20),
    edits=st.lists(st.tuples(st.booleans(), PATHS), max_size=20),
    probe=PARTS,
)
def test_a_sorted_set_in_byte_order(
    start: set[str], edits: list[tuple[bool, str]], probe: str
) -> None:
    block = packed_module.BLOCK
    packed_module.BLOCK = 2  # many blocks, splits and emptied blocks on these small sets
    try:
        check_edits(start, edits, probe)
    finally:
        packed_module.BLOCK = block


def check_edits(start: set[str], edits: list[tuple[bool, str]], probe: str) -> None:
    packed = PackedPaths.of(list(start))
    model = set(start)
    for adding, path in edits:
        if adding:
            assert packed.add(path) == (path not in model)
            model.add(path)
        else:
            assert packed.discard(path) == (path in model)
            model.discard(path)
        assert list(packed) == byte_sorted(model)
        assert len(packed) == len(model)
    assert packed == PackedPaths.of(list(model))
    for path in model:
        index = packed.find(path)
        assert index is not None and packed[index] == encode(path)
    assert packed.named(probe) == sorted(p for p in model if p == probe or p.endswith("/" + probe))
    for directory in {p.rpartition("/")[0] for p in model} - {""}:
        below = sorted(
            p for p in model if p.startswith(f"{directory}/") and p.endswith(f"/{probe}")
        )
        assert packed.named(probe, directory) == below
        assert packed.named(probe, directory, limit=2) == below[:2]
        skip = directory.rpartition("/")[0]
        if skip:
            outside = [p for p in packed.named(probe) if not p.startswith(skip + "/")]
            assert packed.named(probe, skip=skip) == outside
    for directory in ("", probe):
        prefix = directory + "/" if directory else ""
        right_in = [p[len(prefix) :] for p in byte_sorted(model) if p.startswith(prefix)]
        assert packed.direct(directory) == [n for n in right_in if "/" not in n]
    below = [p for p in model if p.startswith(probe + "/")]
    lo, hi = packed.span(probe)
    assert hi - lo == len(below)
    assert packed.delete(lo, hi) == len(below)
    assert list(packed) == byte_sorted(model - set(below))


def test_memory_is_the_listing_not_an_object_per_path() -> None:
    paths = [f"src/d{i % 97}/file_{i}.py" for i in range(20_000)]
    listing = sum(len(p) + 1 for p in paths)
    as_strings = sys.getsizeof(paths) + sum(sys.getsizeof(p) for p in paths)
    consumed = list(paths)
    packed = PackedPaths.of(consumed)
    assert consumed == []  # its strings are freed before the blocks are made
    blocks = len(paths) // packed_module.BLOCK + 1
    assert packed.size <= listing + 4 * (len(paths) + blocks)
    assert as_strings > 2 * packed.size
