"""The build's recipes and its per-document state, in one place: the ``recipebook`` domain.

Every recipe is checked at the start of each build (or its verdict read from the folder that
``recipebook validate --verdicts`` filed, as ``make html`` does: checked once for every language);
the verdict is kept in the domain's data with the stamps of the files it came from, so a rebuild
re-checks only what changed,
and directives load a recipe known to be valid without checking it again. A recipe's page model
(``recipebook.expanding.page``) is built for the page that shows it, shared by that page's
directives and dropped once the page is read; the listings of every recipe read the recipes
alone. What a page records while it is read (the size of each of its
explorer grids, for the stylesheet; on a recipe's page, what build-finished needs of its page
model, so that it is built once per build) is dropped when the page is read again or removed
(``clear_doc``) and merged from parallel readers (``merge_domaindata``), as Sphinx's own
domains do.
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, ClassVar

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.domains import Domain
from sphinx.environment import BuildEnvironment

from recipebook import check_file
from recipebook.checking import safety
from recipebook.checking.schema import SCHEMA_PATH
from recipebook.expanding import results as measured
from recipebook.expanding.page import RecipePage, page_of
from recipebook.expanding.table import Product
from recipebook.memo import Memo as EngineMemo
from recipebook.pipeline import verdicts
from recipebook.pipeline.verdicts import Verdict
from recipebook.problems import Problem, errors
from recipebook.reading import vocabulary
from recipebook.reading.model import Recipe

from .config import RENDER_RECOMMENDED, site_config
from .warnings_ import Subtype, warn

Stamp = tuple[int, int]
Key = tuple[Stamp, Stamp, Stamp]  # the recipe file, the schema, the vLLM vocabulary


@dataclasses.dataclass(frozen=True)
class GridSize:
    """What the explorer stylesheet needs of one grid."""

    axes: int
    values: int  # the most values of any axis
    rank_roles: int  # how many roles (from the first) the rank rules must reach
    ranks: int  # the most ranks of any role
    excluded: list[Product]


class ProcessOnly(dict[str, Any]):
    """Objects computed in this process (recipes, stored results); not written with the environment.

    Recipes hold read-only mappings that do not pickle, and are quicker to read again than
    to store: the environment keeps the verdicts, the process keeps the objects.
    """

    def __reduce__(self) -> tuple[type[ProcessOnly], tuple[()]]:
        return (ProcessOnly, ())


class RecipebookDomain(Domain):
    """All of the extension's state in the environment."""

    name = "recipebook"
    label = "Recipes"
    data_version = 6
    initial_data: ClassVar[dict[str, Any]] = {  # Sphinx copies it for each environment
        "grids": {},  # docname -> {grid id: GridSize}
        "listings": set(),  # docnames that link every recipe's page (catalogue, flags)
        "explorer_terms": {},  # docname -> {"explorer": terms only its explorers hold, "focus": ...} (search/build.py)
        "checked": {},  # (recipe path, Key: the files as they were when checked) -> Verdict
        "navigation": None,  # the last build's table of contents (navigation.py)
        "untranslated": {},  # docname -> the messages and labels it shows in English (i18n/untranslated.py)
        "recipes": ProcessOnly(),  # recipe path -> (key, Recipe, problems)
        "memo": EngineMemo(),  # the engine's tables and page models of the page being read (page_read)
        "plots": {},  # docname -> {file name: SVG text} of the result plots it shows (explorer/results_panel.py)
        "results": ProcessOnly(),  # recipe name -> (stamps, stored results, their files, messages)
        "published": {},  # recipe page's docname -> what build-finished needs of its page model (publishing/site.py)
    }

    def clear_doc(self, docname: str) -> None:
        self.data["grids"].pop(docname, None)
        self.data["listings"].discard(docname)
        self.data["explorer_terms"].pop(docname, None)
        self.data["untranslated"].pop(docname, None)
        self.data["plots"].pop(docname, None)
        self.data["published"].pop(docname, None)

    def merge_domaindata(self, docnames: Iterable[str], otherdata: dict[str, Any]) -> None:
        for docname in set(docnames) & otherdata["grids"].keys():
            self.data["grids"][docname] = otherdata["grids"][docname]
        self.data["listings"] |= set(docnames) & otherdata["listings"]
        for docname in set(docnames) & otherdata["explorer_terms"].keys():
            self.data["explorer_terms"][docname] = otherdata["explorer_terms"][docname]
        for docname in set(docnames) & otherdata["untranslated"].keys():
            self.data["untranslated"][docname] = otherdata["untranslated"][docname]
        for docname in set(docnames) & otherdata["plots"].keys():
            self.data["plots"][docname] = otherdata["plots"][docname]
        for docname in set(docnames) & otherdata["published"].keys():
            self.data["published"][docname] = otherdata["published"][docname]
        for checked, verdict in otherdata["checked"].items():
            self.data["checked"].setdefault(checked, verdict)

    def resolve_any_xref(self, *args: Any) -> list[tuple[str, nodes.reference]]:
        return []

    def get_objects(self) -> Iterator[tuple[str, str, str, str, str, int]]:
        return iter(())


