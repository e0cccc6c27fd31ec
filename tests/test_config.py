"""The site's facts in one validated place (recipebook_sphinx/config.py)."""

from __future__ import annotations

import runpy
import shutil
from pathlib import Path

import pytest
from sphinx.errors import ConfigError

from recipebook.reading import vocabulary

ROOT = Path(__file__).resolve().parents[1]
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
