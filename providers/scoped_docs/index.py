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

from providers.repository.wildmatch import joined, path_bytes
from providers.rules.load import Rule

BUCKET_SIZE = 32


_BucketKey = tuple[tuple[str, object], ...]


class RuleIndex:
    """Glob rules in buckets, each with an optional combined prefilter regex.

    Rebuilt whenever rules change; ``previous`` lends its compiled buckets, so
    rules loaded a few hundred at a time (thousands of rule files take several
    turns) cost only the buckets they change, not every bucket each turn.
    """

    def __init__(
        self,
        rules: Sequence[Rule],
        bucket_size: int = BUCKET_SIZE,
        previous: RuleIndex | None = None,
    ) -> None:
        glob_rules = [r for r in rules if r.globs is not None]
        known = previous._compiled if previous is not None else {}
        self._compiled: dict[_BucketKey, re.Pattern[bytes] | None] = {}
        self._buckets: list[tuple[re.Pattern[bytes] | None, tuple[Rule, ...]]] = []
        for start in range(0, len(glob_rules), bucket_size):
            bucket = tuple(glob_rules[start : start + bucket_size])
            key = tuple((rule.path, rule.key) for rule in bucket)  # a file's version
            regex = known[key] if key in known else _combined(bucket)
            self._compiled[key] = regex
            self._buckets.append((regex, bucket))

    def __len__(self) -> int:
        return sum(len(rules) for _, rules in self._buckets)

    def candidates(self, path: str) -> Iterator[Rule]:
        """Rules that may match ``path``: a superset of those that do."""
        data = path_bytes(path)
        for regex, rules in self._buckets:
            if regex is None or regex.match(data):
                yield from rules


def _combined(rules: Sequence[Rule]) -> re.Pattern[bytes] | None:
    """The OR of every inclusion's regex in the bucket; ``None``: always check the bucket."""
    regexes: list[re.Pattern[bytes]] = []
    for rule in rules:
        inclusions = rule.globs.inclusions() if rule.globs is not None else ()
        found = [i.regex for i in inclusions if i.regex is not None]
        if not found or len(found) < len(inclusions):
            return None  # cannot prefilter this rule: always check the bucket
        regexes.extend(found)
    return joined(regexes)
