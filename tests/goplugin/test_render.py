"""Render, the spec's MAY (issue 11 item 5), on real plugin processes over real gRPC.

``ContextService.Render(RenderRequest{payload, schema_version})`` answers
``RenderResponse{render.v1.RenderTree tree = 1}`` for a payload that is one of
the provider's own ``content.v1.ContextSection`` messages, serialized
(schema_version "1"). Each provider here renders a section it produced; an
unknown schema_version, a payload that does not parse, and a section that is
not ours are ``invalid_request`` (INVALID_ARGUMENT with a ContextError).
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from providers._gen.pluggableharness.content.v1 import content_pb2
from providers._gen.pluggableharness.context.v1 import context_pb2
from providers._gen.pluggableharness.render.v1 import render_pb2
from providers.core.render_tree import (
    CodeBlock,
    Collapsible,
    Group,
    ListNode,
    Node,
    Text,
    TextStyle,
)
from providers.goplugin.convert import config_to_proto, node_from_proto, node_to_proto, text_block
from providers.host.launcher import PluginProcess
from providers.host.render import call_render, render_request
from tests.conftest import GIT_ENV, isolate_git, script
from tests.support.wire import error_of, request


def launch(name: str, local_name: str) -> PluginProcess:
    return PluginProcess.launch([script(f"context-{name}")], local_name=local_name)


@pytest.fixture
def conventions() -> Iterator[PluginProcess]:
    plugin = launch("repo-conventions", "conventions")
    try:
        yield plugin
    finally:
        plugin.close()


def ours(
    plugin: PluginProcess, repo: Path, touched: tuple[str, ...] = ()
) -> list[content_pb2.ContextSection]:
    message = request(repo)
    message.files_touched.extend(touched)
    sections = list(plugin.stub.Contribute(message, timeout=30).sections)
    assert sections, "the provider contributed nothing to render"
    assert {s.provider for s in sections} == {plugin.local_name}
    return sections


def text_of(section: content_pb2.ContextSection) -> str:
    return "".join(b.text.text for b in section.content)


def assert_markdown_section(tree: Node, section: content_pb2.ContextSection) -> None:
    """The spec's own example: a collapsible, collapsed by default, headed by the label,
    over the markdown byte for byte."""
    assert tree == Collapsible(
        section.label, (CodeBlock(text_of(section), "markdown"),), collapsed_by_default=True
    )


# -- each provider renders a section it produced ----------------------------


def test_repo_conventions_renders_each_file_as_a_collapsed_markdown_section(
    conventions: PluginProcess, sample: Path
) -> None:
    sections = ours(conventions, sample)
    assert sections[0].label == "AGENTS.md"
    for section in sections:
        response = conventions.stub.Render(render_request(section), timeout=10)
        root = response.tree.root
        assert root.WhichOneof("node") == "collapsible"
        assert root.collapsible.collapsed_by_default is True
        code = root.collapsible.children[0].code_block
        assert code.HasField("language") and code.language == "markdown"
        assert_markdown_section(node_from_proto(root), section)


def test_scoped_docs_renders_docs_and_index_as_collapsed_markdown_sections(
    sample: Path,
) -> None:
    plugin = launch("scoped-docs", "docs")
    try:
        sections = ours(plugin, sample, ("src/tasklane/auth/login.py",))
        labels = [s.label for s in sections]
        assert any(label.startswith("src/tasklane/auth/AGENTS.md (applies to") for label in labels)
        assert "scoped docs index" in labels
        for section in sections:
            assert_markdown_section(call_render(plugin, section), section)
    finally:
        plugin.close()


def texts(node: Node) -> list[Text]:
    """Every text in the tree, in order."""
    match node:
        case Text():
            return [node]
        case ListNode(items):
            return [t for item in items for t in texts(item)]
        case Group(children) | Collapsible(_, children):
            return [t for child in children for t in texts(child)]
    return []


def git(repo: Path, *args: str, check: bool = True) -> None:
    subprocess.run(
        ["git", "-C", str(repo), *args],
        check=check,
        capture_output=True,
        env={**os.environ, **GIT_ENV},
    )


@pytest.fixture
def conflicted(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """main one commit ahead of origin/main, a merge stopped on a conflict, and a FIFO
    .gitignore that makes git status leave untracked files out with a ``Note:``."""
    isolate_git(tmp_path_factory, monkeypatch)
    origin, repo = tmp_path / "origin.git", tmp_path / "repo"
    git(tmp_path, "init", "-q", "--bare", str(origin))
    git(tmp_path, "clone", "-q", str(origin), str(repo))
    (repo / "app.py").write_text("one\n")
    git(repo, "add", "app.py")
    git(repo, "commit", "-qm", "first")
    git(repo, "push", "-q", "origin", "HEAD:main")
    git(repo, "branch", "--set-upstream-to=origin/main")
    git(repo, "checkout", "-qb", "other")
    (repo / "app.py").write_text("theirs\n")
    git(repo, "commit", "-qam", "theirs")
    git(repo, "checkout", "-q", "main")
    (repo / "app.py").write_text("ours\n")
    git(repo, "commit", "-qam", "ours")
    git(repo, "merge", "-q", "other", check=False)
    (repo / "sub").mkdir()
    os.mkfifo(repo / "sub" / ".gitignore")
    return repo


def test_git_status_renders_styled_lines(conflicted: Path) -> None:
    """Branch line bold; ahead/behind, the merge, the conflicts and ``Note:`` lines are
    warnings; commits dim."""
    plugin = launch("git-status", "git")
    try:
        (section,) = ours(plugin, conflicted)
        text = text_of(section)
        assert "Note: " in text and "Conflicted:" in text, text
        tree = call_render(plugin, section)
        assert isinstance(tree, Group)
        shown = texts(tree)
        assert shown[0] == Text("On branch main", TextStyle.BOLD)
        assert shown[1] == Text("1 commit ahead of origin/main", TextStyle.WARNING)
        style = {t.content: t.style for t in shown}
        assert style["Merge in progress"] is TextStyle.WARNING
        notes = [t for t in shown if t.content.startswith("Note: ")]
        assert notes and all(t.style is TextStyle.WARNING for t in notes)
        assert style["Conflicted:"] is TextStyle.WARNING
        assert style["both modified: app.py"] is TextStyle.WARNING
        assert style["Changes: 1 conflicted"] is TextStyle.WARNING
        commits = next(
            c
            for c in tree.children
            if isinstance(c, Group) and c.children[0] == Text("Recent commits:", TextStyle.BOLD)
        )
        listed = commits.children[1]
        assert isinstance(listed, ListNode) and len(listed.items) == 2
        assert all(isinstance(i, Text) and i.style is TextStyle.DIM for i in listed.items)
        assert [t.content.split(" ", 1)[1] for t in listed.items] == ["ours", "first"]  # type: ignore[union-attr]
        # Every line of the section is in the tree, in order (the upstream split aside).
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        lines[0:1] = lines[0].split(", ", 1)
        assert [t.content for t in shown] == lines
    finally:
        plugin.close()


def test_file_tree_renders_nested_lists_mirroring_its_lines(sample_git: Path) -> None:
    plugin = launch("file-tree", "tree")
    try:
        (section,) = ours(plugin, sample_git)
        tree = call_render(plugin, section)
        assert isinstance(tree, Group)
        root, totals = tree.children
        assert isinstance(root, Collapsible) and root.collapsed_by_default is False
        assert root.summary.endswith("sample_repo/")  # the root line names the repository
        (entries,) = root.children
        assert isinstance(entries, ListNode) and entries.ordered is False
        by_name = {
            (e.summary if isinstance(e, Collapsible) else e.content): e  # type: ignore[union-attr]
            for e in entries.items
        }
        assert by_name["AGENTS.md"] == Text("AGENTS.md")
        assert by_name[".claude/rules/storage.md"] == Text(".claude/rules/storage.md")  # folded
        src = by_name["src/tasklane/"]
        assert isinstance(src, Collapsible) and src.collapsed_by_default is False
        assert isinstance(totals, Text) and totals.style is TextStyle.DIM
        assert totals.content.startswith("(shown: ")
        # One node per line, in the section's order.
        flat = [line.strip() for line in text_of(section).splitlines()]
        assert [_label(n) for n in _walk(tree)] == flat
    finally:
        plugin.close()


def _walk(node: Node) -> Iterator[Node]:
    if isinstance(node, Text | Collapsible):
        yield node
    children = node.children if isinstance(node, Group | Collapsible) else ()
    if isinstance(node, ListNode):
        children = node.items
    for child in children:
        yield from _walk(child)


def _label(node: Node) -> str:
    return node.summary if isinstance(node, Collapsible) else node.content  # type: ignore[union-attr]


# -- what is not ours, or not our format, is invalid_request ----------------


def refused(plugin: PluginProcess, message: context_pb2.RenderRequest) -> str:
    with pytest.raises(grpc.RpcError) as info:
        plugin.stub.Render(message, timeout=10)
    code, detail = error_of(info.value)
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    assert detail.category == context_pb2.CONTEXT_ERROR_CATEGORY_INVALID_REQUEST
    assert detail.retryable is False
    return detail.message


@pytest.mark.parametrize("version", ["", "2", "1.0", " 1"])
def test_an_unknown_schema_version_is_invalid_request(
    conventions: PluginProcess, sample: Path, version: str
) -> None:
    section = ours(conventions, sample)[0]
    message = context_pb2.RenderRequest(payload=section.SerializeToString(), schema_version=version)
    assert "schema_version" in refused(conventions, message)


@pytest.mark.parametrize(
    "payload",
    [
        b"\x0a\x05ab",  # field 1 claims 5 bytes, 2 follow
        b"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01",  # a tag no varint can be
        content_pb2.ContextSection(label="\u00e9").SerializeToString()[:-1],  # cut in a char
    ],
)
def test_a_payload_that_does_not_parse_is_invalid_request(
    conventions: PluginProcess, payload: bytes
) -> None:
    message = context_pb2.RenderRequest(payload=payload, schema_version="1")
    assert "ContextSection" in refused(conventions, message)


def test_a_section_that_is_not_ours_is_invalid_request(
    conventions: PluginProcess, sample: Path
) -> None:
    """The name rule the adapter stamps sections with: provider_name, then the kernel's
    local name, then our published name."""
    section = ours(conventions, sample)[0]
    for provider in ("other", "", "repo-conventions"):  # not even our published name
        foreign = content_pb2.ContextSection()
        foreign.CopyFrom(section)
        foreign.provider = provider
        assert "not 'conventions'" in refused(conventions, render_request(foreign))
    assert "provider is ''" in refused(
        conventions, context_pb2.RenderRequest(payload=b"", schema_version="1")
    )
    # Renamed by provider_name: the old name is no longer ours, the new one is.
    conventions.stub.Configure(config_to_proto({"provider_name": "renamed"}), timeout=5)
    assert "not 'renamed'" in refused(conventions, render_request(section))
    (renamed, *_) = ours_named(conventions, sample, "renamed")
    assert isinstance(call_render(conventions, renamed), Collapsible)
    # The plugin goes on serving.
    assert conventions.stub.Contribute(request(sample), timeout=10).sections


def ours_named(plugin: PluginProcess, repo: Path, name: str) -> list[content_pb2.ContextSection]:
    sections = list(plugin.stub.Contribute(request(repo), timeout=30).sections)
    assert sections and {s.provider for s in sections} == {name}
    return sections


def test_a_provider_without_render_answers_unimplemented(tmp_path: Path) -> None:
    """Render is optional: answering UNIMPLEMENTED is conformant (wire-contract.md)."""
    root = Path(__file__).resolve().parents[2]
    command = [
        sys.executable,
        "-c",
        f"import os, sys; sys.path.insert(0, {str(root)!r});"
        " from providers.goplugin.server import serve;"
        " raise SystemExit(serve('tests.goplugin.answer_hook:HookProvider', os.environ))",
    ]
    plugin = PluginProcess.launch(command, local_name="hook")
    try:
        section = content_pb2.ContextSection(provider="hook", label="hook")
        section.content.append(text_block("hook\n"))
        with pytest.raises(grpc.RpcError) as info:
            plugin.stub.Render(render_request(section), timeout=10)
        assert isinstance(info.value, grpc.Call)
        assert info.value.code() == grpc.StatusCode.UNIMPLEMENTED
    finally:
        plugin.close()


# -- the model on the wire ---------------------------------------------------


def test_the_model_round_trips_through_render_v1() -> None:
    """Unset style and language stay unset (the frontend's default), distinct from
    NORMAL and from an empty language."""
    tree = Group(
        (
            Text("plain"),
            Text("normal", TextStyle.NORMAL),
            *(Text(style.value, style) for style in TextStyle),
            CodeBlock("x = 1\n"),
            CodeBlock("", ""),
            ListNode((Text("a"), ListNode((Text("b"),), ordered=True)), ordered=False),
            Collapsible("s", (Text("c"),), collapsed_by_default=False),
            Collapsible("", ()),
        )
    )
    wire = node_to_proto(tree)
    assert node_from_proto(render_pb2.RenderNode.FromString(wire.SerializeToString())) == tree
    plain = wire.group.children[0].text
    assert not plain.HasField("style")
    assert not wire.group.children[10].code_block.HasField("language")
    assert wire.group.children[11].code_block.HasField("language")
    names = [render_pb2.TextStyle.Name(c.text.style) for c in wire.group.children[2:10]]
    assert names == [f"TEXT_STYLE_{s.name}" for s in TextStyle]


def test_a_variant_we_never_build_is_shown_not_dropped() -> None:
    """frontend.md: never silently drop a node; the preview names what it cannot draw."""
    node = render_pb2.RenderNode(link=render_pb2.LinkNode(text="t", url="u"))
    assert node_from_proto(node) == Text("[link node]", TextStyle.DIM)
    assert node_from_proto(render_pb2.RenderNode()) == Text("[empty node]", TextStyle.DIM)
