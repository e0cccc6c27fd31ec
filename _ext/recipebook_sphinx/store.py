"""Finding and loading recipes for the build, once per process and file version."""

from __future__ import annotations

import os
from pathlib import Path

from recipebook import check_file
from recipebook.model import Recipe
from recipebook.problems import Problem
from recipebook.schema import SCHEMA_PATH

_cache: dict[Path, tuple[tuple[int, int], Recipe | None, list[Problem]]] = {}


def recipe_paths(directory: str | Path) -> list[Path]:
    return sorted(p for p in Path(directory).glob("*.json") if p.name != "schema.json")


def path_for(directory: str | Path, name: str) -> Path:
    return Path(directory) / f"{name}.json"


def check(path: Path) -> tuple[Recipe | None, list[Problem]]:
    """The recipe and its problems, re-read only when the file changed."""
    stat = path.stat()
    stamp = (stat.st_mtime_ns, stat.st_size)
    cached = _cache.get(path)
    if cached is None or cached[0] != stamp:
        recipe, problems = check_file(path)
        cached = _cache[path] = (stamp, recipe, problems)
    return cached[1], cached[2]


def dependencies(path: Path) -> list[str]:
    """Files a page built from this recipe depends on."""
    return [os.fspath(path), os.fspath(SCHEMA_PATH)]
