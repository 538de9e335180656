"""Line breaks as markdown-it counts them: the one line splitter of the markdown package.

A line ends at ``\\r\\n``, a lone ``\\r`` or ``\\n``, and nowhere else:
``str.splitlines()`` would also break at form feeds, vertical tabs, ``\\x1c``
to ``\\x1e``, ``\\x85``, U+2028 and U+2029, which markdown keeps inside a line.
Everything here derives from that one rule (:data:`_LINE_BREAK`), so the
lines a token's ``map`` counts, the lines a unit is cut at and the text
markdown-it parses always agree:

* :func:`normalise_newlines` makes every break ``\\n``, the text markdown-it
  parses (its ``token.map`` counts lines of that text);
* :func:`source_lines` are those lines, without their ``\\n``;
* :func:`line_offsets` are where the same lines start in the original text,
  so slices of it keep the author's line endings.
"""

from __future__ import annotations

import re

_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_NORMAL_BREAK = "\n"


def normalise_newlines(text: str) -> str:
    """``\\r\\n`` and lone ``\\r`` become ``\\n``, exactly as markdown-it normalises."""
    if "\r" not in text:
        return text  # nothing but "\n" breaks: already normal (and the common case)
    return _LINE_BREAK.sub(_NORMAL_BREAK, text)


def source_lines(normalised: str) -> list[str]:
    """The lines markdown-it's ``token.map`` counts, without their ``\\n``.

    ``normalised`` comes from :func:`normalise_newlines`, so ``\\n`` is its
    only line break. A trailing newline does not open a further line,
    matching markdown-it's line count (so ``map`` ends never exceed
    ``len(result)``) and :func:`line_offsets`.
    """
    if not normalised:
        return []
    lines = normalised.split(_NORMAL_BREAK)
    if normalised.endswith(_NORMAL_BREAK):
        lines.pop()
    return lines


def line_offsets(text: str) -> list[int]:
    """Offset where each line of ``text`` starts, plus ``len(text)`` at the end.

    The same lines as :func:`source_lines` of the normalised text, located in
    ``text`` as written: line ``i`` is ``text[offsets[i]:offsets[i + 1]]``,
    its line ending included.
    """
    offsets = [0] + [match.end() for match in _LINE_BREAK.finditer(text)]
    if offsets[-1] == len(text) and len(offsets) > 1:
        offsets.pop()
    offsets.append(len(text))
    return offsets if text else [0]
