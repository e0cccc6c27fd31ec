"""The site's own search, run in Node.js on a built language tree: what a reader's query finds."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

NODE = shutil.which("node")
# The pipeline as the extension ships it (a built tree holds a copy; the language's data is the tree's own).
SEARCH_JS = Path(__file__).resolve().parents[1] / "_ext" / "recipebook_sphinx" / "static" / "recipebook-search.js"

# Runs Sphinx's own searchtools.js, in the order the search page loads the scripts, and
# prints the documents each query finds.
SEARCH_RUNNER = r"""
const fs = require("fs");
const vm = require("vm");
const input = JSON.parse(fs.readFileSync(0, "utf8"));
const context = vm.createContext({
  _ready: () => {},
  document: { getElementById: () => null },
  SPHINX_HIGHLIGHT_ENABLED: false,
});
context.window = context;
for (const file of input.files) vm.runInContext(fs.readFileSync(file, "utf8"), context, { filename: file });
const Search = vm.runInContext("Search", context);
process.stdout.write(JSON.stringify(input.queries.map((query) => {
  const [q, searchTerms, excluded, highlight, objects] = Search._parseQuery(query);
  return [...new Set(Search._performSearch(q, searchTerms, excluded, highlight, objects).map((r) => r[0]))];
})));
"""


def search(tree: Path, queries: list[str]) -> dict[str, set[str]]:
    """What the search of a built language tree finds for each query (docnames)."""
    if NODE is None:
        pytest.fail("Node.js is not installed; run make test (tools/system-packages) or apt-get install nodejs")
    files = [tree / "_static" / "searchtools.js", tree / "_static" / "language_data.js", tree / "searchindex.js"]
    payload = json.dumps({"files": [str(f) for f in files], "queries": queries})
    result = subprocess.run(
        [NODE, "-e", SEARCH_RUNNER], input=payload, capture_output=True, text=True, check=True, timeout=60
    )
    return {query: set(found) for query, found in zip(queries, json.loads(result.stdout), strict=True)}


# Runs the site's own pipeline (recipebook-search.js) as the search page loads it, and prints
# each query's words and ranked pages.
PIPELINE_RUNNER = r"""
const fs = require("fs");
const vm = require("vm");
const input = JSON.parse(fs.readFileSync(0, "utf8"));
let index = null;
const context = vm.createContext({ Search: { setIndex: (data) => (index = data) } });
context.window = context;
for (const file of input.files) vm.runInContext(fs.readFileSync(file, "utf8"), context, { filename: file });
const RecipeSearch = vm.runInContext("RecipeSearch", context);
const word = (w) => ({ text: w.text, how: w.how, weight: w.weight, stems: [...w.stems],
  pages: [...w.matches.keys()].sort((a, b) => a - b) });
const results = input.queries.map((query) => {
  const result = RecipeSearch.search(query, index);
  return {
    words: result.words.map(word),
    hits: result.hits.map((h) => [h.docname, h.anchor, h.score, h.coverage]),
    pieces: RecipeSearch.pieces(query, index).map(([start, text, words]) => ({
      start, text, words: words.map(word), filler: RecipeSearch.leftOutAsFiller(text) })),
  };
});
const fillers = Object.fromEntries((input.tokens || []).map((t) => [t, RecipeSearch.leftOutAsFiller(t)]));
process.stdout.write(JSON.stringify({ results, fillers }));
"""


def _run_pipeline(tree: Path, queries: list[str], tokens: list[str]) -> dict:
    if NODE is None:
        pytest.fail("Node.js is not installed; run make test (tools/system-packages) or apt-get install nodejs")
    static = tree / "_static"
    files = [
        static / "language_data.js",
        static / "recipebook-search-data.js",
        SEARCH_JS,
        tree / "searchindex.js",
    ]
    payload = json.dumps({"files": [str(f) for f in files], "queries": queries, "tokens": tokens})
    result = subprocess.run(
        [NODE, "-e", PIPELINE_RUNNER], input=payload, capture_output=True, text=True, check=True, timeout=300
    )
    return json.loads(result.stdout)


def pipeline(tree: Path, queries: list[str]) -> dict[str, dict]:
    """What the site's search page does with each query: its words, its hits ([docname, anchor,
    score, coverage], best first) and its pieces (each name and token of the query: start, text,
    the words it gave, whether it was left out as a filler)."""
    return dict(zip(queries, _run_pipeline(tree, queries, [])["results"], strict=True))


def left_out_as_filler(tree: Path, tokens: list[str]) -> dict[str, bool]:
    """Whether the search page leaves each token out as a question word, a filler or a stopword."""
    return _run_pipeline(tree, [], tokens)["fillers"]