def data(env: BuildEnvironment) -> dict[str, Any]:
    return env.get_domain(RecipebookDomain.name).data


def note_grid(env: BuildEnvironment, gid: str, size: GridSize) -> None:
    data(env)["grids"].setdefault(env.docname, {})[gid] = size


def note_listing(env: BuildEnvironment) -> None:
    data(env)["listings"].add(env.docname)


def pages_changed(app: Any, env: BuildEnvironment, added: set[str], changed: set[str], removed: set[str]) -> list[str]:
    """env-get-outdated: a page added or removed changes which recipes the listings can link."""
    if not (added or removed):
        return []
    return sorted(data(env)["listings"] - removed)


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
    key, memo = _key(path), data(env)["recipes"]
    cached = memo.get(os.fspath(path))
    if cached is None or cached[0] != key:
        if cached is not None:
            _changed(env)
        # its tables and page model kept only while it is checked: a page that shows it builds
        # them again (each page's models are its own, below)
        recipe, problems = check_file(path)
        cached = memo[os.fspath(path)] = (key, recipe, problems)
    return cached[1], cached[2]


def engine_memo(env: BuildEnvironment) -> EngineMemo:
    """The engine's memo of the page being read: the line tables and page models of the recipes
    it shows, shared by its directives and roles, and dropped once it is read (``page_read``)."""
    memo: EngineMemo = data(env)["memo"]
    return memo


def page_read(app: Sphinx, doctree: nodes.document) -> None:
    """doctree-read: what the page's directives computed goes, and the recipes they read; the
    next page reads and computes what it shows (a recipe is shown by its own page: a process
    holds one recipe's models at a time, not every recipe's, about 10 MB each for a large one,
    nor every recipe, about 2.5 MB each for a large one; its verdict stays)."""
    engine_memo(app.env).clear()
    data(app.env)["recipes"].clear()


def _changed(env: BuildEnvironment) -> None:
    """A recipe file changed: what was computed from the recipe as it was goes (all of it: the
    other recipes' page models are built again when a page asks)."""
    engine_memo(env).clear()


def _verdict(env: BuildEnvironment, path: Path) -> Verdict:
    """A recipe's verdict: from the folder of verdicts when the build has one (and it holds
    this file's, for these bytes and this engine), else its problems checked here."""
    folder = site_config(env.config).verdicts
    if folder:
        return verdicts.verdict(path, folder)
    return Verdict(check(env, path)[1])


def check_all(env: BuildEnvironment, directory: str | Path) -> dict[Path, list[Problem]]:
    """Problems of every recipe, reusing the environment's verdict for unchanged files."""
    state = data(env)
    fresh = {}
    for path in recipe_paths(directory):
        checked = (os.fspath(path), _key(path))
        verdict = state["checked"].get(checked)
        fresh[checked] = verdict if verdict is not None else _verdict(env, path)
    state["checked"] = fresh
    # names that differ only in case depend on the folder, not on one file: found every time
    found = {Path(path): list(verdict.problems) for (path, _stamps), verdict in fresh.items()}
    for problem in safety.names_differ_in_more_than_case(found):
        found[Path(problem.file)].append(problem)
    return found


