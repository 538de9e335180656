"""Helpers every test package may use: files, trees, watchers, wire messages.

A test package imports its own modules, ``tests.conftest`` and these, never
another test package's (``tests/test_test_layout.py`` checks): a helper two
packages need lives here, once.
"""
