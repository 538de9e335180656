"""What ``explain`` says about each convention file and rule: found by the providers' own
discovery, judged by their own answers (:mod:`providers.cli.explain_runs`).

Convention files are repo conventions' discovery (``discover`` over its ``paths``); rules
are scoped docs' catalog (the same rule directories, nested folders and dialects, as its
``rule_dirs`` sets them), each matched by its dialect's own matcher. A file is sent when
a section of a provider's answer is that file; why one is not comes from the same
pieces: its matcher (and the pattern closest to the touched file), its load (a broken
front matter, with its line), the copy rules, the budget (a larger one sends it), the
configuration (a tool's rules turned off, a provider not declared). Skills and ignore
files: :mod:`providers.cli.explain_more`.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from providers.cli.explain_runs import AMPLE, Runs
from providers.core.section_text import SCOPED_DOCS_INDEX
from providers.core.types import Section
from providers.markdown import normalise_newlines, split_front_matter
from providers.repo_conventions.discover import discover
from providers.repo_conventions.settings import settings_from as conventions_settings
from providers.repository.paths import ancestors
from providers.repository.sources import Unavailable, read_text
from providers.rules.catalog import Catalog
from providers.rules.conventions import cwd_convention_paths
from providers.rules.dialects import BUILTIN_RULE_DIRS, DIALECTS, Dialect, ScopeKind
from providers.rules.expand import load_expanded
from providers.rules.frontmatter import FrontMatterError, parse_front_matter
from providers.rules.globs import GlobError
from providers.rules.load import CONTINUE_COLOCATED, Rule
from providers.rules.nested_rules import NESTED_RULE_DIRS, owner
from providers.scoped_docs.copies import ConventionCopies
from providers.scoped_docs.settings import settings_from as scoped_settings

CONVENTIONS, SCOPED, TREE = "repo_conventions", "scoped_docs", "file_tree"
CONTINUE_RULES = ".continue/rules"
INDEX = SCOPED_DOCS_INDEX


@dataclass(frozen=True)
class Item:
    """One file found, and what becomes of it."""

    kind: str
    """``convention file``, ``rule``, ``skill`` or ``ignore file``."""
    path: str
    tool: str
    sent_by: str
    """The provider that sends (or, for an ignore file, honours) it; ``""``: none does."""
    how: str
    """How it is sent, or why it is not."""
    about: str = ""
    """The touched file this line is about; ``""``: the repository."""

    def as_json(self) -> dict[str, str]:
        return asdict(self)


def label_path(section: Section) -> str:
    return section.label.split(" (", 1)[0]


class Judge:
    """The providers' answers, asked about one file at a time."""

    def __init__(self, root: Path, runs: Runs) -> None:
        self.root = root
        self.runs = runs

    def title(self, package: str) -> str:
        return self.runs.declared[package].entry.title

    def section(self, package: str, path: str) -> Section | None:
        return next((s for s in self.runs.sections(package) if label_path(s) == path), None)

    def sent(self, package: str, path: str, how: str) -> Item | None:
        section = self.section(package, path)
        if section is None:
            return None
        cut = "; partly: cut to fit its budget" if section.truncated else ""
        return Item("", path, "", self.title(package), how + cut)

    def indexed(self, path: str) -> bool:
        index = self.section(SCOPED, INDEX)
        return index is not None and f"- {path}:" in index.text

    def over_budget(self, package: str, path: str, kind: str = "") -> str:
        """Why ``path`` is not sent when a larger budget sends it (``""``: it would not be)."""

        def whole(sections: Sequence[Section]) -> bool:
            if kind:  # a line in a listing section (skills)
                return any(label_path(s) == kind and path in s.text for s in sections)
            return any(label_path(s) == path and not s.truncated for s in sections)

        needed = self.runs.needed(package, whole)
        if needed is not None:
            budget = self.runs.budget(package)
            return (
                f"over {self.title(package)}' token budget: needs {needed - budget} more "
                f"tokens (token_budget {budget} -> {needed})"
            )
        return (
            f"over {self.title(package)}' token budget"
            if whole(self.runs.sections(package, AMPLE))
            else ""
        )

    def off(self, package: str) -> str:
        """Why nothing of ``package`` is sent (not declared, or its block is wrong)."""
        declared = self.runs.declared[package]
        if declared.config is None:
            return f"{self.title(package)} is not declared in agent.hcl"
        return declared.problem


