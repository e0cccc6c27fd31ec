"""Sphinx builds of the recipe pages (sphinx.testing, on tests/roots/test-recipes)."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sphinx.application import Sphinx
from sphinx.testing.util import SphinxTestApp

import recipebook_sphinx
from conftest import sphinx_here
from pagereader import grids
from recipe_support import recipe_names
from recipebook import load, matrix
from recipebook.expanding import page as expanding_page
from recipebook.reading.model import Recipe
from recipebook.rendering import kubernetes
from recipebook_sphinx import store
from recipebook_sphinx.search.words import DATA, data_version

ROOT = Path(__file__).resolve().parents[2]
RECIPES = ROOT / "recipes"


def _expected(name: str) -> dict[tuple[str, str], list]:
    by_target: dict[tuple[str, str], list] = {}
    for expansion in matrix(load(RECIPES / f"{name}.json")):
        by_target.setdefault((expansion.strategy, expansion.target), []).append(expansion)
    return by_target


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory, rootdir: Path) -> Iterator[SphinxTestApp]:
    """The test root built once, serially, with every selection rendered (the default): the
    build the tests below read, or compare their own build of another kind with."""
    srcdir = tmp_path_factory.mktemp("site-build") / "recipes"
    shutil.copytree(rootdir / "test-recipes", srcdir)
    app = SphinxTestApp("html", srcdir=srcdir)
    try:
        app.build()
        yield app
    finally:
        app.cleanup()


def test_every_selection_shows_exactly_the_expanded_commands(built):
    assert built.warning.getvalue() == ""
    for name in recipe_names():
        page = grids(Path(built.outdir, f"{name}.html"))
        expected = _expected(name)
        assert {(g.strategy, g.target) for g in page} == set(expected)
        checked = 0
        for grid in page:
            for expansion in expected[(grid.strategy, grid.target)]:
                shown = grid.commands(expansion.selection)
                assert shown == [c.shell for c in expansion.commands], (name, expansion.selection)
                assert grid.router() == [cmd for _node, cmd in expansion.router]
                checked += 1
        assert checked == sum(map(len, expected.values()))


def test_each_model_and_kubernetes_file_is_made_once_per_build(rootdir, tmp_path, monkeypatch):
    """In a build that writes the site's API (into a language tree): each recipe's page model is
    built once, by its page's directives, and each target's Kubernetes files once, for its explorer;
    llms.txt and the API take what they need of them while the page is read."""
    models: list[str] = []
    files: list[tuple[str, str, str]] = []
    build_page, target_files = expanding_page.build_page, kubernetes._target_files

    def noted_model(recipe: Recipe, *args: Any, **kwargs: Any) -> expanding_page.RecipePage:
        models.append(recipe.name)
        return build_page(recipe, *args, **kwargs)

    def noted_files(target: expanding_page.TargetPage, recipe: Recipe) -> kubernetes.TargetFiles:
        files.append((recipe.name, target.strategy.slug, target.target.target))
        return target_files(target, recipe)

    monkeypatch.setattr(expanding_page, "build_page", noted_model)
    monkeypatch.setattr(kubernetes, "_target_files", noted_files)
    srcdir = tmp_path / "src"
    shutil.copytree(rootdir / "test-recipes", srcdir)
    out = tmp_path / "site" / "en"
    app = Sphinx(srcdir, srcdir, out, tmp_path / "doctrees", "html", status=None, warning=io.StringIO())
    models.clear()  # checking the recipes as the build starts (no folder of verdicts) builds a model
    app.build()
    assert sorted(models) == sorted(recipe_names())
    assert files and len(files) == len(set(files))
    assert len(json.loads((out.parent / "api" / "index.json").read_text())["recipes"]) == len(recipe_names())
    for name in recipe_names():
        assert f"- [{name}]({name}.md): " in (out / "llms.txt").read_text(encoding="utf-8")


def test_page_opens_on_the_recommended_selection(built):
    for name in ("gpt-oss-120b", "A.X-K2"):
        recipe = load(RECIPES / f"{name}.json")
        for grid in grids(Path(built.outdir, f"{name}.html")):
            target = recipe.strategy(grid.strategy).target(grid.target)
            opened = grid.default_selection()
            if target.grid.recommended is not None:
                assert opened == dict(target.grid.recommended)
            else:  # no recommendation: the base command, every delta off
                assert opened == {
                    "lmcache": "off",
                    "prefix_caching": "off",
                    "spec_decode": "off",
                    "reasoning_parser": "on",
                    "tool_calling": "on",
                }
            html = str(grid.element)
            assert ("This is the recommended selection." in html) == (target.grid.recommended is not None)


def _broken_recipes(tmp_path: Path) -> Path:
    folder = tmp_path / "broken-recipes"
    folder.mkdir()
    shutil.copy(RECIPES / "A.X-K2.json", folder / "A.X-K2.json")
    data = json.loads((RECIPES / "gpt-oss-120b.json").read_text())
    data["strategies"][0]["options"][0]["grid"]["base"][0]["args"]["--max-num-seqs"] = "--max-num-seq 1"
    data["strategies"][0]["slugg"] = "typo"
    (folder / "gpt-oss-120b.json").write_text(json.dumps(data, indent=2))
    return folder


def test_broken_recipe_is_a_located_typed_warning(make_app, rootdir, tmp_path):
    folder = _broken_recipes(tmp_path)
    srcdir = tmp_path / "src"
    shutil.copytree(rootdir / "test-recipes", srcdir)
    app = make_app("html", srcdir=srcdir, confoverrides={"recipebook_dir": str(folder)})
    app.build()
    lines = [line for line in app._warning.getvalue().splitlines() if "WARNING" in line]
    # every problem of the broken file is reported, each at its file, line and column
    assert any(
        "gpt-oss-120b.json:" in line and "unknown key 'slugg'" in line and "[recipebook.schema]" in line
        for line in lines
    ), lines
    located = [line for line in lines if "gpt-oss-120b.json:" in line]
    for line in located:
        file_part = line.split(": WARNING")[0]
        assert file_part.count(":") >= 2, line  # FILE:LINE:COL
    # the valid recipe still renders; the broken one's page says so
    assert grids(Path(app.outdir, "A.X-K2.html"))
    assert "could not be shown" in Path(app.outdir, "gpt-oss-120b.html").read_text()


def test_parallel_build_gives_the_same_pages(built, make_app, rootdir, tmp_path):
    """Read and written by two processes, from a fresh environment, the pages and the explorer's
    stylesheet are those of the serial build."""
    srcdir = tmp_path / "parallel"
    shutil.copytree(rootdir / "test-recipes", srcdir)
    parallel = make_app("html", srcdir=srcdir, parallel=2, freshenv=True)
    read: list[str] = []
    parallel.connect("env-before-read-docs", lambda app, env, docnames: read.extend(docnames))
    parallel.build()
    # (a node class the still open serial build registered is registered again: not the build's)
    assert [w for w in parallel.warning.getvalue().splitlines() if "is already registered" not in w] == []
    assert sorted(read) == ["A.X-K2", "gpt-oss-120b", "index", "install"]  # every page read here
    # what build-finished needs of each page model, from the processes that read the pages
    assert set(store.data(parallel.env)["published"]) == {"A.X-K2", "gpt-oss-120b"}
    for name in (
        "gpt-oss-120b.html",
        "A.X-K2.html",
        "index.html",
        "_static/recipebook-explorer.css",
        "llms.txt",
        "llms-full.txt",
    ):
        assert Path(parallel.outdir, name).read_text() == Path(built.outdir, name).read_text(), name


def _built_copy(make_app, rootdir: Path, tmp_path: Path) -> tuple[Path, Path, dict[str, str], SphinxTestApp]:
    """The test-recipes root and the shipped recipes copied into tmp_path, built once: the recipes'
    folder, the source folder, the overrides that read those recipes, and the built app."""
    folder = tmp_path / "recipes"
    shutil.copytree(RECIPES, folder)
    srcdir = tmp_path / "src"
    shutil.copytree(rootdir / "test-recipes", srcdir)
    overrides = {"recipebook_dir": str(folder)}
    first = make_app("html", srcdir=srcdir, confoverrides=overrides)
    first.build()
    return folder, srcdir, overrides, first


def test_editing_one_recipe_rereads_only_its_page(make_app, rootdir, tmp_path):
    folder, srcdir, overrides, _first = _built_copy(make_app, rootdir, tmp_path)
    recipe = folder / "gpt-oss-120b.json"
    data = json.loads(recipe.read_text())
    data["text"]["en"]["sub"] = "An edited summary."
    recipe.write_text(json.dumps(data, indent=2))
    second = make_app("html", srcdir=srcdir, confoverrides=overrides, freshenv=False)
    read: list[str] = []
    second.connect("env-before-read-docs", lambda app, env, docnames: read.extend(sorted(docnames)))
    second.build()
    # the recipe's page and the catalogue (index) use it; the other recipe's page is untouched
    assert read == ["gpt-oss-120b", "index"]
    assert "An edited summary." in Path(second.outdir, "gpt-oss-120b.html").read_text()


def _llms_full(app: SphinxTestApp) -> str:
    return Path(app.outdir, "llms-full.txt").read_text(encoding="utf-8")


def test_an_incremental_build_streams_the_views_it_did_and_did_not_write(make_app, rootdir, tmp_path):
    """llms-full.txt after an incremental build: the views of the pages it did not write (as an
    earlier build wrote them), a rewritten page's new view, and not the view of a page removed."""
    folder, srcdir, overrides, first = _built_copy(make_app, rootdir, tmp_path)
    before = _llms_full(first)
    assert "Source: install.html" in before
    for name in ("A.X-K2", "gpt-oss-120b", "install"):
        assert Path(first.outdir, f"{name}.md").read_text(encoding="utf-8").strip() in before
    again = make_app("html", srcdir=srcdir, confoverrides=overrides, freshenv=False)
    written: list[str] = []
    again.connect("doctree-resolved", lambda app, doctree, docname: written.append(docname))
    again.build(filenames=[str(srcdir / "install.md")])  # that page alone written
    assert {"A.X-K2", "gpt-oss-120b"}.isdisjoint(written)
    assert _llms_full(again) == before  # the recipes' views: the first build's files
    recipe = folder / "gpt-oss-120b.json"
    data = json.loads(recipe.read_text())
    old = data["text"]["en"]["sub"]
    data["text"]["en"]["sub"] = "An edited summary."
    recipe.write_text(json.dumps(data, indent=2))
    (srcdir / "install.md").unlink()
    last = make_app("html", srcdir=srcdir, confoverrides=overrides, freshenv=False)
    last.build()
    after = _llms_full(last)
    view = Path(last.outdir, "gpt-oss-120b.md").read_text(encoding="utf-8").strip()
    assert "An edited summary." in view and view in after and old not in after
    assert "Source: install.html" not in after
    assert "(install.md)" not in Path(last.outdir, "llms.txt").read_text(encoding="utf-8")


