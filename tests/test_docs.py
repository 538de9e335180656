"""Issue 28 item 8: the README is short and the rest lives in docs/, one page per topic;
every page says only what is so.

Each page (the README and AGENTS.md too) is read with markdown-it, as GitHub renders it:
every ``context-providers SUBCOMMAND`` (or ``python -m providers SUBCOMMAND``, ``./dev
preview``) names a subcommand of ``providers/__main__.py``'s ``COMMANDS``; every
``--option`` shown with one of our commands is one its own argparse parser accepts (the
parser each command really builds, caught as it parses); a bare ``--option`` is accepted
by a command its section names, or is another program's (``FOREIGN``); every console
script named is one ``pyproject.toml`` installs; every attribute of a configuration table,
or of a ``provider "NAME" { ... }`` block, is in that provider's schema
(``providers/<provider>/settings.py``'s ``SCHEMA``), and every schema attribute is
documented; every relative link leads to a file, and its ``#anchor`` to a heading there.
"""

from __future__ import annotations

import argparse
import functools
import importlib
import re
import tomllib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from markdown_it import MarkdownIt
from markdown_it.token import Token

from providers.__main__ import COMMANDS
from providers.__main__ import _main as main_command
from providers.cli import standalone
from providers.core.config import COMMON_ATTRIBUTES
from providers.registry import PROVIDERS
from tests.conftest import REPO_ROOT

README = REPO_ROOT / "README.md"
DOCS = REPO_ROOT / "docs"
PAGES = (README, REPO_ROOT / "AGENTS.md", *sorted(DOCS.glob("*.md")))
README_MAX_LINES = 200

MAIN = "context-providers"
FOREIGN = {
    "--dangerously-bypass-hook-trust": "Codex CLI",
    "--mcp-config": "Claude Code (claude -p)",
    "--no-optional-locks": "git",
    "--no-ext-diff": "git",
    "--no-textconv": "git",
    "--no-pager": "git",
    "--separate-git-dir": "git",
}
"""Options the pages name that belong to another program, and whose."""

COMMAND = re.compile(
    r"(?<![\w./-])(?:(?P<script>context-[a-z][a-z-]*[a-z])"
    r"|python3?(?: -[A-Za-z])* -m providers(?:\.(?P<module>\w+))?"
    r"|(?P<dev>\./dev preview))"
    r"(?: (?P<sub>[a-z][\w-]*))?"
)
"""One of our commands: a console script (``context-providers`` followed by its
subcommand), ``python -m providers[.<provider>]``, or ``./dev preview``."""
OPTION = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")
SCRIPT_NAME = re.compile(r"(?<![\w./-])context-[a-z][a-z-]*[a-z](?![\w@-])")
"""A script's name (not a path's or a URL's part, ``github.com/context-providers``, nor
a plugin's name in ``NAME@MARKETPLACE``)."""
PROVIDER_BLOCK = re.compile(r'provider\s+"(?P<name>\w+)"\s*\{(?P<body>[^}]*)\}')
HCL_ATTRIBUTE = re.compile(r"(?:^|[{\s])(\w+)\s*=(?!=)")
SCRIPT_HEADING = re.compile(r"\((context-[a-z-]+)\)")


def scripts() -> dict[str, str]:
    pyproject = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    named: dict[str, str] = dict(pyproject["project"]["scripts"])
    for path in pyproject["tool"]["setuptools"].get("script-files", []):  # the hook launcher
        named[Path(path).name] = path
    return named


class _Parsed(Exception):
    def __init__(self, parser: argparse.ArgumentParser) -> None:
        self.parser = parser


def options_of(command: Callable[[], object]) -> frozenset[str]:
    """The option strings of the parser ``command`` builds, caught as it parses (so it
    does nothing else)."""

    def catch(self: argparse.ArgumentParser, *args: object, **kwargs: object) -> None:
        raise _Parsed(self)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(argparse.ArgumentParser, "parse_args", catch)
        try:
            command()
        except _Parsed as parsed:
            return frozenset(parsed.parser._option_string_actions)
    raise AssertionError(f"{command} parsed no arguments")


@functools.cache
def accepted() -> dict[str, frozenset[str]]:
    """Each command (``context-providers``, ``context-providers setup``, ...,
    ``context-git-status``) and the options its parser accepts. ``hook CLIENT`` takes
    ``name=value`` options only (``hook.OPTIONS``), no ``--option``."""
    found = {MAIN: options_of(lambda: main_command([]))}
    for name, target in COMMANDS.items():
        if name == "hook":
            found[f"{MAIN} hook"] = frozenset()
            continue
        module, _, function = target.partition(":")
        run = getattr(importlib.import_module(module), function)
        found[f"{MAIN} {name}"] = options_of(functools.partial(run, [], prog=name))
    for entry in PROVIDERS:
        found[entry.script] = options_of(functools.partial(standalone.main, entry, []))
    return found


