"""The repository on disk, as every provider needs it; no provider owns it.

- ``layout``: the root, the git directory, nested repositories (stat calls only);
- ``gitexec``: the only place that starts git, safely for an untrusted repository;
- ``guard``: what a repository may make git do (nothing it chooses to run, nothing read
  outside it), with ``discovery`` (which repository git will use, and whether it is this
  directory's own) and ``gitconfig`` (its config files read as data, includes vetted);
- ``listing``: what git would show (``git ls-files``), read once per run;
- ``walk``: the same listing without git, applying git's ignore rules;
- ``excludes``: git's global excludes file;
- ``files``: every file as one sorted tuple (listing, else walk);
- ``sources``: safe reads (regular files only, bounded, confined) and ``FileKey``, the
  one "has it changed";
- ``paths``: confinement to the repository and repo-relative names;
- ``ignore`` and ``wildmatch``: gitignore rules as git reads them, for where we match
  ourselves.

Imports nothing heavy at package level: providers load what they use.
"""
