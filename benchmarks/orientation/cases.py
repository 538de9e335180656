"""The repositories and tasks: each sampled commit is a task, its modified files the answer.

A repository is read from a bare mirror with full history (the ``fetch`` tool
puts one at ``/work/.mirror/<owner>+<name>/repo``) at a pinned commit, so a
refreshed mirror does not move the figures. The map is drawn from that
commit's listing, as the provider would list a clean checkout of it; Gemini
CLI reads a real checkout of the same commit, cached under
``/work/bench-cache/checkouts``.

Every git command runs without the system and global config (a global LFS
filter or hook path must not run on fetched repositories) and never prompts.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

CACHE = Path("/work/bench-cache")
MIRRORS = Path("/work/.mirror")
SKIP_RECENT = 20
"""The newest non-merge commits left out, so every task has history before it."""
WINDOW = 4
"""Tasks are drawn from the newest ``WINDOW * count`` eligible commits."""
MIN_MODIFIED, MAX_MODIFIED = 2, 12
_GITLINK = "160000"


@dataclass(frozen=True)
class RepoSpec:
    """A repository of the benchmark: where it comes from and the commit it is read at."""

    name: str
    github: str
    head: str
    kind: str


REPOS: tuple[RepoSpec, ...] = (
    RepoSpec("fastapi", "tiangolo/fastapi", "6d9dc39fcb3eb3bcd9c2a693683d68311d1618e0", "Python"),
    RepoSpec(
        "gemini-cli",
        "google-gemini/gemini-cli",
        "5411f113cafae26161b4969b0237b8e1e024e2c2",
        "TypeScript monorepo",
    ),
    RepoSpec("hugo", "gohugoio/hugo", "7b5199fdeff7d7682e9f979f468d55bc7b67b934", "Go"),
    RepoSpec("ruff", "astral-sh/ruff", "fca5c7cf2cd2f8338f18b9485f936b8e9f07bd0b", "Rust"),
    RepoSpec(
        "test262", "tc39/test262", "be13516fb6441b950ba8a3df97eb34062c186972", "JS test suite"
    ),
)


@dataclass(frozen=True, eq=False)
class RepoCase:
    """One repository as the maps see it (compared by identity: it holds a whole listing).

    ``paths`` is the listing the map is drawn from (nested repositories as
    ``name/``), ``files`` its regular files (what a task may ask for), ``root``
    the checkout Gemini CLI lists and every map's root label.
    """

    name: str
    git_dir: Path
    head: str
    root: Path
    paths: tuple[str, ...]
    files: frozenset[str]


@dataclass(frozen=True)
class Task:
    """What a map may know when drawn: the files touched, and the history before the commit.

    ``parent`` is the commit's parent, the newest history a ranking may mine
    (``git log <parent>``). The commit itself, and so which files it modified,
    is kept from the maps: it is the answer.
    """

    parent: str
    touched: tuple[str, ...]


@dataclass(frozen=True)
class Question:
    """A task and its answer: the files the map should name (modified, not yet touched)."""

    task: Task
    wanted: tuple[str, ...]


def git_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(
        GIT_CONFIG_NOSYSTEM="1",
        GIT_CONFIG_GLOBAL=os.devnull,
        GIT_TERMINAL_PROMPT="0",
        GIT_OPTIONAL_LOCKS="0",
    )
    return env


def git(*args: str, git_dir: Path | None = None, cwd: Path | None = None) -> bytes:
    where = ["--git-dir", str(git_dir)] if git_dir else []
    return subprocess.run(
        ["git", "-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null", *where, *args],
        cwd=cwd,
        env=git_env(),
        check=True,
        capture_output=True,
    ).stdout


def _decode(raw: bytes) -> str:
    return raw.decode("utf-8", "surrogateescape")


def mirror_of(spec: RepoSpec, mirrors: Path) -> Path:
    git_dir = mirrors / spec.github.replace("/", "+") / "repo"
    if not (git_dir / "HEAD").exists():
        raise SystemExit(
            f"no mirror of {spec.github} at {git_dir}: fetch it (the fetch tool, "
            f'source "github:{spec.github}") or `git clone --mirror` it there'
        )
    try:
        git("cat-file", "-e", f"{spec.head}^{{commit}}", git_dir=git_dir)
    except subprocess.CalledProcessError:
        raise SystemExit(f"{git_dir} lacks the pinned commit {spec.head} of {spec.name}") from None
    return git_dir


def listing(git_dir: Path, commit: str) -> tuple[tuple[str, ...], frozenset[str]]:
    """Every entry of ``commit``'s tree (gitlinks as ``name/``) and its regular files."""
    paths: list[str] = []
    files: set[str] = set()
    for record in git("ls-tree", "-r", "-z", commit, git_dir=git_dir).split(b"\0"):
        if not record:
            continue
        meta, _, raw = record.partition(b"\t")
        path = _decode(raw)
        if meta.startswith(_GITLINK.encode()):
            paths.append(path + "/")
        else:
            paths.append(path)
            if not meta.startswith(b"120000"):  # a symlink is listed but is no one's answer
                files.add(path)
    return tuple(paths), frozenset(files)


