"""The file tree section as a render tree, from the text tree_text writes (Render).

The real-process test (tests/goplugin/test_render.py) renders sample_repo; these pin
collapsed directories, ``... more`` lines, quoted names, the nesting cap and totality."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from providers._gen.pluggableharness.context.v1 import context_pb2
from providers.core.render_tree import Collapsible, Group, ListNode, Node, Text, TextStyle
from providers.file_tree.render import MAX_NESTED_DIRS, render_file_tree
from providers.goplugin.convert import render_response

DIM = TextStyle.DIM


def test_collapsed_directories_more_lines_and_totals() -> None:
    text = (
        "/work/repo/\n"
        "  src/\n"
        "    app.py\n"
        "    ... 3 more files\n"
        "  vendor/ (1,204 files, 37 dirs)\n"
        '  "two\\nlines.txt"\n'
        "  nested/ (repository)\n"
        "(shown: 3 of 1,210 files, 2 of 39 dirs)\n"
    )
    assert render_file_tree("file tree", text) == Group(
        (
            Collapsible(
                "/work/repo/",
                (
                    ListNode(
                        (
                            Collapsible(
                                "src/",
                                (ListNode((Text("app.py"), Text("... 3 more files", DIM))),),
                                collapsed_by_default=False,
                            ),
                            Text("vendor/ (1,204 files, 37 dirs)"),
                            Text('"two\\nlines.txt"'),
                            Text("nested/ (repository)"),
                        )
                    ),
                ),
                collapsed_by_default=False,
            ),
            Text("(shown: 3 of 1,210 files, 2 of 39 dirs)", DIM),
        )
    )


def test_a_root_that_did_not_fit_expanded_is_one_line() -> None:
    text = "/r/ (10 files, 2 dirs)\n(shown: 0 of 10 files, 0 of 2 dirs)\n"
    assert render_file_tree("file tree", text) == Group(
        (Text("/r/ (10 files, 2 dirs)"), Text("(shown: 0 of 10 files, 0 of 2 dirs)", DIM))
    )


def _depth(node: Node) -> int:
    """Collapsibles nested in ``node``, counting itself."""
    if isinstance(node, Collapsible):
        return 1 + max((_depth(c) for c in node.children), default=0)
    if isinstance(node, ListNode):
        return max((_depth(i) for i in node.items), default=0)
    if isinstance(node, Group):
        return max((_depth(c) for c in node.children), default=0)
    return 0


def _texts(node: Node) -> list[str]:
    if isinstance(node, Text):
        return [node.content]
    if isinstance(node, Collapsible):
        return [node.summary, *(t for c in node.children for t in _texts(c))]
    items = node.items if isinstance(node, ListNode) else node.children  # type: ignore[union-attr]
    return [t for item in items for t in _texts(item)]


def test_deep_trees_are_listed_flat_below_the_cap_and_still_decode() -> None:
    """protobuf decoders refuse messages nested ~100 deep (upb's default): a 60-level
    path renders every line, nested at most MAX_NESTED_DIRS + 1 collapsibles deep, and
    the kernel's side can decode the answer."""
    levels = 60
    lines = ["/r/", *(f"{'  ' * (d + 1)}d{d}/" for d in range(levels)), f"{'  ' * 61}leaf.py"]
    text = "\n".join([*lines, "(shown: 1 of 1 files, 60 of 60 dirs)"]) + "\n"
    tree = render_file_tree("file tree", text)
    assert _depth(tree) == MAX_NESTED_DIRS + 1
    shown = _texts(tree)
    assert [s.strip() for s in shown] == [line.strip() for line in text.splitlines()]
    assert shown[-2] == "  " * (levels - MAX_NESTED_DIRS) + "leaf.py"  # indentation kept
    wire = render_response(tree).SerializeToString()
    assert context_pb2.RenderResponse.FromString(wire).tree.root.WhichOneof("node") == "group"


@given(st.lists(st.tuples(st.integers(0, 6), st.sampled_from(["a", "b/", "... 2 more"]))))
def test_any_indentation_renders_every_line_in_order(rows: list[tuple[int, str]]) -> None:
    """Total: lines in any order of depths render, one node each, in order."""
    text = "".join(f"{'  ' * depth}{name}\n" for depth, name in rows)
    assert [s.strip() for s in _texts(render_file_tree("file tree", text))] == (
        [name for _, name in rows] or [""]
    )
