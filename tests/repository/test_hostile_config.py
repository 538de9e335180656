"""Issue 20 item 1: nothing set in a repository's config or attributes runs, in any git
command the providers start, submodules included.

Each way git can run a configured program gets a real hostile repository whose
program leaves a mark; plain git proves the trap springs; then the four
providers take two turns there (``contribute``) and no mark may appear, while
each still answers what it should.
"""

from __future__ import annotations

import mmap
import os
import random
import shutil
import subprocess
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from providers.git_status.snapshot import filter_note
from providers.repository.gitexec import GitRunner
from providers.repository.guard import _GITLINK, _contains
from tests.conftest import isolate_git
from tests.repository.hostile import (
    Answers,
    Traps,
    assert_answers_right,
    base_repo,
    four_answers,
    make_traps,
    run_git,
)


@pytest.fixture(autouse=True)
def git_env(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    isolate_git(tmp_path_factory, monkeypatch, '[protocol "file"]\n\tallow = always\n')


@pytest.fixture
def traps(tmp_path: Path) -> Traps:
    return make_traps(tmp_path)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    path = tmp_path / "repo"
    path.mkdir()
    return base_repo(path)


@dataclass
class Way:
    """A hostile setting: how plain git springs it, which marks that leaves, and what the
    answers must say besides being right."""

    proof: Callable[[], object]
    marks: tuple[str, ...]
    check: Callable[[Answers], None] = field(default=lambda answers: None)
    between: Callable[[], None] | None = None


def commit_all(repo: Path, message: str = "more") -> None:
    run_git(repo, "add", "-A")
    run_git(repo, "commit", "-q", "-m", message)


def modify_data(repo: Path) -> None:
    """Same size, new content and mtime: git must run the clean filter to compare it."""
    (repo / "data.txt").write_text("datb\n")


def with_attributes(repo: Path, line: str) -> None:
    (repo / ".gitattributes").write_text(line + "\n")
    commit_all(repo, "attributes")


def status_proof(repo: Path) -> Callable[[], object]:
    return lambda: run_git(repo, "status", "--porcelain")


def says_modified(answers: Answers) -> None:
    assert "modified: data.txt" in answers.status


# Filter drivers ---------------------------------------------------------------------


def filter_clean(repo: Path, traps: Traps) -> Way:
    with_attributes(repo, "*.txt filter=evil")
    run_git(repo, "config", "filter.evil.clean", traps.command("clean"))
    modify_data(repo)
    return Way(status_proof(repo), ("clean",), says_modified)


def filter_process(repo: Path, traps: Traps) -> Way:
    with_attributes(repo, "*.txt filter=evil")
    run_git(repo, "config", "filter.evil.process", traps.command("process", "exit 1"))
    modify_data(repo)
    proof = lambda: run_git(repo, "status", "--porcelain", check=False)  # noqa: E731
    return Way(proof, ("process",), says_modified)


def filter_required(repo: Path, traps: Traps) -> Way:
    """A required filter: git status still answers (the filter optional, its commands
    empty) and says the filter was not run."""
    with_attributes(repo, "*.txt filter=evil")
    run_git(repo, "config", "filter.evil.clean", traps.command("required"))
    run_git(repo, "config", "filter.evil.required", "true")
    modify_data(repo)

    def check(answers: Answers) -> None:
        says_modified(answers)
        assert f"Note: {filter_note(('evil',))}" in answers.status

    return Way(status_proof(repo), ("required",), check)


def filter_smudge(repo: Path, traps: Traps) -> Way:
    with_attributes(repo, "*.txt filter=evil")
    run_git(repo, "config", "filter.evil.smudge", traps.command("smudge"))

    def proof() -> None:
        (repo / "data.txt").unlink()
        run_git(repo, "checkout", "--", "data.txt")

    return Way(proof, ("smudge",))


def filter_named_with_equals(repo: Path, traps: Traps) -> Way:
    """A driver name ``-c`` could not spell (``-c filter.a=b.clean=`` splits at ``=``)."""
    with_attributes(repo, "*.txt filter=a=b")
    run_git(repo, "config", "filter.a=b.clean", traps.command("equals"))
    modify_data(repo)
    return Way(status_proof(repo), ("equals",), says_modified)


def filter_in_an_included_file(repo: Path, traps: Traps) -> Way:
    """An include inside the repository is followed (allowed), and what it sets is vetted."""
    (repo / "shared.gitconfig").write_text(f'[filter "evil"]\n\tclean = {traps.command("incl")}\n')
    with_attributes(repo, "*.txt filter=evil")
    run_git(repo, "config", "include.path", "../shared.gitconfig")
    modify_data(repo)
    return Way(status_proof(repo), ("incl",), says_modified)


# Diff programs ----------------------------------------------------------------------


def diff_textconv(repo: Path, traps: Traps) -> Way:
    with_attributes(repo, "*.txt diff=evil")
    run_git(repo, "config", "diff.evil.textconv", traps.command("textconv"))
    modify_data(repo)
    return Way(lambda: run_git(repo, "diff"), ("textconv",))


def diff_driver_command(repo: Path, traps: Traps) -> Way:
    with_attributes(repo, "*.txt diff=evil")
    run_git(repo, "config", "diff.evil.command", traps.command("diffcommand", "true"))
    modify_data(repo)
    return Way(lambda: run_git(repo, "diff"), ("diffcommand",))


def diff_external(repo: Path, traps: Traps) -> Way:
    run_git(repo, "config", "diff.external", traps.script("external"))
    modify_data(repo)
    return Way(lambda: run_git(repo, "diff"), ("external",))


# Hooks, pagers, fsmonitor -----------------------------------------------------------


def touch_app(repo: Path) -> None:
    """A new mtime, same content: plain git status refreshes the index and writes it."""
    app = repo / "src" / "app.py"
    os.utime(app, ns=(app.stat().st_atime_ns, app.stat().st_mtime_ns + 5_000_000_000))


def hook_from_hooks_path(repo: Path, traps: Traps) -> Way:
    hooks = repo.parent / "hooks"
    hooks.mkdir()
    shutil.copy(traps.script("hookspath"), hooks / "post-index-change")
    run_git(repo, "config", "core.hooksPath", str(hooks))

    def proof() -> None:
        touch_app(repo)
        run_git(repo, "status", "--porcelain")

    return Way(proof, ("hookspath",), between=lambda: touch_app(repo))


def hook_in_dot_git(repo: Path, traps: Traps) -> Way:
    shutil.copy(traps.script("dotgithook"), repo / ".git" / "hooks" / "post-index-change")

    def proof() -> None:
        touch_app(repo)
        run_git(repo, "status", "--porcelain")

    return Way(proof, ("dotgithook",), between=lambda: touch_app(repo))


def pager(repo: Path, traps: Traps) -> Way:
    for key in ("core.pager", "pager.log", "pager.status", "pager.ls-files"):
        run_git(repo, "config", key, traps.command("pager"))

    def proof() -> None:  # a pager runs only on a terminal: give git one
        subprocess.run(
            ["script", "-qec", f"git -C '{repo}' log -1", "/dev/null"],
            capture_output=True,
            check=False,
            timeout=60,
        )

    return Way(proof, ("pager",))


def fsmonitor(repo: Path, traps: Traps) -> Way:
    run_git(repo, "config", "core.fsmonitor", traps.script("fsmonitor", "echo 0\n"))
    return Way(status_proof(repo), ("fsmonitor",))


# Signatures -------------------------------------------------------------------------

SIGNATURES = {
    "openpgp": ("gpg.program", "-----BEGIN PGP SIGNATURE-----", "-----END PGP SIGNATURE-----"),
    "x509": ("gpg.x509.program", "-----BEGIN SIGNED MESSAGE-----", "-----END SIGNED MESSAGE-----"),
    "ssh": ("gpg.ssh.program", "-----BEGIN SSH SIGNATURE-----", "-----END SSH SIGNATURE-----"),
}


def signed_commit(repo: Path, begin: str, end: str) -> None:
    """HEAD becomes a commit carrying a signature of the given kind (never valid)."""
    tree = run_git(repo, "rev-parse", "HEAD^{tree}").stdout.decode().strip()
    parent = run_git(repo, "rev-parse", "HEAD").stdout.decode().strip()
    body = (
        f"tree {tree}\nparent {parent}\n"
        "author A <a@example.com> 1700000000 +0000\n"
        "committer A <a@example.com> 1700000000 +0000\n"
        f"gpgsig {begin}\n \n AAAA\n {end}\n\nsigned\n"
    )
    done = subprocess.run(
        ["git", "-C", str(repo), "hash-object", "-t", "commit", "-w", "--stdin"],
        input=body.encode(),
        capture_output=True,
        check=True,
    )
    run_git(repo, "update-ref", "HEAD", done.stdout.decode().strip())


def signature(kind: str) -> Callable[[Path, Traps], Way]:
    key, begin, end = SIGNATURES[kind]

    def arm(repo: Path, traps: Traps) -> Way:
        signed_commit(repo, begin, end)
        run_git(repo, "config", "log.showSignature", "true")
        run_git(repo, "config", "gpg.ssh.allowedSignersFile", str(repo / "AGENTS.md"))
        run_git(repo, "config", key, traps.script(f"sign-{kind}"))
        return Way(lambda: run_git(repo, "log", "-1"), (f"sign-{kind}",))

    return arm


# Alternates -------------------------------------------------------------------------


def alternate_refs_command(repo: Path, traps: Traps) -> Way:
    other = base_repo(repo.parent / "other")
    (repo / ".git" / "objects" / "info" / "alternates").write_text(
        str(other / ".git" / "objects") + "\n"
    )
    run_git(repo, "config", "core.alternateRefsCommand", traps.command("altrefs", "true"))
    proof = lambda: run_git(repo, "rev-list", "--alternate-refs", "HEAD", check=False)  # noqa: E731
    return Way(proof, ("altrefs",))


WAYS: dict[str, Callable[[Path, Traps], Way]] = {
    "filter clean": filter_clean,
    "filter process": filter_process,
    "filter required": filter_required,
    "filter smudge": filter_smudge,
    "filter named a=b": filter_named_with_equals,
    "filter from an include inside": filter_in_an_included_file,
    "textconv": diff_textconv,
    "diff driver command": diff_driver_command,
    "diff.external": diff_external,
    "core.hooksPath hook": hook_from_hooks_path,
    ".git/hooks hook": hook_in_dot_git,
    "pager": pager,
    "fsmonitor": fsmonitor,
    "gpg.program": signature("openpgp"),
    "gpg.x509.program": signature("x509"),
    "gpg.ssh.program": signature("ssh"),
    "core.alternateRefsCommand": alternate_refs_command,
}


@pytest.mark.parametrize("way", sorted(WAYS))
def test_no_configured_program_runs_in_any_providers_turn(
    way: str, repo: Path, traps: Traps
) -> None:
    """Issue 20 item 1: the repository's config names a program (one way each); plain git
    runs it; no provider's turn does, and every answer is still right."""
    armed = WAYS[way](repo, traps)
    traps.sprung_by(armed.proof, *armed.marks)
    answers = four_answers(repo, between=armed.between)
    assert traps.left() == []
    assert_answers_right(answers)
    armed.check(answers)


@pytest.mark.parametrize(
    "args",
    [
        ["diff", "--numstat"],
        ["diff"],
        ["log", "-p", "-1"],
        ["show", "HEAD"],
        ["rev-list", "--alternate-refs", "HEAD"],
        ["log", "--show-signature", "-1"],
    ],
)
def test_any_git_command_started_through_gitexec_runs_none_of_them(
    args: list[str], repo: Path, traps: Traps
) -> None:
    """Issue 20 item 1: the neutralisation is gitexec's, not each command's: a diff someone
    adds later (``diff --numstat``, ``log -p``) runs no textconv, external diff, driver
    command or signature program either."""
    with_attributes(repo, "*.txt diff=evil filter=evil")
    for key, value in (
        ("diff.evil.textconv", traps.command("textconv")),
        ("diff.evil.command", traps.command("command", "true")),
        ("diff.external", traps.script("external")),
        ("filter.evil.clean", traps.command("clean")),
        ("core.alternateRefsCommand", traps.command("altrefs", "true")),
        ("gpg.program", traps.script("gpg")),
        ("log.showSignature", "true"),
    ):
        run_git(repo, "config", key, value)
    alternate_refs_command(repo, traps)
    signed_commit(repo, *SIGNATURES["openpgp"][1:])
    (repo / "data.txt").write_text("datb\n")
    GitRunner().run(repo, args, ok_codes=None)
    assert traps.left() == []


# Submodules -------------------------------------------------------------------------


def submodule_repo(tmp_path: Path, traps: Traps, *, absorbed: bool) -> tuple[Path, Path]:
    """A superproject whose submodule ``s`` has a hostile config (filter and fsmonitor),
    with a file its filter must clean; the submodule's git dir absorbed in the
    superproject's ``.git/modules`` or a ``.git`` directory of its own."""
    origin = base_repo(tmp_path / "sub-origin")
    with_attributes(origin, "*.txt filter=subevil")
    superproject = base_repo(tmp_path / "super")
    if absorbed:
        run_git(superproject, "submodule", "add", "-q", str(origin), "s")
    else:
        run_git(superproject, "clone", "-q", str(origin), "s")
        run_git(superproject, "add", "s")
    commit_all(superproject, "submodule")
    sub = superproject / "s"
    run_git(sub, "config", "filter.subevil.clean", traps.command("subclean"))
    run_git(sub, "config", "core.fsmonitor", traps.script("subfsmonitor", "echo 0\n"))
    (sub / "data.txt").write_text("datb\n")
    return superproject, sub


@pytest.mark.parametrize("absorbed", [True, False], ids=["absorbed", "own .git"])
def test_a_submodules_config_runs_nothing_either(
    tmp_path: Path, traps: Traps, absorbed: bool
) -> None:
    """Issue 20 item 1: git status runs git in each submodule; what the submodule's config
    names (a filter, an fsmonitor hook, with -c core.fsmonitor=false holding there too)
    runs in none of the providers' turns, and the submodule's change is still reported."""
    superproject, _ = submodule_repo(tmp_path, traps, absorbed=absorbed)
    traps.sprung_by(
        lambda: run_git(superproject, "status", "--porcelain"), "subclean", "subfsmonitor"
    )
    answers = four_answers(superproject)
    assert traps.left() == []
    assert_answers_right(answers)
    assert "modified (submodule: modified content): s" in answers.status


# Transports: a partial clone fetches missing objects on demand -----------------------


class Unauthorized(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(401)
        self.send_header("WWW-Authenticate", 'Basic realm="hostile"')
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: object) -> None:
        return


@pytest.fixture
def http_401() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Unauthorized)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/repo.git"
    finally:
        server.shutdown()
        server.server_close()


