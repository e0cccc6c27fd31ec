"""The site's query pipeline and scorer (``recipebook-search.js``), tested in Node.js where it runs.

The tests themselves are in ``tests/js/*.test.js`` (node's built-in test runner); this runs them,
the explorer's nearest offered selection (``nearest.test.js``, which needs no site) too,
with ``RECIPEBOOK_SITE`` set to the site built once for the session, whose language trees hold
the stemmer, glossary and scorer's numbers the build generates.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from recipebook_sphinx.search.build import PARAMS
from search_support import NODE

JS_TESTS = Path(__file__).parent / "js"


def test_the_pipelines_node_tests_pass(site: Path):
    if NODE is None:
        pytest.fail("Node.js is not installed; run .ci/run or apt-get install nodejs")
    files = sorted(str(path) for path in JS_TESTS.glob("*.test.js"))
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


def test_the_search_page_reads_the_scorers_numbers_from_the_build(site: Path):
    text = (site / "ko" / "_static" / "recipebook-search-data.js").read_text(encoding="utf-8")
    data = json.loads(text.removeprefix("var RecipeSearchData = ").removesuffix(";\n"))
    assert data["params"] == PARAMS
    assert data["explorer"]["recipes/A.X-K2"]  # the explorer's own terms of a recipe page
