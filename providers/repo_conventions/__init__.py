"""repo conventions: the repository's convention files (AGENTS.md, CLAUDE.md, ...), static.

Files, as in every provider package:
``settings.py`` (schema, defaults, typed settings), ``provider.py`` (the
object the adapter calls), ``__main__.py`` (the console script).
"""
