"""Claude Code's ``.claude/rules`` ``paths:``, observed with the real client: after a ``Read``
of a file, which rules reach the model, against what our claude dialect says.

Each run holds one rule per case below (its body a marker), and the stub model makes
Claude Code read one file. A rule in the first request loaded at the start (no
condition); one that first shows after the read was matched by the file. Our side is
``load_rule`` with the claude dialect and ``Rule.match`` on the same files: the two must
agree rule for rule (issue 23 item 6), and a broken front matter must be applied the
way Claude Code applies it, without its front matter (item 8).
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from providers.rules.dialects import DIALECTS
from providers.rules.load import Rule, default_reader, load_rule
from tests.clients.conftest import make_repo
from tests.clients.real_clients import Run, missing_reason, reached, run_client
from tests.clients.stub_model import ReadFile, Text

RULES: dict[str, str] = {
    # what the issue observed
    "star_ts": 'paths: "*.ts"',  # any depth
    "dir": "paths: src",  # a folder's name
    "case": 'paths: "src/*.TS"',  # case does not matter
    # more of its reading
    "bang_class": 'paths: "[!a].ts"',  # no negation in a class: "!" or "a"
    "trailing_globstar_slash": 'paths: "src/**/"',
    "braces": 'paths: "{src,lib}/*.ts"',
    "globstar": 'paths: "src/**"',
    "only_negation": 'paths: "!src/**"',
    "comma": 'paths: "docs/**, src/a.ts"',
    "anchored": 'paths: "/src/a.ts"',
    "posix": 'paths: "[[:alpha:]].ts"',
    "unquoted": "paths: *.ts",
    "list": 'paths:\n  - lib/**\n  - "*.ts"',
    "deep": 'paths: "**/deep/**"',
    "negated_below": 'paths:\n  - lib/**\n  - "!lib/deep/**"',  # the folder decides first
    "elsewhere": 'paths: "docs/**"',
    # no condition
    "number": "paths: 5",
    "empty_list": "paths: []",
    "everything": 'paths: "**"',
    # front matter that is not YAML: quoted and tried again, else applied always
    "broken_indent": "paths: docs/**\n  oops: indented: more\nnote: MARK-FM-indent",
    "broken_sequence": "paths: docs/**\n- item\nnote: MARK-FM-sequence",
    "tabs": "paths:\n\t- docs/**",
    "colon_in_value": "description: use: this\npaths: docs/**",
}
READS = ("src/a.ts", "lib/deep/Y.TS")


def marker(name: str) -> str:
    return f"MARK-RULE-{name}-END"


def _tree() -> dict[str, str]:
    tree = {
        f".claude/rules/{name}.md": f"---\n{fm}\n---\n{marker(name)}\n"
        for name, fm in RULES.items()
    }
    tree.update({path: "content\n" for path in READS})
    return tree


def _run(path: str) -> Run:
    work = Path(tempfile.mkdtemp(prefix="claude-rules-"))
    repo = make_repo(work / "repo", _tree())
    script = [ReadFile(str(repo / path)), Text("done")]
    return run_client("claude", repo, "read it", script=script, workdir=work, timeout_s=120)


@pytest.fixture(scope="module")
def observed() -> Iterator[dict[str, Run]]:
    reason = missing_reason("claude")
    if reason is not None:
        pytest.skip(reason)
    with ThreadPoolExecutor(max_workers=2) as pool:
        yield dict(zip(READS, pool.map(_run, READS), strict=True))


def _loaded(run: Run) -> tuple[set[str], set[str]]:
    """(rules in the first request, rules first in the request after the read)."""
    requests = run.model_requests
    assert len(requests) >= 2, run.describe()
    start = {name for name in RULES if reached(marker(name), requests[:1])}
    after = {name for name in RULES if reached(marker(name), requests[-1:])} - start
    return start, after


def _ours(tmp_path: Path) -> dict[str, Rule]:
    repo = make_repo(tmp_path / "ours", _tree())
    loaded = {}
    for name in RULES:
        rule = load_rule(repo, f".claude/rules/{name}.md", DIALECTS["claude"], default_reader)
        assert isinstance(rule, Rule), (name, rule)
        loaded[name] = rule
    return loaded


@pytest.mark.parametrize("path", READS)
def test_rules_loaded_after_a_read_are_the_ones_we_match(
    observed: dict[str, Run], path: str, tmp_path: Path
) -> None:
    start, after = _loaded(observed[path])
    ours = _ours(tmp_path)
    assert start == {name for name, rule in ours.items() if rule.always}
    assert after == {
        name for name, rule in ours.items() if not rule.always and rule.match(path) is not None
    }


def test_observed_facts_of_the_issue(observed: dict[str, Run]) -> None:
    """``*.ts`` at any depth, a folder's name, the case ignored: after reading src/a.ts."""
    _, after = _loaded(observed["src/a.ts"])
    assert {"star_ts", "dir", "case"} <= after
    _, deeper = _loaded(observed["lib/deep/Y.TS"])
    assert "star_ts" in deeper and "dir" not in deeper


def test_a_broken_front_matter_is_applied_without_it(
    observed: dict[str, Run], tmp_path: Path
) -> None:
    run = observed["src/a.ts"]
    first = run.model_requests[:1]
    for name in ("broken_indent", "broken_sequence"):
        assert reached(marker(name), first), name
        fm_mark = RULES[name].rsplit(" ", 1)[1]
        assert not reached(fm_mark, run.requests), f"{name}: its front matter reached the model"
        ours = _ours(tmp_path / name)[name]
        assert ours.always and fm_mark not in ours.text and ours.broken
