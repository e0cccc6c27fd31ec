"""Site-level files, written by each language's build when it finishes (``build-finished``).

From what the build already holds, never by checking or expanding anything again: what each
recipe's page model gave while its page was read (``read``: its lines of llms.txt, and its API
files, written then: the model is built once per build, by the page's directives), the
Markdown views written beside the pages (streamed into llms-full.txt one at a time), the page
titles Sphinx collected. A recipe whose page did not give them (no page, or its API files gone
since) gets them here, from its model built then:

- per language, in its own tree: ``llms.txt`` (an index of the Markdown views) and
  ``llms-full.txt`` (all of them);
- at the site root (the folder holding the language trees, when the build writes into
  ``<root>/<language>``): ``index.html`` (sends a reader to their browser's language),
  ``api/`` (the JSON API and the static ready-to-run files of the selection each target
  opens on), ``sitemap.xml`` (only with ``recipebook_site_url``: the protocol wants
  absolute URLs), and ``404.html`` (the source language's themed not-found page, from
  sphinx-notfound-page, whose links are absolute under the site's path).

Every language's build writes the site-level files for all configured languages, the
same bytes whichever writes them, each file atomically: the languages can build side by
side, and whichever finishes last leaves a complete site.
"""

from __future__ import annotations

import contextlib
import dataclasses
import gettext
import json
import os
import shlex
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TextIO
from xml.sax.saxutils import escape as xml_escape

import jinja2
from docutils import nodes
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from sphinx.locale import get_translation
from sphinx.util import logging

from recipebook.checking import inline
from recipebook.checking.schema import SCHEMA_PATH
from recipebook.expanding.expansion import API_VERSION, Expansion
from recipebook.expanding.page import RecipePage, expansion_at
from recipebook.expanding.results import Result
from recipebook.memo import Memo
from recipebook.reading.model import Recipe
from recipebook.rendering import portable
from recipebook.rendering.files import selection_files, selection_key

from .. import store
from ..config import language as config_language
from ..config import site_config
from ..explorer import memory_panel, results_panel
from ..i18n import languages as i18n
from ..i18n.untranslated import LABELS_CATALOG
from ..paths import TEMPLATES as TEMPLATE_ROOT
from ..paths import locale_dirs
from . import markdown
from .markdown import escape

logger = logging.getLogger(__name__)

TEMPLATES = TEMPLATE_ROOT / "recipebook"
NOT_FOUND = "404"  # sphinx-notfound-page's page name; kept out of the sitemap and llms.txt
# the labels recipes give, translated as the pages show them (without noting, as the pages'
# directives do, those with no translation: the pages note them)
_LABEL = get_translation(LABELS_CATALOG)
_TEMPLATES = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), autoescape=True, keep_trailing_newline=True)


def N_(message: str) -> str:
    """Mark a message for the catalog; it is translated into each language where it is used."""
    return message


CHOOSE_LANGUAGE = N_("Choose a language")


