"""What a repository may make git do: run nothing of its choosing, read nothing outside it.

git obeys the config of the repository it runs in, and a repository can
come from anywhere. Every git run (:mod:`gitexec`) therefore gets, from
:meth:`RepositoryGuard.check`:

- ``GIT_CEILING_DIRECTORIES`` just above the repository we vetted
  (:mod:`discovery`), so git cannot climb to another one;
- config in the command-line scope, which git lets win over every file and
  hands on to the git it starts in submodules (``GIT_CONFIG_COUNT`` with
  ``GIT_CONFIG_KEY_<n>``/``GIT_CONFIG_VALUE_<n>``: keys and values apart,
  so a driver named ``a=b`` is reached too):

  - always (:data:`ALWAYS`): hooks from ``/dev/null``; no credential
    helper and no askpass; signatures never checked, and every signing
    program, ``core.alternateRefsCommand`` and ``core.sshCommand`` set to
    ``/dev/null`` (git executes a plain path directly: nothing runs); no
    mailmap file or blob; the diff order file ``/dev/null``; no transport
    (``protocol.allow=never``, and ``GIT_ALLOW_PROTOCOL`` empty, which beats
    a repository's ``protocol.<name>.allow``): a partial clone's lazy fetch
    cannot start ssh, ``core.sshCommand``, ``core.gitProxy``,
    ``remote.<name>.uploadpack``, a remote helper or a credential helper;
  - per repository: for every filter driver its config (or a submodule's)
    names, ``clean``, ``smudge`` and ``process`` set to the user's own
    command for that name or emptied, ``required`` to the user's or false;
    ``core.excludesFile`` and ``core.attributesFile``, when it sets them,
    back to the user's value or git's default.

Refused (:class:`Refused`): a repository whose config includes a file
outside it, whose git directory or work tree is not its own, or whose
submodules cannot be vetted. The user's own config (system and global) is
theirs: it is followed as it is.
"""

from __future__ import annotations

import contextlib
import mmap
import os
import stat
import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from providers.repository.discovery import Found, NotOurs, check_ours, find, through_dot_git
from providers.repository.gitconfig import (
    USER_CONFIG_ARGS,
    OutsideInclude,
    RepoConfig,
    read_repo_config,
    user_values,
)
from providers.repository.sources import FileKey, file_keys


class Launch(Protocol):
    """Runs ``git -C cwd args`` with extra environment; stdout, or raises (gitexec's errors)."""

    def __call__(
        self,
        cwd: Path,
        args: Sequence[str],
        env: Mapping[str, str],
        ok_codes: tuple[int, ...] = (0,),
    ) -> bytes: ...


ALWAYS: tuple[tuple[str, str], ...] = (
    ("core.hooksPath", "/dev/null"),
    ("credential.helper", ""),
    ("core.askPass", ""),
    ("log.showSignature", "false"),
    ("gpg.program", "/dev/null"),
    ("gpg.openpgp.program", "/dev/null"),
    ("gpg.x509.program", "/dev/null"),
    ("gpg.ssh.program", "/dev/null"),
    ("mailmap.file", ""),
    ("mailmap.blob", ""),
    ("diff.orderFile", "/dev/null"),
    ("core.alternateRefsCommand", "/dev/null"),
    ("core.sshCommand", "/dev/null"),
    ("protocol.allow", "never"),
)
"""Overrides for every run: features we never use whose settings name programs or files."""

ALWAYS_ENV = {"GIT_ALLOW_PROTOCOL": "", "GIT_ASKPASS": ""}
"""No protocol is allowed, whatever the config says; an askpass program is never asked."""

_FILTER_COMMANDS = ("clean", "smudge", "process")
_USER_PATHS = {"core.excludesfile": "ignore", "core.attributesfile": "attributes"}
"""Keys a repository may not point elsewhere, and the file git reads when unset."""
_GITLINK = b"\x00\x00\xe0\x00"
"""Mode 160000 as the index stores it: an index without it records no submodule."""
MAX_REPOSITORIES = 1000
"""A repository and its submodules, nested ones included: more are not vetted (refused)."""


class Refused(Exception):
    """git is not run in this repository; the message says why, for the user."""


@dataclass(frozen=True)
class Safety:
    """What one git run in a vetted repository adds to gitexec's fixed settings."""

    env: Mapping[str, str]
    dropped_filters: tuple[str, ...] = ()
    """Filter drivers whose commands the repository set and we emptied (files they would
    clean are compared as they are)."""


def config_env(pairs: Iterable[tuple[str, str]]) -> dict[str, str]:
    """``pairs`` as command-line scope config (``GIT_CONFIG_COUNT`` and its keys)."""
    env: dict[str, str] = {}
    count = 0
    for key, value in pairs:
        env[f"GIT_CONFIG_KEY_{count}"] = key
        env[f"GIT_CONFIG_VALUE_{count}"] = value
        count += 1
    env["GIT_CONFIG_COUNT"] = str(count)
    return env


