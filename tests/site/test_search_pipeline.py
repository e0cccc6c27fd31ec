"""The site's query pipeline and scorer (``recipebook-search.js``), tested in Node.js where it runs.

``npm test`` runs the JavaScript tests that need no site (``tests/js/*.test.js``, on the language
data ``tests/js/jsdata.py`` makes as a build does; ``make test`` runs it). The tests on the built
site's own index are in ``tests/js/site/``: this runs them with ``RECIPEBOOK_SITE`` set to the
site built once for the session, and checks that jsdata.py makes what that build wrote.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from recipebook_sphinx.search.build import PARAMS
from search_support import NODE

JS_TESTS = Path(__file__).parents[1] / "js"
SITE_TESTS = JS_TESTS / "site"


def test_the_pipelines_node_tests_on_the_built_site_pass(site: Path):
    if NODE is None:
        pytest.fail("Node.js is not installed; run .ci/run or apt-get install nodejs")
    files = sorted(str(path) for path in SITE_TESTS.glob("*.js"))
    assert files
    result = subprocess.run(
        [NODE, "--test", "--test-reporter=dot", *files],
        env={**os.environ, "RECIPEBOOK_SITE": str(site)},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    if result.returncode != 0:  # the spec reporter says which test failed and why
        detail = subprocess.run(
            [NODE, "--test", *files],
            env={**os.environ, "RECIPEBOOK_SITE": str(site)},
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        pytest.fail(detail.stdout[-20000:] + detail.stderr[-5000:])


@pytest.mark.parametrize("language", ["en", "ko"])
def test_npm_tests_run_on_the_language_data_a_build_writes(site: Path, language: str):
    made = subprocess.run(
        [sys.executable, str(JS_TESTS / "jsdata.py"), language], capture_output=True, text=True, check=True
    )
    scripts = json.loads(made.stdout)
    static = site / language / "_static"
    assert scripts["language_data.js"] == (static / "language_data.js").read_text(encoding="utf-8")
    built = _data(static / "recipebook-search-data.js")
    made_data = json.loads(scripts["recipebook-search-data.js"].removeprefix(PREFIX).removesuffix(";\n"))
    assert made_data.keys() == built.keys()
    for key, value in made_data.items():  # all but what the pages give (no pages: empty) is the build's
        assert value == built[key] or not value, key


PREFIX = "var RecipeSearchData = "


def _data(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8").removeprefix(PREFIX).removesuffix(";\n"))


def test_the_search_page_reads_the_scorers_numbers_from_the_build(site: Path):
    text = (site / "ko" / "_static" / "recipebook-search-data.js").read_text(encoding="utf-8")
    data = json.loads(text.removeprefix("var RecipeSearchData = ").removesuffix(";\n"))
    assert data["params"] == PARAMS
    assert data["explorer"]["recipes/A.X-K2"]  # the explorer's own terms of a recipe page
