"""What each hook event adds (providers.clients.deltas): pure functions, no processes.

Hook context stays in the transcript, so: nothing when nothing changed, only what
changed (saying what it replaces), each doc once per session, each event within its
budget, and a section left out is not remembered as shown."""

from __future__ import annotations

from dataclasses import replace

from providers.clients import deltas
from providers.clients.deltas import INDEX_LABEL, Memory, Piece
from providers.core.section_text import doc_path, tree_totals
from providers.scoped_docs.sections import INDEX_LABEL as PROVIDER_INDEX_LABEL

TREE = "repo/\n  a.py\n(shown: 1 of 1 files, 0 of 0 dirs)\n"
TREE_MORE = "repo/\n  a.py\n  b.py\n(shown: 2 of 2 files, 0 of 0 dirs)\n"
TREE_RANKED = "repo/\n  a.py\n(shown: 1 of 2 files, 0 of 0 dirs)\n"


def nobody(_: Piece) -> bool:
    return False


def pieces(git: str = "On branch main\n", tree: str = TREE) -> list[Piece]:
    return [
        Piece("conventions", "AGENTS.md", "# Rules\n"),
        Piece("conventions", "CLAUDE.md", "# Claude\n"),
        Piece("git_status", "git status", git),
        Piece("file_tree", "file tree", tree),
        Piece("scoped_docs", INDEX_LABEL, "[index]\n"),
    ]


def test_the_index_label_is_the_providers() -> None:
    assert INDEX_LABEL == PROVIDER_INDEX_LABEL


def test_start_sends_all_but_what_the_client_loads_and_the_index() -> None:
    own = lambda p: p.label == "CLAUDE.md"  # noqa: E731
    added = deltas.added("start", Memory(), pieces(), own, 6000)
    assert "--- AGENTS.md ---\n# Rules\n" in added.text
    assert "CLAUDE.md" not in added.text and "[index]" not in added.text
    assert "On branch main" in added.text and "a.py" in added.text
    assert added.tokens == deltas.tokens(added.text)


def test_a_prompt_with_no_change_adds_nothing() -> None:
    started = deltas.added("start", Memory(), pieces(), nobody, 6000).memory
    again = deltas.added("prompt", started, pieces(), nobody, 2000)
    assert again.text == "" and again.memory == started


def test_a_prompt_sends_what_changed_and_says_what_it_replaces() -> None:
    started = deltas.added("start", Memory(), pieces(), nobody, 6000).memory
    changed = deltas.added(
        "prompt", started, pieces(git="On branch main\n\nM a.py\n"), nobody, 2000
    )
    assert changed.text.startswith("--- git status (updated) ---\n")
    assert "M a.py" in changed.text and "file tree" not in changed.text
    quiet = deltas.added(
        "prompt", changed.memory, pieces(git="On branch main\n\nM a.py\n"), nobody, 2000
    )
    assert quiet.text == ""


def test_the_tree_is_sent_again_only_when_files_were_added_or_removed() -> None:
    started = deltas.added("start", Memory(), pieces(), nobody, 6000).memory
    ranked = deltas.added(
        "prompt", started, pieces(tree=TREE.replace("a.py", "a.py ")), nobody, 2000
    )
    assert ranked.text == ""
    more = deltas.added("prompt", started, pieces(tree=TREE_MORE), nobody, 2000)
    assert more.text.startswith("--- file tree (updated) ---\n")
    assert "b.py" in more.text
    assert tree_totals(TREE_MORE) == tree_totals(TREE_RANKED) == "2 0"


def test_each_doc_once_per_session_and_again_when_edited() -> None:
    label = 'src/AGENTS.md (applies to src/a.py via "src/**")'
    other = 'src/AGENTS.md (applies to src/b.py via "src/**")'
    first = deltas.added("tool", Memory(), [Piece("scoped_docs", label, "doc\n")], nobody, 2000)
    assert "doc" in first.text
    second = deltas.added(
        "tool", first.memory, [Piece("scoped_docs", other, "doc\n")], nobody, 2000
    )
    assert second.text == ""
    edited = deltas.added(
        "tool", first.memory, [Piece("scoped_docs", other, "doc v2\n")], nobody, 2000
    )
    assert edited.text.startswith("--- src/AGENTS.md (updated) ---\n")
    assert doc_path(label) == "src/AGENTS.md"
    assert doc_path(".cursor/rules/a.mdc (always applies)") == ".cursor/rules/a.mdc"


def test_what_does_not_fit_is_left_out_and_sent_later() -> None:
    big = Piece("scoped_docs", 'a.md (applies to x via "*")', "word " * 400)
    small = Piece("scoped_docs", 'b.md (applies to x via "*")', "small\n")
    first = deltas.added("tool", Memory(), [big, small], nobody, 100)
    assert "small" in first.text and "word" not in first.text
    assert first.left_out == (big.label,)
    later = deltas.added("tool", first.memory, [big, small], nobody, 1000)
    assert "word" in later.text and "small" not in later.text


