"""Finding and loading recipes for the build.

Every recipe is checked at the start of each build; the result is kept in the build
environment with the stamps of the files it came from, so a rebuild re-checks only
what changed, and directives load a recipe known to be valid without checking it again.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from recipebook import check_file, vocabulary
from recipebook.model import Recipe
from recipebook.problems import Problem
from recipebook.schema import SCHEMA_PATH

Stamp = tuple[int, int]
_cache: dict[Path, tuple[Stamp, Recipe | None, list[Problem]]] = {}
_trusted: dict[Path, tuple[Stamp, Recipe]] = {}


def recipe_paths(directory: str | Path) -> list[Path]:
    return sorted(p for p in Path(directory).glob("*.json") if p.name != "schema.json")


def path_for(directory: str | Path, name: str) -> Path:
    return Path(directory) / f"{name}.json"


def stamp(path: Path) -> Stamp:
    info = path.stat()
    return (info.st_mtime_ns, info.st_size)


def check(path: Path) -> tuple[Recipe | None, list[Problem]]:
    """The recipe and its problems, re-read only when the file changed."""
    current = stamp(path)
    cached = _cache.get(path)
    if cached is None or cached[0] != current:
        recipe, problems = check_file(path)
        cached = _cache[path] = (current, recipe, problems)
    return cached[1], cached[2]


def _key(path: Path) -> tuple:
    # a recipe's verdict also depends on the schema and the vLLM vocabulary
    return (stamp(path), stamp(SCHEMA_PATH), stamp(vocabulary.DATA_FILE))


def check_all(env: Any, directory: str | Path) -> dict[Path, list[Problem]]:
    """Problems of every recipe, reusing the environment's record for unchanged files."""
    record = getattr(env, "recipebook_checked", {})
    fresh = {}
    for path in recipe_paths(directory):
        key = _key(path)
        entry = record.get(os.fspath(path))
        fresh[os.fspath(path)] = (key, entry[1] if entry and entry[0] == key else check(path)[1])
    env.recipebook_checked = fresh
    return {Path(path): problems for path, (_key_, problems) in fresh.items()}


def recipe(env: Any, path: Path) -> Recipe | None:
    """A recipe for a directive: None if it has problems (they were reported at the start)."""
    entry = getattr(env, "recipebook_checked", {}).get(os.fspath(path))
    if entry is None or entry[0] != _key(path):
        return check(path)[0]
    if entry[1]:
        return None
    cached = _trusted.get(path)
    if cached is None or cached[0] != entry[0][0]:
        # checked already: plain json reads it faster than the reader that keeps positions
        data = json.loads(path.read_text(encoding="utf-8"))
        cached = _trusted[path] = (entry[0][0], Recipe.from_json(data, os.fspath(path)))
    return cached[1]


def dependencies(path: Path) -> list[str]:
    """Files a page built from this recipe depends on."""
    return [os.fspath(path), os.fspath(SCHEMA_PATH), os.fspath(vocabulary.DATA_FILE)]