def command_key(match: re.Match[str]) -> tuple[str, str | None]:
    """(the command's key in ``accepted()``, the subcommand word it names, if any)."""
    sub = match["sub"]
    if match["dev"]:
        return f"{MAIN} preview", None
    if match["module"]:
        return f"context-{match['module'].replace('_', '-')}", None
    if match["script"] and match["script"] != MAIN:
        return match["script"], None
    if sub is None or sub not in COMMANDS:
        return MAIN, sub
    return f"{MAIN} {sub}", None


@dataclass
class Finding:
    """What one page says about our commands, links and configuration."""

    page: Path
    commands: list[tuple[str, str, str]] = field(default_factory=list)
    """(command key, option, the text it is in)."""
    unknown_subcommands: list[tuple[str, str]] = field(default_factory=list)
    bare: list[tuple[str, frozenset[str], str]] = field(default_factory=list)
    """(option, the commands its section names, the text it is in)."""
    script_names: list[tuple[str, str]] = field(default_factory=list)
    links: list[str] = field(default_factory=list)
    anchors: list[str] = field(default_factory=list)
    tables: dict[str, list[str]] = field(default_factory=dict)
    """console script -> the attributes its configuration table names."""
    blocks: list[tuple[str, str, str]] = field(default_factory=list)
    """(provider name, attribute, the text) of each ``provider "NAME" {...}`` block."""
    intro_spans: list[str] = field(default_factory=list)
    """Code spans before the first provider's heading."""


def slug(text: str) -> str:
    """GitHub's heading anchor."""
    return re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")


def inline_text(token: Token) -> str:
    return "".join(
        child.content
        for child in token.children or ()
        if child.type in ("text", "code_inline", "html_inline")
    )


def command_texts(token: Token) -> Iterator[tuple[str, bool]]:
    """(text, is a code span) of each piece of code that may hold a command."""
    if token.type == "fence":
        language = token.info.strip()
        for line in token.content.splitlines():
            if language == "console" and line.startswith("$ "):
                yield line[2:], False
            elif language in ("sh", "hcl"):
                yield line, False
        if language == "hcl":
            yield token.content, False
    elif token.type == "inline":
        for child in token.children or ():
            if child.type == "code_inline":
                yield child.content, True


def read(page: Path) -> Finding:
    finding = Finding(page)
    tokens = MarkdownIt("commonmark").enable("table").parse(page.read_text(encoding="utf-8"))
    seen: dict[str, int] = {}
    sections: list[list[tuple[str, str]]] = [[]]  # bare options of each section
    named: list[set[str]] = [set()]  # the commands each section names
    script: str | None = None  # the provider whose section this is
    row: int | None = None  # in a table: its row (0 the header) and cell
    cell = 0
    attributes_table = False
    for index, token in enumerate(tokens):
        if token.type == "heading_open":
            text = inline_text(tokens[index + 1])
            anchor = slug(text)
            count = seen.get(anchor, 0)
            seen[anchor] = count + 1
            finding.anchors.append(anchor if count == 0 else f"{anchor}-{count}")
            heading = SCRIPT_HEADING.search(text)
            script = heading[1] if heading else (script if token.tag == "h3" else None)
            sections.append([])
            named.append(set())
            continue
        if token.type == "table_open":
            row, attributes_table = -1, False
        elif token.type == "tr_open" and row is not None:
            row, cell = row + 1, 0
        elif token.type in ("th_open", "td_open"):
            cell += 1
        elif token.type == "table_close":
            row = None
        if token.type == "inline":
            for child in token.children or ():
                if child.type == "link_open":
                    finding.links.append(str(child.attrs["href"]))
            if row == 0 and cell == 1:
                attributes_table = token.content.strip() == "attribute"
            elif row and cell == 1 and script and attributes_table:
                finding.tables.setdefault(script, []).extend(
                    c.content for c in token.children or () if c.type == "code_inline"
                )
            if script is None and len(finding.anchors) <= 1:
                finding.intro_spans.extend(
                    c.content for c in token.children or () if c.type == "code_inline"
                )
        for text, span in command_texts(token):
            for name in SCRIPT_NAME.findall(text):
                finding.script_names.append((name, text))
            for block in PROVIDER_BLOCK.finditer(text):
                for attribute in HCL_ATTRIBUTE.findall(block["body"]):
                    finding.blocks.append((block["name"], attribute, text))
            matches = list(COMMAND.finditer(text))
            first_word = text.split(" ", 1)[0]
            if span and not matches and first_word in COMMANDS:
                key = f"{MAIN} {first_word}"
                named[-1].add(key)
                for option in OPTION.findall(text):
                    finding.commands.append((key, option, text))
                continue
            if span and not matches and text.startswith("--"):
                sections[-1].extend((option, text) for option in OPTION.findall(text))
                continue
            for match, following in zip(matches, [*matches[1:], None], strict=False):
                key, unknown = command_key(match)
                if unknown is not None:
                    finding.unknown_subcommands.append((unknown, text))
                named[-1].add(key)
                end = following.start() if following else len(text)
                for option in OPTION.findall(text, match.end(), end):
                    finding.commands.append((key, option, text))
    for options, commands in zip(sections, named, strict=True):
        finding.bare.extend((option, frozenset(commands), text) for option, text in options)
    return finding


