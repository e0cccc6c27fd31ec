"""The reader query sets of tests/search_sets/ and their figures (not a test module itself).

Each set is a JSON list of queries as engineers type them, with the pages that answer
(``expect``) and the pages that would be a wrong first result (``wrong``); a query the site
does not answer has no ``expect`` and lists in ``absent`` the words of its topic, which no
page holds. Pages are named by what they are, so that another recipe keeps the sets valid:

- ``page:DOC``: a guide page by its document name (``page:install``);
- ``recipe:NAME``: the page of the recipe ``recipes/NAME.json`` (the model the query names);
- ``recipes``: every recipe page; ``other-recipes:NAME``: every recipe page but NAME's;
- ``model:ORG/NAME``: the page of the recipe that serves that Hugging Face model (its ``model``,
  any letter case), whatever the recipe file is called (an imported portal's names are the
  importer's); ``other-model:ORG/NAME``: every recipe page but that one;
- ``recipes:axis=A``, ``recipes:value=A/V``, ``recipes:role=R``, ``recipes:flag=--F``,
  ``recipes:text=T``: the recipe pages whose recipe offers axis A, value V of axis A, has a
  role R, passes flag --F, or holds text T; read from ``recipes/`` once per scoring (``figures``).

Figures: "acceptable" is the share of all queries a reader is served well by: an answerable
query with an acceptable page among the first three results and no wrong page first, an
unanswerable one with no result at all (the issue's measure); recall@5 is the share of answerable queries with an acceptable page among the
first five results; a wrong top result is an answerable query whose first result is one of
its wrong pages; "no answer" is the share of unanswerable queries that return nothing.
``*-tuning.json`` is what the scorer was tuned on; ``*-heldback.json`` was set aside before
any run (tests/search_sets was committed before the scorer) and is only measured.
"""

from __future__ import annotations

import dataclasses
import functools
import html
import json
import re
import types
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

from recipebook.reading import sharing

ROOT = Path(__file__).resolve().parents[1]
SETS = Path(__file__).resolve().parent / "search_sets"
PARTS = ("tuning", "heldback")
RECIPE_PAGE = "recipes/{name}"  # conf.py's recipebook_pages["recipe"] (the default)


def load(language: str, part: str) -> list[dict[str, Any]]:
    return json.loads((SETS / f"{language}-{part}.json").read_text(encoding="utf-8"))


# ------------------------------------------------------------------ expectations


@dataclasses.dataclass(frozen=True)
class Recipes:
    """The recipes of a folder as the expressions read them, by name: each one's file text, and
    its data with its shared grids written out in full (an imported recipe's targets extend the
    grids it shares)."""

    texts: Mapping[str, str]
    data: Mapping[str, dict[str, Any]]


def read_recipes(recipes: Path) -> Recipes:
    """The recipes of a folder (schema.json left out), each file read once."""
    texts = {
        path.stem: path.read_text(encoding="utf-8")
        for path in sorted(recipes.glob("*.json"))
        if path.name != "schema.json"
    }
    return Recipes(texts, {name: sharing.written_out(json.loads(text)) for name, text in texts.items()})


def _grids(recipe: dict[str, Any]) -> Iterable[dict[str, Any]]:
    for strategy in recipe["strategies"]:
        for option in strategy["options"]:
            yield option["grid"]


def _offers(recipe: dict[str, Any], kind: str, value: str, text: str) -> bool:
    if kind == "text":
        return value in text
    for grid in _grids(recipe):
        axes = {**grid.get("modes", {}), **grid.get("options", {})}
        roles = grid["base"]
        if kind == "axis" and value in axes:
            return True
        if kind == "value":
            axis, _, choice = value.partition("/")
            if choice in axes.get(axis, ()):
                return True
        if kind == "role" and any(role["role"] == value for role in roles):
            return True
        if kind == "flag" and (
            any(value in role["args"] for role in roles)
            or any(
                value in change.get("add_args", {})
                for delta in grid.get("deltas", {}).values()
                for change in delta.values()
            )
        ):
            return True
    return False


