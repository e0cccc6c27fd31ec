"""The explorer's view is made of named records: its template and its text form read fields by
name, never a tuple by position."""

from __future__ import annotations

import dataclasses
import re
import types
import typing
from pathlib import Path

from recipebook_sphinx.explorer import html, memory_panel, results_panel, view

TEMPLATE = Path(html.HERE, "explorer.html")


def _records() -> list[type]:
    """Every dataclass the explorer's view is built of."""
    return [
        value
        for module in (view, memory_panel, results_panel)
        for value in vars(module).values()
        if isinstance(value, type) and dataclasses.is_dataclass(value) and value.__module__ == module.__name__
    ]


def _positional(annotation: object) -> list[object]:
    """The fixed-length tuple types inside an annotation (tuple[str, str] rather than a record)."""
    found = []
    origin = typing.get_origin(annotation)
    arguments = typing.get_args(annotation)
    if origin is tuple and arguments and arguments[-1] is not Ellipsis and arguments != ((),):
        found.append(annotation)
    if origin in (tuple, list, dict, typing.Union, types.UnionType):
        for argument in arguments:
            if argument is not Ellipsis:
                found += _positional(argument)
    return found


def test_the_template_reads_no_tuple_by_position() -> None:
    text = TEMPLATE.read_text(encoding="utf-8")
    assert re.findall(r"\w\[\d+\]", text) == []
    # nor unpacks one in a loop ({% for a, b in ... %}): a record's fields have names
    assert re.findall(r"{%-?\s*for\s+\w+\s*,", text) == []


def test_no_field_of_the_view_is_a_tuple_of_positions() -> None:
    records = _records()
    assert view.ExplorerView in records and memory_panel.FitView in records and results_panel.EvidenceView in records
    found = {}
    for record in records:
        hints = typing.get_type_hints(record, vars(view) | vars(memory_panel) | vars(results_panel))
        for name, annotation in hints.items():
            if _positional(annotation):
                found[f"{record.__name__}.{name}"] = annotation
    assert found == {}


def test_the_records_are_named() -> None:
    # the small groups of words are NamedTuples, so a field is read by its name
    hints = typing.get_type_hints(view.ExplorerView, vars(view) | vars(memory_panel))
    for name in ("status", "marks", "serving_titles", "copy_texts"):
        assert hasattr(hints[name], "_fields"), name
