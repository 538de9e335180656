"""Issue 23 item 5: ``.aiignore`` (JetBrains AI Assistant and Junie) and ``.kiroignore``
(Kiro) are honoured beside the other agents' ignore files, by default.

The layout is a JetBrains-style Gradle project's tree (paths only) with the files those
tools document: an ``.aiignore`` hiding ``local.properties`` and the signing keys, a
``.kiroignore`` hiding generated sources.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from providers.file_tree.listing import AI_IGNORE_FILES
from providers.file_tree.provider import FileTreeProvider
from tests.file_tree.helpers import collect, init_repo
from tests.support.files import write

Make = Callable[..., FileTreeProvider]


def test_aiignore_and_kiroignore_are_among_the_defaults() -> None:
    assert ".aiignore" in AI_IGNORE_FILES and ".kiroignore" in AI_IGNORE_FILES


def test_jetbrains_and_kiro_ignore_files_hide_entries(make_provider: Make, tmp_path: Path) -> None:
    root = tmp_path / "app"
    write(root, "settings.gradle.kts")
    write(root, "app/build.gradle.kts")
    write(root, "app/src/main/kotlin/Main.kt")
    write(root, "app/keystore/release.jks")
    write(root, "local.properties")
    write(root, "app/src/generated/Api.kt")
    write(root, ".aiignore", "local.properties\n*.jks\n")
    write(root, ".kiroignore", "app/src/generated/\n")
    init_repo(root)
    text = collect(make_provider(watcher_factory=None), root)
    assert "Main.kt" in text
    for hidden in ("local.properties", "release.jks", "generated"):
        assert hidden not in text, hidden
    shown = collect(make_provider({"ai_ignore_files": []}, watcher_factory=None), root)
    assert "local.properties" in shown and "generated" in shown
