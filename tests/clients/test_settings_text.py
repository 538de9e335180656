"""The text edits behind ``setup`` (issue 27 item 4): settings read exactly as the client
reads them (Gemini CLI's JSON with comments, checked against the installed client's own
code), and an entry added then taken out again leaves every byte as it was, whatever the
file's indentation, newlines, comments and layout."""

from __future__ import annotations

import json
import random
import tomllib
from typing import Any

import pytest

from providers.clients import json_text, toml_text
from tests.clients import gemini_json

# -- reading: exactly what Gemini CLI accepts ---------------------------------------------

TRICKY = [
    "{}",
    '{"a": 1} // after',
    '// before\n{"a": 1}',
    '{"a": "http://example.com"}',
    '{"a": "/* not a comment */"}',
    '{"a": "quote \\" // still a string"}',
    '{"a": "backslash \\\\"} // comment',
    '{"a": 1 /* block */, "b": 2}',
    '{"a": 1, /* a comment\nover lines */ "b": 2}',
    '{"a": 1} /* never closed',
    '{"a": 1} // no newline at the end',
    '{"a": 1, // trailing\r\n "b": 2}',
    '{"a": 1,}',
    "{'a': 1}",
    "[1, 2,]",
    '{"a": NaN}',
    '{"a": Infinity}',
    '{"a": 01}',
    '{"a": .5}',
    '{"a": 1.}',
    '{"a": -0}',
    '{"a": 1e5, "b": -2.5E-3}',
    '{"a": "tab\tinside"}',
    '{"a": "\\u00e9\\ud83d\\ude00"}',
    '{"a": "\\x41"}',
    '{"a": 1}\n\n',
    "\ufeff{}",
    '{"a"\n:\n1}',
    '{"a": 1 /* \u00a0 */}',
    '{"a": 1 /* \u000b */}',
    '{"a": 1 //\u00a0\n}',
    '{"a": 1 /*/ "b": 2 */}',
    '{"a": 1 /**/}',
    '{"a": [true, false, null]}',
    '{"a": tru}',
    '{"a": 1, "a": 2}',
    "",
    "   ",
    "// only a comment",
    '"just a string"',
    "[]",
    '{"a": 1}}',
    '{"a": {"b": {"c": [1, [2, [3]]]}}}',
    '{"x": "/*", "y": "*/"}',
    '{"x": 1} /* one */ /* two */',
    '{"x": 1}*/',
    '{"x": 1} /',
    '{"a\\"//": 1}',
]
PIECES = [
    "{", "}", "[", "]", '"a"', '"b//c"', '"q\\"/*"', ":", ",", " ", "\n", "\r\n", "\t",
    "// c\n", "/* c */", "/*", "*/", "//", "1", "-2.5", "true", "null", '"\\\\"', "\\", "/",
    "*", "\u00a0", '"', "x",
]  # fmt: skip