class SiteWriter:
    """Writes files under a folder atomically and can remove the ones it did not write."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.written: set[Path] = set()

    def write(self, relative: str, text: str | bytes) -> None:
        path = self.root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        if isinstance(text, bytes):
            temporary.write_bytes(text)
        else:
            temporary.write_text(text, encoding="utf-8")
        os.replace(temporary, path)
        self.written.add(path)

    @contextlib.contextmanager
    def stream(self, relative: str) -> Iterator[TextIO]:
        """A text file written piece by piece, put in place when it is complete (as ``write``)."""
        path = self.root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        try:
            with open(temporary, "w", encoding="utf-8") as file:
                yield file
        except BaseException:
            temporary.unlink(missing_ok=True)
            raise
        os.replace(temporary, path)
        self.written.add(path)

    def sweep(self, relative: str) -> None:
        """Remove what an earlier build left under a folder (another build's files in progress
        start with a dot and are left alone; the files both builds write are the same)."""
        folder = self.root / relative
        for path in sorted(folder.rglob("*"), reverse=True):
            if path.is_file() and path not in self.written and not path.name.startswith("."):
                path.unlink(missing_ok=True)
            elif path.is_dir() and not any(path.iterdir()):
                path.rmdir()


def files_dir(recipe: Recipe, strategy: str, target: str) -> str:
    return f"api/recipes/{recipe.name}/{strategy}/{target}"


def api_files(
    site: SiteWriter,
    model: RecipePage,
    languages: Sequence[str],
    recipe_page: str,
    measured: Sequence[Result] = (),
    pinned: Mapping[str, str] | None = None,
    memo: Memo | None = None,
) -> dict[str, object]:
    """A recipe's files of the API, and the static ready-to-run files of the selection each of its
    targets opens on, from its page model; its entry in the API's index (``api_index``). What is
    computed from the model is kept in ``memo``: the memo of the page being read, its explorers'
    Kubernetes files already there (``read``), or one of its own.

    Any other selection's files are written in the browser from the recipe's document
    (static/recipebook-files.js) or by ``python -m recipebook files``: the output grows with
    recipes and their lines, not with the product of their axes.
    """
    recipe = model.recipe
    if memo is None:
        memo = Memo()  # what is computed from this model, dropped with it (one model at a time)
    page = recipe_page.format(name=recipe.name)
    entry: dict[str, object] = {
        "name": recipe.name,
        "provider": recipe.provider,
        "model": recipe.model,
        "strategies": [
            {"slug": s.slug, "label": s.label, "targets": [t.target for t in s.targets]} for s in recipe.strategies
        ],
        "pages": {lang: f"../{lang}/{page}.html" for lang in languages},
        "markdown": {lang: f"../{lang}/{page}.md" for lang in languages},
        "matrix": f"recipes/{recipe.name}.json",
    }
    static = {}
    for target in model.targets:
        expansion = expansion_at(recipe, target, target.opening)
        target_dir = files_dir(recipe, expansion.strategy, expansion.target)
        key = selection_key(expansion.selection)
        files = selection_files(expansion)
        for name, text in files.items():
            site.write(f"{target_dir}/{key}/{name}", text)
        site.write(f"{target_dir}/{key}/index.html", file_index(recipe, expansion.selection, list(files)))
        site.write(f"{target_dir}/index.html", listing(recipe, expansion, target.table.selections))
        static[(expansion.strategy, expansion.target)] = f"{key}/"
    document = portable.recipe_document(model, static, measured=measured, pinned=pinned or {}, memo=memo)
    site.write(
        f"api/recipes/{recipe.name}.json", json.dumps(document, ensure_ascii=False, separators=(",", ":")) + "\n"
    )
    # the same document as a script: a page opened from disk may load a script, not fetch a file
    site.write(f"api/recipes/{recipe.name}.js", portable.document_script(recipe.name, document))
    return entry


def api_index(site: SiteWriter, entries: Iterable[dict[str, object]]) -> None:
    """The API's schema and index; what an earlier build left under api/ and ``site`` has not
    written (or been told of) goes."""
    site.write("api/schema.json", SCHEMA_PATH.read_bytes())
    index = {"version": API_VERSION, "schema": "schema.json", "recipes": list(entries)}
    site.write("api/index.json", json.dumps(index, indent=2, ensure_ascii=False) + "\n")
    site.sweep("api")


def listing(recipe: Recipe, expansion: Expansion, offered: int) -> str:
    """A target's page of files, reachable without JavaScript: the opening selection's, and
    how to get any other selection's."""
    sets = " ".join(f"--set {shlex.quote(f'{a}={v}')}" for a, v in expansion.selection.items())
    command = (
        f"python -m recipebook files recipes/{recipe.name}.json --strategy {shlex.quote(expansion.strategy)} "
        f"--target {shlex.quote(expansion.target)} {sets} --out DIR"
    )
    return _TEMPLATES.get_template("listing.html").render(
        title=f"{recipe.name}: {expansion.strategy} / {expansion.target}",
        pairs=", ".join(f"{a}={v}" for a, v in expansion.selection.items()),
        key=selection_key(expansion.selection),
        offered=offered,
        command=command,
    )


def file_index(recipe: Recipe, selection: Mapping[str, str], names: list[str]) -> str:
    """The files of one selection, and how to use them."""
    pairs = ", ".join(f"{a}={v}" for a, v in selection.items())
    return _TEMPLATES.get_template("files.html").render(recipe=recipe.name, pairs=pairs, names=names)


def translators(languages: Iterable[str], folders: Iterable[Path]) -> dict[str, Callable[[str], str]]:
    """The extension's catalog in each language (from the first of the locale folders that has
    it): the site-level pages name every language in its own words, the same bytes whichever
    language's build writes them (compiled when the extension loaded: i18n.prepare_catalogs)."""
    words: dict[str, Callable[[str], str]] = {}
    for lang in languages:
        found: gettext.NullTranslations | None = None
        for folder in folders:
            if found is None:
                found = gettext.translation("recipebook", folder, [lang], fallback=True)
            else:
                found.add_fallback(gettext.translation("recipebook", folder, [lang], fallback=True))
        words[lang] = found.gettext if found else str
    return words