NO_REPOSITORY = Safety({**config_env(ALWAYS), **ALWAYS_ENV})


@dataclass
class _Vetted:
    """A verdict and the files it was drawn from (a change to any of them re-vets)."""

    found: Found
    files: tuple[Path, ...]
    keys: tuple[FileKey | None, ...]
    safety: Safety | None = None
    refused: Refused | None = None


class RepositoryGuard:
    """Vets the repository around each directory git is run in; one per runner."""

    def __init__(self, launch: Launch, environ: Mapping[str, str]) -> None:
        self._launch = launch
        self._environ = environ
        self._lock = threading.Lock()
        self._vetted: dict[Path, _Vetted] = {}

    def check(self, cwd: Path) -> Safety:
        """The settings for git run in ``cwd``; :class:`Refused` when it must not run."""
        found = find(cwd)
        if found is None:
            return NO_REPOSITORY
        top = Path(os.path.realpath(found.top))
        ceiling = {"GIT_CEILING_DIRECTORIES": os.fspath(top.parent)} if top.parent != top else {}
        if found.git_dir is None:  # git finds nothing there and may not climb further
            return Safety({**NO_REPOSITORY.env, **ceiling})
        with self._lock:
            known = self._vetted.get(top)
            if known is None or known.found != found or file_keys(known.files) != known.keys:
                known = self._vet(found, ceiling)
                self._vetted[top] = known
        if known.refused is not None:
            raise known.refused
        assert known.safety is not None
        return known.safety

    def user_config_outside(self) -> dict[str, str]:
        """The user's own config read where git finds no repository (for a directory git
        may not run in: their ``includeIf`` conditions then see none)."""
        return self._user_config(Path("/"), {"GIT_DIR": "/dev/null"})

    def _user_config(self, cwd: Path, env: Mapping[str, str]) -> dict[str, str]:
        """The user's own config (system and global, includes followed), never the
        repository's: read from ``cwd`` (vetted), so ``includeIf`` conditions see it."""
        return user_values(self._launch(cwd, USER_CONFIG_ARGS, env))

    def _vet(self, found: Found, ceiling: Mapping[str, str]) -> _Vetted:
        """The verdict on ``found`` (kept); git failing to run meanwhile raises (not kept)."""
        watched: list[Path] = []
        try:
            configs = self._repositories(found, ceiling, watched)
            safety = self._safety(found.top, configs, ceiling)
        except Refused as refused:
            return _Vetted(found, tuple(watched), file_keys(watched), refused=refused)
        return _Vetted(found, tuple(watched), file_keys(watched), safety=safety)

    def _repositories(
        self, found: Found, ceiling: Mapping[str, str], watched: list[Path]
    ) -> list[RepoConfig]:
        """The vetted config of ``found`` and of every submodule git would enter from it."""
        configs: list[RepoConfig] = []
        pending = [found]
        while pending:
            current = pending.pop()
            if len(configs) >= MAX_REPOSITORIES:
                raise Refused(f"{found.top} has more than {MAX_REPOSITORIES} submodules to vet")
            config = self._vetted_config(current, watched)
            configs.append(config)
            for path in self._gitlinks(current, configs, ceiling, watched):
                sub = through_dot_git(current.top / path)
                if sub is not None and sub.git_dir is not None:
                    pending.append(sub)
        return configs

    def _vetted_config(self, found: Found, watched: list[Path]) -> RepoConfig:
        git_dir, common = found.git_dir, found.common_dir
        assert git_dir is not None
        watched.extend((found.top / ".git", git_dir / "commondir", git_dir / "gitdir"))
        if common is None:
            raise Refused(f"{git_dir / 'commondir'} is not a regular file")
        files = list(dict.fromkeys((common / "config", git_dir / "config.worktree")))
        watched.extend(files)
        inside = (found.top, git_dir, common)
        try:
            config = read_repo_config(files, inside, self._read_file, self._environ.get("HOME"))
            check_ours(found, config.last("core.worktree"), lambda: self._bare(common))
        except (OutsideInclude, NotOurs) as exc:
            raise Refused(str(exc)) from None
        watched.extend(config.files)
        return config

    def _bare(self, common: Path) -> bool:
        """``core.bare`` as the repository's own config file sets it (asked only to tell a
        bare repository from a git dir kept apart)."""
        out = self._launch(
            Path("/"),
            ["config", "--file", os.fspath(common / "config"), "--type=bool", "--get", "core.bare"],
            {"GIT_DIR": "/dev/null"},
            ok_codes=(0, 1),
        )
        return out.strip() == b"true"

    def _read_file(self, path: Path) -> bytes:
        """One config file through git's parser, where git finds no repository (gitexec's
        errors pass through: git could not run there either)."""
        return self._launch(
            Path("/"),
            ["config", "--file", os.fspath(path), "--no-includes", "--list", "-z"],
            {"GIT_DIR": "/dev/null"},
        )

    def _gitlinks(
        self,
        found: Found,
        configs: list[RepoConfig],
        ceiling: Mapping[str, str],
        watched: list[Path],
    ) -> list[str]:
        """Submodule paths in ``found``'s index (``git ls-files -s``, run with what is
        vetted so far); none without reading git's output when the index has no gitlink."""
        git_dir = found.git_dir
        if git_dir is None or found.work_tree is None:
            return []
        indexes = [git_dir / "index"]
        with contextlib.suppress(OSError):  # split index: the shared part beside it
            indexes.extend(
                sorted(p for p in git_dir.iterdir() if p.name.startswith("sharedindex."))
            )
        watched.extend(indexes)
        if not any(_holds(index, _GITLINK) for index in indexes):
            return []
        env = {**ceiling, **_overrides(configs, {}, self._environ)[0]}
        out = self._launch(found.top, ["ls-files", "--stage", "-z"], env)
        links: list[str] = []
        for record in os.fsdecode(out).split("\0"):
            meta, tab, path = record.partition("\t")
            if tab and meta.startswith("160000 "):
                links.append(path)
        return links

    def _safety(self, top: Path, configs: list[RepoConfig], ceiling: Mapping[str, str]) -> Safety:
        needs_user = any(
            key.startswith("filter.") or key in _USER_PATHS
            for config in configs
            for key, _ in config.entries
        )
        user = self._user_config(top, {**NO_REPOSITORY.env, **ceiling}) if needs_user else {}
        pairs, dropped = _overrides(configs, user, self._environ)
        return Safety({**NO_REPOSITORY.env, **ceiling, **pairs}, dropped)