def checkout(git_dir: Path, commit: str, where: Path) -> Path:
    """A checkout of ``commit`` at ``where`` (reused when it is already there)."""
    if (where / ".git").exists():
        try:
            if _decode(git("rev-parse", "HEAD", cwd=where)).strip() == commit:
                return where
        except subprocess.CalledProcessError:
            pass
        shutil.rmtree(where)
    where.parent.mkdir(parents=True, exist_ok=True)
    git("clone", "-q", "--shared", "--no-checkout", str(git_dir), str(where))
    git("checkout", "-q", "--detach", commit, cwd=where)
    return where


def load(spec: RepoSpec, mirrors: Path) -> RepoCase:
    git_dir = mirror_of(spec, mirrors)
    root = checkout(git_dir, spec.head, CACHE / "checkouts" / spec.name)
    paths, files = listing(git_dir, spec.head)
    return RepoCase(spec.name, git_dir, spec.head, root, paths, files)


@dataclass(frozen=True)
class Commit:
    """An eligible commit: its modified files that exist at the pinned head, sorted."""

    sha: str
    parent: str
    date: str
    modified: tuple[str, ...]


def _log(case: RepoCase, limit: int) -> tuple[list[Commit], int]:
    """Eligible commits among the ``limit`` newest non-merge ones after the skipped; and how
    many were read (fewer than ``limit``: the history ended)."""
    out = git(
        "log",
        f"-n{limit}",
        f"--skip={SKIP_RECENT}",
        "--no-merges",
        "--no-renames",
        "--raw",
        "-z",
        "--format=%x01%H %cs %P",
        case.head,
        git_dir=case.git_dir,
    )
    eligible: list[Commit] = []
    read = 0
    for chunk in out.split(b"\x01")[1:]:
        read += 1
        header, _, body = chunk.partition(b"\0")
        sha, date, *parents = _decode(header).split()
        fields = body.lstrip(b"\n").split(b"\0")
        modified: list[str] = []
        for meta, raw in zip(fields[0::2], fields[1::2], strict=False):
            # ":100644 100644 <old> <new> M": both sides a file, changed in place.
            parts = meta.lstrip(b":").split()
            if len(parts) == 5 and parts[4] == b"M" and _GITLINK.encode() not in parts[:2]:
                modified.append(_decode(raw))
        if not parents or not MIN_MODIFIED <= len(modified) <= MAX_MODIFIED:
            continue
        kept = tuple(sorted(p for p in modified if p in case.files))
        if len(kept) >= MIN_MODIFIED:
            eligible.append(Commit(sha, parents[0], date, kept))
    return eligible, read


def sample(case: RepoCase, count: int, seed: int) -> tuple[list[Commit], int]:
    """``count`` commits drawn (seeded by ``seed`` and the repository's name) from the newest
    ``WINDOW * count`` eligible ones, newest first; and how many were eligible (at most
    the window).

    Eligible: not a merge, 2 to 12 files modified in place (added, deleted and
    renamed files and submodules do not count), and still at least 2 of
    them at the pinned head.
    """
    window = WINDOW * count
    limit = 10 * window
    while True:
        eligible, read = _log(case, limit)
        if len(eligible) >= window or read < limit:
            break
        limit *= 4
    eligible = eligible[:window]
    rng = random.Random(f"{seed}:{case.name}")
    picked = sorted(rng.sample(range(len(eligible)), min(count, len(eligible))))
    return [eligible[i] for i in picked], len(eligible)


def questions(commit: Commit) -> tuple[Question, list[Question]]:
    """The question without ``files_touched``, and one per modified file with it touched."""
    alone = Question(Task(commit.parent, ()), commit.modified)
    touching = [
        Question(Task(commit.parent, (f,)), tuple(p for p in commit.modified if p != f))
        for f in commit.modified
    ]
    return alone, touching
