"""Measured results on the pages (issue 40, item 3): per selection, its figures with when and
with what they were measured, a stale mark, or that nothing was measured; one plot per recipe
(an SVG image drawn at build time, labels translated) beside the same figures in a table; the
API, the Markdown view and llms.txt carry the same numbers; without JavaScript each selection
shows its own results. The results are the real file of tests/data/results (written by vLLM's
vllm bench serve), stored by `results add`."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

import recipebook
from recipebook import cli
from recipebook.expanding import client, page, results
from test_browser_serving import hidden

ROOT = Path(__file__).resolve().parents[1]
(REAL,) = sorted((ROOT / "tests" / "data" / "results").glob("openai-chat-*.json"))
RECIPE, DP, PP = "A.X-K2", "aggregated-data-expert-parallel", "aggregated-pipeline-parallel"


def _result_file(tmp_path: Path, strategy: str, target: str, name: str, **changes) -> Path:
    """The real result, named for a selection of the shipped recipe (its commands hash as the
    page gives it), with the given keys changed."""
    data = json.loads(REAL.read_text(encoding="utf-8"))
    recipe = recipebook.load(ROOT / "recipes" / f"{RECIPE}.json")
    model = page.page_of(recipe).target(strategy, target)
    data.update(
        strategy=strategy,
        target=target,
        selection=client.selection_words(model.opening_selection()),
        commands=model.commands_hash(model.opening),
        model_id=client.served_model(model.opening_commands()[0]),
        **changes,
    )
    path = tmp_path / "in" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def stored(tmp_path_factory) -> tuple[Path, list[results.Result]]:
    tmp_path = tmp_path_factory.mktemp("measured")
    files = [
        _result_file(tmp_path, DP, "Latency", "a.json"),
        _result_file(
            tmp_path,
            PP,
            "Throughput",
            "b.json",
            input_len="1024",
            output_len="128",
            max_concurrency=8,
            num_prompts=64,
            completed=64,
            output_throughput=4000.0,
            median_tpot_ms=15.0,
            p99_tpot_ms=19.0,
        ),
    ]
    folder = tmp_path / "results"
    assert (
        cli.main(["results", "add", *map(str, files), "--results", str(folder), "--run", "https://ci.example.org/r/7"])
        == 0
    )
    # a stale one: the run of commands the selection no longer has (stored as an older add kept it)
    found, wrong = results.load(folder, RECIPE)
    assert not wrong and len(found) == 2
    old = found[0].to_json()
    old.update(commands="sha256:0000000000000000", date="2026-11-01T09:00:00+09:00", sha256="1" * 64)
    (folder / RECIPE / "old.json").write_text(json.dumps(old), encoding="utf-8")
    return folder, list(results.load(folder, RECIPE)[0])


def _build(rootdir: Path, tmp_path: Path, folder: Path, language: str) -> Path:
    """One language of the test root, in a process of its own (as make html builds each language):
    Sphinx keeps the first language's catalogs for the rest of a process."""
    srcdir = tmp_path / f"src-{language}"
    shutil.copytree(rootdir / "test-recipes", srcdir)
    out = tmp_path / "html" / language  # a language tree: the site-level files (API) beside it
    command = [
        sys.executable, "-m", "sphinx", "-q", "-b", "html", "-c", str(srcdir),
        "-d", str(srcdir / "_build" / "doctrees"),
        "-D", f"recipebook_results_dir={folder}", "-D", f"language={language}",
        str(srcdir), str(out),
    ]  # fmt: skip
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "_ext"), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run(command, capture_output=True, text=True, env=environment, check=False)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    return out


@pytest.fixture(scope="module")
def built(stored, tmp_path_factory):
    folder, found = stored
    rootdir = Path(__file__).parent / "roots"
    tmp_path = tmp_path_factory.mktemp("sites")
    return {lang: _build(rootdir, tmp_path, folder, lang) for lang in ("en", "ko")}, found


def _form(soup, strategy, target):
    return soup.select_one(f'form.rb-grid[data-strategy="{strategy}"][data-target="{target}"]')


