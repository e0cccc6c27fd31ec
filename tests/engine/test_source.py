"""The JSON reader: values and keys keep their line and column; broken files become problems."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from recipe_support import NAMES, RECIPES, dump, fixture, fixture_text
from recipebook.problems import Kind, Problem
from recipebook.reading import source

TEXT = """{
  "name": "x",
  "list": [1, 2.5e3,
    {"a/b": true, "c~d": null}],
  "unicode": "한국어",
      "k": "v"
}
"""


def test_values_and_keys_have_their_line_and_column():
    document, problems = source.parse(TEXT, "t.json")
    assert problems == []
    assert document.data == json.loads(TEXT)
    assert document.values[""] == (1, 1)
    assert document.keys["/name"] == (2, 3)
    assert document.values["/name"] == (2, 11)
    assert document.values["/list"] == (3, 11)
    assert document.values["/list/0"] == (3, 12)
    assert document.values["/list/1"] == (3, 15)
    assert document.values["/list/2"] == (4, 5)
    assert document.keys["/list/2/a~1b"] == (4, 6)  # "/" and "~" are escaped in pointers
    assert document.values["/list/2/a~1b"] == (4, 13)
    assert document.values["/list/2/c~0d"] == (4, 26)
    assert document.values["/unicode"] == (5, 14)  # columns count characters, not bytes
    assert document.keys["/k"] == (6, 7)


def test_where_falls_back_to_the_nearest_known_parent():
    document, _ = source.parse(TEXT, "t.json")
    assert document.where("/list/2/a~1b") == (4, 13)
    assert document.where("/list/2/a~1b", key=True) == (4, 6)
    assert document.where("/list/2/missing/deeper") == (4, 5)
    assert document.where("/list/0", key=True) == (3, 12)  # array items have no key: the value
    assert document.where("/nothing") == (1, 1)


@pytest.mark.parametrize("name", NAMES)
def test_shipped_recipes_positions_match_an_independent_writer(name):
    dumped = dump(fixture(name))
    assert dumped.text == fixture_text(name)  # the shipped files are written exactly this way
    document, problems = source.read(RECIPES / f"{name}.json")
    assert problems == []
    assert document.values == dumped.values
    assert document.keys == dumped.keys


@pytest.mark.parametrize(
    ("text", "line", "column", "fragment"),
    [
        # the place is where the fix goes: after the value that needs a comma, at the comma
        # to remove, at the quote or bracket that is never closed
        ('{\n  "a": 1\n  "b": 2\n}\n', 2, 9, "missing comma between values"),
        ("[1 2]", 1, 3, "missing comma between values"),
        ('{\n  "a": [1, 2,]\n}', 2, 13, "trailing comma"),
        ('{\n  "a": [1, 2],\n}', 2, 14, "trailing comma"),
        ('{\n  "a": 1,\n\n  }', 2, 9, "trailing comma"),
        ('{"a": "unterminated}', 1, 7, "unclosed string"),
        ('{\n  "a": "no end,\n  "b": 1\n}', 2, 8, "unclosed string"),
        ('{\n  "a": [1,\n   2\n', 2, 8, "unclosed '['"),
        ('{"a": [1, 2}', 1, 12, "'}' does not close the '['"),
        ('{"a" 1}', 1, 5, "missing colon"),
        ('{"a": }', 1, 7, "missing value after the colon"),
        ('{"a": 1,, "b": 2}', 1, 9, "two commas in a row"),
        ('{"a": "\\q"}', 1, 8, "invalid escape"),
        ("// note\n{}", 1, 1, "comments are not allowed"),
        ("", 1, 1, "holds no JSON value"),
        ('{"a": 1} trailing', 1, 10, "extra text after the JSON value"),
        ("{'a': 1}", 1, 2, "single quotes are not JSON"),
        ('{"a": tru}', 1, 7, "not a JSON value"),
        ('{\n  "a": NaN\n}', 2, 8, "NaN and Infinity are not JSON numbers"),
        ("[1, -Infinity]", 1, 5, "NaN and Infinity are not JSON numbers"),
        ("\ufeff{}", 1, 1, "byte order mark"),
    ],
)
def test_broken_json_is_one_located_problem(text, line, column, fragment):
    document, problems = source.parse(text, "broken.json")
    assert document is None
    assert len(problems) == 1
    problem = problems[0]
    assert (problem.file, problem.line, problem.column, problem.pointer) == ("broken.json", line, column, "")
    assert problem.kind is Kind.JSON
    assert problem.message.startswith("invalid JSON: ") and fragment in problem.message
    assert str(problem).startswith(f"broken.json:{line}:{column}: /: invalid JSON")


def test_duplicate_keys_are_reported_at_the_second_key():
    text = '{\n  "a": 1,\n  "b": {"c": 1, "c": 2},\n  "a": 3\n}'
    document, problems = source.parse(text, "dup.json")
    assert document is not None and document.data == {"a": 3, "b": {"c": 2}}
    assert [(p.line, p.column, p.pointer) for p in problems] == [(3, 17, "/b/c"), (4, 3, "/a")]
    assert all("duplicate key" in p.message for p in problems)


def test_deep_nesting_is_a_problem_not_a_crash():
    depth = source.MAX_DEPTH + 1
    text = '{"a":\n' + "[" * 100_000 + "]" * 100_000 + "}"
    document, problems = source.parse(text, "deep.json")
    assert document is None
    assert [(p.line, p.column) for p in problems] == [(2, depth - 1)]
    assert "nested more than" in problems[0].message
    # brackets inside strings do not count
    document, problems = source.parse(json.dumps({"a": "[" * 1000}), "strings.json")
    assert problems == [] and document.data == {"a": "[" * 1000}
    # and the limit leaves room for real recipes
    nested = "[" * source.MAX_DEPTH + "]" * source.MAX_DEPTH
    assert source.parse(nested, "ok.json")[1] == []


def test_lone_surrogates_are_reported():
    text = '{\n  "ok": "\\ud83d\\ude00",\n  "bad": "x\\udc00",\n  "\\ud800": 1\n}'
    document, problems = source.parse(text, "s.json")
    assert document.data["ok"] == "\U0001f600"
    assert [(p.line, p.column, p.pointer) for p in problems] == [(3, 10, "/bad"), (4, 3, "")]
    assert all("lone surrogate" in p.message for p in problems)


def test_unreadable_files_are_problems(tmp_path):
    binary = tmp_path / "latin1.json"
    binary.write_bytes('{"name": "caf\xe9"}'.encode("latin-1"))
    missing = tmp_path / "missing.json"
    for path, fragment in [
        (binary, "not UTF-8 text"),
        (missing, "cannot read file"),
        (tmp_path, "not a regular file but a directory"),
    ]:
        document, problems = source.read(path)
        assert document is None
        assert problems == [
            Problem(file=str(path), line=1, column=1, pointer="", message=problems[0].message, kind=Kind.JSON)
        ]
        assert fragment in problems[0].message


def test_problem_text_is_one_line():
    problem = Problem(file="f.json", line=2, column=3, pointer="/a\nb", message="bad\tvalue\r")
    assert str(problem) == "f.json:2:3: /a\\nb: bad\\tvalue\\r"
    assert str(Problem(file="f.json", line=1, column=1, pointer="", message="m")) == "f.json:1:1: /: m"


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=200, deadline=None)
@given(JSON_VALUES, st.sampled_from([None, 0, 2]))
def test_a_document_read_quickly_has_the_full_readers_data_and_positions(value, indent):
    # well-formed JSON with nothing to report is read by the standard reader and located only
    # when a problem needs a place; both must equal what the full reader finds
    text = json.dumps(value, indent=indent, ensure_ascii=False)
    document, problems = source.parse(text, "q.json")
    reader = source._Reader(text)
    data, _end = reader.value(0, "")
    assert problems == []
    assert isinstance(document.values, source._Positions)  # the quick way was taken
    assert json.dumps(document.data) == json.dumps(data)
    assert dict(document.values) == reader.values and dict(document.keys) == reader.keys
