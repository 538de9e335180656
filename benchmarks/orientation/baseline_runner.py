"""Today's ranking: the file tree section of a pinned revision, run in its own process.

Run as ``PYTHONPATH=<extracted revision> python3 baseline_runner.py`` with a
JSON request on stdin: ``{"providers": <the extracted dir>, "root": <label>,
"paths": [...], "budget": N, "touched": [[...], ...]}``; prints a JSON list of
section texts, one per entry of ``touched``. It imports nothing from the
benchmark, so the code it measures is only the revision's, and it calls the
file tree as that revision's provider does (``Tree.of``, ``View``,
``render_section`` with the fallback counter): the pinned revision's names,
which today's tree calls ``Presentation`` and ``build_section``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def main() -> int:
    request = json.load(sys.stdin)
    import providers
    from providers.core.budget import FallbackCounter
    from providers.file_tree.render import View, render_section
    from providers.file_tree.tree import Tree

    expected = Path(request["providers"]).resolve()
    if expected not in Path(providers.__file__).resolve().parents:
        raise SystemExit(f"imported {providers.__file__}, not the revision at {expected}")
    tree = Tree.of(request["paths"])
    view = View(request["root"])
    texts = []
    for touched in request["touched"]:
        section = render_section(tree, view, touched, request["budget"], FallbackCounter())
        texts.append("" if section is None else section.text)
    json.dump(texts, sys.stdout)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