def resolve(expression: str, docnames: set[str], recipes: Recipes) -> set[str]:
    """The pages an expression names; an expression naming nothing that exists is an error."""
    known = recipes.data
    kind, _, arg = expression.partition(":")
    if kind == "page":
        pages = {arg}
    elif kind == "recipe":
        if arg not in known:
            raise ValueError(f"{expression}: no recipes/{arg}.json")
        pages = {RECIPE_PAGE.format(name=arg)}
    elif kind == "other-recipes":
        pages = {RECIPE_PAGE.format(name=name) for name in known if name != arg}
    elif kind in ("model", "other-model"):
        serving = {name for name, recipe in known.items() if str(recipe.get("model", "")).lower() == arg.lower()}
        if not serving:
            raise ValueError(f"{expression}: no recipe serves {arg}")
        chosen = serving if kind == "model" else set(known) - serving
        pages = {RECIPE_PAGE.format(name=name) for name in chosen}
    elif kind == "recipes" and not arg:
        pages = {RECIPE_PAGE.format(name=name) for name in known}
    elif kind == "recipes":
        what, _, value = arg.partition("=")
        pages = {RECIPE_PAGE.format(name=n) for n, r in known.items() if _offers(r, what, value, recipes.texts[n])}
        if not pages:
            raise ValueError(f"{expression}: no recipe offers it")
    else:
        raise ValueError(f"{expression}: unknown kind of page")
    missing = pages - docnames
    if missing:
        raise ValueError(f"{expression}: no such page {sorted(missing)}")
    return pages


# ------------------------------------------------------------------------ figures


@dataclasses.dataclass(frozen=True, kw_only=True)
class Figures:
    answerable: int
    found: int  # an acceptable page among the first five
    top3: int  # an acceptable page among the first three, and no wrong page first
    wrong_top: int
    unanswerable: int
    silent: int  # unanswerable and nothing returned
    premise_changed: tuple[str, ...]  # "absent" words some page now holds: not counted
    misses: tuple[str, ...]

    @property
    def recall(self) -> float:
        return self.found / self.answerable if self.answerable else 1.0

    @property
    def acceptable(self) -> float:
        """Queries served well: answerable with an acceptable page in the first three and no wrong
        page first, or unanswerable with no result."""
        total = self.answerable + self.unanswerable
        return (self.top3 + self.silent) / total if total else 1.0

    @property
    def no_answer(self) -> float:
        return self.silent / self.unanswerable if self.unanswerable else 1.0

    def line(self) -> str:
        total = self.answerable + self.unanswerable
        return (
            f"acceptable {self.top3 + self.silent}/{total} ({self.acceptable:.0%}), "
            f"recall@5 {self.found}/{self.answerable} ({self.recall:.0%}), wrong top {self.wrong_top}, "
            f"no answer {self.silent}/{self.unanswerable} ({self.no_answer:.0%})"
        )


def indexed_pages(tree: Path) -> set[str] | None:
    """The docnames whose words the tree's search index holds (a page marked ``nosearch``, such as
    404 or the reference, is listed among the docnames but gives no words), or None without an index."""
    index = tree / "searchindex.js"
    if not index.is_file():
        return None
    raw = index.read_text(encoding="utf-8")
    data = json.loads(raw[raw.index("(") + 1 : raw.rindex(")")])
    docs: set[int] = set()
    for table in ("terms", "titleterms"):
        for found in data[table].values():
            docs.update(found if isinstance(found, list) else [found])
    return {data["docnames"][i] for i in docs}