@functools.cache
def findings() -> dict[Path, Finding]:
    return {page: read(page) for page in PAGES}


def page_id(page: Path) -> str:
    return str(page.relative_to(REPO_ROOT))


def test_the_readme_is_short_and_indexes_every_page() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) < README_MAX_LINES, len(lines)
    linked = {
        (README.parent / link.partition("#")[0]).resolve()
        for link in findings()[README].links
        if link.startswith("docs/")
    }
    assert linked == {page.resolve() for page in DOCS.glob("*.md")}


def test_the_pages_are_read() -> None:
    """The reading itself finds what the pages hold (so the tests below are not vacuous)."""
    everything = findings().values()
    keys = {key for finding in everything for key, _, _ in finding.commands}
    assert {f"{MAIN} setup", f"{MAIN} mcp", f"{MAIN} trust", "context-scoped-docs"} <= keys
    assert sum(len(finding.links) for finding in everything) > 20
    tables = findings()[DOCS / "configuration.md"].tables
    assert set(tables) == {entry.script for entry in PROVIDERS}
    assert any(finding.blocks for finding in everything)


@pytest.mark.parametrize("page", PAGES, ids=page_id)
def test_every_subcommand_named_exists(page: Path) -> None:
    assert findings()[page].unknown_subcommands == []


@pytest.mark.parametrize("page", PAGES, ids=page_id)
def test_every_option_shown_with_a_command_is_accepted_by_it(page: Path) -> None:
    wrong = [
        (key, option, text)
        for key, option, text in findings()[page].commands
        if option not in accepted().get(key, frozenset())
    ]
    assert wrong == []


@pytest.mark.parametrize("page", PAGES, ids=page_id)
def test_every_bare_option_belongs_to_a_command_of_its_section_or_another_program(
    page: Path,
) -> None:
    wrong = []
    for option, commands, text in findings()[page].bare:
        if option in FOREIGN:
            assert all(option not in accepted().get(key, frozenset()) for key in commands), (
                option,
                text,
            )
            continue
        if not any(option in accepted().get(key, frozenset()) for key in commands):
            wrong.append((option, sorted(commands), text))
    assert wrong == []


@pytest.mark.parametrize("page", PAGES, ids=page_id)
def test_every_console_script_named_is_installed(page: Path) -> None:
    installed = scripts()
    assert [
        (name, text) for name, text in findings()[page].script_names if name not in installed
    ] == []


def test_each_configuration_table_is_its_providers_schema() -> None:
    """Every attribute a table names is in the schema, and every schema attribute is in
    the table, or (``token_budget``, ``provider_name``) named where the page says every
    provider accepts them."""
    page = findings()[DOCS / "configuration.md"]
    common = {attribute.name for attribute in COMMON_ATTRIBUTES}
    assert common <= set(page.intro_spans)
    for entry in PROVIDERS:
        schema = {attribute.name for attribute in entry.schema()}
        documented = set(page.tables[entry.script])
        assert documented <= schema, (entry.script, documented - schema)
        assert schema <= documented | common, (entry.script, schema - documented)


@pytest.mark.parametrize("page", PAGES, ids=page_id)
def test_every_provider_block_shown_sets_attributes_of_its_schema(page: Path) -> None:
    schemas = {entry.package: {a.name for a in entry.schema()} for entry in PROVIDERS}
    wrong = [
        (name, attribute, text)
        for name, attribute, text in findings()[page].blocks
        if attribute not in schemas.get(name, ())
    ]
    assert wrong == []


@pytest.mark.parametrize("page", PAGES, ids=page_id)
def test_every_relative_link_leads_to_a_file_and_heading(page: Path) -> None:
    wrong = []
    for link in findings()[page].links:
        if re.match(r"[a-z]+:", link):
            continue
        path, _, anchor = link.partition("#")
        target = (page.parent / path).resolve() if path else page
        if not target.exists() or REPO_ROOT not in target.parents:
            wrong.append((link, "no such file"))
        elif anchor and (target.suffix != ".md" or anchor not in read(target).anchors):
            wrong.append((link, "no such heading"))
    assert wrong == []
