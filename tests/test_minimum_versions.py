"""Issue 22 item 9: the declared minimum versions work.

CI installs every runtime dependency at its declared minimum (``.ci/minimum_versions.py``
writes the pins) and runs the quick start and the suite with them. These tests keep
the pins honest: every dependency has a lower bound, and the generated stubs, which
check the protobuf and grpcio runtimes at import, never need more than it.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib

from tests.conftest import REPO_ROOT

GEN = REPO_ROOT / "providers" / "_gen"


def pins() -> dict[str, tuple[int, ...]]:
    result = subprocess.run(
        [sys.executable, str(REPO_ROOT / ".ci" / "minimum_versions.py")],
        capture_output=True,
        text=True,
        check=True,
    )
    found = {}
    for line in result.stdout.splitlines():
        name, _, version = line.partition("==")
        found[name.lower()] = tuple(int(part) for part in version.split("."))
    return found


def test_every_runtime_dependency_is_pinned_to_its_lower_bound() -> None:
    declared = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["project"]
    names = {re.split(r"[<>=\[;\s]", d, maxsplit=1)[0].lower() for d in declared["dependencies"]}
    assert set(pins()) == names


def test_generated_stubs_need_no_more_than_the_declared_minimums() -> None:
    """The _pb2 modules refuse an older protobuf runtime, the _pb2_grpc ones an older
    grpcio: the declared minimums are at least what generated them."""
    protobuf = set()
    for path in GEN.rglob("*_pb2.py"):
        found = re.search(
            r"ValidateProtobufRuntimeVersion\(\s*_runtime_version\.Domain\.PUBLIC,\s*"
            r"(\d+),\s*(\d+),\s*(\d+),",
            path.read_text(),
        )
        assert found, path
        protobuf.add(tuple(int(g) for g in found.groups()))
    grpc = {
        tuple(int(p) for p in m.group(1).split("."))
        for path in GEN.rglob("*_pb2_grpc.py")
        if (m := re.search(r"GRPC_GENERATED_VERSION = '([\d.]+)'", path.read_text()))
    }
    minimum = pins()
    assert protobuf and max(protobuf) <= minimum["protobuf"]
    assert grpc and max(grpc) <= minimum["grpcio"]
    for companion in ("grpcio-status", "grpcio-health-checking"):
        assert minimum[companion] >= minimum["grpcio"][:2], companion