# A page's main article, where a tag of a name opens or closes, what is not the page's text
# (scripts, styles, a button's label), what is kept out of the index (a table of contents is the
# other pages' titles, not this page's words), any tag.
ARTICLE = re.compile(r'<article\b[^>]*\brole="main"[^>]*>')
NOT_TEXT = re.compile(r"<(script|style|button)\b.*?</\1\s*>", re.S | re.I)
KEPT_OUT = re.compile(r'<(\w+)\b[^>]*\bclass="[^"]*\b(?:no-search|toctree-wrapper)\b[^"]*"[^>]*>')
TAG = re.compile(r"<[^>]*>")


def _closed(text: str, name: str, start: int) -> int:
    """Where the element of tag `name` open at `start` closes (its nested ones counted)."""
    tags = re.compile(rf"<{name}\b|</{name}\s*>")
    depth, at = 1, start
    while depth:
        found = tags.search(text, at)
        if found is None:
            return len(text)
        depth += -1 if found.group().startswith("</") else 1
        at = found.end()
    return at


def article_text(page: str) -> str | None:
    """The text of a built page's main article (None: it has none), its tags read as spaces. Made
    with regular expressions, not a parser: a recipe page of many targets is megabytes, and parsing
    a portal's pages took longer than its search's tests (the words are the same as a parser's)."""
    opened = ARTICLE.search(page)
    if opened is None:
        return None
    body = NOT_TEXT.sub(" ", page[opened.end() : _closed(page, "article", opened.end())])
    kept, at = [], 0
    while (out := KEPT_OUT.search(body, at)) is not None:
        kept.append(body[at : out.start()])
        at = _closed(body, out.group(1), out.end())
    kept.append(body[at:])
    return html.unescape(TAG.sub(" ", "".join(kept)))


@functools.cache
def page_texts(tree: Path) -> Mapping[str, str]:
    """The text of each page's main article, by docname (the pages a search may find). Read once
    per tree and process: the trees are the session's builds, which no test changes."""
    texts = {}
    indexed = indexed_pages(tree)  # a page marked nosearch (404, the reference) is not one a search may find
    for path in sorted(tree.rglob("*.html")):
        docname = path.relative_to(tree).with_suffix("").as_posix()
        if docname in ("search", "genindex", "404") or docname.startswith("_"):  # 404: kept out of search
            continue
        if indexed is not None and docname not in indexed:
            continue
        text = article_text(path.read_text(encoding="utf-8"))
        if text is not None:
            texts[docname] = text
    return types.MappingProxyType(texts)  # shared by every caller: read-only


def holds(texts: Mapping[str, str], word: str) -> set[str]:
    """Pages with a word that starts with the given form (plain text, no stemmer)."""
    pattern = re.compile(r"(?<![\w\uac00-\ud7a3])" + re.escape(word), re.IGNORECASE)
    return {doc for doc, text in texts.items() if pattern.search(text)}


def figures(
    entries: list[dict[str, Any]],
    results: dict[str, list[str]],
    texts: Mapping[str, str],
    recipes: Path = ROOT / "recipes",
) -> Figures:
    """Score ranked results (docnames, best first) against a set's expectations."""
    docnames = set(texts)
    known = read_recipes(recipes)  # what every entry's expressions name pages from
    answerable = found = top3 = wrong_top = unanswerable = silent = 0
    changed, misses = [], []
    for entry in entries:
        query, ranked = entry["query"], results[entry["query"]]
        if not entry["expect"]:
            if any(holds(texts, word) for word in entry["absent"]):
                changed.append(query)
                continue
            unanswerable += 1
            silent += not ranked
            if ranked:
                misses.append(f"{query!r}: expected nothing, got {ranked[:3]}")
            continue
        answerable += 1
        good = set().union(*(resolve(e, docnames, known) for e in entry["expect"]))
        bad = set().union(set(), *(resolve(e, docnames, known) for e in entry["wrong"])) - good
        hit = bool(good & set(ranked[:5]))
        found += hit
        wrong = bool(ranked) and ranked[0] in bad
        wrong_top += wrong
        top3 += bool(good & set(ranked[:3])) and not wrong
        if not hit or wrong or not good & set(ranked[:3]):
            misses.append(f"{query!r}: expected one of {sorted(good)}, got {ranked[:5]}")
    return Figures(
        answerable=answerable,
        found=found,
        top3=top3,
        wrong_top=wrong_top,
        unanswerable=unanswerable,
        silent=silent,
        premise_changed=tuple(changed),
        misses=tuple(misses),
    )


