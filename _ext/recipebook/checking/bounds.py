"""Bounds on what a recipe may ask the build to make, checked on the raw document before any
rule expands it: a page grows with the selections it offers, and a tar header holds names of a
fixed length.

- An axis offers at most ``MAX_AXIS_VALUES`` values (in the recipe's ``axes`` catalogue and in a
  target's ``modes`` and ``options``), and a recipe lists at most ``MAX_AXES`` axes.
- (The offered selections of a target are capped by rule 11, ``rules.cap``.) An axis of thousands
  of values on a target with few other axes stays under that cap, yet every value is a selector,
  a label and an entry of every line's ``when``: a page of 2,000 values was 68.8 MB, which a
  browser does not open.
- The ready-to-run archive's folder (``files.folder_name``: recipe, strategy and target) fits the
  ustar prefix field (155 bytes) and each file name (``ROLE-rankN.yaml``) its name field (100
  bytes); ``files.archive`` and the page's ``archive`` refuse longer names alike. No two targets
  share that folder, in any case (``a-b`` / ``c`` and ``a`` / ``b-c`` both make ``NAME-a-b-c``;
  ``Latency`` and ``latency`` are one folder where case is ignored): one would overwrite the
  other's files in the site's ``api/`` and in a reader's folder.

Each refusal names the limit; like ``packaging``'s tags, a limit is a plain number here.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from ..problems import Problem, pointer_join
from ..reading.source import Document

MAX_AXES = 32
MAX_AXIS_VALUES = 100
TAR_PREFIX = 155
TAR_NAME = 100
# the longest file name of a command: ROLE-rankN.yaml with a three-digit rank
_LONGEST_SUFFIX = len("-rank999.yaml")


def _folder(*parts: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", "-".join(parts))  # files.folder_name


def _axes(doc: Document, data: dict[str, Any]) -> Iterator[Problem]:
    axes = data.get("axes")
    if not isinstance(axes, list):
        return
    if len(axes) > MAX_AXES:
        yield doc.problem("/axes", f"{len(axes)} axes; a recipe has at most {MAX_AXES}")
    for i, axis in enumerate(axes):
        options = axis.get("options") if isinstance(axis, dict) else None
        if isinstance(options, list) and len(options) > MAX_AXIS_VALUES:
            yield doc.problem(
                pointer_join("/axes", i, "options"),
                f"{len(options)} values; an axis offers at most {MAX_AXIS_VALUES}",
            )


def _targets(data: dict[str, Any]) -> Iterator[tuple[str, str, str, dict[str, Any]]]:
    """(pointer, strategy slug, target name, grid) of every target of a raw document."""
    strategies = data.get("strategies")
    if not isinstance(strategies, list):
        return
    for s, strategy in enumerate(strategies):
        if not isinstance(strategy, dict) or not isinstance(strategy.get("options"), list):
            continue
        for t, target in enumerate(strategy["options"]):
            if isinstance(target, dict) and isinstance(target.get("grid"), dict):
                pointer = pointer_join("/strategies", s, "options", t)
                yield pointer, str(strategy.get("slug", "")), str(target.get("target", "")), target["grid"]


def _grid(doc: Document, pointer: str, grid: dict[str, Any]) -> Iterator[Problem]:
    for field in ("modes", "options"):
        axes = grid.get(field)
        if not isinstance(axes, dict):
            continue
        for axis, values in axes.items():
            if not isinstance(values, list):
                continue
            if len(values) > MAX_AXIS_VALUES:
                yield doc.problem(
                    pointer_join(pointer, "grid", field, axis),
                    f"{len(values)} values; an axis offers at most {MAX_AXIS_VALUES}",
                )


def _names(
    doc: Document, data: dict[str, Any], pointer: str, slug: str, target: str, grid: dict[str, Any]
) -> Iterator[Problem]:
    folder = _folder(str(data.get("name", "")), slug, target)
    if len(folder.encode()) > TAR_PREFIX:
        yield doc.problem(
            pointer_join(pointer, "target"),
            f"the ready-to-run archive's folder {folder!r} is {len(folder.encode())} bytes; a tar header holds "
            f"{TAR_PREFIX} (recipe name, strategy and target together): shorten one of them",
        )
    for r, role in enumerate(grid.get("base") or []):
        name = role.get("role") if isinstance(role, dict) else None
        if isinstance(name, str) and len(name.encode()) + _LONGEST_SUFFIX > TAR_NAME:
            yield doc.problem(
                pointer_join(pointer, "grid", "base", r, "role"),
                f"the role name is {len(name.encode())} bytes; its files ({name}-rankN.yaml) must fit the "
                f"{TAR_NAME} bytes of a tar header's name field: at most {TAR_NAME - _LONGEST_SUFFIX}",
            )


def _shared_folders(doc: Document, data: dict[str, Any]) -> Iterator[Problem]:
    first: dict[str, tuple[str, str, str]] = {}
    for pointer, slug, target, _grid_data in _targets(data):
        folder = _folder(str(data.get("name", "")), slug, target)
        seen = first.setdefault(folder.casefold(), (pointer, slug, target))
        if seen[0] != pointer and (seen[1], seen[2]) != (slug, target):  # the same pair twice: rules 1 and 3
            yield doc.problem(
                pointer_join(pointer, "target"),
                f"target {target!r} of strategy {slug!r} and target {seen[2]!r} of strategy {seen[1]!r} make one "
                f"folder of ready-to-run files, {folder!r} (strategy and target joined by '-', case ignored): one "
                "would overwrite the other's files; rename one of them",
            )


def check(doc: Document) -> list[Problem]:
    """22. A recipe stays within the bounds a page can show and an archive can hold: at most 100
    values an axis and 32 axes, a selection's archive folder within 155 bytes and each file
    name in it within 100, and no two targets sharing that folder (in any case); read before the
    schema, so an oversized recipe is refused at once."""
    data = doc.data
    if not isinstance(data, dict):
        return []
    problems = list(_axes(doc, data))
    for pointer, slug, target, grid in _targets(data):
        problems += _grid(doc, pointer, grid)
        problems += _names(doc, data, pointer, slug, target, grid)
    problems += _shared_folders(doc, data)
    return sorted(problems)
