"""Issue 12's numbers: how useful the file tree's map is to an agent, as next-file recall.

Each sampled commit of a real repository is a task: its modified files are
what the agent will need. "with": the agent has touched one of them
(``files_touched = [f]``, every f in turn); recall is the share of the others
the map names. "without": nothing touched; the share of all of them. A file
is named when it has its own line under expanded directories. Three maps, each
at the same budget (tokens by the kernel's fallback, ceil(UTF-8 bytes / 4)):

- ours: ``benchmarks/orientation/ours.py``, the ranking being worked on;
- today: the renderer at ``--baseline``, pinned, in its own process;
- gemini: Gemini CLI's startup folder listing (200 items; it ignores
  files_touched, so its "with" is the same listing scored the same way).

A second table (issue 22 item 3) compares ours on a session's first turn with its
later turns (``orientation/sessions.py``): with a history kept by an earlier session,
with none kept (the newest commits, mined before the first answer) and with no history.

    python3 benchmarks/bench_orientation.py [--repos fastapi ...] [--commits 150]
        [--budget 1000] [--baseline REV] [--seed 0] [--maps ours today gemini]
        [--first-commits 200]

Repositories come from bare mirrors (``--mirrors``, the fetch tool's
``/work/.mirror``) at pinned commits; checkouts, the baseline and the npm
package are cached under ``/work/bench-cache``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.orientation import baseline, gemini, selfcheck
from benchmarks.orientation.cases import (
    CACHE,
    MIRRORS,
    REPOS,
    Commit,
    Question,
    RepoCase,
    Task,
    load,
    questions,
    sample,
)
from benchmarks.orientation.ours import ours
from benchmarks.orientation.parse import Named
from benchmarks.orientation.sessions import (
    LATER,
    SESSION_GAP,
    VARIANTS,
    FirstTurns,
    first_turns,
)
from providers.file_tree.miner import FIRST_COMMITS, FIRST_WAIT_S


def tokens(text: str) -> int:
    """The kernel's fallback count; surrogate escapes (non-UTF-8 names) count as their bytes."""
    return -(-len(text.encode("utf-8", "surrogateescape")) // 4)


@dataclass(frozen=True)
class Score:
    with_touched: float
    without: float
    tokens: float
    density: float
    """Entries (files and directories with their own line) named per 1,000 tokens."""


CommitQuestions = tuple[Question, list[Question]]
"""One commit: the question without files_touched, and one per modified file touched."""


def recall(named: Named, wanted: Sequence[str]) -> float:
    return sum(p in named.files for p in wanted) / len(wanted)


def score(
    commits: Sequence[CommitQuestions],
    text_of: Callable[[Task], str],
    parse: Callable[[str], Named],
) -> Score:
    """Recall with and without files_touched (means over commits), tokens, density."""
    parsed: dict[str, Named] = {}

    def named(task: Task) -> Named:
        text = text_of(task)
        if text not in parsed:
            parsed[text] = parse(text) if text else Named(frozenset(), frozenset())
        return parsed[text]

    with_touched, without, counts, entries = [], [], [], []
    for alone, touching in commits:
        without.append(recall(named(alone.task), alone.wanted))
        with_touched.append(statistics.fmean(recall(named(q.task), q.wanted) for q in touching))
        for question in (alone, *touching):
            counts.append(tokens(text_of(question.task)))
            entries.append(named(question.task).entries)
    total = sum(counts)
    return Score(
        statistics.fmean(with_touched),
        statistics.fmean(without),
        statistics.fmean(counts),
        1000 * sum(entries) / total if total else 0.0,
    )


def check_baseline(revision: Path) -> None:
    """The pinned renderer's output parses back too (and its process runs)."""
    paths = selfcheck.small_tree()
    case = RepoCase("selfcheck", Path(), "", Path("/tmp/selfcheck"), tuple(paths), frozenset())
    (text,) = baseline.baseline_texts(case, [Task("", ())], 1000, revision)
    selfcheck.check_ours_text(text, paths, whole=True)


def mean_score(scores: Sequence[Score]) -> Score:
    """Each figure averaged over repositories: a 57k-file one weighs as much as a 2k-file one."""
    return Score(
        statistics.fmean(s.with_touched for s in scores),
        statistics.fmean(s.without for s in scores),
        statistics.fmean(s.tokens for s in scores),
        statistics.fmean(s.density for s in scores),
    )


MAPS = ("ours", "today", "gemini")


def row(label: str, name: str, s: Score) -> str:
    return (
        f"{label:<30} {name:<7} {s.with_touched:6.2f} {s.without:8.2f} "
        f"{s.tokens:7.0f} {s.density:10.0f}"
    )


def session_row(label: str, variant: str, s: Score, later: Score, mining: str) -> str:
    return (
        f"{label:<30} {variant:<17} {s.with_touched:6.2f} {s.without:8.2f} "
        f"{s.with_touched - later.with_touched:+7.2f} {s.without - later.without:+8.2f} "
        f"{mining:>13}"
    )


def first_turn_table(
    names: Sequence[str], scores: Sequence[dict[str, Score]], firsts: Sequence[FirstTurns]
) -> None:
    """Issue 22 item 3: each first-turn variant against later turns, per repository."""
    header = (
        f"{'repository':<30} {'turn':<17} {'with':>6} {'without':>8} {'d with':>7} "
        f"{'d w/o':>8} {'mining ms':>13}"
    )
    print(header)
    print("-" * len(header))
    for name, per_variant, first in zip(names, scores, firsts, strict=True):
        label = name
        for variant in VARIANTS:
            later = per_variant[LATER]
            print(session_row(label, variant, per_variant[variant], later, first.summary(variant)))
            label = ""
    if len(names) > 1:
        label = f"all ({len(names)} repositories)"
        means = {v: mean_score([s[v] for s in scores]) for v in VARIANTS}
        for variant in VARIANTS:
            print(session_row(label, variant, means[variant], means[LATER], ""))
            label = ""
    waited = [t for f in firsts for ts in f.seconds.values() for t in ts]
    within = sum(t <= FIRST_WAIT_S for t in waited) / len(waited) if waited else 1.0
    print(
        "d: against later turns; mining ms: a first answer's mining, median/slowest "
        f"(waited for at most {FIRST_WAIT_S * 1000:.0f} ms: {within:.0%} of them were "
        f"done by then);\nfirst, kept: the history a session {SESSION_GAP} commits earlier kept, "
        "extended; none kept: the newest commits; bare: no history"
    )


def main() -> int:
    names = [spec.name for spec in REPOS]
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--repos", nargs="+", choices=names, default=names)
    parser.add_argument("--commits", type=int, default=150, help="tasks per repository")
    parser.add_argument("--budget", type=int, default=1000)
    parser.add_argument("--baseline", default=baseline.DEFAULT_BASELINE, help="git revision")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--mirrors", type=Path, default=MIRRORS)
    parser.add_argument("--maps", nargs="+", choices=MAPS, default=list(MAPS))
    parser.add_argument(
        "--first-commits",
        type=int,
        default=FIRST_COMMITS,
        help="commits a first answer mines when no history was kept",
    )
    args = parser.parse_args()
    started = time.perf_counter()
    maps = [m for m in MAPS if m in args.maps or m == "ours"]

    selfcheck.check_ours()
    sha = baseline.resolve(args.baseline)
    if "today" in maps:
        revision = baseline.extract(sha)
        check_baseline(revision)
    version = gemini.installed_version() if "gemini" in maps else "(not drawn)"

    specs = [spec for spec in REPOS if spec.name in args.repos]
    cases = [load(spec, args.mirrors) for spec in specs]
    listings: dict[Path, str] = {}
    if "gemini" in maps:
        fixtures = selfcheck.gemini_fixtures(CACHE / "selfcheck")
        listings = gemini.listings([*(case.root for case in cases), *fixtures])
        selfcheck.check_gemini(listings, fixtures)

    print(f"tasks: up to {args.commits} commits drawn from the newest eligible (seed {args.seed})")
    print(
        f"{'repository':<12} {'kind':<20} {'head':<12} {'eligible':>8} {'drawn':>5}  "
        f"{'from':<10}  {'to':<10} {'files/commit':>12}"
    )
    sampled: list[list[Commit]] = []
    for spec, case in zip(specs, cases, strict=True):
        drawn, eligible = sample(case, args.commits, args.seed)
        sampled.append(drawn)
        per_commit = statistics.fmean(len(c.modified) for c in drawn)
        print(
            f"{spec.name:<12} {spec.kind:<20} {case.head[:12]:<12} {eligible:>8} "
            f"{len(drawn):>5}  {drawn[-1].date}  {drawn[0].date} {per_commit:12.1f}"
        )
    print()
    print(
        f"next-file recall at {args.budget:,} tokens; today = {sha[:12]}; "
        f"gemini = {gemini.PACKAGE} {version}"
    )
    header = (
        f"{'repository':<30} {'map':<7} {'with':>6} {'without':>8} {'tokens':>7} {'entries/1k':>10}"
    )
    print(header)
    print("-" * len(header))
    scores: dict[str, list[Score]] = {m: [] for m in maps}
    sessions: list[dict[str, Score]] = []
    firsts: list[FirstTurns] = []
    for case, drawn in zip(cases, sampled, strict=True):
        commits = [questions(c) for c in drawn]
        everything = [q.task for alone, touching in commits for q in (alone, *touching)]
        mine = {t: ours(case, t, args.budget) for t in everything}
        results = {"ours": score(commits, mine.__getitem__, selfcheck.parse_ours_checked)}
        if "today" in maps:
            pinned = baseline.baseline_texts(case, everything, args.budget, revision)
            today = dict(zip(everything, pinned, strict=True))
            results["today"] = score(commits, today.__getitem__, selfcheck.parse_ours_checked)
        if "gemini" in maps:
            same = dict.fromkeys(everything, listings[case.root])  # touched files change nothing
            results["gemini"] = score(commits, same.__getitem__, selfcheck.parse_gemini_checked)
        label = f"{case.name} ({len(case.paths):,} files, {len(commits)})"
        for name in maps:
            scores[name].append(results[name])
            print(row(label, name, results[name]))
            label = ""
        first = first_turns(case, dict.fromkeys(t.parent for t in everything), args.first_commits)
        per_variant = {LATER: results["ours"]}
        for variant in VARIANTS[1:]:
            histories = first.histories[variant]
            texts = {t: ours(case, t, args.budget, histories[t.parent]) for t in everything}
            per_variant[variant] = score(commits, texts.__getitem__, selfcheck.parse_ours_checked)
        sessions.append(per_variant)
        firsts.append(first)
    if len(cases) > 1:
        label = f"all ({len(cases)} repositories)"
        for name in maps:
            print(row(label, name, mean_score(scores[name])))
            label = ""
    print(
        "with: files_touched = [f], share of the commit's other modified files named "
        "(every f, then every commit);\nwithout: files_touched = [], share of all of them; "
        "gemini ignores files_touched (the same listing in both columns);\n"
        + ("all: each repository weighs the same" if len(cases) > 1 else "")
    )
    print()
    print(
        f"ours on a session's first turn vs later turns, next-file recall at {args.budget:,} "
        f"tokens; with none kept, a first answer mines {args.first_commits} commits"
    )
    first_turn_table([c.name for c in cases], sessions, firsts)
    print(f"{time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