# ----------------------------------------------------------------------- browser

# Done when searchtools.js has written its status line (after the last result is shown).
FINISHED = "document.querySelector('#search-results .search-summary')?.innerText.length > 0"
# Each result's summary is fetched after it is shown, the first ten's at once, the others' when
# they come into view (RecipeSearchResults.EAGER): done when every result has one.
SUMMARISED = (
    "[...document.querySelectorAll('#search-results ul.search > li')].every((li) => li.querySelector('p.context'))"
)
# Every result brought into view in turn, as a reader scrolling down the list brings it, with a
# frame for the browser to see it there (each one's summary is then asked for); at once, not
# eased (the theme's smooth scrolling would still be under way when the next one is asked for).
SCROLL_THROUGH = """async () => {
  for (const li of document.querySelectorAll('#search-results ul.search > li')) {
    li.scrollIntoView({behavior: 'instant'});
    await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
  }
  scrollTo({top: 0, behavior: 'instant'});
}"""


def docname(href: str, base: str) -> tuple[str, str]:
    """A result link's document name and anchor, relative to the language's root."""
    parts = urlsplit(href)
    path = parts.path[len(urlsplit(base).path) :].lstrip("/")
    return path.removesuffix(".html"), parts.fragment


def browser_search(page: Any, base: str, query: str, *, summaries: bool = False) -> list[dict[str, str]]:
    """Run one query through a built search page, as a reader does (the search page's URL)."""
    page.goto(f"{base}/search.html?q={quote(query)}")
    page.wait_for_function(FINISHED)
    if summaries:  # every result's summary, the later ones once the reader has scrolled to them
        page.evaluate(SCROLL_THROUGH)
        page.wait_for_function(SUMMARISED)
    items = page.eval_on_selector_all(
        "#search-results ul.search > li",
        "(lis) => lis.map((li) => ({href: li.querySelector('a').href,"
        " title: li.querySelector('a').innerText,"
        " summary: li.querySelector('p.context')?.innerText ?? ''}))",
    )
    for item in items:
        item["doc"], item["anchor"] = docname(item["href"], base)
    return items


# The queries after the first, typed into the search page already open: the search box's
# route (Search.performSearch, which a query in the URL also takes) with the results of the
# query before cleared; each one's results read once its status line is written.
IN_PAGE = (
    """async (queries) => {
  const items = () => [...document.querySelectorAll('#search-results ul.search > li')].map((li) => ({
    href: li.querySelector('a').href, title: li.querySelector('a').innerText,
    summary: li.querySelector('p.context')?.innerText ?? ''}));
  const finished = () => ("""
    + FINISHED
    + """);
  const out = [];
  for (const query of queries) {
    document.getElementById('search-results').replaceChildren();
    Search.performSearch(query);
    for (let i = 0; i < 6000 && !finished(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
    out.push(items());
  }
  return out;
}"""
)


def browser_searches(page: Any, base: str, queries: list[str]) -> dict[str, list[dict[str, str]]]:
    """Run many queries through a built search page: the first as a reader's URL (as
    browser_search), the others typed into the page it opened, in one round trip."""
    if not queries:
        return {}
    found = {queries[0]: browser_search(page, base, queries[0])}
    for query, items in zip(queries[1:], page.evaluate(IN_PAGE, queries[1:]), strict=True):
        for item in items:
            item["doc"], item["anchor"] = docname(item["href"], base)
        found[query] = items
    return found