def random_value(rng: random.Random, depth: int = 0) -> Any:
    roll = rng.random()
    if depth > 3 or roll < 0.4:
        return rng.choice([1, -2.5, True, None, "s", "a//b", "c/*d*/", 'q"', "\\", ""])
    if roll < 0.7:
        return [random_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    return {f"k{i}": random_value(rng, depth + 1) for i in range(rng.randrange(4))}


def with_comments(rng: random.Random, text: str) -> str:
    """``text`` with comments put in at some of the spaces and line ends between tokens."""
    out = []
    in_string = False
    for i, char in enumerate(text):
        if char == '"' and not json_text._escaped(text, i):
            in_string = not in_string
        if not in_string and char in " \n" and rng.random() < 0.3:
            out.append(rng.choice([" /* c */ ", " // c\n", "/**/", "\n// x /* y\n"]))
        out.append(char)
    return "".join(out)


def corpus() -> list[str]:
    rng = random.Random(27)
    texts = list(TRICKY)
    for _ in range(400):
        texts.append("".join(rng.choice(PIECES) for _ in range(rng.randrange(1, 16))))
    for _ in range(150):
        value = {"root": random_value(rng)}
        indent = rng.choice([None, 2, 4, "\t"])
        texts.append(with_comments(rng, json.dumps(value, indent=indent)))
    return texts


def test_json_with_comments_is_read_exactly_as_gemini_cli_reads_it() -> None:
    """Gemini CLI reads settings.json as JSON.parse(stripJsonComments(text)) (settings.ts):
    the same texts are accepted and refused, to the same values, and the comments are
    blanked at the same places (so positions in setup's reading are the file's)."""
    reason = gemini_json.missing()
    if reason is not None:
        pytest.skip(reason)
    texts = corpus()
    theirs = gemini_json.readings(texts)
    accepted = 0
    for text, reading in zip(texts, theirs, strict=True):
        assert json_text.blank_comments(text) == reading.stripped, repr(text)
        try:
            ours = json_text.parse(text, comments=True)
        except json_text.JsonTextError:
            assert not reading.ok, repr(text)
            continue
        assert reading.ok, repr(text)
        assert ours.value() == reading.value, repr(text)
        accepted += 1
    assert accepted > 150  # the generated documents with comments, and more


@pytest.mark.parametrize(
    "text", ['{"a": 1} // c', '{"a": /* c */ 1}', '{"a": 1,}', '{"a": NaN}', "\ufeff{}"]
)
def test_plain_json_files_refuse_comments_and_what_json_parse_refuses(text: str) -> None:
    """Claude Code's and Codex CLI's files are read as plain JSON."""
    with pytest.raises(json_text.JsonTextError):
        json_text.parse(text, comments=False)


# -- editing: in the file's own layout, and back byte for byte ----------------------------

LAYOUTS = {
    "two spaces": '{\n  "model": "opus",\n  "hooks": {\n    "Stop": []\n  }\n}\n',
    "four spaces, no final newline": '{\n    "a": [\n        1,\n        2\n    ],\n    "b": {}\n}',
    "tabs": '{\n\t"a": {\n\t\t"b": [\n\t\t\t"x"\n\t\t]\n\t},\n\t"hooks": {}\n}\n',
    "CRLF": '{\r\n  "a": 1,\r\n  "hooks": {\r\n    "X": [1]\r\n  }\r\n}\r\n',
    "one line": '{"a":1,"hooks":{"X":[1]}}',
    "one line, spaced": '{"a": 1, "hooks": {"X": [1]}}',
    "empty": "{}",
    "empty with newline": "{}\n",
    "comments": (
        '// my settings\n{\n  /* the model */\n  "model": "x", // chosen\n'
        '  "hooks": {\n    // none yet\n  }\n  /* the end */\n}\n'
    ),
    "comment after the last member": '{\n  "a": 1 // one\n}\n',
    "block comment closing the last line": '{\n  "a": 1 /* one\n  two */\n}\n',
    "closing brace on the last line": '{\n  "a": 1,\n  "b": 2}\n',
    "spaced colon": '{\n  "a" : 1\n}\n',
}
ENTRY = {"matcher": "*", "hooks": [{"type": "command", "command": "run me", "timeout": 15}]}


def edits(root: json_text.Node) -> list[tuple[tuple[json_text.Key, ...], str | None]]:
    """Every container of the file, with a key for objects: where an entry can go."""
    found: list[tuple[tuple[json_text.Key, ...], str | None]] = []

    def visit(node: json_text.Node, path: tuple[json_text.Key, ...]) -> None:
        if node.kind == "object":
            found.append((path, "new_key"))
            for member in node.members:
                visit(member.node, (*path, member.key))
        elif node.kind == "array":
            found.append((path, None))
            for index, item in enumerate(node.items):
                visit(item, (*path, index))

    visit(root, ())
    return found


@pytest.mark.parametrize("layout", LAYOUTS)
def test_an_entry_added_anywhere_and_deleted_leaves_the_text_as_it_was(layout: str) -> None:
    text = LAYOUTS[layout]
    comments = True
    root = json_text.parse(text, comments=comments)
    for path, key in edits(root):
        added = json_text.append(text, path, ENTRY, key=key, comments=comments)
        value = json_text.parse(added, comments=comments).value()
        container = json_text.find(json_text.parse(added, comments=comments), path)
        assert container is not None
        where = key if key is not None else len(container.items) - 1
        assert json_text.find(container, [where]) is not None
        expected = root.value()
        target = expected
        for step in path:
            target = target[step]
        if key is None:
            target.append(ENTRY)
        else:
            target[key] = ENTRY
        assert value == expected, (layout, path)
        assert json_text.delete(added, (*path, where), comments=comments) == text, (layout, path)


def test_what_is_added_is_indented_as_the_file_is() -> None:
    tabs = json_text.append(LAYOUTS["tabs"], ("hooks",), [ENTRY], key="X", comments=False)
    assert '\n\t\t"X": [\n\t\t\t{\n\t\t\t\t"matcher": "*",' in tabs
    assert "  " not in tabs
    crlf = json_text.append(LAYOUTS["CRLF"], ("hooks",), [ENTRY], key="Y", comments=False)
    assert "\n" not in crlf.replace("\r\n", "")
    one_line = json_text.append(LAYOUTS["one line"], ("hooks",), [ENTRY], key="Y", comments=False)
    assert "\n" not in one_line and '"Y":[{"matcher":"*"' in one_line
    spaced = json_text.append(LAYOUTS["spaced colon"], (), 1, key="b", comments=False)
    assert spaced == '{\n  "a" : 1,\n  "b" : 1\n}\n'


def test_a_comment_stays_on_its_line() -> None:
    text = LAYOUTS["comment after the last member"]
    added = json_text.append(text, (), 2, key="b", comments=True)
    assert added == '{\n  "a": 1, // one\n  "b": 2\n}\n'
    inside = json_text.append(LAYOUTS["comments"], ("hooks",), [], key="X", comments=True)
    assert '    // none yet\n    "X": []\n  }' in inside


def test_replace_keeps_the_key_where_it_stands() -> None:
    text = '{\n  "s": {\n    "a": 1\n  }, // ours\n  "t": 2\n}\n'
    replaced = json_text.replace(text, ("s",), {"a": 2}, comments=True)
    assert replaced == '{\n  "s": {\n    "a": 2\n  }, // ours\n  "t": 2\n}\n'


def test_a_container_left_empty_closes_up() -> None:
    text = '{\n  "a": [\n    "x"\n  ]\n}\n'
    assert json_text.delete(text, ("a", 0), comments=False) == '{\n  "a": []\n}\n'
    assert json_text.delete(text, ("a",), comments=False) == "{}\n"


# -- TOML: our table by its lines ------------------------------------------------------------

HEADER = "[mcp_servers.ours]"
BLOCK = '[mcp_servers.ours]\ncommand = "python"\nargs = ["-m", "x"]\n'
CONFIGS = {
    "tables and comments": (
        '# Codex settings\nmodel = "gpt-5"  # the default\n\n'
        '[mcp_servers.mine]\ncommand = "my-server"\n\n'
        '# projects I trust\n[projects."/somewhere"]\ntrust_level = "trusted"\n'
    ),
    "ends with a comment": 'model = "gpt-5"\n\n[tui]\nanimations = false\n# the end\n',
    "no final newline": 'model = "gpt-5"',
    "two blank lines at the end": 'model = "gpt-5"\n\n\n',
    "empty": "",
    "CRLF": 'model = "gpt-5"\r\n\r\n[tui]\r\nanimations = false\r\n',
}


@pytest.mark.parametrize("name", CONFIGS)
def test_a_table_added_and_dropped_leaves_the_file_as_it_was(name: str) -> None:
    text = CONFIGS[name]
    added = toml_text.put(text, HEADER, BLOCK)
    assert added.startswith(text)
    data = tomllib.loads(added)
    assert data["mcp_servers"]["ours"] == {"command": "python", "args": ["-m", "x"]}
    assert toml_text.drop(added, HEADER) == text


def test_comments_before_the_next_table_stay_with_it() -> None:
    """The comment lines after our last key describe what follows: replacing or dropping
    our table keeps them (they were deleted before issue 27)."""
    text = (
        'model = "gpt-5"\n\n' + BLOCK + "\n# projects I trust\n# (all of them)\n"
        '[projects."/somewhere"]\ntrust_level = "trusted"\n'
    )
    replaced = toml_text.put(text, HEADER, BLOCK.replace('"x"', '"y"'))
    assert replaced == text.replace('"x"', '"y"')
    dropped = toml_text.drop(text, HEADER)
    assert dropped == (
        'model = "gpt-5"\n\n# projects I trust\n# (all of them)\n'
        '[projects."/somewhere"]\ntrust_level = "trusted"\n'
    )


def test_our_sub_tables_are_ours_and_a_header_twice_is_refused() -> None:
    text = BLOCK + '\n[mcp_servers.ours.env]\nA = "1"\n# next\n[other]\nb = 1\n'
    assert toml_text.drop("x = 1\n\n" + text, HEADER) == "x = 1\n# next\n[other]\nb = 1\n"
    with pytest.raises(toml_text.TomlTextError):
        toml_text.put(BLOCK + BLOCK, HEADER, BLOCK)