def partial_clone(repo: Path, url: str) -> None:
    """``repo`` as a partial clone of ``url`` that lacks the first commit's tree: the file
    tree's ``git log --name-only`` needs it, and git would fetch it from ``url``."""
    (repo / "second.txt").write_text("2\n")
    commit_all(repo, "second")
    tree = run_git(repo, "rev-parse", "HEAD~1^{tree}").stdout.decode().strip()
    (repo / ".git" / "objects" / tree[:2] / tree[2:]).unlink()
    for key, value in (
        ("core.repositoryformatversion", "1"),
        ("extensions.partialClone", "origin"),
        ("remote.origin.url", url),
        ("remote.origin.promisor", "true"),
    ):
        run_git(repo, "config", key, value)
    for protocol in ("file", "ssh", "ext", "git", "http", "evilvcs"):
        run_git(repo, "config", f"protocol.{protocol}.allow", "always")


def lazy_fetch_proof(repo: Path) -> Callable[[], object]:
    return lambda: run_git(repo, "log", "--name-only", "--format=%H", check=False)


def transport_way(
    name: str,
    repo: Path,
    traps: Traps,
    tmp_path: Path,
    http_url: str,
    monkeypatch: pytest.MonkeyPatch,
) -> Way:
    if name == "remote.<name>.uploadpack (local)":
        partial_clone(repo, str(base_repo(tmp_path / "origin")))
        run_git(repo, "config", "remote.origin.uploadpack", traps.command("uploadpack", "exit 1"))
        return Way(lazy_fetch_proof(repo), ("uploadpack",))
    if name == "core.sshCommand":
        partial_clone(repo, "ssh://example.invalid/repo.git")
        run_git(repo, "config", "core.sshCommand", traps.command("ssh", "exit 1"))
        return Way(lazy_fetch_proof(repo), ("ssh",))
    if name == "ext:: remote helper":
        partial_clone(repo, f"ext::sh -c touch% {traps.marks}/ext")
        return Way(lazy_fetch_proof(repo), ("ext",))
    if name == "remote.<name>.vcs helper":
        bin_dir = tmp_path / "bin"
        bin_dir.mkdir()
        shutil.copy(traps.script("vcs", "exit 1\n"), bin_dir / "git-remote-evilvcs")
        monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
        partial_clone(repo, "anything")
        run_git(repo, "config", "remote.origin.vcs", "evilvcs")
        return Way(lazy_fetch_proof(repo), ("vcs",))
    if name == "core.gitProxy":
        partial_clone(repo, "git://127.0.0.1:9/repo.git")
        run_git(repo, "config", "core.gitProxy", traps.script("gitproxy", "exit 1\n"))
        return Way(lazy_fetch_proof(repo), ("gitproxy",))
    if name == "credential.helper and core.askPass":
        partial_clone(repo, http_url)
        run_git(repo, "config", "credential.helper", "!" + traps.command("credential", "true"))
        scoped = f"credential.{http_url.rsplit('/', 1)[0]}.helper"
        run_git(repo, "config", scoped, "!" + traps.command("urlcred", "true"))
        run_git(repo, "config", "core.askPass", traps.script("askpass", "echo x\n"))
        return Way(lazy_fetch_proof(repo), ("credential", "urlcred", "askpass"))
    raise AssertionError(name)


