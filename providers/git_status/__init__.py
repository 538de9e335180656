"""git status: branch, operation in progress, changes and recent commits, fresh every turn.

Files, as in every provider package:
``settings.py`` (schema, defaults, typed settings), ``provider.py`` (the
object the adapter calls), ``__main__.py`` (the console script).
"""
