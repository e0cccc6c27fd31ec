"""Snapshots of what readers and agents get from each directive (in the style of
sphinx-design's test_snippets).

The test root ``roots/test-snippets`` has one page per directive on a frozen recipe. For
each page: its doctree as the directive left it (before references are resolved,
``snapshots/<page>.xml``), the main region of its HTML (``<page>.html``) and its Markdown
view (``<page>.md``); for the explorer also its view (``explorer.view.json``), which the
template and the text form render. Paths are scrubbed. To accept a deliberate change, run
with RECIPEBOOK_UPDATE_SNAPSHOTS=1: the snapshots are rewritten and the run still fails,
so an update is never silent; review the diff, then run again without the variable.

Why the committed snapshots are right (checked by hand against snapshot-model.json):
- header: the model, provider, precision, attention and context length (131,072, the
  --max-model-len of the base commands) as fields; one row per strategy/target, two here.
- install: the connectors note names LMCache only (the recipe has lmcache modes, no
  prefill/decode role); the suffix note is there because spec_decode offers "suffix".
- explorer: one tab per strategy and per target; in each target one recipe_explorer node
  whose children are the text form: four selectors (lmcache, prefix_caching, spec_decode
  as modes; tool_calling as a checkbox under Options), the recommended selection in words,
  the server's command (lmcache=rds, prefix_caching=on_sub_block, spec_decode=eagle3,
  tool_calling=on), roles and nodes (one server, one NPU, its health check on localhost),
  the measured results (nothing measured yet: said, with no figure), the client request and
  the benchmark script against localhost:8000 (its standard workloads within 131,072 tokens:
  1,024/128 and 8,192/1,024 at concurrency 1, and at 8 for Throughput's --max-num-seqs 8; its
  result files named by the selection's metadata line, one per selection, each shown only for
  its selection), then the lines other selections add or change. All text nodes are untranslatable. The Markdown view has the
  same sections in the same order, headed one level under the target; the HTML the
  selectors, the status, the files link, the command with its lines' classes, the
  Kubernetes panel (closed: the apply line, kubernetes/main.yaml linking the opening
  selection's static copy, an empty block the script fills), the serving group.
- client: the recipe's client command as one bash literal block.
- catalogue and flags: one row for the one recipe; every flag of its args and deltas.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
from pathlib import Path

import pytest
from docutils import nodes
from sphinx.errors import SphinxError
from sphinx.testing.util import SphinxTestApp

from recipebook_sphinx import store
from recipebook_sphinx.explorer import html, stash

SNAPSHOTS = Path(__file__).parents[1] / "snapshots"
PAGES = ("snapshot-model", "install-snippet", "explorer", "client", "catalogue", "flags")
UPDATE = os.environ.get("RECIPEBOOK_UPDATE_SNAPSHOTS") == "1"


@pytest.fixture(scope="module")
def app(rootdir: Path, tmp_path_factory: pytest.TempPathFactory):
    srcdir = tmp_path_factory.mktemp("snippets") / "src"
    shutil.copytree(rootdir / "test-snippets", srcdir)
    app = SphinxTestApp("html", srcdir=srcdir, freshenv=True)
    try:
        app.build()
        assert "WARNING" not in app.warning.getvalue(), app.warning.getvalue()
        yield app
    finally:
        app.cleanup()


def scrub(text: str, app: SphinxTestApp) -> str:
    return text.replace(os.fspath(app.srcdir), "<srcdir>")


def compare(name: str, actual: str) -> None:
    path = SNAPSHOTS / name
    if UPDATE:
        before = path.read_text(encoding="utf-8") if path.is_file() else None
        path.write_text(actual, encoding="utf-8")
        pytest.fail(
            f"{name}: snapshot {'rewritten' if before != actual else 'unchanged'}; review it, then run "
            "without RECIPEBOOK_UPDATE_SNAPSHOTS"
        )
    assert path.is_file(), f"no snapshot {name}; run with RECIPEBOOK_UPDATE_SNAPSHOTS=1 and review it"
    assert actual == path.read_text(encoding="utf-8"), f"{name} differs from its snapshot"


def main_region(app: SphinxTestApp, page: str) -> str:
    """The page's main region as the HTML builder wrote it, one tag per line where it holds
    no text (a <pre> keeps its lines)."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(Path(app.outdir, f"{page}.html").read_text(encoding="utf-8"), "html.parser")
    return soup.select_one('[role="main"]').prettify()