TRANSPORTS = (
    "remote.<name>.uploadpack (local)",
    "core.sshCommand",
    "ext:: remote helper",
    "remote.<name>.vcs helper",
    "core.gitProxy",
    "credential.helper and core.askPass",
)


@pytest.mark.parametrize("name", TRANSPORTS)
def test_a_lazy_fetch_cannot_start_a_transport(
    name: str,
    repo: Path,
    traps: Traps,
    tmp_path: Path,
    http_401: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 20 item 1: in a partial clone, git fetches missing objects by itself, through
    whatever the repository's config says (ssh command, upload-pack command, remote
    helpers, proxy, credential helper, askpass, with protocol.<name>.allow=always). No
    transport is allowed in our runs (GIT_ALLOW_PROTOCOL empty): nothing starts, the
    history is only missing."""
    armed = transport_way(name, repo, traps, tmp_path, http_401, monkeypatch)
    traps.sprung_by(armed.proof, *armed.marks)
    answers = four_answers(repo)
    assert traps.left() == []
    assert_answers_right(answers)
    code, _, err = GitRunner().run(repo, ["log", "--name-only", "--format=%H"], ok_codes=None)
    assert code != 0 and b"not allowed" in err
    assert traps.left() == []


def test_the_submodule_search_finds_exactly_what_a_whole_search_finds() -> None:
    """The guard looks for a gitlink in git's index by its rarest byte (a whole-needle
    search of a 9 MB index took 8 ms): it must find the mode exactly where ``in`` does,
    across buffers dense with the needle's own bytes."""
    rng = random.Random(7)
    found = 0
    for _ in range(3000):
        data = bytes(rng.choice(b"\x00\x00\x00\xe0\x01") for _ in range(rng.randint(1, 40)))
        with mmap.mmap(-1, len(data)) as mapped:
            mapped.write(data)
            mapped.seek(0)
            assert _contains(mapped, _GITLINK) == (_GITLINK in data), data
        found += _GITLINK in data
    assert 0 < found < 3000
