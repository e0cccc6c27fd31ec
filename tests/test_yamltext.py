"""YAML written by libyaml only where it writes what PyYAML's own emitter writes
(``recipebook/rendering/yamltext.py``).

The manifests, their line fragments and the ``--config`` entries are the text PyYAML's
pure-Python emitter writes, byte for byte: hostile documents written by both emitters read
back as they were written and are the same text; every file of every selection of the shipped
recipes goes through libyaml (the fast emitter) and is the pure-Python text; the documents the
two emitters write differently go through the pure-Python emitter.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from recipebook import forget
from recipebook.expanding.page import build_page, expansion_at
from recipebook.pipeline.load import load
from recipebook.rendering import files, kubernetes, yamltext

ROOT = Path(__file__).resolve().parents[1]
PATHS = sorted(p for p in (ROOT / "recipes").glob("*.json") if p.name != "schema.json")
DUMPERS = {"kubernetes": (kubernetes._Dumper, None), "config": (files._Dumper, 1000)}

HOSTILE = [
    "on", "off", "yes", "No", "y", "~", "null", "010", "0o17", "0x1F", "1:30", "190:20:30", "1e3", ".inf",
    "-.5", "@x", "`x", "%x", "!x", "&x", "*x", "- x", "? x", "a: b", "a #b", "#c", "{a}", "[a]", "a,b",
    "'", '"', "\\", " lead", "trail ", "", " ", "\t", "a\tb", "가나다 한국어", "é", "ß", "\u00a0", "\ufffd",
    "line one\nline two", "\n", "a\n\nb\n", "x\r\ny", "\u2028", "<PORT>", "'<MODEL_PATH>'", "$(HOME)",
    "--max-model-len=8192", '{"a": [1, 2], "b": "c"}', "x " * 700, "y" * 2500, ("word " * 300 + "\n") * 3,
]  # fmt: skip


def _python(data: object, dumper: type, width: int | None) -> str:
    width = math.inf if width is None else width
    return yaml.dump(data, Dumper=dumper, sort_keys=False, allow_unicode=True, width=width)


def _libyaml(data: object, dumper: type, width: int | None) -> str:
    fast = yamltext.twin(dumper)
    assert fast is not None, "PyYAML without libyaml"
    return yaml.dump(data, Dumper=fast, sort_keys=False, allow_unicode=True, width=-1 if width is None else width)


def _documents() -> list[object]:
    return [
        [{"name": "X", "value": text}] for text in HOSTILE
    ] + [
        {"args": HOSTILE, "env": [{"name": "A_B", "value": t} for t in HOSTILE]},
        {"metadata": {"labels": {"llm-d.ai/role": "decode", "app.kubernetes.io/name": "on"}}, "spec": {"n": 1}},
        {"max-num-seqs": 256, "gpu-memory-utilization": 0.9, "enforce-eager": True, "x": None, "y": -0.0},
    ]  # fmt: skip


def _config_documents() -> list[object]:
    return [
        {"served-model-name": [files._Quoted("<NAME>"), "on", "010", 1.5]},
        *({"key": files._Quoted(text)} for text in HOSTILE),
    ]


@pytest.mark.parametrize("kind", DUMPERS)
def test_both_emitters_write_hostile_documents_alike(kind):
    dumper, width = DUMPERS[kind]
    documents = _documents() + (_config_documents() if kind == "config" else [])
    for data in documents:
        text = yamltext.dump(data, dumper, width=width)
        assert text == _python(data, dumper, width), data
        assert yaml.safe_load(text) == data
        if yamltext._agrees(data, width):
            assert _libyaml(data, dumper, width) == text, data
    assert sum(yamltext._agrees(data, width) for data in documents) > len(documents) // 2


@pytest.mark.parametrize(
    ("kind", "data"),
    [
        ("kubernetes", [{"name": "X", "value": "\x85"}]),  # NEL: libyaml escapes it (PyYAML's does not read back)
        ("config", [{"name": "X", "value": "\x85"}]),
        ("kubernetes", [{"name": "X", "value": "smile \U0001f600"}]),  # beyond the BMP: libyaml escapes it
        ("config", [{"name": "X", "value": "smile \U0001f600"}]),
        ("kubernetes", [{"": "empty key"}]),  # PyYAML writes ? ''
        ("config", [{"": "empty key"}]),
        ("kubernetes", [{"a\rb": "key with an escape"}]),
        ("config", {"k": "tab\t" + "word " * 300}),  # a folded double-quoted string with an escape
    ],
    ids=["nel", "nel-config", "astral", "astral-config", "empty-key", "empty-key-config", "escaped-key", "folded"],
)
def test_documents_the_emitters_write_differently_go_through_pythons(kind, data):
    dumper, width = DUMPERS[kind]
    assert not yamltext._agrees(data, width)
    assert yamltext.dump(data, dumper, width=width) == _python(data, dumper, width)


def test_the_guard_is_needed():
    """The cases the guard refuses do differ (else the guard is in the way for nothing)."""
    differ = [
        ([{"name": "X", "value": "smile \U0001f600"}], None),
        ([{"": "x"}], None),
        ({"k": "tab\t" + "word " * 300}, 1000),
    ]
    for data, width in differ:
        assert _libyaml(data, files._Dumper, width) != _python(data, files._Dumper, width), data


_piece = st.characters(blacklist_categories=("Cs",)).map(str) | st.sampled_from([*HOSTILE[:40], "\n", " ", "a" * 60])
_text = st.lists(_piece, max_size=40).map("".join) | st.sampled_from(HOSTILE)
_key = st.from_regex(yamltext.NAME, fullmatch=True) | _text
_scalar = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | _text
_document = st.recursive(_scalar, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_key, inner, max_size=4))


@settings(max_examples=300, deadline=None)
@given(st.lists(_document, max_size=3) | st.dictionaries(_key, _document, max_size=3), st.sampled_from(list(DUMPERS)))
def test_any_document_is_pythons_text(data, kind):
    dumper, width = DUMPERS[kind]
    text = yamltext.dump(data, dumper, width=width)
    assert text == _python(data, dumper, width)
    if yamltext._agrees(data, width):
        assert _libyaml(data, dumper, width) == text


@pytest.mark.parametrize("path", PATHS, ids=lambda p: p.stem)
def test_every_file_of_the_shipped_recipes_is_written_by_libyaml_as_python_writes_it(monkeypatch, path):
    calls: list[tuple[type, object, str]] = []
    real = yaml.dump

    def spy(data, *args, Dumper, **kwargs):
        text = real(data, *args, Dumper=Dumper, **kwargs)
        calls.append((Dumper, data, text))
        return text

    monkeypatch.setattr(yaml, "dump", spy)
    forget()  # nothing written before this test is kept: every document goes through the spy
    recipe = load(path)
    page = build_page(recipe)  # a fresh page model: nothing cached from another test
    for target in page.targets:
        kubernetes.target_files(target, recipe.name)
        for chosen in target.table.offered:
            files.selection_files(expansion_at(recipe, target, chosen))
    forget()
    monkeypatch.undo()
    assert calls
    for dumper, data, text in calls:
        assert dumper in (yamltext.twin(kubernetes._Dumper), yamltext.twin(files._Dumper)), data
        python = kubernetes._Dumper if dumper is yamltext.twin(kubernetes._Dumper) else files._Dumper
        assert text == _python(data, python, None if python is kubernetes._Dumper else 1000)