def read_doctree(app: SphinxTestApp, page: str) -> nodes.document:
    """The page's doctree as it was read: its explorers' views and text forms, which the build
    keeps in a file of their own between reading and writing (explorer/stash.py), put back."""
    doctree = app.env.get_doctree(page)
    stash.bring_back(app.env, page, doctree)
    return doctree


@pytest.mark.parametrize("page", PAGES)
def test_directive_doctree(app: SphinxTestApp, page: str) -> None:
    doctree = read_doctree(app, page)
    for node in doctree.findall(nodes.Element):
        node.attributes.pop("view", None)  # the explorer's view has a snapshot of its own
    compare(f"{page}.xml", scrub(doctree.pformat(), app))


def test_explorer_view(app: SphinxTestApp) -> None:
    """The explorer's view, which its template and its text form render."""
    views = [node["view"] for node in read_doctree(app, "explorer").findall(nodes.Element) if "view" in node]
    assert len(views) == 2  # one per target
    data = [dataclasses.asdict(view) for view in views]
    compare("explorer.view.json", json.dumps(data, indent=1, ensure_ascii=False, sort_keys=True) + "\n")


@pytest.mark.parametrize("page", PAGES)
def test_directive_html(app: SphinxTestApp, page: str) -> None:
    compare(f"{page}.html", scrub(main_region(app, page), app))


@pytest.mark.parametrize("page", PAGES)
def test_directive_markdown(app: SphinxTestApp, page: str) -> None:
    compare(f"{page}.md", scrub(Path(app.outdir, f"{page}.md").read_text(encoding="utf-8"), app))


def test_gettext_snapshot(rootdir: Path, tmp_path: Path) -> None:
    """The page catalogs hold the page texts only: directive output is translated by the extension.

    Hand-checked: one entry per page title (and the index's), none of the recipe's texts,
    labels or commands (they are marked untranslatable and come from the recipebook and
    recipe-labels catalogs instead).
    """
    srcdir = tmp_path / "src"
    shutil.copytree(rootdir / "test-snippets", srcdir)
    app = SphinxTestApp("gettext", srcdir=srcdir, freshenv=True, confoverrides={"gettext_compact": True})
    try:
        app.build()
        parts = []
        for pot in sorted(Path(app.outdir).glob("*.pot")):
            lines = pot.read_text(encoding="utf-8").splitlines()
            body = [line for line in lines if not line.startswith(('"POT-Creation-Date', "#: "))]
            parts.append(f"## {pot.name}\n" + "\n".join(body) + "\n")
        compare("gettext.pot.txt", scrub("".join(parts), app))
    finally:
        app.cleanup()


def test_text_builder_shows_the_explorer_as_text(rootdir: Path, tmp_path: Path) -> None:
    """Non-HTML builders get the text form: labels, and the opening command line by line."""
    from recipebook import expand, load

    srcdir = tmp_path / "src"
    shutil.copytree(rootdir / "test-snippets", srcdir)
    app = SphinxTestApp("text", srcdir=srcdir, freshenv=True)
    try:
        app.build()
        text = Path(app.outdir, "explorer.txt").read_text(encoding="utf-8")
    finally:
        app.cleanup()
    lines = {line.strip() for line in text.splitlines()}
    recipe = load(srcdir / "recipes" / "snapshot-model.json")
    known = {"tool_calling": "Tool calling", "reasoning_parser": "Reasoning parser"}  # the site's own titles
    for strategy, target in recipe.targets():
        for name in target.grid.axes:
            title = recipe.axes[name].title if name in recipe.axes else known[name]
            # a mode's title starts its line; an on/off option is named on the Options line
            assert any(
                line.startswith(title + ":") or (line.startswith("Options:") and title in line) for line in lines
            ), title
        for command in expand(recipe, strategy.slug, target.target).commands:  # expansion, not the template
            for line in command.shell.splitlines():
                assert line.strip() in lines, line