def test_each_selection_shows_its_own_results_without_javascript(built):
    out, found = built
    soup = BeautifulSoup((out["en"] / f"{RECIPE}.html").read_text(encoding="utf-8"), "html.parser")
    recipe = recipebook.load(ROOT / "recipes" / f"{RECIPE}.json")
    for strategy, target in ((DP, "Latency"), (PP, "Throughput")):
        model = page.page_of(recipe).target(strategy, target)
        form = _form(soup, strategy, target)
        mine = [r for r in found if (r.strategy, r.target) == (strategy, target)]
        for chosen in model.table.offered:
            shown = [s for s in form.select("section.rb-measured") if not hidden(s, chosen)]
            assert len(shown) == 1
            text = shown[0].get_text(" ")
            if tuple(chosen) == tuple(model.opening):
                for result in mine:
                    assert f"{result.per_npu:,.1f}" in text
                    assert f"{result.ttft_ms['p50']:,.1f} / {result.ttft_ms['p99']:,.1f}" in text
                    assert result.date.replace("T", " ") in text and "vLLM 0.30.0" in text
                stale = [r for r in mine if r.commands == "sha256:0000000000000000"]
                assert ("stale" in text) is bool(stale)
            else:
                assert "Nothing has been measured for this selection yet" in text


def test_the_plot_is_an_image_with_translated_labels_beside_the_same_figures(built):
    out, found = built
    for lang, label in (("en", "Output tokens/s per NPU"), ("ko", "NPU당 출력 토큰/초")):
        html = (out[lang] / f"{RECIPE}.html").read_text(encoding="utf-8")
        soup = BeautifulSoup(html, "html.parser")
        (image,) = soup.select("figure.rb-plot img")
        assert image["alt"]
        svg = (out[lang] / image["src"]).read_text(encoding="utf-8")
        assert svg.startswith("<?xml") and "<script" not in svg
        assert label in svg  # text kept as text: translated, searchable, readable without JavaScript
        rows = soup.select("table.rb-results-table tbody tr")
        assert len(rows) == len(found)
        table = soup.select_one("table.rb-results-table").get_text(" ")
        for result in found:
            assert f"{result.per_npu:,.1f}" in table


def test_the_api_markdown_and_llms_carry_the_same_numbers(built):
    out, found = built
    best: dict[tuple[str, str], float] = {}
    for r in found:
        key = (r.strategy, r.target)
        best[key] = max(best.get(key, 0.0), r.per_npu)
    for lang in ("en", "ko"):
        view = (out[lang] / f"{RECIPE}.md").read_text(encoding="utf-8")
        for result in found:  # each result is of a target's opening selection: its text form shows it
            assert f"{result.per_npu:,.1f}" in view
        text = (out[lang] / "llms.txt").read_text(encoding="utf-8")
        for value in best.values():
            assert f"{value:,.1f}" in text
    document = json.loads((out["en"].parent / "api" / "recipes" / f"{RECIPE}.json").read_text(encoding="utf-8"))
    measured = [m for t in document["targets"] for m in t["measured"]]
    assert sorted(m["per_npu_output_throughput"] for m in measured) == sorted(r.per_npu for r in found)
    assert {tuple(m["stale"]) for m in measured} == {(), ("commands",)}
    for target in document["targets"]:
        assert len(target["commands_hashes"]) == target["selections"]  # one per offered selection


def test_the_shipped_site_says_nothing_was_measured(site: Path):
    for lang, empty in (
        ("en", "No results have been measured for this recipe yet"),
        ("ko", "아직 측정한 결과가 없어서"),
    ):
        for name in ("A.X-K2", "gpt-oss-120b"):
            html = (site / lang / "recipes" / f"{name}.html").read_text(encoding="utf-8")
            assert empty in html and "rb-plot" not in html
            soup = BeautifulSoup(html, "html.parser")
            assert not soup.select("table.rb-measured-table")  # no figure shown as measured
            view = (site / lang / "recipes" / f"{name}.md").read_text(encoding="utf-8")
            assert empty in view
        document = json.loads((site / "api" / "recipes" / "A.X-K2.json").read_text(encoding="utf-8"))
        assert all(t["measured"] == [] for t in document["targets"])
        assert re.search(r"not measured yet|아직 측정하지 않음", (site / lang / "llms.txt").read_text(encoding="utf-8"))


def test_the_page_states_the_standard_workloads_and_the_command(site: Path):
    soup = BeautifulSoup((site / "en" / "recipes" / "A.X-K2.html").read_text(encoding="utf-8"), "html.parser")
    form = _form(soup, DP, "Latency")
    note = form.select_one("p.rb-bench-note").get_text()
    assert "1,024 tokens in, 128 out, 1 at a time" in note and "8,192 tokens in, 1,024 out, 8 at a time" in note
    assert "results add" in note
    code = (
        form.select_one("div.rb-serving pre").get_text()
        if False
        else " ".join(p.get_text() for p in form.select("div.rb-serving pre"))
    )
    assert "--save-result" in code and "--max-concurrency" in code and "commands=sha256:" in code
