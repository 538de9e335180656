"""Rule files shared by the providers that show them: dialects, front matter, globs, discovery.

A neutral layer like ``core`` and ``repository``: repo conventions takes the
rules that always apply (the cached prefix), scoped docs the conditional ones,
and neither imports the other. Modules:

- ``dialects``: each tool's rule directory and what its front matter means;
- ``frontmatter``: front matter YAML into a mapping, or a reason it is untrusted;
- ``globs``: the globs tools write, matched the way each tool matches them: braces
  expanded (``braces``), one matcher per flavour (``matchers``) over the shared regex
  translation (``flavours``), reporting in ``glob_match``'s terms;
- ``load``: one file into a ``Rule`` or a ``Problem``;
- ``catalog``: which rule files exist, re-read only when they change;
- ``conventions``: the convention file names (AGENTS.md, CLAUDE.md, ...) every tool reads;
- ``expand``: ``@import`` expansion of a convention file or a rule, confined and capped.
"""
