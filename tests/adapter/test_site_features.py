"""Explorer and build behaviours beyond the shipped recipes: exclusions, missing pages, languages."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import polib
import pytest
import sphinx.util.nodes as sphinx_nodes
from bs4 import BeautifulSoup
from docutils import nodes
from sphinx.testing.util import SphinxTestApp

from browser_support import open_page
from recipebook import SelectionError, expand, load
from recipebook_sphinx import newpage
from recipebook_sphinx.explorer.html import recipe_explorer

ROOT = Path(__file__).resolve().parents[2]
RECIPES = ROOT / "recipes"
EXCLUDED = {"lmcache": "rds", "spec_decode": "suffix"}


def _recipes_with_exclusion(tmp_path: Path) -> Path:
    folder = tmp_path / "recipes"
    shutil.copytree(RECIPES, folder)
    path = folder / "gpt-oss-120b.json"
    data = json.loads(path.read_text())
    for option in data["strategies"][0]["options"]:
        option["grid"]["excluded"] = [EXCLUDED]
    path.write_text(json.dumps(data, indent=2))
    return folder


def _built(srcdir: Path, **confoverrides: str) -> tuple[Path, str]:
    """The test root in srcdir built by sphinx.testing's app, cleaned up at once (Sphinx's global
    state, the message catalogs among it, as make_app's fixture does after a test): its html
    folder and its warnings."""
    app = SphinxTestApp("html", srcdir=srcdir, confoverrides=confoverrides)
    try:
        app.build()
        return Path(app.outdir), app.warning.getvalue()
    finally:
        app.cleanup()


@pytest.fixture(scope="module")
def excluded_site(tmp_path_factory, rootdir) -> tuple[Path, Path]:
    """The test root built once for this file with gpt-oss-120b's selections EXCLUDED: its html
    folder, and the folder of its recipes."""
    folder = tmp_path_factory.mktemp("excluded")
    srcdir = folder / "src"
    shutil.copytree(rootdir / "test-recipes", srcdir)
    recipes = _recipes_with_exclusion(folder)
    outdir, warnings = _built(srcdir, recipebook_dir=str(recipes))
    assert warnings == ""
    return outdir, recipes


def test_an_excluded_selection_is_not_offered(excluded_site):
    excluded_site, recipes = excluded_site
    recipe = load(recipes / "gpt-oss-120b.json")
    with pytest.raises(SelectionError, match="excludes"):
        expand(recipe, "aggregated", "Latency", EXCLUDED)
    css = (excluded_site / "_static" / "recipebook-explorer.css").read_text()
    # one rule per target of the strategy (another recipe of the folder may exclude selections too)
    rules = [
        rule for rule in css.splitlines() if rule.startswith("#rb-gpt-oss-120b-") and ".rb-cmds{display:none}" in rule
    ]
    assert len(rules) == 2


@pytest.mark.browser
def test_the_page_says_so_instead_of_showing_a_command(excluded_site, browser):
    excluded_site, _recipes = excluded_site
    page = browser.new_page(java_script_enabled=False)
    open_page(page, (excluded_site / "gpt-oss-120b.html").as_uri())
    grid = page.locator('form.rb-grid[data-target="Latency"]')
    message = grid.locator(".rb-excluded")
    commands = grid.locator(".rb-cmds")
    assert commands.is_visible() and not message.is_visible()

    def choose(axis: str, value: str) -> None:
        radio = grid.locator(f'input[data-axis="{axis}"][value="{value}"]')
        page.click(f'label[for="{radio.get_attribute("id")}"]')

    choose("spec_decode", "suffix")  # lmcache is rds when the page opens: excluded now
    assert message.is_visible() and not commands.is_visible()
    choose("lmcache", "cpu")
    assert commands.is_visible() and not message.is_visible()
    page.close()


def test_a_recipe_without_a_page_and_a_page_without_a_recipe_warn(make_app, rootdir, tmp_path):
    srcdir = tmp_path / "src"
    shutil.copytree(rootdir / "test-recipes", srcdir)
    # the root writes its pages when they are missing: the index, and every page but A.X-K2's
    (srcdir / "index.md").write_text(
        "# Recipes\n\n```{toctree}\ngpt-oss-120b\ninstall\n```\n\n```{recipe-header} no-such-model\n```\n"
    )
    app = make_app("html", srcdir=srcdir, confoverrides={"test_recipes_without_page": ["A.X-K2"]})
    app.build()
    warnings = app._warning.getvalue()
    assert "recipe 'A.X-K2' has no page" in warnings and "[recipebook.page]" in warnings
    assert "index.md:" in warnings and "no recipe named 'no-such-model'" in warnings
    assert "[recipebook.missing]" in warnings


@pytest.fixture(scope="module")
def korean_site(tmp_path_factory, rootdir) -> tuple[Path, list[tuple[nodes.Node, bool]]]:
    """The test root built once in Korean, A.X-K2's page with a catalog of its own (its title
    translated), so that Sphinx's translation transforms go through it: its html folder, and
    every node they (and the source fixes before them) rendered as XML for a debug message
    (sphinx.util.nodes.repr_domxml) while the pages were read, each with whether it was in an
    explorer then."""
    srcdir = tmp_path_factory.mktemp("korean") / "src"
    shutil.copytree(rootdir / "test-recipes", srcdir)
    catalog = polib.POFile()
    catalog.metadata = {
        "Content-Type": "text/plain; charset=UTF-8",
        "Language": "ko",
        "Plural-Forms": "nplurals=1; plural=0;",
    }
    catalog.append(polib.POEntry(msgid="A.X-K2", msgstr="A.X-K2 레시피"))
    (srcdir / "locales/ko/LC_MESSAGES").mkdir(parents=True)
    catalog.save(str(srcdir / "locales/ko/LC_MESSAGES/A.X-K2.po"))  # the build checks and compiles it
    rendered: list[tuple[nodes.Node, bool]] = []
    original = sphinx_nodes.repr_domxml

    def recording(node: nodes.Node, length: int = 80) -> str:
        rendered.append((node, any(isinstance(p, recipe_explorer) for p in _ancestors(node))))
        return original(node, length)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sphinx_nodes, "repr_domxml", recording)
        outdir, _warnings = _built(srcdir, language="ko")
    return outdir, rendered


def test_the_translation_transforms_never_go_through_an_explorer_s_text_form(korean_site):
    """An explorer's text form is made after the translation transforms (Sphinx's Locale on
    A.X-K2's page, which has a catalog; MarkUntranslated on gpt-oss-120b's, which has none): each
    element they skip costs a rendering of it as XML (hundreds of thousands on a portal's Korean
    pages), and they have nothing to translate in it."""
    _outdir, rendered = korean_site
    assert rendered, "they skip other directive output (the probe works)"
    inside = [node for node, in_explorer in rendered if in_explorer]
    assert not inside, f"{len(inside)} of {len(rendered)} rendered nodes are in an explorer: {inside[:3]}"


def _ancestors(node: nodes.Node | None) -> Iterator[nodes.Node]:
    while node is not None:
        yield node
        node = node.parent


def test_korean_pages_take_the_recipes_korean_texts(korean_site):
    outdir, _rendered = korean_site
    html = Path(outdir, "A.X-K2.html").read_text()
    assert "<h1>A.X-K2 레시피" in html  # (the page's catalog was read)
    recipe = load(RECIPES / "A.X-K2.json")
    assert recipe.text["ko"].tag in html
    assert recipe.text["en"].tag not in html
    assert html.count('<span class="rb-badge') == len(recipe.badges)  # the badges keep their markup
    assert BeautifulSoup(html, "html.parser").html["lang"] == "ko"  # the page's own language, not its switcher


def test_recipe_page_generator(tmp_path, monkeypatch, capsys):
    """make recipe-page's command: the page written, then refused twice (exit 1): a page that
    exists, in a process of its own; a recipe that does not, by its main in this process, as is the
    first page (a real process writes one, exit 0, in test_hostile_round4's make recipe-page)."""
    shutil.copytree(RECIPES, tmp_path / "recipes")
    (tmp_path / "source" / "recipes").mkdir(parents=True)
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    assert newpage.main(["A.X-K2"]) == 0, capsys.readouterr().err
    page = (tmp_path / "source" / "recipes" / "A.X-K2.md").read_text()
    for directive in ("recipe-header", "recipe-install", "recipe-explorer", "recipe-client"):
        assert f"```{{{directive}}} A.X-K2\n```" in page
    run = [sys.executable, "-m", "recipebook_sphinx.newpage", "A.X-K2"]
    again = subprocess.run(run, cwd=tmp_path, capture_output=True, text=True, env=dict(os.environ))
    assert again.returncode == 1 and "not overwritten" in again.stderr
    capsys.readouterr()
    assert newpage.main(["nope"]) == 1 and "no such recipe" in capsys.readouterr().err


def test_a_recipe_without_a_page_stops_the_build_with_one_message(tmp_path):
    """make html-en in a copy of the project with a recipe and no page: one warning line that
    names the recipe and the command that makes its page, and nothing that follows from it."""
    import subprocess

    from third_recipe import NAME, copy_project, third_recipe_text

    project = copy_project(tmp_path / "project")
    (project / "recipes" / f"{NAME}.json").write_text(third_recipe_text(), encoding="utf-8")
    result = subprocess.run(
        ["make", "html-en"],
        cwd=project,
        capture_output=True,
        text=True,
        check=False,
        env={**__import__("os").environ, "PYTHONPATH": str(project / "_ext")},
    )
    assert result.returncode != 0
    warnings = [line for line in (result.stdout + result.stderr).splitlines() if "WARNING" in line or "ERROR" in line]
    assert 1 <= len(warnings) <= 2, warnings
    assert f"recipe '{NAME}' has no page" in warnings[0] and f"make recipe-page NAME={NAME}" in warnings[0]
    assert warnings[0].startswith(f"recipes/{NAME}.json:1: WARNING") or f"recipes/{NAME}.json:1:" in warnings[0]
