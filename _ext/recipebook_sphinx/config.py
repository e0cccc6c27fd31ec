"""The site's facts in one place, validated when the configuration is read.

Every ``recipebook_*`` value of ``conf.py`` is registered here with its default and read
into one ``SiteConfig``; a wrong value stops the build at ``config-inited`` with a message
that names the value and what it should be (as sphinx-design checks ``SdConfig``). Other
modules take the facts from ``site_config(config)``: the package versions, the languages,
the site title, the page paths, the site and repository URLs.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from urllib.parse import urlsplit

from sphinx.application import Sphinx
from sphinx.config import Config
from sphinx.errors import ConfigError

RENDER_FULL, RENDER_RECOMMENDED = "full", "recommended"
# recipebook_problems: "warn" each recipe problem (a build on its own), or "fail" the build without
# repeating them (make html builds each language so, and prints them once, as make validate does)
PROBLEMS_WARN, PROBLEMS_FAIL = "warn", "fail"
VERSION_KEYS = ("rebel-compiler", "vllm-rbln", "vllm", "arctic-inference")
INDEX_KEYS = ("rbln_index", "vllm_cpu_index", "torch_cpu_index")
PAGE_KEYS = ("recipe", "install", "configuration")
_VERSION = re.compile(r"\d+(\.\d+)*([.-]?(a|b|rc|post|dev)\d*)?")
_LANGUAGE = re.compile(r"[a-z]{2,3}(_[A-Z]{2})?")
_URL = re.compile(r"https?://[^\s/]+(/\S*)?")


@dataclasses.dataclass(frozen=True, kw_only=True)
class SiteConfig:
    title: str  # the project name; translated where the site shows it
    recipes_dir: str
    render: str
    pages: Mapping[str, str]  # page kind -> docname ("recipe" has {name})
    versions: Mapping[str, str]  # package -> version, index name -> URL
    languages: tuple[str, ...]  # the first is the language of the sources
    site_url: str  # "" or an absolute URL without a trailing slash
    repository_url: str  # "" or the repository's web address (for "report a result")
    language: str  # the language of this build, one of ``languages``

    @property
    def site_path(self) -> str:
        """The path the site is served under: '' at the domain's root, '/recipes' under a folder."""
        return urlsplit(self.site_url).path.rstrip("/")

    @property
    def translating(self) -> bool:
        """Whether this build is in another language than the sources'."""
        return self.language != self.languages[0]

    @property
    def vllm(self) -> str:
        return self.versions["vllm"]

    @property
    def vllm_rbln(self) -> str:
        return self.versions["vllm-rbln"]


def register(app: Sphinx) -> None:
    app.add_config_value("recipebook_dir", "recipes", "env", types=(str,))
    app.add_config_value("recipebook_results_dir", "results", "env", types=(str,))
    app.add_config_value("recipebook_render", RENDER_FULL, "env", types=(str,))
    app.add_config_value("recipebook_problems", PROBLEMS_WARN, "", types=(str,))
    # a folder of verdicts that `recipebook validate --verdicts` filed (make html: checked once
    # for both languages); "" checks every recipe in the build
    app.add_config_value("recipebook_verdicts", "", "", types=(str,))
    app.add_config_value(
        "recipebook_pages",
        {"recipe": "recipes/{name}", "install": "install", "configuration": "configuration"},
        "env",
        types=(dict,),
    )
    app.add_config_value("recipebook_versions", {}, "env", types=(dict,))
    # what a setting changes decides what a change rebuilds: "env" for what the pages are read
    # into (the explorer's report link holds the repository), "html" for what is written then
    app.add_config_value("recipebook_languages", ["en", "ko"], "env", types=(list, tuple))
    app.add_config_value("recipebook_site_url", "", "html", types=(str,))
    app.add_config_value("recipebook_repository_url", "", "env", types=(str,))


def _problems(config: Config) -> list[str]:
    problems = []
    if config.recipebook_render not in (RENDER_FULL, RENDER_RECOMMENDED):
        problems.append(
            f"recipebook_render is {config.recipebook_render!r}; use {RENDER_FULL!r} or {RENDER_RECOMMENDED!r}"
        )
    if config.recipebook_problems not in (PROBLEMS_WARN, PROBLEMS_FAIL):
        problems.append(
            f"recipebook_problems is {config.recipebook_problems!r}; use {PROBLEMS_WARN!r} or {PROBLEMS_FAIL!r}"
        )
    pages = config.recipebook_pages
    missing = [key for key in PAGE_KEYS if not isinstance(pages.get(key), str) or not pages[key]]
    if missing:
        problems.append(f"recipebook_pages needs a page name for: {', '.join(missing)}")
    elif "{name}" not in pages["recipe"]:
        problems.append(f"recipebook_pages['recipe'] is {pages['recipe']!r}; it must contain {{name}}")
    versions = config.recipebook_versions
    for key in VERSION_KEYS:
        value = versions.get(key)
        if not isinstance(value, str) or not _VERSION.fullmatch(value):
            problems.append(f"recipebook_versions[{key!r}] is {value!r}; give a release number such as '0.12.0'")
    for key in INDEX_KEYS:
        value = versions.get(key)
        if not isinstance(value, str) or not _URL.fullmatch(value):
            problems.append(f"recipebook_versions[{key!r}] is {value!r}; give the package index URL (https://...)")
    languages = list(config.recipebook_languages)
    bad = [lang for lang in languages if not isinstance(lang, str) or not _LANGUAGE.fullmatch(lang)]
    if not languages or bad or len(set(languages)) != len(languages):
        problems.append(
            f"recipebook_languages is {languages!r}; list each language code once, the sources' language first"
        )
    for name in ("recipebook_site_url", "recipebook_repository_url"):
        value = getattr(config, name)
        if value and not _URL.fullmatch(value):
            problems.append(f"{name} is {value!r}; give an absolute http(s) URL or leave it empty")
    return problems


def validate(app: Sphinx, config: Config) -> None:
    """config-inited: every wrong value at once, as one ConfigError."""
    problems = _problems(config)
    if problems:
        raise ConfigError("recipebook configuration:\n  " + "\n  ".join(problems))
    config.recipebook_site_url = config.recipebook_site_url.rstrip("/")


def language(config: Config) -> str:
    """The language of a build as a code of ``recipebook_languages``: the one place that reads
    Sphinx's ``language`` (``ko_KR`` is ``ko``; none given is the sources' language)."""
    code: str = config.language or config.recipebook_languages[0]
    return code.split("_")[0]


def site_config(config: Config) -> SiteConfig:
    return SiteConfig(
        title=config.project,
        recipes_dir=config.recipebook_dir,
        render=config.recipebook_render,
        pages=dict(config.recipebook_pages),
        versions=dict(config.recipebook_versions),
        languages=tuple(config.recipebook_languages),
        site_url=config.recipebook_site_url.rstrip("/"),
        repository_url=config.recipebook_repository_url,
        language=language(config),
    )
