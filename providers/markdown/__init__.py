"""Markdown as the providers need it: artifacts stripped, imports found, units cut.

Principle: parse, never pattern-match. Every decision comes from
markdown-it's CommonMark tokens (HTML on, so comments are tokens; front
matter via mdit-py-plugins), and edits are made on source lines by token
line maps so kept text stays byte-exact. Every function is total: any string
in, an answer out, except that a text needing more parser work than
``MAX_PARSE_WORK`` raises ``MarkdownTooComplex`` within about a second (the
caller reads it as plain text; ``split_units`` does so itself). Nothing here
reads files.

This facade is the package's public surface; the work is split by task:
``lines`` (the one line-break rule), ``tokens`` (parser, token-to-source
maps), ``strip`` (with ``edits``, cutting spans out of lines), ``imports``
and ``units``.
"""

from __future__ import annotations

from providers.markdown.imports import MarkdownImport, find_imports
from providers.markdown.lines import normalise_newlines
from providers.markdown.strip import split_front_matter, strip_artifacts
from providers.markdown.tokens import MAX_PARSE_WORK, MarkdownTooComplex
from providers.markdown.units import split_lines, split_units

__all__ = [
    "MAX_PARSE_WORK",
    "MarkdownImport",
    "MarkdownTooComplex",
    "find_imports",
    "normalise_newlines",
    "split_front_matter",
    "split_lines",
    "split_units",
    "strip_artifacts",
]