def test_a_resumed_session_gets_only_what_changed_a_compacted_one_everything() -> None:
    started = deltas.added("start", Memory(), pieces(), nobody, 6000).memory
    assert deltas.added("resume", started, pieces(), nobody, 6000).text == ""
    assert "# Rules" in deltas.added("start", started, pieces(), nobody, 6000).text
    assert "# Rules" in deltas.added("resume", Memory(), pieces(), nobody, 6000).text


def test_files_touched_grow_in_order_without_repeats() -> None:
    memory = Memory().touch(["a", "b"]).touch(["b", "c", "a"])
    assert memory.files == ("a", "b", "c")


def test_take_back_returns_exactly_what_an_unconfirmed_answer_showed() -> None:
    """Issue 27: an answer is kept as shown at once (in flight) and, when its hook never
    printed it, taken back: its pieces only, each to what was shown before; a piece shown
    again by a later event meanwhile stands, and so does what the session touched."""
    start = deltas.added("start", Memory(), pieces(), nobody, 6000)
    doc = Piece("scoped_docs", "src/AGENTS.md (applies to src/a.py)", "doc\n")
    tool = deltas.added("tool", start.memory.touch(["src/a.py"]), [doc], nobody, 2000)
    changed = pieces(git="On branch main\nChanges: a.py\n", tree=TREE_MORE)
    prompt = deltas.added("prompt", tool.memory, changed, nobody, 2000)
    assert "git status (updated)" in prompt.text and "file tree (updated)" in prompt.text

    back = deltas.take_back(prompt.memory, prompt)
    assert back.shown == tool.memory.shown and back.totals == tool.memory.totals
    assert back.files == ("src/a.py",)
    assert deltas.added("prompt", back, changed, nobody, 2000).text == prompt.text

    gone = deltas.take_back(back, tool)
    assert "doc:src/AGENTS.md" not in gone.shown
    assert gone.shown == start.memory.shown and gone.files == ("src/a.py",)

    later = deltas.added("tool", back, [Piece(doc.kind, doc.label, "doc v2\n")], nobody, 2000)
    kept = deltas.take_back(later.memory, tool)  # the later event's doc stands
    assert kept.shown["doc:src/AGENTS.md"] == deltas.digest("doc v2\n")
    assert deltas.take_back(start.memory, start).shown == {}


def test_what_the_client_shows_itself_is_kept_as_shown_and_sent_once_changed() -> None:
    """Issue 29 item 3: Claude Code's own git snapshot at the start: ours is not sent
    then, but remembered, so a later prompt sends it only once it changed (the client's
    snapshot is never refreshed)."""
    theirs = lambda p: p.kind == "git_status"  # noqa: E731
    start = deltas.added("start", Memory(), pieces(), theirs, 6000)
    assert "On branch main" not in start.text and "git_status" in start.memory.shown
    same = deltas.added("prompt", start.memory, pieces(), nobody, 2000)
    assert same.text == ""
    changed = deltas.added(
        "prompt", start.memory, pieces(git="On branch main\n\nM a.py\n"), nobody, 2000
    )
    assert changed.text.startswith("--- git status (updated) ---")
    # a lost answer takes back what it sent, never what the client showed itself
    assert "git_status" in deltas.take_back(start.memory, start).shown


def test_a_doc_the_client_attached_is_not_sent_by_a_later_event() -> None:
    doc = Piece("scoped_docs", "src/CLAUDE.md (applies to src/a.py)", "nested\n")
    read = deltas.added("tool", Memory(), [doc], lambda p: True, 2000)
    assert read.text == "" and f"doc:{doc_path(doc.label)}" in read.memory.shown
    assert deltas.added("tool", read.memory, [doc], nobody, 2000).text == ""


def test_one_text_under_two_names_is_sent_once() -> None:
    one = Piece("scoped_docs", "src/AGENTS.md (applies to src/a.py)", "same\n")
    two = Piece("scoped_docs", "src/CLAUDE.md (applies to src/a.py)", "same\n")
    added = deltas.added("tool", Memory(), [one, two], nobody, 2000)
    assert added.text.count("same") == 1
    copies = [Piece("conventions", "AGENTS.md", "x\n"), Piece("conventions", "CLAUDE.md", "x\n")]
    assert deltas.added("start", Memory(), copies, nobody, 2000).text.count("x\n") == 1


# -- issue 29: each client's cap, value order, text the client passes through ----------