def landing(title: str, languages: list[str], favicon: str = "", folders: Iterable[Path] = ()) -> str:
    words = translators(languages, folders)
    entries = [
        {
            "lang": lang,
            "name": i18n.LANGUAGE_NAMES.get(lang, lang),
            "title": words[lang](title),
            "choose": words[lang](CHOOSE_LANGUAGE),
        }
        for lang in languages
    ]
    return _TEMPLATES.get_template("landing.html").render(
        languages=entries, first=entries[0], codes=languages, favicon=favicon
    )


def sitemap(site_url: str, languages: list[str], docnames: list[str]) -> str:
    entries = []
    for lang in languages:
        for name in docnames:
            alternates = "".join(
                f'\n    <xhtml:link rel="alternate" hreflang="{other}" href="{xml_escape(f"{site_url}/{other}/{name}.html")}"/>'
                for other in languages
            )
            entries.append(
                f"  <url>\n    <loc>{xml_escape(f'{site_url}/{lang}/{name}.html')}</loc>{alternates}\n  </url>"
            )
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml">\n'
        + "\n".join(entries)
        + "\n</urlset>\n"
    )


def llms(
    app: Sphinx,
    recipes: Sequence[tuple[str, Published]],
    docnames: list[str],
    views: Callable[[str], Path | None],
    full: TextIO,
) -> str:
    """llms.txt of the language being built, from each recipe's page name and what its page model
    gave (``published``), and its llms-full.txt written to ``full`` one Markdown view at a time,
    read from its file (``views``: a page's, or None)."""
    _ = i18n._
    env = app.env
    site_title = escape(str(_(site_config(app.config).title)))
    summary = escape(
        _(
            "Tested vllm serve commands for large language models on RBLN NPUs, per deployment strategy, "
            "target and feature."
        )
    )

    def title(docname: str) -> str:
        return escape(" ".join(env.titles[docname].astext().split()) if docname in env.titles else docname)

    lines = [f"# {site_title}", "", f"> {summary}", "", f"## {escape(str(_('Recipes')))}"]
    for page, found in recipes:
        if page in docnames:
            lines.append(f"- [{title(page)}]({page}.md): {found.sub}")
            lines += found.lines
    recipe_pages = {page for page, _found in recipes}
    files = {d: views(d) for d in docnames}
    guides = [d for d in docnames if d not in recipe_pages and files[d] is not None]
    lines += ["", f"## {escape(str(_('Guides')))}"]
    lines += [f"- [{title(d)}]({d}.md)" for d in guides]
    full.write(f"# {site_title}\n\n> {summary}")
    for page in [*(p for p, _found in recipes if p in docnames), *guides]:
        file = files[page]
        if file is not None:
            with open(file, encoding="utf-8", newline="") as text:  # as written: no newline translated
                full.write(f"\n\n---\n\nSource: {page}.html\n\n")
                full.write(text.read().strip())
    full.write("\n")
    return "\n".join(lines) + "\n"


@dataclasses.dataclass(frozen=True)
class Published:
    """What build-finished needs of a recipe's page model, made while its page is read (``read``:
    the model exists then), so that build-finished does not build the model again."""

    name: str
    sub: str  # its entry in llms.txt: the summary (escaped),
    lines: tuple[str, ...]  # and per target, the opening selection's memory and what was measured
    results: tuple[tuple[str, store.Stamp], ...]  # the stored results these were made from
    api: dict[str, object] | None  # its entry in the API's index, when the build writes the site's API
    files: tuple[str, ...]  # the files written for it under the site root (api_files)


def _strategy_label(label: str) -> str:
    return escape(str(_LABEL(label)))


def _results_stamps(env: BuildEnvironment, name: str) -> tuple[tuple[str, store.Stamp], ...]:
    return tuple((file, store.stamp(Path(file))) for file in store.results(env, name)[1])


def publish(app: Sphinx, model: RecipePage, memo: Memo | None = None) -> Published:
    """What build-finished needs of a recipe's page model; its API files written now (when the
    build writes the site's API), with what is computed from the model kept in ``memo``."""
    config = site_config(app.config)
    recipe = model.recipe
    texts = recipe.text.get(config_language(app.config)) or recipe.text["en"]
    found = store.results(app.env, recipe.name)[0]
    lines = (
        *memory_panel.llms_lines(model, _strategy_label, i18n._),
        *results_panel.llms_lines(model, found, _strategy_label, i18n._),
    )
    root = site_root(app)
    entry: dict[str, object] | None = None
    files: tuple[str, ...] = ()
    if root is not None:
        site = SiteWriter(root)
        entry = api_files(site, model, config.languages, config.pages["recipe"], found, dict(config.versions), memo)
        files = tuple(sorted(path.relative_to(root).as_posix() for path in site.written))
    sub = escape(inline.plain(inline.parse(texts.sub)[0]))
    return Published(recipe.name, sub, lines, _results_stamps(app.env, recipe.name), entry, files)


