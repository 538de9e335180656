"""file tree: a map of the repository's files that fits the token budget, dynamic.

Files, as in every provider package:
``settings.py`` (schema, defaults, typed settings), ``provider.py`` (the
object the adapter calls), ``__main__.py`` (the console script).
"""
