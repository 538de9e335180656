"""Issue 11 items 8 and 10: every command a user runs from a shell.

``context-providers`` is the main job's console script; ``--help`` at every
level says what the program is, the provider scripts' help says they serve
under the kernel and preview otherwise, with their real defaults. A closed
pipe ends a command the way it ends ``cat``; an argument error names the
category like every other bad input. Real installed scripts, real pipes.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from providers.core.identity import package_version
from providers.registry import PROVIDERS, ProviderEntry, ProviderHandle
from tests.conftest import REPO_ROOT, SAMPLE_REPO, script

MAIN = "context-providers"


def run(*command: str, **kwargs: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        list(command),
        capture_output=True,
        text=True,
        timeout=300,
        **kwargs,  # type: ignore[call-overload]
    )


def test_main_script_help_and_version_say_what_it_is() -> None:
    top = run(script(MAIN), "--help")
    assert top.returncode == 0, top.stderr
    assert top.stdout.startswith(f"usage: {MAIN} ")
    assert "context providers for AI coding agents" in top.stdout
    assert "PluggableHarness kernel" in top.stdout
    assert "preview DIR" in top.stdout
    assert all(entry.script in top.stdout for entry in PROVIDERS)
    preview = run(script(MAIN), "preview", "--help")
    assert preview.returncode == 0, preview.stderr
    assert preview.stdout.startswith(f"usage: {MAIN} preview ")
    assert "The main job of context-providers" in preview.stdout
    assert "--kernel-compat" in preview.stdout and "--scratch" in preview.stdout
    version = run(script(MAIN), "--version")
    assert version.returncode == 0
    assert version.stdout == f"{MAIN} {package_version()}\n"
    assert package_version() != "0.0.0"  # read from the installed distribution's metadata
    module = run(sys.executable, "-m", "providers", "--help")
    assert module.stdout.startswith("usage: python -m providers ")


def normalised(out: str) -> str:
    """A preview's output with what differs between two runs masked: the scratch
    directory and the scratch commit's hash (its commit time is in it)."""
    out = re.sub(r"/preview-[^/\s]+", "/preview-X", out)
    return re.sub(r"\b[0-9a-f]{7}\b", "sha", out)


@pytest.mark.slow
def test_main_script_preview_is_python_m_providers_preview() -> None:
    by_script = run(script(MAIN), "preview", "--scratch", str(SAMPLE_REPO), cwd=REPO_ROOT)
    by_module = run(
        sys.executable, "-m", "providers", "preview", "--scratch", str(SAMPLE_REPO), cwd=REPO_ROOT
    )
    assert by_script.returncode == by_module.returncode == 0, by_script.stderr
    assert "turn 3" in by_script.stdout
    assert normalised(by_script.stdout) == normalised(by_module.stdout)


@pytest.mark.slow
def test_preview_sample_repo_previews_the_sample_not_the_checkout() -> None:
    """Issue 30 item 4: ``context-providers preview sample_repo`` from the checkout (what
    ``uvx --from . context-providers preview sample_repo`` runs) previews the sample in a
    scratch copy, as ``./dev preview`` does, not the enclosing checkout's repository: its
    ``.preview-session.json`` says it is a project of its own."""
    plain = run(script(MAIN), "preview", "sample_repo", cwd=REPO_ROOT)
    scratch = run(script(MAIN), "preview", "--scratch", "sample_repo", cwd=REPO_ROOT)
    assert plain.returncode == 0, plain.stderr
    first = plain.stdout.splitlines()[0]
    assert first.startswith(f"(repository: {SAMPLE_REPO}, as a scratch git copy"), first
    assert "tasklane" in plain.stdout and "PluggableHarness" not in plain.stdout
    assert normalised(plain.stdout) == normalised(scratch.stdout)