# -- what the build holds between reading a page and writing it (explorer/stash.py, store.py) ------


def test_a_read_page_holds_its_explorers_in_a_file_of_their_own(app: SphinxTestApp) -> None:
    """The doctree kept between reading and writing has each explorer emptied (no view, no text
    form: most of a large recipe's page); the page's file beside the doctrees holds them."""
    explorers = list(app.env.get_doctree("explorer").findall(html.recipe_explorer))
    assert len(explorers) == 2
    assert all(not node.children and "view" not in node for node in explorers)
    assert stash.path(app.env, "explorer").is_file()
    assert not stash.path(app.env, "client").exists()  # a page without an explorer has no file


def test_no_page_model_outlives_the_page_that_showed_it(app: SphinxTestApp) -> None:
    """The engine's memo belongs to the page being read: after the build it holds nothing (it
    held every recipe's line tables and page model, about 10 MB each for a large recipe)."""
    assert len(store.engine_memo(app.env)) == 0


def test_no_recipe_outlives_the_page_that_read_it(app: SphinxTestApp) -> None:
    """The recipes a page's directives read go with the page, and build-finished (the API,
    llms.txt) reads them one at a time: after the build the process holds none (it held every
    recipe, about 2.5 MB each for a large one); their verdicts stay in the environment."""
    state = store.data(app.env)
    assert len(state["recipes"]) == 0
    assert state["checked"] and all(not verdict.problems for verdict in state["checked"].values())


def build_in(srcdir: Path, *, freshenv: bool = False) -> SphinxTestApp:
    """One build of a source folder by a new app (as a new process would), its environment kept
    unless ``freshenv``."""
    app = SphinxTestApp("html", srcdir=srcdir, freshenv=freshenv)
    try:
        app.build()
    finally:
        app.cleanup()
    return app


@pytest.fixture(scope="module")
def snippets_built(rootdir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The snippets built once, for later builds (new apps, as new processes) on the same folders."""
    srcdir = tmp_path_factory.mktemp("rebuilt") / "src"
    shutil.copytree(rootdir / "test-snippets", srcdir)
    build_in(srcdir, freshenv=True)
    return srcdir


def test_a_page_written_again_from_its_kept_doctree_is_the_same(snippets_built: Path) -> None:
    """A later build that writes the page without reading it again (its HTML is missing) brings
    the explorers back from the file the earlier build wrote: the same page, the same Markdown."""
    out = snippets_built / "_build" / "html"
    page, markdown = out / "explorer.html", out / "explorer.md"
    written, text = page.read_bytes(), markdown.read_bytes()
    kept = snippets_built / "_build" / "doctrees" / stash.FOLDER / "explorer.pickle"
    read_at = kept.stat().st_mtime_ns
    page.unlink()
    markdown.unlink()
    build_in(snippets_built)
    assert kept.stat().st_mtime_ns == read_at  # not read again
    assert page.read_bytes() == written
    assert markdown.read_bytes() == text


def test_a_missing_file_of_explorers_is_said_not_written_around(snippets_built: Path) -> None:
    """Without the file (deleted beside a kept doctree), the build stops and says how to rebuild,
    rather than writing a page without its commands."""
    kept = snippets_built / "_build" / "doctrees" / stash.FOLDER / "explorer.pickle"
    saved = kept.read_bytes()
    kept.unlink()
    (snippets_built / "_build" / "html" / "explorer.html").unlink()
    try:
        with pytest.raises(SphinxError, match=r"explorers of page 'explorer'.*sphinx-build -E"):
            build_in(snippets_built)
    finally:
        kept.write_bytes(saved)
