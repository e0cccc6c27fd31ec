"""Sphinx adapter for recipebook: directives, warnings, assets. Registers only."""

from __future__ import annotations

import os
from pathlib import Path

from sphinx.application import Sphinx
from sphinx.config import Config
from sphinx.environment import BuildEnvironment
from sphinx.util.typing import ExtensionMetadata

from recipebook.problems import Problem, errors

from . import config, cycles, store
from .explorer import html as explorer_html
from .explorer import nojs as explorer_nojs
from .explorer import results_panel
from .explorer import stash as explorer_stash
from .i18n import languages as i18n
from .i18n import untranslated
from .page import codewrap, directives, markup, memory_role, myst_documents, navigation, particles, sidebar
from .page import inline as rb_nodes
from .page import rules as rb_rules
from .page import settings as rb_settings
from .paths import STATIC, TEMPLATES, locale_dirs
from .publishing import markdown as mdview
from .publishing import notfound
from .publishing import site as publish
from .search import build as search
from .search.english import SearchEnglishPorter
from .search.korean import SearchKorean
from .search.words import data_version
from .warnings_ import Subtype, warn, warn_problem

EXPLORER_CSS = "recipebook-explorer.css"
ENV_VERSION = 9  # raised when pages written from an unchanged environment would differ, or could not be read


def _configure(app: Sphinx, conf: Config) -> None:
    conf.templates_path.append(os.fspath(TEMPLATES))
    i18n.configure(app, conf)


def _report(app: Sphinx) -> None:
    """Check every recipe at the start of every build, so a bad one always fails it: each problem
    (error or warning) a Sphinx warning, or (recipebook_problems = "fail", as make html builds each
    language) none, make html printing them once, in make validate's words. A recipe error fails
    the build at its end (``_fail``); a recipe warning only a strict build (-W), as Sphinx does."""
    problems: list[Problem] = []
    site = config.site_config(app.config)
    for found in store.check_all(app.env, site.dir).values():
        problems += found
    if site.problems == config.PROBLEMS_FAIL:
        return
    for problem in sorted(problems):
        warn_problem(problem, os.path.relpath(problem.file, app.confdir))


def _fail(app: Sphinx, exception: Exception | None) -> None:
    """A build with a recipe error ends with status 1, whether its problems were warned
    (recipebook_problems = "warn") or printed once (= "fail"); warnings alone do not fail it (-W does)."""
    site = config.site_config(app.config)
    if exception is None and any(errors(found) for found in store.check_all(app.env, site.dir).values()):
        app.statuscode = 1


def _add_assets(app: Sphinx) -> None:
    if app.builder.format != "html":
        return
    app.config.html_static_path.append(os.fspath(STATIC))
    app.add_css_file("recipebook.css")
    app.add_css_file(EXPLORER_CSS)
    app.add_js_file("recipebook-files.js", defer="defer")  # first: recipebook.js checks values with it
    app.add_js_file("recipebook.js", defer="defer")


def _pages(app: Sphinx, env: BuildEnvironment) -> None:
    """Every valid recipe has a page, so the catalogue never links nowhere."""
    site = config.site_config(app.config)
    pattern = site.pages["recipe"]
    for path, problems in store.check_all(env, site.dir).items():
        name = path.stem  # a valid recipe's name is its file name
        if not errors(problems) and pattern.format(name=name) not in env.found_docs:
            warn(
                f"recipe {name!r} has no page {pattern.format(name=name)!r}; create it with "
                f"`make recipe-page NAME={name}`",
                Subtype.PAGE,
                f"{os.path.relpath(path, app.confdir)}:1",  # a file, not a page (a location without a line is a docname)
            )


def _write_explorer_css(app: Sphinx, exception: Exception | None) -> None:
    if exception is not None or app.builder.format != "html":
        return
    grids = store.data(app.env)["grids"]
    sizes = [size for page in grids.values() for size in page.values()]
    exclusions = {gid: size.excluded for page in grids.values() for gid, size in page.items() if size.excluded}
    css = explorer_nojs.explorer_css(
        max((s.axes for s in sizes), default=0),
        max((s.values for s in sizes), default=0),
        max((s.rank_roles for s in sizes), default=0),
        max((s.ranks for s in sizes), default=0),
        exclusions,
    )
    target = Path(app.outdir, "_static", EXPLORER_CSS)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(css, encoding="utf-8")


def setup(app: Sphinx) -> ExtensionMetadata:
    app.setup_extension("sphinx_design")
    myst_documents.setup()
    config.register(app)
    markup.setup(app)
    untranslated.setup(app)
    navigation.setup(app)
    sidebar.setup(app)
    notfound.setup(app)
    publish.setup(app)
    mdview.setup(app)
    app.add_domain(store.RecipebookDomain)
    explorer_stash.setup(app)
    store.setup(app)
    app.add_node(explorer_html.recipe_explorer, html=(explorer_html.visit_explorer_html, None))
    app.add_node(rb_nodes.flag_help, html=(rb_nodes.visit_help_html, rb_nodes.depart_help_html))
    app.add_node(rb_nodes.markdown_link, html=(rb_nodes.visit_markdown_link_html, rb_nodes.depart_markdown_link_html))
    app.add_node(
        results_panel.recipe_plot,
        html=(results_panel.visit_plot_html, None),
        text=(results_panel.skip, None),
        latex=(results_panel.skip, None),
        man=(results_panel.skip, None),
        texinfo=(results_panel.skip, None),
    )
    app.add_transform(directives.ExplorerTextForms)
    app.add_transform(directives.SectionLinks)
    app.add_search_language(SearchKorean)
    app.add_search_language(SearchEnglishPorter)
    search.setup(app)
    app.add_directive("recipe-header", directives.HeaderDirective)
    app.add_directive("recipe-install", directives.InstallDirective)
    app.add_directive("recipe-explorer", directives.ExplorerDirective)
    app.add_directive("recipe-client", directives.ClientDirective)
    app.add_directive("recipe-catalogue", directives.CatalogueDirective)
    app.add_directive("recipe-flags", directives.FlagsDirective)
    app.add_directive("recipe-kubernetes-settings", directives.KubernetesSettingsDirective)
    app.add_directive("recipe-results", directives.ResultsDirective)
    app.add_role("recipe-memory", memory_role.MemoryRole())
    app.add_directive("recipe-rules", rb_rules.RulesDirective)
    app.add_directive("recipe-settings", rb_settings.SettingsDirective)
    i18n.prepare_catalogs(app)  # checked and compiled before anything is written
    for folder in locale_dirs(app.srcdir, app.config):
        app.add_message_catalog("recipebook", os.fspath(folder))
        app.add_message_catalog("recipe-labels", os.fspath(folder))
    app.connect("config-inited", config.validate, priority=400)
    app.connect("config-inited", _configure)
    app.connect("builder-inited", _report)
    app.connect("builder-inited", _add_assets)
    app.connect("builder-inited", i18n.add_ui_strings)
    app.connect("html-page-context", i18n.page_context)
    app.connect("html-page-context", codewrap.page_context)
    app.connect("html-page-context", particles.page_context)
    app.connect("env-check-consistency", _pages)
    app.connect("env-get-outdated", store.pages_changed)
    app.connect("build-finished", _write_explorer_css)
    app.connect("build-finished", results_panel.write_plots)
    app.connect("build-finished", _fail)
    cycles.setup(app)
    env_version = ENV_VERSION << 32 | data_version()  # a word list's edit re-reads every page
    return {"version": "1.0", "env_version": env_version, "parallel_read_safe": True, "parallel_write_safe": True}


__all__ = ["setup"]