def convention_items(judge: Judge) -> list[Item]:
    """Repo conventions' files: sent, or a copy, empty, unreadable, over the budget."""
    settings = conventions_settings(judge.runs.declared[CONVENTIONS].config or {})
    patterns = settings.patterns
    if not settings.explicit:
        patterns = (*patterns, *cwd_convention_paths(judge.root, judge.runs.working))
    items: list[Item] = []
    seen: list[tuple[str, str, tuple[int, int]]] = []
    for path in discover(judge.root, patterns):
        loaded = load_expanded(judge.root, path, settings.policy)
        twin = None
        if not isinstance(loaded, Unavailable):
            key = (loaded.key.device, loaded.key.inode)
            twin = next((p for p, text, k in seen if k == key or text == loaded.text), None)
            seen.append((path, loaded.text, key))
        sent = judge.sent(CONVENTIONS, path, "sent whole, at the start (static)")
        if sent is not None:
            items.append(Item("convention file", path, "", sent.sent_by, sent.how))
            continue
        if judge.off(CONVENTIONS):
            why = judge.off(CONVENTIONS)
        elif isinstance(loaded, Unavailable):
            why = f"not read: {loaded.reason}"
        elif twin is not None:
            why = f"a copy of {twin} (the same file, or the same text): sent once"
        elif not loaded.text.strip():
            why = "empty once comments and front matter are gone"
        else:
            why = judge.over_budget(CONVENTIONS, path) or "not sent"
        items.append(Item("convention file", path, "", "", why))
    return items


