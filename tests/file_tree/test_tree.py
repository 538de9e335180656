"""The tree model: counts stay right through every add and remove."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from providers.file_tree.tree import Dir, Tree

PARTS = st.sampled_from(["a", "b", "c", "d.txt", "e.py", "ü"])
PATHS = st.lists(PARTS, min_size=1, max_size=4).map("/".join)


def check_counts(node: Dir) -> tuple[int, int]:
    """Recount by brute force and compare with what the node says."""
    files = len(node.files)
    dirs = len(node.dirs)
    for child in node.dirs.values():
        assert child.parent is node
        assert child.depth == node.depth + 1
        assert child.files or child.dirs, "an empty directory was kept"
        f, d = check_counts(child)
        files += f
        dirs += d
    assert (node.file_count, node.dir_count) == (files, dirs), node.path()
    return files, dirs


def consistent(paths: set[str]) -> set[str]:
    """Drop paths that would need a file and a directory of the same name."""
    kept: set[str] = set()
    for path in sorted(paths, key=len):
        prefixes = {"/".join(path.split("/")[:i]) for i in range(1, path.count("/") + 1)}
        if prefixes & kept or any(k.startswith(path + "/") for k in kept):
            continue
        kept.add(path)
    return kept


def test_build_counts_and_order() -> None:
    tree = Tree.build(["b.txt", "a/x.py", "a/y/z.md", "c/", "a/x.py", "Z/q"])
    assert (tree.root.file_count, tree.root.dir_count) == (5, 3)
    assert [name for name, _ in tree.root.children()] == ["Z", "a", "b.txt", "c/"]
    a = tree.find_dir("a")
    assert a is not None
    assert (a.file_count, a.dir_count) == (2, 1)
    assert a.index_of("y") == 0
    assert a.index_of("x.py") == 1
    assert a.index_of("nope") is None
    assert set(tree.paths()) == {"b.txt", "a/x.py", "a/y/z.md", "c/", "Z/q"}
    check_counts(tree.root)


def test_remove_prunes_empty_directories() -> None:
    tree = Tree.build(["a/b/c/d.txt", "a/e.txt"])
    assert tree.remove("a/b/c/d.txt")
    assert tree.find_dir("a/b") is None
    assert (tree.root.file_count, tree.root.dir_count) == (1, 1)
    assert tree.remove("a")
    assert (tree.root.file_count, tree.root.dir_count) == (0, 0)
    assert not tree.remove("a")
    check_counts(tree.root)


def test_nested_repository_leaf() -> None:
    tree = Tree.build(["vendor/lib/", "x"])
    assert tree.contains("vendor/lib/")
    assert tree.inside_nested_repository("vendor/lib/src/a.c")
    assert not tree.inside_nested_repository("vendor/other/a.c")
    assert tree.remove("vendor/lib/")
    assert set(tree.paths()) == {"x"}


def test_filter_drops_directories_whole() -> None:
    tree = Tree.build(["vendor/a.js", "vendor/keep.js", "src/x.py", "src/y.gen.py"])
    asked: list[str] = []

    def excluded(rel: str, is_dir: bool) -> bool:
        asked.append(rel)
        return (is_dir and rel == "vendor") or rel.endswith(".gen.py")

    assert tree.filter(excluded) == 2
    assert set(tree.paths()) == {"src/x.py"}
    assert "vendor/keep.js" not in asked
    check_counts(tree.root)


@settings(max_examples=200, deadline=None)
@given(
    st.sets(PATHS, max_size=12),
    st.lists(st.tuples(st.booleans(), PATHS), max_size=25),
)
def test_edits_in_place_equal_a_fresh_build(
    initial: set[str], edits: list[tuple[bool, str]]
) -> None:
    current = consistent(initial)
    tree = Tree.build(current)
    for add, path in edits:
        if add:
            if consistent(current | {path}) != current | {path}:
                continue
            assert tree.add(path) == (path not in current)
            current.add(path)
        else:
            removed = {p for p in current if p == path or p.startswith(path + "/")}
            assert tree.remove(path) == bool(removed)
            current -= removed
        check_counts(tree.root)
        assert set(tree.paths()) == current
    fresh = Tree.build(current)
    assert (fresh.root.file_count, fresh.root.dir_count) == (
        tree.root.file_count,
        tree.root.dir_count,
    )
