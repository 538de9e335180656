"""What the history says (co-change, activity), and how it is kept: the file's round trip."""

from __future__ import annotations

from providers.file_tree.history import (
    HOTTEST,
    MAX_COMMIT_FILES,
    PIECE_BYTES,
    History,
    build,
    parse_commits,
)
from providers.file_tree.history_file import decode, encode

LOG = (
    b"\x1e1700000002\x00\na/x.py\x00a/y.py\x00"
    b"\x1e1700000001\x00\n\nodd name.py\x00b/z.py\x00"
    b"\x1e1700000000\x00\na/x.py\x00"
)


def test_the_log_is_read_record_by_record_and_a_record_cut_short_is_left_out() -> None:
    """A name may begin with a newline: only the one git puts before the first goes."""
    assert parse_commits(LOG) == [("a/x.py", "a/y.py"), ("\nodd name.py", "b/z.py"), ("a/x.py",)]
    cut = LOG.index(b"b/z.py") + 2
    assert parse_commits(LOG, limit=cut) == [("a/x.py", "a/y.py")]
    assert parse_commits(LOG, limit=len(LOG)) == parse_commits(LOG)
    assert parse_commits(b"") == []


def test_an_import_commit_is_read_in_pieces_that_pause() -> None:
    """Issue 24 item 3: a commit listing 100,000 files is decoded a piece at a time, the
    miner's pause between pieces, and reads as a whole."""
    names = [f"pkg/module_{i:05}.py" for i in range(60_000)]
    log = b"\x1e1\x00\n" + b"\x00".join(n.encode() for n in names) + b"\x00\x1e0\x00\na.py\x00"
    assert len(log) > 3 * PIECE_BYTES
    pauses: list[None] = []
    assert parse_commits(log, pause=lambda: pauses.append(None)) == [tuple(names), ("a.py",)]
    assert len(pauses) >= 3


def example() -> History:
    commits = [[f"src/m{i % 13}.py", f"tests/t{i % 5}.py", "README.md"] for i in range(300)]
    return build([*commits, [f"big/f{i}.py" for i in range(600)]])


def test_the_busiest_files_are_kept_in_order() -> None:
    """Issue 24 item 3: no turn sorts every file the history names (100,000 after an
    import): the busiest are ordered once, as a full sort would order them, among the
    files a commit of at most MAX_COMMIT_FILES changed (issue 22 item 3: after a single
    import commit, every file would tie and the alphabet would lead the map)."""
    history = example()
    ordered = sorted(history.activity.items(), key=lambda item: -item[1])
    small = [path for path, _ in ordered if not path.startswith("big/")]
    assert list(history.hottest) == small[:HOTTEST]
    assert build([[f"f{i}.py" for i in range(MAX_COMMIT_FILES + 1)]]).hottest == ()


def test_a_kept_history_reads_back_as_it_was_written() -> None:
    """Issue 22 item 3: what the next session ranks with is what this one mined."""
    history = example()
    again = decode(encode("/r", "a" * 40, history), "/r", "a" * 40)
    assert again is not None
    assert again.paths == history.paths and again.commits == history.commits
    assert again.activity == history.activity and again.dir_activity == history.dir_activity
    assert again.hottest == history.hottest
    assert again.partners("src/m3.py") == history.partners("src/m3.py")
    assert again.changed() == history.changed()
    assert decode(encode("/r", "a" * 40, history), "/r", "b" * 40) is None  # another commit
    assert decode(encode("/r", "a" * 40, History()), "/r", "a" * 40) is not None
