"""design.md: layers point one way. Each layer's allowed imports are stated once, in
:data:`ALLOWED`, and checked on the source, import by import (function-level imports
included); the module graph has no cycle; ``core/`` uses none of the libraries that
would make it impure."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from providers.registry import PROVIDERS
from tests.conftest import REPO_ROOT
from tests.support.imports import imported_modules

SOURCE_ROOT = REPO_ROOT / "providers"
PROVIDER_PACKAGES = tuple(entry.package for entry in PROVIDERS)

NEUTRAL = ("core", "watch", "markdown", "repository", "rules")
"""What every provider stands on; none of them knows a provider."""

FLOORS: tuple[tuple[str, ...], ...] = (
    ("core", "_gen"),
    ("watch", "markdown", "repository"),
    ("rules",),
    PROVIDER_PACKAGES,
    ("registry",),
    ("goplugin",),
    ("host",),
    ("cli",),
    ("clients",),
    ("entry",),
)
"""Each layer's floor, lowest first: a layer imports only from floors below its own
(arrows down only). ``entry`` is ``providers/entry.py`` and every ``__main__.py`` (the
console scripts: nothing imports them). ``registry`` sits above the providers: it loads
them (by name, at run time)."""

ALLOWED: dict[str, frozenset[str]] = {
    # the provider contract: types, errors, request, provider, config, budget, identity
    "core": frozenset(),
    "_gen": frozenset(),
    "watch": frozenset({"core"}),
    "markdown": frozenset({"core"}),
    "repository": frozenset({"core"}),
    "registry": frozenset({"core"}),
    "rules": frozenset({"core", "markdown", "repository"}),
    # each provider: the neutral layers
    **{package: frozenset(NEUTRAL) for package in PROVIDER_PACKAGES},
    "goplugin": frozenset({"core", "registry", "repository", "_gen"}),
    # registry: the schemas, to vet a repository's agent.hcl before anything starts
    "host": frozenset({"core", "registry", "repository", "goplugin", "_gen"}),
    # rules, markdown and the providers: explain asks their discovery, catalogs, matchers
    "cli": frozenset(
        {"core", "registry", "host", "goplugin", "repository", "rules", "markdown"}
        | set(PROVIDER_PACKAGES)
    ),
    # rules: to expand the @imports of the convention files a client loads itself (a
    # CLAUDE.md saying @AGENTS.md brings AGENTS.md in), so the bridge does not send them;
    # cli: the shell commands' shared parser and console
    "clients": frozenset({"core", "registry", "host", "repository", "rules", "cli"}),
    "entry": frozenset({"core", "registry", "goplugin", "cli", "clients"}),
}
"""Layer -> the other ``providers`` layers it may import (a layer may always import
itself). A new layer needs a row here, and a floor in :data:`FLOORS`, before its first
import passes; AGENTS.md shows this table (``python -m tests.test_layers`` writes it)."""

LAYER_FOLDERS = ("core", "watch", "markdown", "repository", "rules", "goplugin", "host", "cli")
"""Layers that are folders: each must exist (a renamed or dissolved layer fails here)."""

CORE_FORBIDDEN = ("ctypes", "select", "subprocess", "watchfiles", "yaml", "markdown_it", "grpc")
"""What ``core/`` never imports: threads on file descriptors, processes, parsers, the
wire. Those live in watch/, repository/, rules/, markdown/ and goplugin/."""


def layer_of(path: Path) -> str:
    if path.name == "__main__.py":
        return "entry"
    parts = path.relative_to(SOURCE_ROOT).parts
    return parts[0].removesuffix(".py")


def imports_in(path: Path) -> set[str]:
    """Every absolute module name ``path`` imports, at any level of the file."""
    return {module for _, module in imported_modules(path, path.parent)}


def source_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*.py") if "_gen" not in p.parts)


def layer_violations(layer: str) -> list[tuple[str, str]]:
    files = [p for p in source_files(SOURCE_ROOT) if layer_of(p) == layer]
    assert files, f"no source for layer {layer!r}"
    allowed = ALLOWED[layer] | {layer}
    bad = []
    for path in files:
        for module in imports_in(path):
            parts = module.split(".")
            if parts[0] != "providers" or len(parts) < 2:
                continue
            if parts[1] not in allowed:
                bad.append((path.relative_to(REPO_ROOT).as_posix(), module))
    return sorted(set(bad))


@pytest.mark.parametrize("layer", sorted(set(ALLOWED) - {"_gen"}))  # _gen: generated
def test_each_layer_imports_only_what_the_table_allows(layer: str) -> None:
    if layer == "clients" and not (SOURCE_ROOT / "clients").is_dir():
        pytest.skip("the clients layer is not in this tree yet")
    bad = layer_violations(layer)
    assert not bad, f"providers/{layer} imports outside {sorted(ALLOWED[layer])}: {bad}"


@pytest.mark.parametrize("folder", LAYER_FOLDERS)
def test_each_named_layer_folder_exists(folder: str) -> None:
    assert (SOURCE_ROOT / folder / "__init__.py").is_file(), f"providers/{folder}/ is missing"


def test_every_layer_has_a_row() -> None:
    layers = {layer_of(p) for p in source_files(SOURCE_ROOT)} - {"__init__", "_gen"}
    assert layers <= set(ALLOWED), f"layers without a row in ALLOWED: {layers - set(ALLOWED)}"


def floor_of(layer: str) -> int:
    return next(i for i, floor in enumerate(FLOORS) if layer in floor)


def test_arrows_point_down_only() -> None:
    """Issue 28 item 7: every import the table allows goes to a lower floor; every layer
    has exactly one floor."""
    placed = [layer for floor in FLOORS for layer in floor]
    assert sorted(placed) == sorted(ALLOWED), "each layer on exactly one floor"
    upward = sorted(
        (layer, other)
        for layer, others in ALLOWED.items()
        for other in others
        if floor_of(other) >= floor_of(layer)
    )
    assert not upward, f"imports that do not go down a floor: {upward}"


BEGIN = "<!-- layers: written by python -m tests.test_layers -->"
END = "<!-- /layers -->"
AGENTS_MD = REPO_ROOT / "AGENTS.md"


def layer_table() -> str:
    """The floors and what each layer may import, as AGENTS.md shows them."""
    rows = ["| floor | layer | may import |", "|---|---|---|"]
    for number in range(len(FLOORS) - 1, -1, -1):
        for layer in FLOORS[number]:
            shown = "`<provider>`" if layer in PROVIDER_PACKAGES else f"`{layer}`"
            if layer in PROVIDER_PACKAGES[1:]:
                continue
            allowed = ", ".join(f"`{o}`" for o in sorted(ALLOWED[layer])) or "nothing"
            rows.append(f"| {number} | {shown} | {allowed} |")
    return "\n".join(rows)


def agents_md_with_table(text: str) -> str:
    head, _, rest = text.partition(BEGIN)
    _, _, tail = rest.partition(END)
    return f"{head}{BEGIN}\n{layer_table()}\n{END}{tail}"


def test_agents_md_shows_the_layer_table() -> None:
    """Generated, never edited: ``python -m tests.test_layers`` writes it."""
    text = AGENTS_MD.read_text(encoding="utf-8")
    assert BEGIN in text and END in text
    assert agents_md_with_table(text) == text, "run: ./dev python -m tests.test_layers"


@pytest.mark.parametrize("library", CORE_FORBIDDEN)
def test_core_imports_no_impure_library(library: str) -> None:
    bad = sorted(
        (path.relative_to(REPO_ROOT).as_posix(), module)
        for path in source_files(SOURCE_ROOT / "core")
        for module in imports_in(path)
        if module == library or module.startswith(f"{library}.")
    )
    assert not bad, f"core/ imports {library}: {bad}"


def module_name(path: Path) -> str:
    name = ".".join(path.relative_to(REPO_ROOT).with_suffix("").parts)
    return name.removesuffix(".__init__")


def import_graph(root: Path) -> dict[str, set[str]]:
    """Module -> the modules of this tree it imports (``from pkg import sub`` is ``sub``)."""
    files = {module_name(p): p for p in source_files(root)}
    graph: dict[str, set[str]] = {name: set() for name in files}
    for name, path in files.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                subs = [f"{node.module}.{alias.name}" for alias in node.names]
                targets = [s for s in subs if s in files] or [node.module]
            else:
                continue
            graph[name].update(t for t in targets if t in files and t != name)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_no_import_cycle() -> None:
    found = cycles(import_graph(SOURCE_ROOT))
    assert not found, f"import cycles: {found}"


@pytest.mark.parametrize("package", PROVIDER_PACKAGES)
def test_no_provider_imports_another_provider(package: str) -> None:
    others = [p for p in PROVIDER_PACKAGES if p != package]
    bad = sorted(
        (path.relative_to(REPO_ROOT).as_posix(), module)
        for path in source_files(SOURCE_ROOT / package)
        for module in imports_in(path)
        if any(module == f"providers.{o}" or module.startswith(f"providers.{o}.") for o in others)
    )
    assert not bad, f"providers/{package}/ reaches into another provider: {bad}"


def test_the_checks_can_fail(tmp_path: Path) -> None:
    """A cross-layer import and a two-module cycle are both found."""
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from pkg.b import x\nfrom providers.file_tree.tree import T\n")
    (package / "b.py").write_text("def f():\n    from pkg import a\n")
    assert "providers.file_tree.tree" in set(imports_in(package / "a.py"))
    graph = {"pkg.a": {"pkg.b"}, "pkg.b": {"pkg.a"}, "pkg": set()}
    assert cycles(graph) == [["pkg.a", "pkg.b"]]


if __name__ == "__main__":
    AGENTS_MD.write_text(agents_md_with_table(AGENTS_MD.read_text(encoding="utf-8")))
