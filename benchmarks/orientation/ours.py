"""The map under test: what the file tree provider would show for a task.

It draws what the provider draws: the listing, the touched file as this
turn's, and the history the provider's miner would have mined at the task's
parent commit (the same ``git log`` arguments and the same parser, stopping
at ``task.parent``: the commit itself is the answer).
"""

from __future__ import annotations

from benchmarks.orientation.cases import RepoCase, Task, git
from providers.core.budget import FallbackCounter
from providers.file_tree.history import LOG_ARGS, MAX_COMMITS, History, parse_log
from providers.file_tree.rank import Focus
from providers.file_tree.section import Presentation, build_section
from providers.file_tree.tree import Tree

_TREES: dict[str, Tree] = {}
"""One tree per repository: building test262's costs more than all its renderings."""
_HISTORIES: dict[tuple[str, str], History] = {}


def history_at(repo: RepoCase, parent: str) -> History:
    """The provider miner's history with HEAD at ``parent``."""
    key = (repo.name, parent)
    found = _HISTORIES.get(key)
    if found is None:
        args = [*LOG_ARGS[:-2], f"--max-count={MAX_COMMITS}", parent, "--"]
        found = _HISTORIES[key] = parse_log(git(*args, git_dir=repo.git_dir))
    return found


_LATER = History()


def ours(repo: RepoCase, task: Task, budget: int, history: History | None = _LATER) -> str:
    """The section's text for ``task`` within ``budget`` tokens (fallback count); "" if none.

    ``history`` is what the map ranks with (None: none); by default the whole history
    at the task's parent, as on a session's later turns.
    """
    tree = _TREES.get(repo.name)
    if tree is None:
        tree = _TREES[repo.name] = Tree.of(repo.paths)
    if history is _LATER:
        history = history_at(repo, task.parent)
    focus = Focus(touched=task.touched, history=history)
    section = build_section(tree, Presentation(repo.root.name), focus, budget, FallbackCounter())
    return "" if section is None else section.text
