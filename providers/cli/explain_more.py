"""``explain`` on skills and ignore files, as the providers find and read them.

Skills: the skills folders of the root and of each folder down to the working directory
(repo conventions lists those without ``paths:`` in its catalog; scoped docs those whose
``paths:`` match a touched file) and of each folder above a touched file (a package's own
skills, listed by scoped docs once a file below it is touched). Ignore files: every
``.*ignore`` file at the root (and ``.aiexclude``), and whether the file tree honours it
(git's own, its ``ignore_file``, its ``ai_ignore_files``); for a touched file, which of
them hide it.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from providers.cli.explain_findings import CONVENTIONS, SCOPED, TREE, Item, Judge, closest
from providers.file_tree.settings import settings_from as tree_settings
from providers.repo_conventions.settings import settings_from as conventions_settings
from providers.repository.ignore import IgnoreRules, PatternSet, read_patterns
from providers.repository.paths import ancestors
from providers.rules.conventions import cwd_chain
from providers.rules.load import Rule
from providers.rules.skill_folders import SkillFolders
from providers.rules.skills import Skill, SkillProblem, distinct

OTHER_IGNORE_FILES = (".aiexclude",)
"""Agents' ignore files not named ``.*ignore`` (Gemini Code Assist's ``.aiexclude``)."""

CATALOG = "skills"
FOR_FILES = "skills for files touched"
NOT_FOR_THE_MODEL = (
    "not for the model: disable-model-invocation, or Codex's "
    "policy.allow_implicit_invocation: false"
)


def skill_items(judge: Judge, touched: Sequence[str]) -> list[Item]:
    chain = ("", *cwd_chain(judge.root, judge.runs.working))
    packages = [d for path in touched for d in ancestors(path) if d not in chain]
    loaded: dict[str, Skill | SkillProblem | None] = {}
    package_of: dict[str, str] = {}
    folders = SkillFolders(judge.root)
    for folder in (*chain, *dict.fromkeys(packages)):
        for rel, found in folders.of(folder).loaded:
            loaded[rel] = found
            if folder not in chain:
                package_of[rel] = folder
    unconditional = [
        s
        for r, s in loaded.items()
        if isinstance(s, Skill) and s.globs is None and r not in package_of
    ]
    kept = {s.path for s in distinct(unconditional)}
    catalog_on = conventions_settings(judge.runs.declared[CONVENTIONS].config or {}).skills
    items: list[Item] = []
    for rel, skill in loaded.items():
        if skill is None:
            items.append(Item("skill", rel, "", "", NOT_FOR_THE_MODEL))
        elif isinstance(skill, SkillProblem):
            items.append(Item("skill", rel, "", "", skill.note.removeprefix(f"{rel}: ")))
        elif rel in package_of or skill.globs is not None:
            items.extend(_for_files(judge, skill, touched, package_of.get(rel)))
        elif rel not in kept:
            why = "the same skill as one found earlier (same file, or same name and text)"
            items.append(Item("skill", rel, "", "", why + ": listed once"))
        elif _listed(judge, CONVENTIONS, CATALOG, rel):
            how = f"listed in repo conventions' skills catalog as {skill.name}"
            items.append(Item("skill", rel, "", judge.title(CONVENTIONS), how))
        else:
            off = "the skills catalog is off: repo conventions' skills = false"
            why = judge.off(CONVENTIONS) or (off if not catalog_on else "")
            why = why or judge.over_budget(CONVENTIONS, rel, CATALOG) or "not listed"
            items.append(Item("skill", rel, "", "", why))
    return items


def _listed(judge: Judge, package: str, label: str, rel: str) -> bool:
    section = judge.section(package, label)
    return section is not None and f"({rel})" in section.text


def _for_files(
    judge: Judge, skill: Skill, touched: Sequence[str], package: str | None
) -> list[Item]:
    """A skill waiting for the files it is about: a package's, or one with ``paths:``."""
    scope = f"files below {package}/" if package else "files its paths: match"
    if not touched:
        return [Item("skill", skill.path, "", "", f"listed once one of the {scope} is touched")]
    items: list[Item] = []
    for path in touched:
        below = package is None or path.startswith(package + "/")
        match = skill.globs.match(path) if skill.globs is not None and below else None
        applies = below and (skill.globs is None or match is not None)
        if not applies:
            rule = Rule(skill.path, "skill", "", skill.key, globs=skill.globs)
            why = closest(rule, path) if below else f"no match: only for files below {package}/"
            items.append(Item("skill", skill.path, "", "", why, path))
        elif _listed(judge, SCOPED, FOR_FILES, skill.path):
            how = f"listed in scoped docs' skills for files touched as {skill.name}"
            items.append(Item("skill", skill.path, "", judge.title(SCOPED), how, path))
        else:
            why = judge.off(SCOPED) or judge.over_budget(SCOPED, skill.path, FOR_FILES)
            items.append(Item("skill", skill.path, "", "", why or "not listed", path))
    return items


def ignore_items(judge: Judge, touched: Sequence[str]) -> list[Item]:
    """Every ignore file at the root, honoured by the file tree or not; what each hides."""
    listing = tree_settings(judge.runs.declared[TREE].config or {}).listing
    honoured = {name: "ai_ignore_files" for name in listing.ai_ignore_files}
    if listing.ignore_file:
        honoured[listing.ignore_file] = "its ignore_file"
    try:
        with os.scandir(judge.root) as entries:
            names = sorted(
                e.name
                for e in entries
                if e.name.startswith(".")
                and (e.name.endswith("ignore") or e.name in OTHER_IGNORE_FILES)
            )
    except OSError:
        names = []
    tree = judge.title(TREE)
    off = judge.off(TREE)
    items: list[Item] = []
    for name in names:
        if name == ".gitignore":
            item = Item("ignore file", name, "git", tree, "honoured: git's own rules, below too")
        elif name in honoured:
            item = Item(
                "ignore file", name, "", tree, f"honoured: the file tree's {honoured[name]}"
            )
        else:
            item = Item("ignore file", name, "", "", "not honoured: not in ai_ignore_files")
        items.append(
            Item(item.kind, item.path, item.tool, "", off) if off and item.sent_by else item
        )
    git = IgnoreRules(judge.root)
    for path in touched:
        if git.excluded_path(path, False):
            items.append(
                Item("ignore file", ".gitignore", "git", tree, "hides it (git ignores it)", path)
            )
        for name in names:
            if name in honoured and PatternSet(read_patterns(judge.root / name)).excluded_path(
                path, False
            ):
                items.append(
                    Item("ignore file", name, "", tree, "hides it from the file tree", path)
                )
    return items
