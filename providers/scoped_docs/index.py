"""A prefilter so one new path is not matched against every rule one by one.

With a thousand glob rules, matching each in Python costs milliseconds per
path. Rules are grouped into buckets; each bucket's inclusion patterns are
joined into one regex, so a path costs one C-level regex call per bucket and
only the rules of a bucket that hit are matched properly (with exclusions).
The prefilter may say yes too often (an exclusion may undo the match), never
no too often: the joined regex is the plain OR of the rules' own regexes.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from providers.scoped_docs.rules import Rule

BUCKET_SIZE = 32

# pathspec names a group in each pattern's regex; the same name twice in one
# regex is an error, and the group's capture is not needed for a yes/no test.
_NAMED_GROUP = re.compile(r"\(\?P<[A-Za-z_][A-Za-z0-9_]*>")
# Back-references would point elsewhere once regexes are joined: no prefilter then.
_BACKREF = re.compile(r"\\[1-9]|\(\?P=")


class RuleIndex:
    """Glob rules in buckets, each with an optional combined prefilter regex."""

    def __init__(self, rules: Sequence[Rule], bucket_size: int = BUCKET_SIZE) -> None:
        glob_rules = [r for r in rules if r.globs is not None]
        self._buckets: list[tuple[re.Pattern[str] | None, tuple[Rule, ...]]] = []
        for start in range(0, len(glob_rules), bucket_size):
            bucket = tuple(glob_rules[start : start + bucket_size])
            self._buckets.append((_combined(bucket), bucket))

    def __len__(self) -> int:
        return sum(len(rules) for _, rules in self._buckets)

    def candidates(self, path: str) -> Iterator[Rule]:
        """Rules that may match ``path``: a superset of those that do."""
        for regex, rules in self._buckets:
            if regex is None or regex.match(path):
                yield from rules


def _combined(rules: Sequence[Rule]) -> re.Pattern[str] | None:
    sources: list[str] = []
    for rule in rules:
        inclusions = rule.globs.inclusions() if rule.globs is not None else ()
        regexes = [i.regex.pattern for i in inclusions if i.regex is not None]
        if not regexes or len(regexes) < len(inclusions):
            return None  # cannot prefilter this rule: always check the bucket
        if any(_BACKREF.search(source) for source in regexes):
            return None
        sources.extend(_NAMED_GROUP.sub("(?:", source) for source in regexes)
    try:
        return re.compile("|".join(f"(?:{source})" for source in sources))
    except re.error:
        return None