def _publishes(app: Sphinx) -> bool:
    return app.builder.format == "html" and app.builder.name in ("html", "dirhtml")


def read(app: Sphinx, doctree: nodes.document) -> None:
    """doctree-read, before the page's models are dropped (``store.page_read``): on a recipe's own
    page, what build-finished needs of its page model, from the model the page's directives built
    (kept in the environment with the page: dropped when it is read again or removed, merged from
    parallel readers)."""
    if not _publishes(app):
        return
    env = app.env
    pattern = site_config(app.config).pages["recipe"]
    for path in store.read_here(env):
        if pattern.format(name=path.stem) == env.docname:
            recipe = store.recipe(env, path)
            if recipe is not None:
                model = store.page(env, recipe)  # the page's model, and its explorers' Kubernetes files
                store.data(env)["published"][env.docname] = publish(app, model, store.engine_memo(env))


def published(app: Sphinx) -> Iterator[tuple[str, Published]]:
    """Each valid recipe's page name and what build-finished needs of its page model, in the
    recipes' order: as the reading of its page made it, or, for a recipe without one (no page, a
    page that does not show it, results stored or API files removed since), from its model built
    here, one model at a time."""
    env, config = app.env, site_config(app.config)
    kept = store.data(env)["published"]
    root = site_root(app)
    for path in store.recipe_paths(config.dir):
        if not store.shows(env, path):
            continue
        page = config.pages["recipe"].format(name=path.stem)
        found = kept.get(page)
        if (
            found is None
            or found.name != path.stem
            or found.results != _results_stamps(env, path.stem)
            or (root is not None and (found.api is None or not all((root / f).is_file() for f in found.files)))
        ):
            model = next(store.pages_one_by_one(env, store.recipes_one_by_one(env, [path])), None)
            if model is None:
                continue
            found = publish(app, model)
        yield page, found


def site_root(app: Sphinx) -> Path | None:
    """The folder of the language trees, when this build writes one of them (``<root>/<lang>``)."""
    outdir = Path(app.outdir)
    return outdir.parent if outdir.name == config_language(app.config) else None


def published_docs(app: Sphinx) -> list[str]:
    return sorted(d for d in app.env.found_docs if d != NOT_FOUND)


def finished(app: Sphinx, exception: BaseException | None) -> None:
    """build-finished: the language's llms files, and the site-level files."""
    if exception is not None or not _publishes(app):
        return
    config = site_config(app.config)
    recipes = list(published(app))
    docnames = published_docs(app)
    tree = SiteWriter(Path(app.outdir))
    with tree.stream("llms-full.txt") as full:
        index = llms(app, recipes, docnames, lambda d: markdown.view_file(app, d), full)
    tree.write("llms.txt", index)
    root = site_root(app)
    if root is None:
        return
    site = SiteWriter(root)
    site.written.update(root / file for _page, found in recipes for file in found.files)
    api_index(site, [found.api for _page, found in recipes if found.api is not None])
    languages = list(config.languages)
    favicon = ""
    if app.config.html_favicon and not str(app.config.html_favicon).startswith(("http:", "https:")):
        # the site's icon at its root, where a browser asks for one on the landing page
        icon = Path(app.confdir, app.config.html_favicon)
        favicon = icon.name
        site.write(favicon, icon.read_bytes())
    site.write("index.html", landing(config.title, languages, favicon, locale_dirs(app.srcdir, app.config)))
    if config.site_url:
        site.write("sitemap.xml", sitemap(config.site_url, languages, docnames))
    else:
        (site.root / "sitemap.xml").unlink(missing_ok=True)  # a sitemap needs absolute URLs
    not_found = Path(app.outdir) / f"{NOT_FOUND}.html"
    if config_language(app.config) == languages[0] and not_found.exists():
        # the root's not-found page, for hosts that serve one for the whole site
        site.write(f"{NOT_FOUND}.html", not_found.read_bytes())


def setup(app: Sphinx) -> None:
    app.connect("doctree-read", read, priority=400)  # before store.page_read drops the page's models
    app.connect("build-finished", finished)


__all__ = ["api_files", "finished", "setup"]