@pytest.mark.parametrize("entry", PROVIDERS, ids=lambda e: e.package)
def test_provider_script_help_says_serve_or_preview_with_the_real_defaults(
    entry: ProviderEntry,
) -> None:
    capabilities = ProviderHandle(entry.factory).load_now().capabilities()
    result = run(script(entry.script), "--help")
    assert result.returncode == 0, result.stderr
    text = " ".join(result.stdout.split())  # argparse wraps lines where it likes
    assert result.stdout.startswith(f"usage: {entry.script} ")
    assert f"{entry.script}: the {entry.title} context provider" in text
    assert "Launched by the kernel" in text and "serves the plugin protocol" in text
    assert "it previews what it would contribute" in text
    budget = capabilities.default_token_budget
    assert f"token_budget (default: {budget}, the provider's)" in text
    assert f"token_budget (number, default {budget})" in text
    for attribute in capabilities.config_schema:
        if attribute.name != "token_budget":
            shown = "unset" if attribute.default is None else json.dumps(attribute.default)
            assert f"{attribute.name} (" in text and f"default {shown})" in text, attribute
    version = run(script(entry.script), "--version")
    assert version.stdout == f"{entry.script} {package_version()}\n"


COMMANDS = {
    **{
        entry.package: [entry.script, "--repo", str(SAMPLE_REPO), "--scratch"]
        for entry in PROVIDERS
    },
    "file_tree_in_place": ["context-file-tree", "--repo", str(REPO_ROOT), "--budget", "20000"],
    "preview": [MAIN, "preview", "--scratch", str(SAMPLE_REPO)],
}


@pytest.mark.parametrize("name", COMMANDS)
def test_a_closed_pipe_ends_the_command_as_it_ends_cat(name: str, tmp_path: Path) -> None:
    """``cmd | head`` once head has gone: killed by SIGPIPE (141 in a shell), no
    traceback, and nothing left behind (scratch copies, sockets)."""
    command = [script(COMMANDS[name][0]), *COMMANDS[name][1:]]
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is gone before the first byte is written
    try:
        result = subprocess.run(
            command,
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            timeout=300,
            env={**os.environ, "TMPDIR": str(tmp_path)},
        )
    finally:
        os.close(write_end)
    assert result.returncode == -signal.SIGPIPE, result.stderr
    assert "Traceback" not in result.stderr and "BrokenPipe" not in result.stderr
    assert "Exception ignored" not in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_head_ends_a_pipeline_quietly() -> None:
    result = run(
        "bash",
        "-c",
        f'set -o pipefail; "{script("context-git-status")}" --repo "{SAMPLE_REPO}" --scratch'
        " | head -3",
    )
    assert result.returncode in (0, 128 + signal.SIGPIPE), result.stderr
    assert result.stdout.startswith("(repository: ") and len(result.stdout.splitlines()) == 3
    assert result.stderr == ""


@pytest.mark.parametrize(
    "command",
    [
        ["context-git-status", "--budget", "lots"],
        ["context-file-tree", "--no-such-flag"],
        ["context-scoped-docs", "--files-touched", "a", "--model"],
        [MAIN],
        [MAIN, "frobnicate"],
        [MAIN, "preview"],
        [MAIN, "preview", str(SAMPLE_REPO), "--no-such-flag"],
    ],
    ids=lambda c: " ".join(c[:3]),
)
def test_argument_errors_name_the_category(command: list[str]) -> None:
    result = run(script(command[0]), *command[1:])
    assert result.returncode == 2
    assert result.stderr.splitlines()[-1].startswith("error: invalid_request: "), result.stderr
    assert result.stderr.startswith("usage: ")


def test_a_file_as_repo_says_it_is_a_file() -> None:
    result = run(script("context-repo-conventions"), "--repo", "README.md", cwd=REPO_ROOT)
    assert result.returncode == 2
    assert result.stderr == "error: invalid_request: --repo README.md is a file, not a directory\n"
    assert result.stdout == ""


def test_ctrl_c_ends_a_preview_with_130_and_no_traceback(tmp_path: Path) -> None:
    """Issue 22 item 10: Ctrl-C (SIGINT to the process group, as a terminal sends it)
    ends the preview with 130 and one line, no traceback, nothing left behind."""
    process = subprocess.Popen(
        [script(MAIN), "preview", "--scratch", str(SAMPLE_REPO)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "TMPDIR": str(tmp_path)},
        start_new_session=True,
    )
    assert process.stdout is not None
    assert process.stdout.readline().startswith("(repository: ")  # the session is under way
    os.killpg(process.pid, signal.SIGINT)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 130, err
    assert "Traceback" not in err and err.strip().splitlines()[-1] == "interrupted"
    assert list(tmp_path.iterdir()) == []
