"""Settings files read and written without damage: the thin file side of ``setup``.

The texts are edited elsewhere (``json_text``, ``toml_text``); this module only puts them
on disk, and must never hurt the file it replaces:

- Atomic: a temporary file in the target's own directory, flushed and fsynced, then
  renamed over the target (and the directory fsynced): a crash leaves the old file or the
  new one, never half of one.
- The same file: its mode (``~/.claude.json`` holds tokens: 0600 stays 0600), owner and
  group are copied onto the new one; a symlink (the usual dotfiles layout) stays a
  symlink and its target is written; a new file gets what the umask gives.
- One at a time: every run holds an exclusive ``flock`` on a lock file in the bridge's
  own state directory (never in the user's config folders), so two setups at once cannot
  both read the old text and lose one's entries. A client writing its file meanwhile
  (Claude Code rewrites ``~/.claude.json`` often) is caught by comparing the file with
  what was read just before the rename: :class:`Changed`, and the run starts again.
- Undone completely: a file (and any directory) that setup created is recorded in the
  state directory; when ``--remove`` leaves it empty again it is deleted, and so are the
  directories that setup made for it and that are empty again. A file that was there
  before is kept, even empty.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import tempfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from providers.clients import places


class SettingsFileError(OSError):
    """A settings file that cannot be read or written without damage."""


class Changed(Exception):
    """The file changed under us (not through setup): read it again and redo the edit."""


LOCK_NAME = "setup.lock"
RECORD_NAME = "setup-created.json"
ATTEMPTS = 5
"""Runs started again when a file keeps changing under us, before giving up."""


@dataclass(frozen=True)
class Edit:
    """What a change makes of a file: its new text, and whether it now holds nothing."""

    text: str
    empty: bool


Change = Callable[[str | None], Edit | None]
"""A file's text (None: no file) to its edit, or None when nothing changes."""


def update(changes: Sequence[tuple[Path, Change]]) -> list[Path]:
    """Apply each change to its file; the files changed, in order.

    Every file is read and changed before any is written (a change that raises leaves
    them all untouched), under the setup lock, and all again when one changed meanwhile.
    """
    done: list[Path] = []
    for _ in range(ATTEMPTS):
        try:
            with locked():
                snapshots = [read(path) for path, _ in changes]
                edits = [change(s.text) for s, (_, change) in zip(snapshots, changes, strict=True)]
                for snapshot, edit in zip(snapshots, edits, strict=True):
                    if edit is not None and edit.text != snapshot.text:
                        commit(snapshot, edit.text, empty=edit.empty)
                        if snapshot.path not in done:
                            done.append(snapshot.path)
                return done
        except Changed:
            continue
    raise SettingsFileError(
        f"{', '.join(str(p) for p, _ in changes)}: changed by something else "
        f"{ATTEMPTS} times while setup ran; try again"
    )


def _state() -> Path:
    directory = Path(places.state_dir())
    try:
        directory.mkdir(parents=True, exist_ok=True, mode=0o700)
    except OSError as error:
        raise SettingsFileError(f"{directory}: {error.strerror}") from error
    return directory


@contextlib.contextmanager
def locked() -> Iterator[None]:
    """Hold the setup lock (every ``context-providers setup`` of this user) meanwhile."""
    path = _state() / LOCK_NAME
    descriptor = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX)
        yield
    finally:
        os.close(descriptor)  # closing releases the lock


@dataclass(frozen=True)
class Snapshot:
    """A settings file as read: ``real`` is where its text lives (a symlink's target)."""

    path: Path
    real: Path
    text: str | None
    """None: no such file."""


def _bytes(real: Path) -> bytes | None:
    try:
        return real.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as error:
        raise SettingsFileError(f"{real}: {error.strerror}") from error


def read(path: Path) -> Snapshot:
    """The file's text, read through any symlink."""
    real = Path(os.path.realpath(path))
    data = _bytes(real)
    if data is None:
        _forget_missing(real)
        return Snapshot(path, real, None)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise SettingsFileError(f"{path}: not UTF-8 ({error}); left untouched") from error
    return Snapshot(path, real, text)


