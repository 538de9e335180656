"""Where the sockets go (issue 27 item 3): a directory another local user made first
(``/tmp/ctxp-<uid>`` when ``XDG_RUNTIME_DIR`` is unset) is passed over and said why,
and the sockets go where only their user can own the place: the state directory, or a
random-named directory recorded there. The shared ``/tmp`` is a directory of the test's
here (``places.SHARED_TMP``); another user's directory is really another user's (chown,
as root)."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from providers.clients import places

OTHER_UID = 12345


@pytest.fixture
def tmp_path() -> Iterator[Path]:
    """A short directory of the test's own (socket paths must fit sun_path)."""
    directory = Path(tempfile.mkdtemp(prefix="pl", dir="/tmp"))
    try:
        yield directory
    finally:
        shutil.rmtree(directory, ignore_errors=True)


@pytest.fixture
def shared(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A stand-in for /tmp (sticky, open to all), no XDG_RUNTIME_DIR, a state directory."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    tmp.chmod(0o1777)
    monkeypatch.setattr(places, "SHARED_TMP", str(tmp))
    monkeypatch.delenv(places.ENV_RUNTIME, raising=False)
    monkeypatch.setenv(places.ENV_STATE, str(tmp_path / "state"))
    return tmp


def ours(shared: Path) -> Path:
    return shared / f"ctxp-{os.getuid()}"


def test_the_usual_place_is_made_0700_and_used(shared: Path) -> None:
    directory, passed_over = places.find_runtime_dir(create=True)
    assert directory == str(ours(shared)) and passed_over == []
    assert ours(shared).stat().st_mode & 0o777 == 0o700
    assert places.find_runtime_dir(create=False) == (directory, [])


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a directory to another user needs root")
def test_a_directory_another_user_made_first_is_passed_over(shared: Path, tmp_path: Path) -> None:
    taken = ours(shared)
    taken.mkdir(mode=0o700)
    os.chown(taken, OTHER_UID, OTHER_UID)
    directory, passed_over = places.find_runtime_dir(create=True)
    assert directory == str(tmp_path / "state" / places.APP / "run")
    assert Path(directory).stat().st_mode & 0o777 == 0o700
    (why,) = passed_over
    assert why.startswith(f"{taken}: owned by another user (uid {OTHER_UID})"), why
    assert places.find_runtime_dir(create=False) == (directory, passed_over)


def test_open_or_linked_places_are_passed_over(shared: Path, tmp_path: Path) -> None:
    (tmp_path / "elsewhere").mkdir(mode=0o700)
    ours(shared).symlink_to(tmp_path / "elsewhere")
    directory, passed_over = places.find_runtime_dir(create=True)
    assert directory.endswith("/run") and passed_over == [f"{ours(shared)}: not a directory"]
    ours(shared).unlink()
    ours(shared).mkdir(mode=0o755)
    _, passed_over = places.find_runtime_dir(create=True)
    assert passed_over == [f"{ours(shared)}: others may enter it (mode 755); not used"]


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a directory to another user needs root")
def test_a_long_state_directory_gets_a_random_place_recorded_there(
    shared: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The state directory is too long a path for a socket: a random-named directory in
    the shared place, which every later call (the hook, doctor) finds by the record."""
    state = tmp_path / ("s" * 100)
    monkeypatch.setenv(places.ENV_STATE, str(state))
    taken = ours(shared)
    taken.mkdir(mode=0o700)
    os.chown(taken, OTHER_UID, OTHER_UID)
    directory, passed_over = places.find_runtime_dir(create=True)
    assert Path(directory).parent == shared
    assert Path(directory).name.startswith(f"ctxp-{os.getuid()}-")
    assert Path(directory).stat().st_mode & 0o777 == 0o700
    assert len(passed_over) == 2 and "too long a path" in passed_over[1]
    record = state / places.APP / places.RECORD
    assert record.read_text().strip() == directory
    assert places.find_runtime_dir(create=True)[0] == directory
    assert places.find_runtime_dir(create=False)[0] == directory
    # Gone (a reboot cleaned /tmp): another is made and recorded.
    os.rmdir(directory)
    again = places.find_runtime_dir(create=True)[0]
    assert again != directory and record.read_text().strip() == again
    # A record naming someone else's directory is not followed.
    os.chown(again, OTHER_UID, OTHER_UID)
    assert places.find_runtime_dir(create=True)[0] not in (again, directory)


def test_nowhere_at_all_is_an_error_that_says_why(
    shared: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(places.ENV_STATE, str(tmp_path / ("s" * 100)))
    monkeypatch.setattr(places, "SHARED_TMP", str(tmp_path / "no" / "such"))
    with pytest.raises(places.PlaceError) as failed:
        places.find_runtime_dir(create=True)
    assert "No such file or directory" in str(failed.value)
    assert "too long a path" in str(failed.value)
    assert not (tmp_path / "no").exists()


def test_looking_only_names_the_place_a_background_process_would_make(shared: Path) -> None:
    """doctor before any hook: the usual place, not made yet, and nothing passed over."""
    assert places.find_runtime_dir(create=False) == (str(ours(shared)), [])
    assert not ours(shared).exists()
