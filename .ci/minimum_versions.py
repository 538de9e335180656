"""Print pip constraints pinning each runtime dependency to its declared minimum.

``pyproject.toml`` says ``grpcio>=1.85.1,<2``: CI installs exactly 1.85.1 (a
resolution that picks minimums) and runs the quick start and the suite with it,
so a declared minimum that does not work fails CI instead of a user's install.

    python3 .ci/minimum_versions.py > constraints.txt
"""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path

LOWER = re.compile(r"^\s*([A-Za-z0-9_.\-]+)(?:\[[^\]]*\])?\s*[^;]*?>=\s*([0-9][^,;\s]*)")


def minimum_pins(pyproject: Path) -> list[str]:
    project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
    pins = []
    for requirement in project["dependencies"]:
        found = LOWER.match(requirement)
        if found is None:
            sys.exit(f"{requirement!r} has no lower bound (>=): declare the oldest that works")
        pins.append(f"{found.group(1)}=={found.group(2)}")
    return pins


if __name__ == "__main__":
    root = Path(__file__).resolve().parent.parent
    sys.stdout.write("".join(f"{pin}\n" for pin in minimum_pins(root / "pyproject.toml")))
