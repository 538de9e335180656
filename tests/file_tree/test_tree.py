"""The tree model: counts and entries stay right through every add and remove."""

from __future__ import annotations

import gc
import weakref

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from providers.file_tree.packed import encode
from providers.file_tree.tree import Dir, Tree

# "\udcff": a name byte that is not UTF-8, as it decodes; it sorts by its byte, as git sorts.
PARTS = st.sampled_from(["a", "b", "a.b", "c", "d.txt", "e.py", "ü", "a0", "\udcff", "é"])
PATHS = st.lists(PARTS, min_size=1, max_size=4).map("/".join)


def brute_children(paths: set[str], directory: str) -> list[str]:
    """Entry names of ``directory`` by brute force: subdirectories and repositories
    (``name/``, issue 12: they sort with the directories), then files."""
    prefix = directory + "/" if directory else ""
    dirs: set[str] = set()
    leaves: set[str] = set()
    for path in paths:
        if not path.startswith(prefix):
            continue
        rest = path[len(prefix) :]
        head, slash, _ = rest.rstrip("/").partition("/")
        if slash:
            dirs.add(head)
        elif rest.endswith("/"):
            dirs.add(rest)
        else:
            leaves.add(rest)
    return sorted(dirs, key=lambda n: encode(n.rstrip("/"))) + sorted(leaves, key=encode)


def check(tree: Tree, paths: set[str]) -> None:
    """Every directory's counts and entries equal a brute-force recount."""
    assert set(tree.paths()) == paths
    stack: list[Dir] = [tree.root]
    seen_dirs = 0
    while stack:
        node = stack.pop()
        prefix = node.path + "/" if node.path else ""
        below = [p for p in paths if p.startswith(prefix)]
        dirs = {
            prefix + "/".join(p[len(prefix) :].rstrip("/").split("/")[: i + 1])
            for p in below
            for i in range(p[len(prefix) :].rstrip("/").count("/"))
        }
        repos = [p for p in below if p.endswith("/")]  # directories of their own, not files
        counted = (len(below) - len(repos), len(dirs) + len(repos))
        assert (node.file_count, node.dir_count) == counted, node.path
        assert [name for name, _ in node.children()] == brute_children(paths, node.path)
        for name, child in node.children():
            assert node.index_of(name.rstrip("/")) is not None
            if child is not None:
                assert child.parent is node
                assert child.depth == node.depth + 1
                assert child.file_count + child.dir_count > 0, "an empty directory was kept"
                stack.append(child)
                seen_dirs += 1
            elif name.endswith("/"):
                seen_dirs += 1  # a repository counts as a directory
    assert seen_dirs == tree.root.dir_count


def consistent(paths: set[str]) -> set[str]:
    """Drop paths that would need a file and a directory of the same name."""
    kept: set[str] = set()
    for path in sorted(paths, key=len):
        prefixes = {"/".join(path.split("/")[:i]) for i in range(1, path.count("/") + 1)}
        if prefixes & kept or any(k.startswith(path + "/") for k in kept):
            continue
        kept.add(path)
    return kept


def test_counts_order_and_lookup() -> None:
    paths = {"b.txt", "a/x.py", "a/y/z.md", "c/", "Z/q", "a.b/k", "a0"}
    tree = Tree.of([*paths, "a/x.py"])
    assert (tree.root.file_count, tree.root.dir_count) == (6, 5)
    assert [name for name, _ in tree.root.children()] == ["Z", "a", "a.b", "c/", "a0", "b.txt"]
    a = tree.find_dir("a")
    assert a is not None
    assert (a.file_count, a.dir_count) == (2, 1)
    assert a.index_of("y") == 0
    assert a.index_of("x.py") == 1
    assert a.index_of("nope") is None
    assert a.child_dir("y") is not None and a.child_dir("x.py") is None
    assert tree.find_dir("a/x.py") is None
    check(tree, paths)


def test_remove_prunes_empty_directories() -> None:
    tree = Tree.of(["a/b/c/d.txt", "a/e.txt"])
    assert tree.remove("a/b/c/d.txt")
    assert tree.find_dir("a/b") is None
    assert (tree.root.file_count, tree.root.dir_count) == (1, 1)
    assert tree.remove("a")
    assert (tree.root.file_count, tree.root.dir_count) == (0, 0)
    assert not tree.remove("a")
    check(tree, set())


def test_nested_repository_leaf() -> None:
    tree = Tree.of(["vendor/lib/", "x"])
    assert tree.contains("vendor/lib/")
    assert tree.find_dir("vendor/lib") is None
    assert tree.inside_nested_repository("vendor/lib/src/a.c")
    assert not tree.inside_nested_repository("vendor/other/a.c")
    assert tree.inside_nested_repository("x/y")  # a leaf cannot have children: a gitlink
    assert tree.remove("vendor/lib/")
    assert set(tree.paths()) == {"x"}


def test_filter_drops_directories_whole() -> None:
    tree = Tree.of(["vendor/a.js", "vendor/deep/keep.js", "src/x.py", "src/y.gen.py"])
    asked: list[str] = []

    def excluded(rel: str, is_dir: bool) -> bool:
        asked.append(rel)
        return (is_dir and rel == "vendor") or rel.endswith(".gen.py")

    version = tree.version
    assert tree.filter(excluded) > 0
    assert tree.version != version
    check(tree, {"src/x.py"})
    assert "vendor/deep" not in asked and "vendor/deep/keep.js" not in asked


@settings(max_examples=200, deadline=None)
@given(
    st.sets(PATHS, max_size=12),
    st.lists(st.tuples(st.booleans(), PATHS), max_size=25),
)
def test_edits_in_place_equal_a_fresh_build(
    initial: set[str], edits: list[tuple[bool, str]]
) -> None:
    current = consistent(initial)
    tree = Tree.of(current)
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
        check(tree, current)


def test_a_tree_with_dirs_is_freed_without_the_cycle_collector() -> None:
    """Dirs hold their tree weakly: a replaced listing (megabytes) goes as soon as it is
    dropped, not at the next full garbage collection."""
    tree = Tree.of(["src/app/main.py", "src/lib/util.py", "README.md"])
    src = tree.find_dir("src")
    assert src is not None and [name for name, _ in src.children()] == ["app", "lib"]
    gone = weakref.ref(tree)
    gc.disable()
    try:
        del tree
        assert gone() is None
    finally:
        gc.enable()
    with pytest.raises(ReferenceError):
        src.child_dir("app")
