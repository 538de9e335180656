"""Why gitignore matching is our own port: pathspec's GitIgnoreSpec against git's verdicts.

Reads the ~2,000 cases of ``tests/repository/data/gitignore_cases.txt`` (each one
an ignore file, a path and git's own verdict) and counts where pathspec raises on a
pattern git accepts, and where it gives another verdict. pathspec arrives with the
dev tools (mypy depends on it); it is not a dependency of the bundle.

    ./dev python benchmarks/compare_pathspec.py
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import pathspec  # after the path: the tests package is read from the checkout
from pathspec import GitIgnoreSpec

from tests.repository.gitignore_oracle import read_cases


def main() -> None:
    warnings.simplefilter("ignore")  # pathspec's regexes warn about nested sets
    cases = read_cases()
    raised, wrong, examples = 0, 0, []
    for case in cases:
        try:
            spec = GitIgnoreSpec.from_lines(case.content.decode("utf-8").split("\n"))
            ignored = spec.match_file(case.path.decode("utf-8") + ("/" if case.is_dir else ""))
        except Exception:  # a pattern pathspec refuses or a path it cannot take
            raised += 1
            continue
        if ignored != (case.verdict == "ignored"):
            wrong += 1
            if len(examples) < 8:
                examples.append(f"  {case.content!r} on {case.path!r}: git {case.verdict}")
    print(f"pathspec {pathspec.__version__} against git on {len(cases)} cases:")
    print(f"  raises on {raised} patterns git accepts; another verdict on {wrong}")
    print("\n".join(examples))


if __name__ == "__main__":
    main()