def big_pieces() -> list[Piece]:
    return [
        Piece("conventions", "skills", "- deploy: ship it (.claude/skills/deploy/SKILL.md)\n"),
        Piece("git_status", "git status", "On branch main\n" + "  modified: src/x.py\n" * 150),
        Piece("file_tree", "file tree", "repo/\n" + "  file.py\n" * 900 + "(shown: 900 of 900)\n"),
        Piece("conventions", "AGENTS.md", "# Rules\n" + "Always do the right thing.\n" * 200),
    ]


def test_an_event_fits_the_clients_cap_by_value_and_names_what_waits() -> None:
    """Issue 29 item 1: at most ``chars`` of text (Claude Code and Codex CLI save a longer
    one to a file), the convention files first, then git status, the file tree, the
    skills last; what waits is named in one short line and sent with the next prompt,
    within the start budget (the file tree is over the prompt's 2000 tokens)."""
    room = deltas.Room(6000, chars=10_000, start_tokens=6000)
    start = deltas.added("start", Memory(), big_pieces(), nobody, room)
    assert len(start.text.encode()) <= 10_000
    assert start.text.startswith("--- AGENTS.md ---\n# Rules\n")
    assert "--- git status ---" in start.text and "--- file tree ---" not in start.text
    assert start.left_out == ("file tree",)  # the skills, small, fill what is left
    assert start.text.index("--- git status ---") < start.text.index("--- skills ---")
    assert start.text.endswith("(sent later, for lack of room here: file tree)\n")
    later = deltas.added("prompt", start.memory, big_pieces(), nobody, replace(room, tokens=2000))
    assert later.text.startswith("--- file tree ---\n") and "skills" not in later.text
    assert len(later.text.encode()) <= 10_000 and "Rules" not in later.text
    assert deltas.added("prompt", later.memory, big_pieces(), nobody, 2000).text == ""


def test_a_provider_asked_at_its_budget_fits_an_empty_event_whole() -> None:
    """Issue 29 item 1: providers are asked at provider_budget, so that what they answer
    (ceil(bytes / 4) tokens at most) always fits one event, framing and all."""
    for tokens, chars in ((6000, 10_000), (2000, 10_000), (6000, None), (300, 1000)):
        budget = deltas.provider_budget(tokens, chars)
        texts = ["x" * (budget * 4 // 3 - 1)] * 3  # three sections, the budget in all
        pieces = [Piece("conventions", f"docs/rule-{i}.md", t) for i, t in enumerate(texts)]
        added = deltas.added("start", Memory(), pieces, nobody, deltas.Room(tokens, chars))
        assert not added.left_out, (tokens, chars)
        assert added.tokens <= tokens and len(added.text.encode()) <= (chars or 10**9)


def test_gemini_gets_no_at_mention_it_would_expand_and_no_angle_brackets() -> None:
    """Issue 29 item 2: Gemini CLI expands ``@name`` in session-start context as a file
    reference (``@claude review`` pulled in a 33 KB file) and escapes ``<``/``>``: the
    framing has neither, and an ``@`` it would expand gets its own escape, a backslash."""
    text = "Ask @claude review; see @cline/ui and @src/a.py. Mail a@b.co. x @ y, (@) <b>\n"
    pieces = [Piece("conventions", "AGENTS.md", text)]
    room = deltas.Room(6000, escape_at=True)
    sent = deltas.added("start", Memory(), pieces, nobody, room).text
    assert sent == (
        "--- AGENTS.md ---\nAsk \\@claude review; see \\@cline/ui and \\@src/a.py. "
        "Mail a\\@b.co. x @ y, (@) <b>\n"
    )
    assert "<" not in deltas.frame(Piece("scoped_docs", 'a.md (applies to b via "*")', "t"))
    plain = deltas.added("start", Memory(), pieces, nobody, 6000).text
    assert "Ask @claude review" in plain  # the other clients get it as it is


def test_a_doc_cut_another_way_is_the_same_doc_an_edit_is_not() -> None:
    """Issue 29 item 3: a doc the session saw whole (the client attached it) comes back
    cut by another turn's budget: the same file, not sent again; once the file itself
    changed (another stamp), it is, marked updated."""
    whole = Piece("scoped_docs", "internal/ui/AGENTS.md", "# UI\n\nAll of it.\n", "7-20-100")
    cut = Piece("scoped_docs", "internal/ui/AGENTS.md", "# UI\n", "7-20-100")
    read = deltas.added("tool", Memory(), [whole], lambda p: True, 2000)
    assert read.text == ""
    assert deltas.added("tool", read.memory, [cut], nobody, 2000).text == ""
    edited = replace(cut, stamp="7-24-200")
    again = deltas.added("tool", read.memory, [edited], nobody, 2000)
    assert again.text.startswith("--- internal/ui/AGENTS.md (updated) ---")
