"""The site's facts in one validated place (recipebook_sphinx/config.py)."""

from __future__ import annotations

import re
import runpy
import shutil
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from sphinx.errors import ConfigError

from recipebook.reading import vocabulary
from recipebook_sphinx import config

ROOT = Path(__file__).resolve().parents[2]
SITE = runpy.run_path(str(ROOT / "conf.py"))


def test_vocabulary_release_is_the_configured_one():
    """The flags are checked against the vLLM / vllm-rbln release the site says it documents."""
    info = vocabulary.vocabulary_info()
    versions = SITE["recipebook_versions"]
    assert (info["vllm"], info["vllm_rbln"]) == (versions["vllm"], versions["vllm-rbln"])
    assert vocabulary.DATA_FILE.name == f"vllm-{versions['vllm']}.json"


def test_the_install_page_cites_the_configured_versions():
    text = (ROOT / "source" / "install.md").read_text(encoding="utf-8")
    versions = SITE["recipebook_versions"]
    row = " | ".join(versions[k] for k in ("rebel-compiler", "vllm-rbln", "vllm", "arctic-inference"))
    assert f"| {row} |" in text


@pytest.mark.parametrize(
    ("overrides", "expected"),
    [
        ({"recipebook_render": "all"}, "recipebook_render is 'all'"),
        ({"recipebook_languages": ["en", "en"]}, "recipebook_languages is ['en', 'en']"),
        ({"recipebook_site_url": "docs.example.com/recipes"}, "recipebook_site_url is 'docs.example.com/recipes'"),
        ({"recipebook_repository_url": "github"}, "recipebook_repository_url is 'github'"),
        ({"recipebook_pages": {"recipe": "recipes/x", "install": "i", "configuration": "c"}}, "must contain {name}"),
    ],
)
def test_a_wrong_value_stops_the_build_with_its_name(make_app, rootdir, tmp_path, overrides, expected):
    srcdir = tmp_path / "src"
    shutil.copytree(rootdir / "test-recipes", srcdir)
    with pytest.raises(ConfigError) as caught:
        make_app("html", srcdir=srcdir, confoverrides=overrides)
    assert expected in str(caught.value)


def test_every_wrong_version_is_reported_at_once(make_app, rootdir, tmp_path):
    srcdir = tmp_path / "src"
    shutil.copytree(rootdir / "test-recipes", srcdir)
    versions = {**SITE["recipebook_versions"], "vllm": "latest", "rbln_index": "pypi"}
    del versions["arctic-inference"]
    with pytest.raises(ConfigError) as caught:
        make_app("html", srcdir=srcdir, confoverrides={"recipebook_versions": versions})
    message = str(caught.value)
    for key in ("'vllm'", "'rbln_index'", "'arctic-inference'"):
        assert f"recipebook_versions[{key}]" in message


# --------------------------------------------------------------------------- one declaration (issue 42.5)


def test_every_recipebook_setting_is_registered_from_its_declaration(make_app, rootdir, tmp_path):
    srcdir = tmp_path / "src"
    shutil.copytree(rootdir / "test-recipes", srcdir)
    app = make_app("html", srcdir=srcdir)
    registered = sorted(name for name in app.config.values if name.startswith(config.PREFIX))
    assert registered == sorted(config.PREFIX + field.name for field in config.SETTINGS)
    for field in config.SETTINGS:
        value = app.config.values[config.PREFIX + field.name]
        assert (value.default, value.rebuild) == (config.default(field), field.metadata["rebuild"])


def test_each_check_is_the_declarations_own():
    """A setting whose declaration has a check is checked with it, and only those are checked."""
    checked = {field.name for field in config.SETTINGS if field.metadata["check"] is not None}
    assert checked == {"versions", "languages", "pages", "render", "problems", "site_url", "repository_url"}
    wrong = {"render": "all", "problems": "loud", "site_url": "x", "repository_url": "y", "languages": []}
    for name, value in wrong.items():
        (field,) = [f for f in config.SETTINGS if f.name == name]
        assert field.metadata["check"](config.PREFIX + name, value), name


ADAPTER = ROOT / "_ext" / "recipebook_sphinx"
# a read of a setting straight from Sphinx's config: config.recipebook_x, self.config.recipebook_x, ...
DIRECT_READ = re.compile(r"\bconfig\.recipebook_[a-z_]+\b(?!\s*=[^=])")


def test_every_read_of_a_setting_goes_through_site_config():
    found = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in sorted(ADAPTER.rglob("*.py"))
        if path.name != "config.py"
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if DIRECT_READ.search(line)
    ]
    assert not found, found


def test_site_config_holds_every_setting_and_what_the_build_adds(make_app, rootdir, tmp_path):
    srcdir = tmp_path / "src"
    shutil.copytree(rootdir / "test-recipes", srcdir)
    app = make_app("html", srcdir=srcdir, confoverrides={"recipebook_site_url": "https://docs.example.com/r/"})
    site = config.site_config(app.config)
    assert site.site_url == "https://docs.example.com/r" and site.site_path == "/r"
    assert site.dir == str((ROOT / "recipes").resolve())  # the test root's folder, made absolute
    assert site.versions == SITE["recipebook_versions"] and site.languages == tuple(SITE["recipebook_languages"])
    assert (site.title, site.language, site.translating) == (app.config.project, "en", False)


@pytest.mark.slow
def test_the_reference_page_lists_every_setting_from_its_declaration(site):
    for language, rebuilds in (("en", "A change rebuilds the pages."), ("ko", "바꾸면 페이지를 다시 빌드합니다.")):
        page = BeautifulSoup((site / language / "reference" / "site.html").read_text(encoding="utf-8"), "html.parser")
        listing = page.select_one("dl.rb-settings")
        assert listing is not None
        names = [term.get_text() for term in listing.select("dt")]
        assert names == [config.PREFIX + field.name for field in config.SETTINGS]
        definitions = [definition.get_text() for definition in listing.select("dd")]
        for field, text in zip(config.SETTINGS, definitions, strict=True):
            assert repr(config.default(field)) in text, (field.name, text)
        assert rebuilds in definitions[0]  # recipebook_dir: the pages are read again (and translated)