def _build_language_tree(srcdir: Path, folder: Path, out: Path, *, here: bool = False) -> None:
    """The test root's pages of the recipes in ``folder``, built into a language tree (``out``, named
    as its language) by a process of its own (``here``: by sphinx-build's main in this process,
    conftest.sphinx_here): the site-level files (API) beside it."""
    argv = [
        "-q", "-b", "html", "-c", str(srcdir),
        "-d", str(srcdir / "_build" / "doctrees"), "-D", f"recipebook_dir={folder}",
        str(srcdir), str(out),
    ]  # fmt: skip
    if here:
        done = sphinx_here(argv, cwd=srcdir)
    else:
        environment = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join([str(ROOT / "_ext"), os.environ.get("PYTHONPATH", "")]),
        }
        command = [sys.executable, "-m", "sphinx", *argv]
        done = subprocess.run(command, capture_output=True, text=True, env=environment, check=False)
    assert done.returncode == 0 and done.stderr == "", done.stderr


def test_an_incremental_build_writes_the_api_files_that_are_gone_and_of_an_edited_recipe(rootdir, tmp_path):
    """A recipe's API files are written while its page is read; a build that does not read the page
    again writes them again when they are gone (from the recipe's model, built then), and an edited
    recipe's from its page read again. The first build, which only writes the tree, runs in this
    process; the build that must write the files again from what it built itself, in a process of
    its own (nothing of the first build's left in its memory)."""
    folder = tmp_path / "recipes"
    shutil.copytree(RECIPES, folder)
    srcdir = tmp_path / "src"
    shutil.copytree(rootdir / "test-recipes", srcdir)
    out = tmp_path / "site" / "en"
    _build_language_tree(srcdir, folder, out, here=True)
    api = out.parent / "api"
    kept = api / "recipes" / "A.X-K2.json"
    before = {path: path.read_bytes() for path in (api / "recipes").glob("A.X-K2*/**/*") if path.is_file()}
    before.update((path, path.read_bytes()) for path in (api / "recipes").glob("A.X-K2.*"))
    assert kept in before
    for path in before:
        path.unlink()
    recipe = folder / "gpt-oss-120b.json"
    data = json.loads(recipe.read_text())
    data["text"]["en"]["sub"] = "An edited summary."
    data["provider"] = "An edited provider"
    recipe.write_text(json.dumps(data, indent=2))
    _build_language_tree(srcdir, folder, out)
    assert {path: path.read_bytes() for path in before} == before
    assert "An edited summary." in (out / "llms.txt").read_text(encoding="utf-8")
    index = json.loads((api / "index.json").read_text(encoding="utf-8"))
    assert [entry["provider"] for entry in index["recipes"] if entry["name"] == "gpt-oss-120b"] == [
        "An edited provider"
    ]


