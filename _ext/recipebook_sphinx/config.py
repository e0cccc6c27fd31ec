"""The site's facts in one place, validated when the configuration is read.

Every ``recipebook_*`` value of ``conf.py`` is a field of ``Settings``, declared once with its
default, what a change to it rebuilds, what it must be, and what it is for. That declaration
registers the values (``register``), checks them at ``config-inited`` (``validate``: a wrong
value stops the build with a message that names it and says what it should be, every wrong value
at once), and writes the settings table of the reference page (the ``recipe-settings``
directive, ``settings_table``). As MyST-Parser's ``MdParserConfig`` does for ``myst_*``.
Other modules take the facts from ``site_config(config)``: the settings, the site title and the
language of the build.
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Final
from urllib.parse import urlsplit

from sphinx.application import Sphinx
from sphinx.config import Config
from sphinx.errors import ConfigError

PREFIX: Final = "recipebook_"
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

Check = Callable[[str, Any], list[str]]  # (the setting's name, its value) -> what is wrong with it


def _one_of(*choices: str) -> Check:
    def check(name: str, value: Any) -> list[str]:
        if value in choices:
            return []
        return [f"{name} is {value!r}; use {' or '.join(map(repr, choices))}"]

    return check


def _url_or_empty(name: str, value: Any) -> list[str]:
    if value and not _URL.fullmatch(value):
        return [f"{name} is {value!r}; give an absolute http(s) URL or leave it empty"]
    return []


def _pages(name: str, pages: Any) -> list[str]:
    missing = [key for key in PAGE_KEYS if not isinstance(pages.get(key), str) or not pages[key]]
    if missing:
        return [f"{name} needs a page name for: {', '.join(missing)}"]
    if "{name}" not in pages["recipe"]:
        return [f"{name}['recipe'] is {pages['recipe']!r}; it must contain {{name}}"]
    return []


def _versions(name: str, versions: Any) -> list[str]:
    problems = []
    for key in VERSION_KEYS:
        value = versions.get(key)
        if not isinstance(value, str) or not _VERSION.fullmatch(value):
            problems.append(f"{name}[{key!r}] is {value!r}; give a release number such as '0.12.0'")
    for key in INDEX_KEYS:
        value = versions.get(key)
        if not isinstance(value, str) or not _URL.fullmatch(value):
            problems.append(f"{name}[{key!r}] is {value!r}; give the package index URL (https://...)")
    return problems


def _languages(name: str, value: Any) -> list[str]:
    languages = list(value)
    bad = [lang for lang in languages if not isinstance(lang, str) or not _LANGUAGE.fullmatch(lang)]
    if not languages or bad or len(set(languages)) != len(languages):
        return [f"{name} is {languages!r}; list each language code once, the sources' language first"]
    return []


def _setting(default: Any, *, rebuild: str, types: tuple[type, ...], help: str, check: Check | None = None) -> Any:
    """A field of Settings: its default, what a change rebuilds ("env": the pages are read again,
    "html": written again, "": nothing), the types conf.py may give, what it is for (Markdown,
    the reference page's table), and how it is checked."""
    metadata = {"rebuild": rebuild, "types": types, "help": help, "check": check}
    if isinstance(default, Mapping):
        return dataclasses.field(default_factory=lambda: dict(default), metadata=metadata)
    return dataclasses.field(default=default, metadata=metadata)


@dataclasses.dataclass(frozen=True, kw_only=True)
class Settings:
    """Every ``recipebook_*`` setting; a field's name is the setting's without the prefix."""

    dir: str = _setting(
        "recipes", rebuild="env", types=(str,), help="The folder of the recipe files, relative to `conf.py`."
    )
    results_dir: str = _setting(
        "results",
        rebuild="env",
        types=(str,),
        help=(
            "The folder of measured results, relative to `conf.py`: a folder per recipe, as "
            "`recipebook results add --results` stores them; the pages show what it holds."
        ),
    )
    versions: Mapping[str, str] = _setting(
        {},
        rebuild="env",
        types=(dict,),
        help=(
            "The package versions the pages install and the recipes were verified with (`rebel-compiler`, "
            "`vllm-rbln`, `vllm`, `arctic-inference`), and the package indexes they come from (`rbln_index`, "
            "`vllm_cpu_index`, `torch_cpu_index`). Required: each written once, here."
        ),
        check=_versions,
    )
    languages: tuple[str, ...] = _setting(
        ("en", "ko"),
        rebuild="env",
        types=(list, tuple),
        help="The site's languages, the sources' language first: the language switcher, hreflang and the landing page.",
        check=_languages,
    )
    pages: Mapping[str, str] = _setting(
        {"recipe": "recipes/{name}", "install": "install", "configuration": "configuration"},
        rebuild="env",
        types=(dict,),
        help=(
            "Where the pages the recipes link to are: a recipe's page (`{name}` is the recipe's name), the "
            "installation matrix and the configuration guide."
        ),
        check=_pages,
    )
    render: str = _setting(
        RENDER_FULL,
        rebuild="env",
        types=(str,),
        help=(
            f"`{RENDER_FULL}`: every selection of every explorer; `{RENDER_RECOMMENDED}`: only the selection each "
            "opens on (what `make bench` weighs a page against)."
        ),
        check=_one_of(RENDER_FULL, RENDER_RECOMMENDED),
    )
    problems: str = _setting(
        PROBLEMS_WARN,
        rebuild="",
        types=(str,),
        help=(
            f"`{PROBLEMS_WARN}`: each recipe problem is a build warning; `{PROBLEMS_FAIL}`: the build fails at its "
            "end without repeating them (`make html`, which prints them once, as `make validate` does)."
        ),
        check=_one_of(PROBLEMS_WARN, PROBLEMS_FAIL),
    )
    verdicts: str = _setting(
        "",
        rebuild="",
        types=(str,),
        help=(
            "A folder of the verdicts `recipebook validate --verdicts` filed, which the build reads instead of "
            "checking the recipes again (`make html`); empty: the build checks every recipe."
        ),
    )
    site_url: str = _setting(
        "",
        rebuild="html",
        types=(str,),
        help=(
            "Where the site is published (`SITE_URL` of `make html`): canonical URLs, hreflang alternates, the "
            "sitemap and the not-found page's links; empty: relative links and no sitemap."
        ),
        check=_url_or_empty,
    )
    repository_url: str = _setting(
        "",
        rebuild="env",
        types=(str,),
        help=(
            "The project's repository (`REPOSITORY_URL` of `make html`), for the “Report a result” link under "
            "every explorer; empty: no link."
        ),
        check=_url_or_empty,
    )


SETTINGS: Final = dataclasses.fields(Settings)


@dataclasses.dataclass(frozen=True, kw_only=True)
class SiteConfig(Settings):
    """The settings with what a build adds to them."""

    title: str  # the project name; translated where the site shows it
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


def default(field: dataclasses.Field[Any]) -> Any:
    """A setting's default as conf.py would write it."""
    if field.default_factory is not dataclasses.MISSING:
        return field.default_factory()
    return field.default


def register(app: Sphinx) -> None:
    """Every setting of Settings, with its default, what a change rebuilds and its types."""
    for field in SETTINGS:
        meta = field.metadata
        app.add_config_value(PREFIX + field.name, default(field), meta["rebuild"], types=meta["types"])


def _problems(config: Config) -> list[str]:
    problems = []
    for field in SETTINGS:
        check = field.metadata["check"]
        if check is not None:
            problems += check(PREFIX + field.name, getattr(config, PREFIX + field.name))
    return problems


def validate(app: Sphinx, config: Config) -> None:
    """config-inited: every wrong value at once, as one ConfigError; then the recipes and results
    folders as absolute paths and the site URL without a trailing slash."""
    problems = _problems(config)
    if problems:
        raise ConfigError("recipebook configuration:\n  " + "\n  ".join(problems))
    config.recipebook_dir = os.fspath(Path(app.confdir, config.recipebook_dir).resolve())
    config.recipebook_results_dir = os.fspath(Path(app.confdir, config.recipebook_results_dir).resolve())
    config.recipebook_site_url = config.recipebook_site_url.rstrip("/")


def language(config: Config) -> str:
    """The language of a build as a code of ``recipebook_languages``: the one place that reads
    Sphinx's ``language`` (``ko_KR`` is ``ko``; none given is the sources' language)."""
    code: str = config.language or config.recipebook_languages[0]
    return code.split("_")[0]


def site_config(config: Config) -> SiteConfig:
    """The settings of a build (the values conf.py gave, else the defaults), its title and language."""
    values = {field.name: getattr(config, PREFIX + field.name) for field in SETTINGS}
    values.update(
        pages=dict(values["pages"]),
        versions=dict(values["versions"]),
        languages=tuple(values["languages"]),
        site_url=values["site_url"].rstrip("/"),
    )
    return SiteConfig(**values, title=config.project, language=language(config))


def settings_table() -> list[tuple[str, str, str, str]]:
    """The reference page's table: each setting's name, its default as conf.py writes it, what a
    change rebuilds and what it is for (Markdown)."""
    rebuilds = {"env": "the pages", "html": "the HTML", "": "nothing"}
    return [
        (PREFIX + field.name, repr(default(field)), rebuilds[field.metadata["rebuild"]], field.metadata["help"])
        for field in SETTINGS
    ]