def recipe(env: BuildEnvironment, path: Path) -> Recipe | None:
    """A recipe for a directive: None if it has problems (they were reported at the start)."""
    state = data(env)
    key = _key(path)
    verdict = state["checked"].get((os.fspath(path), key))
    if verdict is None:
        return check(env, path)[0]
    if errors(verdict.problems):
        return None
    cached = state["recipes"].get(os.fspath(path))
    if cached is None or cached[0] != key:
        if cached is not None:
            _changed(env)
        # checked already: plain json reads it faster than the reader that keeps positions
        loaded = json.loads(path.read_text(encoding="utf-8"))
        cached = state["recipes"][os.fspath(path)] = (key, Recipe.from_json(loaded, os.fspath(path)), [])
    found: Recipe | None = cached[1]
    return found


def shows(env: BuildEnvironment, path: Path) -> bool:
    """Whether a directive shows the recipe (``recipe`` gives it, not None): from its verdict,
    without reading it, when the environment has one."""
    verdict = data(env)["checked"].get((os.fspath(path), _key(path)))
    if verdict is None:
        found = recipe(env, path) is not None
        data(env)["recipes"].pop(os.fspath(path), None)
        return found
    return not errors(verdict.problems)


def read_here(env: BuildEnvironment) -> list[Path]:
    """The recipe files the page being read has loaded so far (dropped at ``page_read``)."""
    return [Path(path) for path in data(env)["recipes"]]


def page(env: BuildEnvironment, recipe: Recipe) -> RecipePage:
    """The recipe's page model, built once for the page being read (every directive of it)."""
    return page_of(recipe, engine_memo(env), only_default=site_config(env.config).render == RENDER_RECOMMENDED)


def pages_one_by_one(env: BuildEnvironment, recipes: Iterable[Recipe]) -> Iterator[RecipePage]:
    """Each recipe's page model, built when the caller comes to it and not kept: what goes
    through recipes at build-finished (the site's API, llms.txt, for a recipe whose page did not
    give them) holds one model at a time instead of every recipe's (a large recipe's is about 8 MiB)."""
    for each in recipes:
        yield page_of(each, only_default=site_config(env.config).render == RENDER_RECOMMENDED)


def valid_recipes(env: BuildEnvironment, directory: str | Path) -> list[Recipe]:
    return [r for r in (recipe(env, path) for path in recipe_paths(directory)) if r is not None]


def recipes_one_by_one(env: BuildEnvironment, paths: Iterable[Path]) -> Iterator[Recipe]:
    """Each valid recipe of these files, read when the caller comes to it and not kept: what goes
    through recipes at build-finished holds one recipe at a time."""
    for path in paths:
        found = recipe(env, path)
        data(env)["recipes"].pop(os.fspath(path), None)
        if found is not None:
            yield found


def dependencies(path: Path) -> list[str]:
    """Files a page built from this recipe depends on."""
    return [os.fspath(path), os.fspath(SCHEMA_PATH), os.fspath(vocabulary.DATA_FILE)]


def results(env: BuildEnvironment, name: str) -> tuple[tuple[measured.Result, ...], list[str]]:
    """A recipe's stored results (``recipebook_results_dir``/NAME/) and their files, read once per
    change of the folder; a file that is not a stored result is a build warning, once."""
    folder = Path(site_config(env.config).results_dir)
    where = folder / name
    files = sorted(where.glob("*.json")) if where.is_dir() else []
    stamps = tuple((os.fspath(f), stamp(f)) for f in files)
    kept = data(env)["results"]
    cached = kept.get(name)
    if cached is None or cached[0] != stamps:
        found, wrong = measured.load(folder, name)
        cached = kept[name] = (stamps, found, [os.fspath(f) for f in files], wrong)
        for message in wrong:
            warn(message, Subtype.RULE, None)
    return cached[1], cached[2]


def setup(app: Sphinx) -> None:
    app.connect("doctree-read", page_read)
