"""scoped docs: the nested docs and rule files that govern the files the agent touches.

Files, as in every provider package:
``settings.py`` (schema, defaults, typed settings), ``provider.py`` (the
object the adapter calls), ``__main__.py`` (the console script).
"""
