"""The git status section as a render tree, from the text the summary writes (Render).

The real-process test (tests/goplugin/test_render.py) renders a merge conflict; these
pin the other header shapes, the collapsed lists and totality."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from providers.core.render_tree import Group, ListNode, Node, Text, TextStyle
from providers.git_status.render import render_status

B, W, ITALIC = TextStyle.BOLD, TextStyle.WARNING, TextStyle.ITALIC


def view(text: str) -> tuple[Node, ...]:
    tree = render_status("git status", text)
    assert isinstance(tree, Group)
    return tree.children


def test_up_to_date_is_not_a_warning_and_clean_is_plain() -> None:
    assert view("On branch main, up to date with origin/main\n\nWorking tree clean\n") == (
        Text("On branch main", B),
        Text("up to date with origin/main"),
        Text("Working tree clean"),
    )


def test_a_gone_upstream_and_behind_are_warnings() -> None:
    assert view("On branch topic, upstream origin/topic (gone)\n")[1] == Text(
        "upstream origin/topic (gone)", W
    )
    assert view("On branch main, 3 commits behind origin/main\n")[1] == Text(
        "3 commits behind origin/main", W
    )


def test_detached_unborn_bare_and_operations() -> None:
    text = (
        "HEAD detached at 1a2b3c4\n"
        "Default branch: main\n"
        "Rebase in progress: step 2/5, rebasing topic onto 9f8e7d6\n"
        "Bisect in progress\n"
    )
    assert view(text) == (
        Text("HEAD detached at 1a2b3c4", B),
        Text("Default branch: main"),
        Text("Rebase in progress: step 2/5, rebasing topic onto 9f8e7d6", W),
        Text("Bisect in progress", W),
    )
    assert view("On branch main (no commits yet)\n") == (
        Text("On branch main (no commits yet)", B),
    )
    assert view("Bare repository (no working tree); HEAD is main\n") == (
        Text("Bare repository (no working tree); HEAD is main", B),
    )


def test_lists_grouped_by_directory_and_the_budget_note() -> None:
    text = (
        "On branch main\n\n"
        "Changes: 12 staged, 2 untracked; 1 stash\n\n"
        "Staged (by directory):\n  src/: 10 modified\n  docs/: 2 added\n\n"
        "Untracked:\n  a.txt\n  b.txt\n\n"
        "[Token budget: staged grouped by directory; see `git status`.]\n"
    )
    assert view(text)[1:] == (
        Text("Changes: 12 staged, 2 untracked; 1 stash"),
        Group(
            (
                Text("Staged (by directory):", B),
                ListNode((Text("src/: 10 modified"), Text("docs/: 2 added"))),
            )
        ),
        Group((Text("Untracked:", B), ListNode((Text("a.txt"), Text("b.txt"))))),
        Text("[Token budget: staged grouped by directory; see `git status`.]", ITALIC),
    )


def test_conflicts_by_directory_are_warnings() -> None:
    text = "On branch main\n\nChanges: 40 conflicted\n\nConflicted (by directory):\n  src/: 40\n"
    assert view(text)[1:] == (
        Text("Changes: 40 conflicted", W),
        Group((Text("Conflicted (by directory):", W), ListNode((Text("src/: 40", W),)))),
    )


def _texts(node: Node) -> list[str]:
    if isinstance(node, Text):
        return [node.content]
    if isinstance(node, ListNode):
        return [t for item in node.items for t in _texts(item)]
    assert isinstance(node, Group)
    return [t for child in node.children for t in _texts(child)]


@given(st.text(alphabet=st.sampled_from("ab :,\n[]"), max_size=80))
def test_any_text_renders_and_keeps_every_line(text: str) -> None:
    """Total: text in any shape renders, and nothing but layout is lost (blank lines,
    list indents, and the ", " the branch line is split at)."""
    shown = "".join(_texts(render_status("git status", text)))
    for char in "ab:[]":
        assert shown.count(char) == text.count(char)
    assert shown.count(",") >= text.count(",") - 1