class RuleJudge:
    """Scoped docs' catalog for the repository and the touched files' folders."""

    def __init__(self, judge: Judge, touched: Sequence[str]) -> None:
        self.judge = judge
        self.touched = tuple(touched)
        settings = scoped_settings(judge.runs.declared[SCOPED].config or {})
        self.settings = settings
        continue_rules = settings.rule_dirs.get(CONTINUE_RULES)
        colocated = {CONTINUE_COLOCATED: continue_rules} if continue_rules is not None else {}
        nested = {d: settings.rule_dirs[d] for d, _ in NESTED_RULE_DIRS if d in settings.rule_dirs}
        self.catalog = Catalog(
            judge.root,
            settings.rule_dirs,
            settings.nested_names,
            colocated=colocated,
            nested_rule_dirs=nested,
            warn=False,
        )
        self.catalog.scan_rule_dirs()
        for path in self.touched:
            for directory in ancestors(path):
                self.catalog.nested_rules(directory)
        self.copies = ConventionCopies()
        self.copies.update(judge.root, judge.runs.working)
        self.always_rules = conventions_settings(
            judge.runs.declared[CONVENTIONS].config or {}
        ).always_rules

    def items(self) -> list[Item]:
        items = self._off()
        for rel in self.catalog.listed():
            dialect = self._dialect(rel)
            tool = dialect.tool if dialect is not None else "nested convention file"
            problem = self.catalog.problems.get(rel)
            rule = self.catalog.rules.get(rel)
            if problem is not None:
                why = problem.note.removeprefix(f"{rel}: ")
                items.append(Item("rule", rel, tool, "", why))
            elif rule is None:
                items.append(Item("rule", rel, tool, "", self._not_loaded(rel, dialect)))
            else:
                items.extend(self._rule(rule, tool))
        return items

    def _off(self) -> list[Item]:
        return [
            Item(
                "rule",
                f"{directory}/",
                DIALECTS[name].tool,
                "",
                'its rules are off: scoped docs\' rule_dirs sets it to "off"',
            )
            for directory, name in BUILTIN_RULE_DIRS
            if directory not in self.settings.rule_dirs and (self.judge.root / directory).is_dir()
        ]

    def _dialect(self, rel: str) -> Dialect | None:
        for directory, dialect in self.catalog.rule_dirs.items():
            if rel.startswith(directory + "/"):
                return dialect
        found = owner(rel, tuple(self.catalog.nested_rule_dirs))
        if found is not None:
            return self.catalog.nested_rule_dirs[found[1]]
        return self.catalog.colocated.get(rel.rsplit("/", 1)[-1])

    def _not_loaded(self, rel: str, dialect: Dialect | None) -> str:
        """Why a file found among the rules is not one to inject."""
        if dialect is None:
            return "the same text as another convention file in its folder: sent once"
        source = read_text(self.judge.root, Path(rel))
        if isinstance(source, Unavailable):
            return f"not read: {source.reason}"
        raw, _ = split_front_matter(normalise_newlines(source.text))
        try:
            scope = dialect.interpret(parse_front_matter(raw, dialect.glob_keys))
        except (FrontMatterError, GlobError) as error:
            return f"not applied: {error}"
        if scope.kind is ScopeKind.MANUAL:
            return f"not for automatic use: {dialect.tool or dialect.name} applies it on request"
        return "empty once its front matter and comments are gone"

    def _rule(self, rule: Rule, tool: str) -> list[Item]:
        note = f"; {rule.broken.removeprefix(rule.path + ': ')}" if rule.broken else ""
        if self.copies.holds(rule):
            why = "a copy of a convention file repo conventions sends: not sent again"
            return [Item("rule", rule.path, tool, "", why + note)]
        if rule.always:
            return [self._always(rule, tool, note)]
        if rule.on_request:
            if self.judge.indexed(rule.path):
                how = f"listed in the scoped docs index for the model to read: {rule.title}"
                return [Item("rule", rule.path, tool, self.judge.title(SCOPED), how + note)]
            why = self.judge.off(SCOPED) or "over scoped docs' token budget (the index)"
            return [Item("rule", rule.path, tool, "", why + note)]
        if not self.touched:
            scope = f"below {rule.subtree}/" if rule.subtree else "the files its patterns match"
            return [Item("rule", rule.path, tool, "", f"applies to {scope}: none touched{note}")]
        return [self._scoped(rule, tool, path, note) for path in self.touched]

    def _always(self, rule: Rule, tool: str, note: str) -> Item:
        for package in (CONVENTIONS, SCOPED):
            sent = self.judge.sent(package, rule.path, "sent at the start: it always applies")
            if sent is not None:
                return Item("rule", rule.path, tool, sent.sent_by, sent.how + note)
        if self.judge.off(CONVENTIONS):
            why = self.judge.off(CONVENTIONS)
        elif not self.always_rules:
            why = "always-on rules are off: repo conventions' always_rules = false"
        else:
            why = self.judge.over_budget(CONVENTIONS, rule.path) or (
                "the same text as another file repo conventions sends: sent once"
            )
        return Item("rule", rule.path, tool, "", why + note)

    def _scoped(self, rule: Rule, tool: str, path: str, note: str) -> Item:
        match = rule.match(path)
        if match is None:
            return Item("rule", rule.path, tool, "", closest(rule, path) + note, path)
        via = f'applies via "{match.written}"'
        sent = self.judge.sent(SCOPED, rule.path, f"sent ({via})")
        if sent is not None:
            return Item("rule", rule.path, tool, sent.sent_by, sent.how + note, path)
        why = self.judge.off(SCOPED) or self.judge.over_budget(SCOPED, rule.path)
        return Item("rule", rule.path, tool, "", f"{via}, but {why or 'not sent'}{note}", path)


def closest(rule: Rule, path: str) -> str:
    """Why ``rule`` does not apply to ``path``, naming the pattern nearest to it (as
    written), and, for one without a slash its tool matches at the top level only, so."""
    if rule.subtree is not None:
        return f"no match: it applies only below {rule.subtree}/"
    inclusions = rule.globs.inclusions() if rule.globs is not None else ()
    if not inclusions:
        return "no match: its patterns only exclude"
    best = max(inclusions, key=lambda i: difflib.SequenceMatcher(None, i.expanded, path).ratio())
    why = f'no match: the closest of its patterns is "{best.written}"'
    if not best.floats and "/" not in best.expanded.strip("/") and "/" in path:
        why += " (without a slash, its tool matches it at the top level only)"
    return why