def _overrides(
    configs: Sequence[RepoConfig], user: Mapping[str, str], environ: Mapping[str, str]
) -> tuple[dict[str, str], tuple[str, ...]]:
    """The config env for ``configs``: :data:`ALWAYS`, then each filter driver they name and
    each user-only path they set; and the drivers left with no command."""
    pairs = list(ALWAYS)
    drivers: dict[str, bool] = {}
    paths: set[str] = set()
    for config in configs:
        for key, value in config.entries:
            if key.startswith("filter.") and key.count(".") >= 2:
                name, var = key[len("filter.") :].rsplit(".", 1)
                runs = var in ("clean", "process") and bool(value)
                drivers[name] = drivers.get(name, False) or runs
            elif key in _USER_PATHS:
                paths.add(key)
    dropped: list[str] = []
    for name in sorted(drivers):
        own = {var: user.get(f"filter.{name}.{var}", "") for var in _FILTER_COMMANDS}
        pairs.extend((f"filter.{name}.{var}", value) for var, value in own.items())
        pairs.append((f"filter.{name}.required", user.get(f"filter.{name}.required", "false")))
        if drivers[name] and not (own["clean"] or own["process"]):
            dropped.append(name)
    for key in sorted(paths):
        pairs.append((key, user.get(key) or _xdg_default(_USER_PATHS[key], environ)))
    return config_env(pairs), tuple(dropped)


def _xdg_default(name: str, environ: Mapping[str, str]) -> str:
    """git's default for the global excludes or attributes file (``xdg_config_home``)."""
    xdg = environ.get("XDG_CONFIG_HOME")
    if xdg:
        return os.path.join(xdg, "git", name)
    home = environ.get("HOME")
    return os.path.join(home, ".config", "git", name) if home else ""


def _holds(path: Path, needle: bytes) -> bool:
    """Whether ``path`` may contain ``needle``: a regular file is searched (mapped, not read
    into memory); anything else (a FIFO, unreadable) may, and git is asked."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except FileNotFoundError:
        return False
    except OSError:
        return True
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return True
        if st.st_size == 0:
            return False
        with mmap.mmap(fd, 0, access=mmap.ACCESS_READ) as data:
            return _contains(data, needle)
    except (OSError, ValueError):
        return True
    finally:
        os.close(fd)


def _contains(data: mmap.mmap, needle: bytes) -> bool:
    """``needle in data``, found by its rarest byte: a search for the whole needle
    (mostly NUL bytes, as an index is) reads 9 MB in 8 ms, one for a byte that is rare
    there (``memchr``) in 1, and each of its few places is then compared."""
    pivot = max(range(len(needle)), key=lambda i: needle[i] != 0)
    byte = needle[pivot : pivot + 1]
    at = data.find(byte, pivot)
    while at >= 0:
        start = at - pivot
        if data[start : start + len(needle)] == needle:
            return True
        at = data.find(byte, at + 1)
    return False


__all__ = [
    "ALWAYS",
    "ALWAYS_ENV",
    "MAX_REPOSITORIES",
    "NO_REPOSITORY",
    "Refused",
    "RepositoryGuard",
    "Safety",
    "config_env",
]
