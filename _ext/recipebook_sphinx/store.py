"""Finding and loading recipes for the build, and the build's state.

Every recipe is checked at the start of each build; the verdict is kept in the build
environment (``env.recipebook``, a ``BuildState``) with the stamps of the files it came
from, so a rebuild re-checks only what changed, and directives load a recipe known to be
valid without checking it again. Each recipe's view (``recipebook.view``: facts, install
needs, explorer templates) is computed once per build and shared by every page and step
that shows the recipe. The collector keeps the per-page part of the state right when pages
are removed or read in parallel (``clear_doc``, ``merge_other``).
"""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from sphinx.environment.collectors import EnvironmentCollector

from recipebook import check_file, vocabulary
from recipebook.explorer import Product
from recipebook.model import Recipe
from recipebook.problems import Problem
from recipebook.schema import SCHEMA_PATH
from recipebook.view import RecipeView, recipe_view

from .config import RENDER_RECOMMENDED

Stamp = tuple[int, int]
Key = tuple[Stamp, Stamp, Stamp]  # the recipe file, the schema, the vLLM vocabulary


@dataclasses.dataclass(frozen=True)
class Verdict:
    """The problems of one recipe file, for the files as they were when checked."""

    key: Key
    problems: list[Problem]


@dataclasses.dataclass(frozen=True)
class GridSize:
    """What the explorer stylesheet needs of one grid."""

    axes: int
    values: int  # the most values of any axis
    excluded: list[Product]


class Memo(dict):
    """Objects computed in this process (recipes, views); not written with the environment.

    Recipes hold read-only mappings that do not pickle, and are quicker to read again than
    to store: the environment keeps the verdicts, the process keeps the objects.
    """

    def __reduce__(self) -> tuple[type, tuple]:
        return (Memo, ())


@dataclasses.dataclass
class BuildState:
    checked: dict[str, Verdict] = dataclasses.field(default_factory=dict)  # by recipe path
    grids: dict[str, dict[str, GridSize]] = dataclasses.field(default_factory=dict)  # by docname, grid id
    recipes: Memo = dataclasses.field(default_factory=Memo)  # path -> (key, recipe, problems)
    views: Memo = dataclasses.field(default_factory=Memo)  # (path, only default) -> view


def state(env: BuildEnvironment) -> BuildState:
    """The build state; a new environment gets an empty one (see ``ENV_VERSION``)."""
    if not isinstance(getattr(env, "recipebook", None), BuildState):
        env.recipebook = BuildState()
    return env.recipebook


class Collector(EnvironmentCollector):
    """Keeps ``BuildState.grids`` right when pages are removed, changed or read in parallel."""

    def clear_doc(self, app: Sphinx, env: BuildEnvironment, docname: str) -> None:
        state(env).grids.pop(docname, None)

    def merge_other(self, app: Sphinx, env: BuildEnvironment, docnames: set[str], other: BuildEnvironment) -> None:
        mine, theirs = state(env), state(other)
        for docname in docnames & theirs.grids.keys():
            mine.grids[docname] = theirs.grids[docname]
        for key, value in theirs.checked.items():
            mine.checked.setdefault(key, value)

    def process_doc(self, app: Sphinx, doctree: Any) -> None:
        pass  # the explorer directive records its grid while the page is read


def recipe_paths(directory: str | Path) -> list[Path]:
    return sorted(p for p in Path(directory).glob("*.json") if p.name != "schema.json")


def path_for(directory: str | Path, name: str) -> Path:
    return Path(directory) / f"{name}.json"


def stamp(path: Path) -> Stamp:
    info = path.stat()
    return (info.st_mtime_ns, info.st_size)


def _key(path: Path) -> Key:
    # a recipe's verdict also depends on the schema and the vLLM vocabulary
    return (stamp(path), stamp(SCHEMA_PATH), stamp(vocabulary.DATA_FILE))


def check(env: BuildEnvironment, path: Path) -> tuple[Recipe | None, list[Problem]]:
    """The recipe and its problems, checked again only when one of its files changed."""
    key, memo = _key(path), state(env).recipes
    cached = memo.get(os.fspath(path))
    if cached is None or cached[0] != key:
        recipe, problems = check_file(path)
        cached = memo[os.fspath(path)] = (key, recipe, problems)
    return cached[1], cached[2]


def check_all(env: BuildEnvironment, directory: str | Path) -> dict[Path, list[Problem]]:
    """Problems of every recipe, reusing the environment's verdict for unchanged files."""
    build = state(env)
    fresh = {}
    for path in recipe_paths(directory):
        key = _key(path)
        verdict = build.checked.get(os.fspath(path))
        if verdict is None or verdict.key != key:
            verdict = Verdict(key, check(env, path)[1])
        fresh[os.fspath(path)] = verdict
    build.checked = fresh
    return {Path(path): verdict.problems for path, verdict in fresh.items()}


def recipe(env: BuildEnvironment, path: Path) -> Recipe | None:
    """A recipe for a directive: None if it has problems (they were reported at the start)."""
    build = state(env)
    verdict = build.checked.get(os.fspath(path))
    key = _key(path)
    if verdict is None or verdict.key != key:
        return check(env, path)[0]
    if verdict.problems:
        return None
    cached = build.recipes.get(os.fspath(path))
    if cached is None or cached[0] != key:
        # checked already: plain json reads it faster than the reader that keeps positions
        data = json.loads(path.read_text(encoding="utf-8"))
        cached = build.recipes[os.fspath(path)] = (key, Recipe.from_json(data, os.fspath(path)), [])
    return cached[1]


def view(env: BuildEnvironment, recipe: Recipe) -> RecipeView:
    """The recipe's view, computed once per build (and per process) for every page that shows it."""
    only_default = env.config.recipebook_render == RENDER_RECOMMENDED
    memo = state(env).views
    cached = memo.get((recipe.path, only_default))
    if cached is None or cached.recipe is not recipe:  # the same file read again is a new object
        cached = memo[(recipe.path, only_default)] = recipe_view(recipe, only_default=only_default)
    return cached


def dependencies(path: Path) -> list[str]:
    """Files a page built from this recipe depends on."""
    return [os.fspath(path), os.fspath(SCHEMA_PATH), os.fspath(vocabulary.DATA_FILE)]
