"""Incremental builds keep the navigation right: after a recipe page is added or removed, every
page's sidebar and previous/next links follow, in both languages, without `make clean`."""

from __future__ import annotations

from pathlib import Path

import pytest
from bs4 import BeautifulSoup, SoupStrainer

from conftest import build_site
from third_recipe import NAME, copy_project, third_recipe_text

pytestmark = pytest.mark.slow


def build(project: Path, language: str) -> None:
    result = build_site(project / "_build", language, project=project)
    assert result.returncode == 0, result.stderr


# What navigation reads of a page: the sidebar's tree (with every link in it) and the previous and
# next links. Only these are made into a tree (the rest of the page is read and dropped), about a
# third of the time of the whole page's tree; the same elements, so the same links.
NAVIGATION = SoupStrainer(["div", "a"], class_=["sidebar-tree", "prev-page", "next-page"])


def navigation(page: Path) -> tuple[list[str], str | None, str | None]:
    """The pages the sidebar links to, and the previous and next links, as paths from the tree."""
    soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser", parse_only=NAVIGATION)
    tree_root = next(p for p in page.parents if p.name == "html")  # holds the language trees

    def resolve(href: str | None) -> str | None:
        if href is None:
            return None
        path = href.split("#")[0]
        if path.startswith("/"):  # the not-found page links absolutely: /<language>/<page>
            return (tree_root / path.lstrip("/")).resolve().as_posix()
        return (page.parent / path).resolve().as_posix() if path else page.resolve().as_posix()  # "#": this page

    sidebar = [resolve(a["href"]) for a in soup.select(".sidebar-tree a.reference")]
    prev = soup.select_one("a.prev-page")
    nxt = soup.select_one("a.next-page")
    return sidebar, resolve(prev["href"]) if prev else None, resolve(nxt["href"]) if nxt else None


def pages(tree: Path) -> list[Path]:
    return [p for p in sorted(tree.rglob("*.html")) if p.name not in ("search.html", "genindex.html")]


def navigations(tree: Path) -> dict[str, tuple[list[str], str | None, str | None]]:
    """Every page's navigation (each page read once), by its path in the tree."""
    return {p.relative_to(tree).as_posix(): navigation(p) for p in pages(tree)}


@pytest.mark.parametrize("language", ["en", "ko"])
def test_adding_and_removing_a_recipe_rewrites_every_page_s_navigation(tmp_path, language):
    project = copy_project(tmp_path / "project")
    build(project, language)
    tree = project / "_build/html" / language
    recipe, page = project / "recipes" / f"{NAME}.json", project / "source" / "recipes" / f"{NAME}.md"
    recipe.write_text(third_recipe_text(), encoding="utf-8")
    page.write_text(f"# Serving {NAME} on RBLN NPU\n\n```{{recipe-header}} {NAME}\n```\n", encoding="utf-8")
    build(project, language)  # incremental: the same doctrees
    new = (tree / "recipes" / f"{NAME}.html").resolve().as_posix()
    found = navigations(tree)
    stale = [path for path, (sidebar, _prev, _next) in found.items() if new not in sidebar]
    assert not stale, f"pages whose sidebar lacks the new recipe: {stale}"
    linked = {path for path, (_sidebar, *links) in found.items() if new in links}
    assert len(linked) == 2, linked  # the pages before and after it link to it

    recipe.unlink()
    page.unlink()
    build(project, language)
    kept = {path: nav for path, nav in navigations(tree).items() if Path(path).name != f"{NAME}.html"}
    still = [path for path, (sidebar, *links) in kept.items() if new in sidebar or new in links]
    assert not still, f"pages that still link to the removed recipe: {still}"
