"""Gemini CLI's folder listing, the peer map: ``getFolderStructure`` from the npm package
``@google/gemini-cli-core``, called as the CLI calls it for its first prompt.

The package lives under ``/work/bench-cache/node`` (installed on first use,
never in the project); ``gemini_listing.mjs`` lists every directory in one
Node process, since loading the package takes about a second.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

from benchmarks.orientation.cases import CACHE

PREFIX = CACHE / "node"
PACKAGE = "@google/gemini-cli-core"
VERSION = "0.61.0"
"""The version the figures in benchmarks/results/orientation.md were taken with."""
_SCRIPT = Path(__file__).with_name("gemini_listing.mjs")


def installed_version() -> str:
    """The package's version, installing it first when it is missing."""
    manifest = PREFIX / "node_modules" / PACKAGE / "package.json"
    if not manifest.exists():
        if shutil.which("npm") is None:
            raise SystemExit("Gemini CLI's listing needs node and npm on PATH")
        PREFIX.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            ["npm", "install", "--prefix", str(PREFIX), f"{PACKAGE}@{VERSION}"],
            check=True,
            stdout=subprocess.DEVNULL,
        )
    version: str = json.loads(manifest.read_text())["version"]
    return version


def listings(dirs: Sequence[Path]) -> dict[Path, str]:
    """Each directory's listing, as the CLI would put it in its first prompt."""
    # Entries are sorted with localeCompare, and the order decides which are kept at 200
    # items: pin the locale (en-US, Node's usual default) so every machine lists the same.
    done = subprocess.run(
        ["node", str(_SCRIPT), str(PREFIX), *map(str, dirs)],
        capture_output=True,
        text=True,
        env={**os.environ, "LC_ALL": "en_US.UTF-8"},
        check=False,
    )
    if done.returncode:
        raise SystemExit(f"gemini_listing.mjs failed:\n{done.stderr}")
    out: dict[str, str] = json.loads(done.stdout)
    return {Path(d): out[str(d)] for d in dirs}