def commit(snapshot: Snapshot, text: str, *, empty: bool) -> None:
    """Put ``text`` where ``snapshot`` was read; ``empty``: it holds nothing anymore, and
    a file setup created then goes (with the directories setup made for it)."""
    if text == snapshot.text:
        return
    if empty and snapshot.text is not None and _created(snapshot.real):
        if _bytes(snapshot.real) != snapshot.text.encode("utf-8"):
            raise Changed(str(snapshot.real))
        snapshot.real.unlink()
        _fsync_directory(snapshot.real.parent)
        _drop(snapshot.real)
        return
    if snapshot.text is None:
        made = _make_directories(snapshot.real.parent)
        _write(snapshot.real, text.encode("utf-8"), None, None)
        _record(made, snapshot.real)
        return
    try:
        like = os.stat(snapshot.real)
    except FileNotFoundError as error:
        raise Changed(str(snapshot.real)) from error
    _write(snapshot.real, text.encode("utf-8"), like, snapshot.text.encode("utf-8"))


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _write(real: Path, data: bytes, like: os.stat_result | None, expected: bytes | None) -> None:
    """Write ``data`` to ``real`` atomically, as ``like`` (mode, owner), checking that it
    still holds ``expected`` (None: that it still does not exist) just before the rename."""
    try:
        descriptor, temporary = tempfile.mkstemp(
            prefix=f".{real.name}.", suffix=".tmp", dir=real.parent
        )
    except OSError as error:
        raise SettingsFileError(f"{real}: {error.strerror}; left untouched") from error
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
            handle.flush()
            if like is not None:
                made = os.fstat(handle.fileno())
                if (like.st_uid, like.st_gid) != (made.st_uid, made.st_gid):
                    try:
                        os.fchown(handle.fileno(), like.st_uid, like.st_gid)
                    except PermissionError as error:
                        raise SettingsFileError(
                            f"{real}: owned by uid {like.st_uid} gid {like.st_gid}, which "
                            "setup cannot keep on a new copy; left untouched"
                        ) from error
                os.fchmod(handle.fileno(), like.st_mode & 0o7777)
            else:
                os.fchmod(handle.fileno(), 0o666 & ~_umask())
            os.fsync(handle.fileno())
        if _bytes(real) != expected:
            raise Changed(str(real))
        os.replace(temporary, real)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise
    _fsync_directory(real.parent)


def _fsync_directory(directory: Path) -> None:
    descriptor = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def _make_directories(directory: Path) -> list[Path]:
    """Make ``directory`` and its missing parents; those made, outermost first."""
    missing: list[Path] = []
    current = directory
    while not current.exists():
        missing.append(current)
        if current.parent == current:
            break
        current = current.parent
    made = []
    for folder in reversed(missing):
        try:
            folder.mkdir()
        except FileExistsError:
            continue
        except OSError as error:
            raise SettingsFileError(f"{folder}: {error.strerror}; nothing written") from error
        made.append(folder)
    return made


# -- what setup created ------------------------------------------------------------------


def _load_record() -> dict[str, list[str]]:
    path = _state() / RECORD_NAME
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {"files": [], "directories": []}
    if not isinstance(data, dict):
        return {"files": [], "directories": []}
    return {
        kind: [p for p in data.get(kind) or [] if isinstance(p, str)]
        for kind in ("files", "directories")
    }


def _save_record(record: dict[str, list[str]]) -> None:
    path = _state() / RECORD_NAME
    data = (json.dumps(record, indent=2) + "\n").encode("utf-8")
    try:
        like = os.stat(path)
    except FileNotFoundError:
        like = None
    _write(path, data, like, _bytes(path))


def _created(real: Path) -> bool:
    return str(real) in _load_record()["files"]


def _record(directories: list[Path], real: Path) -> None:
    record = _load_record()
    record["directories"] += [str(d) for d in directories if str(d) not in record["directories"]]
    if str(real) not in record["files"]:
        record["files"].append(str(real))
    _save_record(record)


def _forget_missing(real: Path) -> None:
    """A recorded file that is gone (deleted by hand) is no longer setup's."""
    record = _load_record()
    if str(real) in record["files"]:
        record["files"].remove(str(real))
        _save_record(record)


def _drop(real: Path) -> None:
    """Forget ``real`` and remove the directories made for it that are empty again."""
    record = _load_record()
    if str(real) in record["files"]:
        record["files"].remove(str(real))
    for folder in real.parents:
        if str(folder) not in record["directories"]:
            break
        try:
            folder.rmdir()
        except FileNotFoundError:
            pass
        except OSError:
            break  # not empty: kept, and still setup's
        record["directories"].remove(str(folder))
    _save_record(record)
