"""Issue 32 under the kernel: the same folders, no scratch copy.

Launched as the kernel launches it (a real plugin process through our host,
real gRPC), each provider answers Contribute for a working directory in a
folder in no repository holding each shape of ``test_scratch_shapes``, and in
the nested repository itself: an answer, or a failure the spec classifies
(context-conformance.md, "Error taxonomy": a category with a ContextError
detail, never ``unknown``/INTERNAL, which would be a bug).
"""

from __future__ import annotations

from pathlib import Path

import grpc
import pytest

from providers._gen.pluggableharness.context.v1 import context_pb2
from providers.goplugin.convert import config_to_proto
from providers.host.launcher import PluginProcess
from providers.registry import PROVIDERS, ProviderEntry
from tests.cli.test_scratch_shapes import SHAPES
from tests.conftest import script
from tests.support.wire import error_of, request

TREE = {
    "nested-with-commits": ("  inner/ (repository)\n", "  a.txt\n"),
    "nested-without-commits": ("  inner/ (repository)\n",),
    "nested-deep": ("  x/y/z/inner/ (repository)\n",),
    "refused-names": (
        "  .GIT/config\n",
        "  sub/\n    .Git\n",
        "  git~1\n",
        "  .gitmodules -> elsewhere\n",
        '  "new\\nline"\n',
    ),
}
"""What the file tree shows of each folder: the walk lists a nested repository as one
entry, as ``git ls-files -co`` would, and every name git refuses."""

INNER = {
    "nested-with-commits": "inner",
    "nested-without-commits": "inner",
    "nested-deep": "x/y/z/inner",
}


def contribute(plugin: PluginProcess, directory: Path) -> str:
    """The sections' text, or the failure's category (a classified one, or the test fails)."""
    try:
        reply = plugin.stub.Contribute(request(directory), timeout=60)
    except grpc.RpcError as call:
        code, detail = error_of(call)
        assert detail.category != context_pb2.CONTEXT_ERROR_CATEGORY_UNKNOWN, detail.message
        assert code != grpc.StatusCode.INTERNAL, detail.message
        return f"error: {detail.message}"
    return "".join(block.text.text for s in reply.sections for block in s.content)


@pytest.mark.parametrize("entry", PROVIDERS, ids=lambda e: e.package)
def test_each_provider_answers_in_each_shape(entry: ProviderEntry, tmp_path: Path) -> None:
    """Issue 32: every shape, at the folder and in its nested repository, through the
    real plugin: an answer or a classified failure; the file tree names each entry."""
    plugin = PluginProcess.launch([script(entry.script)], local_name=entry.package)
    try:
        plugin.stub.Configure(config_to_proto({}), timeout=30)
        for name, shape in SHAPES.items():
            folder = tmp_path / name
            shape.make(folder)
            text = contribute(plugin, folder)
            if entry.package == "file_tree":
                for line in TREE[name]:
                    assert line in text, (name, line, text)
            if name in INNER:
                inner = contribute(plugin, folder / INNER[name])
                if entry.package == "file_tree":
                    assert "  b.txt\n" in inner, (name, inner)
                if entry.package == "git_status" and name != "nested-with-commits":
                    assert "(no commits yet)" in inner, (name, inner)
    finally:
        plugin.close()