def test_recommended_only_rendering_and_page_weight(built, make_app, rootdir, tmp_path):
    """The A.X-K2 page with every selection stays within 2.5x the recommended-only page."""
    srcdir = tmp_path / "recommended"
    shutil.copytree(rootdir / "test-recipes", srcdir)
    app = make_app("html", srcdir=srcdir, confoverrides={"recipebook_render": "recommended"})
    app.build()
    for grid in grids(Path(app.outdir, "A.X-K2.html")):
        assert grid.element.select("input[data-axis]")  # selectors still shown
    sizes = {
        mode: Path(out, "A.X-K2.html").stat().st_size
        for mode, out in (("full", built.outdir), ("recommended", app.outdir))
    }
    assert sizes["full"] <= 2.5 * sizes["recommended"], sizes


def test_an_edited_word_list_changes_the_environment_version(tmp_path):
    shutil.copytree(DATA, tmp_path / "data")
    before = data_version(tmp_path / "data")
    assert before == data_version(DATA)  # the contents decide, not where the folder is
    glossary = next((tmp_path / "data").glob("*glossary.json"))
    glossary.write_text(glossary.read_text(encoding="utf-8").replace("]", ', "x"]', 1), encoding="utf-8")
    assert data_version(tmp_path / "data") != before
    glossary.unlink()
    assert data_version(tmp_path / "data") != before


def test_extension_metadata_declares_parallel_safety(built):
    """Sphinx records what setup() returned; read it from a real application (that a parallel
    build gives the serial build's pages: test_parallel_build_gives_the_same_pages)."""
    extension = built.extensions["recipebook_sphinx"]
    assert extension.parallel_read_safe is True and extension.parallel_write_safe is True
    # the environment's version also follows the search's word lists (an edit re-reads every page)
    assert extension.metadata["env_version"] >> 32 == recipebook_sphinx.ENV_VERSION >= 1
    assert extension.metadata["env_version"] & 0xFFFFFFFF == data_version()
