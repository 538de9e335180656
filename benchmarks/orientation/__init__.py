"""Issue 12's orientation benchmark: how often the file tree names the agent's next file.

``bench_orientation.py`` drives it; this package holds its parts: the repositories
and tasks (``cases``), the map under test (``ours``), the pinned baseline
(``baseline``), Gemini CLI's listing (``gemini``) and the parsers that turn each
map back into the paths it names (``parse``).
"""
