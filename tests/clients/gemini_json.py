"""Gemini CLI's own reading of its settings files, run by node from the installed client.

Gemini CLI 0.61 reads ``settings.json`` as ``JSON.parse(stripJsonComments(content))``
(``packages/cli/src/config/settings.ts``); its bundle carries ``strip-json-comments``. This
takes that module's source out of the installed bundle and runs it, with node's own
``JSON.parse``, on many texts at once, so tests can compare setup's reading with the
client's, text for text.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.conftest import REPO_ROOT

BUNDLE = REPO_ROOT / ".clients" / "node_modules" / "@google" / "gemini-cli" / "bundle"
MODULE_START = "// node_modules/strip-json-comments/index.js\n"
SHIM = """
var __commonJS = (cb, mod) => () =>
  (mod || (0, cb[Object.keys(cb)[0]])((mod = { exports: {} }).exports, mod), mod.exports);
"""
RUN = """
const strip = require_strip_json_comments();
const texts = JSON.parse(require("fs").readFileSync(0, "utf8"));
const out = texts.map((text) => {
  const stripped = strip(text);
  try {
    return { stripped, ok: true, value: JSON.parse(stripped) };
  } catch (error) {
    return { stripped, ok: false };
  }
});
process.stdout.write(JSON.stringify(out));
"""


@dataclass(frozen=True)
class Reading:
    """What Gemini CLI makes of one text: the text ``JSON.parse`` gets, and its value
    (``ok`` False: the client reports the file as invalid)."""

    stripped: str
    ok: bool
    value: Any


def module_source() -> str | None:
    """The bundled ``strip-json-comments`` module (``var require_strip_json_comments =
    __commonJS(...)``), or None when Gemini CLI is not installed."""
    for chunk in sorted(BUNDLE.glob("*.js")):
        text = chunk.read_text(encoding="utf-8")
        start = text.find(MODULE_START)
        if start < 0:
            continue
        end = text.find("\n// node_modules/", start + len(MODULE_START))
        return text[start:end]
    return None


def missing() -> str | None:
    """Why Gemini CLI's reading cannot run here, or None."""
    if shutil.which("node") is None:
        return "node not found on PATH"
    if module_source() is None:
        return f"Gemini CLI's bundle (with strip-json-comments) not found under {BUNDLE}"
    return None


def readings(texts: list[str]) -> list[Reading]:
    """Gemini CLI's reading of each text."""
    source = module_source()
    assert source is not None, missing()
    with tempfile.TemporaryDirectory() as scratch:
        script = Path(scratch) / "read.cjs"
        script.write_text(SHIM + source + RUN, encoding="utf-8")
        done = subprocess.run(
            ["node", str(script)],
            input=json.dumps(texts),
            capture_output=True,
            text=True,
            check=True,
            timeout=60,
        )
    return [Reading(r["stripped"], r["ok"], r.get("value")) for r in json.loads(done.stdout)]
