"""Issue 42.3: `make bench` runs to its end on the project as it is, and reports the peak memory
of each step's processes.

bench/run.py --quick runs every step of the bench at the smallest sizes (the shipped site with
make html, the generated site, its plain-text twin without the extension, the profiles, the
rebuilds, the engine, the page weights, a bilingual site, a large portal, and the figures of the
session's portal, which conftest.portal_project built and measured as the bench measures a step); its
figures are checked for sense, never for speed. Where two of its steps would build the same pages,
it builds them once: each figure it shares must come from a build that wrote the whole site. measured() is checked on a process tree whose
largest process is a grandchild of a known size.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from conftest import PORTAL_COUNT, ROOT

BENCH = ROOT / "bench"
MIB = 1 << 20

pytestmark = pytest.mark.slow

if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

import run as bench  # noqa: E402  (bench/run.py)


@pytest.fixture(scope="module")
def quick(quick_bench: Path) -> tuple[dict, str]:
    """One quick run of the bench, as make bench runs it (its figures and its Markdown table)."""
    figures = json.loads((quick_bench / "bench.json").read_text(encoding="utf-8"))
    return figures, (quick_bench / "bench.md").read_text(encoding="utf-8")


def test_every_step_runs_and_its_figures_make_sense(quick, quick_bench: Path):
    figures, table = quick
    assert figures["quick"] is True
    seconds = ["shipped_build", "shipped_sequential", "gen_build_j1", "plain_build_j1", "gen_build_j2"]
    seconds += ["rebuild_unchanged", "incremental"]
    assert all(figures[key] > 0 for key in seconds), {key: figures[key] for key in seconds}
    engine = figures["engine"]
    shipped = [p for p in (ROOT / "recipes").glob("*.json") if p.name != "schema.json"]
    assert engine["recipes"] == figures["recipes"] == len(shipped) + 1  # the shipped recipes and one variant
    assert engine["selections"] >= figures["shipped_selections"] > 0
    assert figures["incremental_pages"] >= 1  # the touched recipe's page at least
    assert figures["profile"]["directives"]["top"] and figures["profile"]["directives"]["ours"] > 0
    assert figures["shipped_output"]["api"]["bytes"] > 0 and figures["shipped_output"]["trees"]["files"] > 0
    assert {w["page"] for w in figures["weight"]} == {p.stem for p in shipped}
    assert all(w["shipped"] >= w["recommended"] > 0 for w in figures["weight"])
    assert [c["recipes"] for c in figures["curve"]] == [len(shipped) + 1]
    portals = figures["portals"]
    # the portal of the shipped kind is the session's portal (--portal-built), with its recipes and its figures
    portal = quick_bench.parent / "portal"
    built = json.loads((portal / "build.json").read_text(encoding="utf-8"))
    suite = [p for p in (portal / "project" / "recipes").glob("*.json") if p.name != "schema.json"]
    assert portals["shipped_kind"]["recipes"] == len(suite) >= PORTAL_COUNT and portals["shipped_kind"]["bytes"] > 0
    assert portals["shipped_kind"]["seconds"] == built["seconds"] > 0 and portals["shipped_kind"]["targets"] > 0
    assert figures["peaks"][f"portal of {len(suite)} recipes: make html"] == built["peak"] > 0
    assert [row["recipes"] for row in portals["large"]] == [3] and portals["large"][0]["targets"] > 0
    assert "| Engine: validate" in table and "Peak memory per process" in table


def test_a_figure_the_quick_run_shares_is_that_of_a_build_of_the_whole_site(quick, quick_bench: Path):
    """--quick builds a page set once where two steps would build the same: make html
    LANGUAGE_JOBS=1 gives the figures of the shipped site side by side too (the same files), the
    profiled builds the -j 1 figures; the growth curve's site is the generated site, its languages
    side by side: its English build, at -j 1 under cProfile, is the profiled build of the directive
    pages (and the tree the rebuilds rebuild), its Korean build, at -j 2, the -j 2 figure. Each
    shared figure names the step that built it, and that build wrote every page of its site (a
    shared step that built nothing fails here)."""
    figures, table = quick
    work = quick_bench / "work"
    site = f"{figures['recipes']}-recipe site"
    assert figures["shared"] == {
        "gen_build_j1": f"{site}, both languages side by side",
        "gen_build_j2": f"{site}, both languages side by side",
        "plain_build_j1": f"{site}, English, plain pages under cProfile",
        "shipped_build": "shipped site: make html LANGUAGE_JOBS=1",
    }
    assert set(figures["shared"].values()) <= set(figures["peaks"])  # each ran, as a step of its own
    assert figures["shipped_build"] == figures["shipped_sequential"]
    assert figures["gen_build_j1"] == figures["profile"]["directives"]["wall"]
    assert figures["plain_build_j1"] == figures["profile"]["plain"]["wall"]
    every = {"index.html", "install.html"}
    generated = every | {f"recipes/{p.stem}.html" for p in (work / "recipes").glob("*.json")}
    shipped = every | {f"recipes/{p.stem}.html" for p in (ROOT / "recipes").glob("*.json") if p.name != "schema.json"}
    assert len(generated) == figures["recipes"] + 2 and len(shipped) == figures["recipes"] + 1
    curve = work / f"curve-{figures['recipes']}" / "out" / "html"
    # the curve's English tree is the profiled build's: every page but those the touched recipe's
    # rebuild rewrote was written before that build's profile (cProfile writes it as the build ends)
    profile = (curve.parent / "profile").stat()
    english = list((curve / "en").rglob("*.html"))
    later = [p.relative_to(curve).as_posix() for p in english if p.stat().st_mtime_ns > profile.st_mtime_ns]
    assert profile.st_size > 0 and len(later) <= figures["incremental_pages"] < len(english), later
    trees = [(work / "profile-plain" / "html", generated)]
    trees += [(curve / language, generated) for language in ("en", "ko")]
    trees += [(work / "sequential" / "html" / language, shipped) for language in ("en", "ko")]
    for tree, pages in trees:
        built = {p.relative_to(tree).as_posix() for p in tree.rglob("*.html")}
        assert pages <= built, (tree, sorted(pages - built))
    assert "--quick builds each page set once" in table


def test_peak_memory_is_reported_for_every_step_of_the_bench(quick):
    figures, table = quick
    peaks = figures["peaks"]
    # (--quick's make html of the shipped site side by side is its LANGUAGE_JOBS=1 build: the test above)
    steps = [
        "shipped site: make html LANGUAGE_JOBS=1",
        f"portal of {figures['portals']['shipped_kind']['recipes']} recipes: make html",  # the session's portal
        "portal of 3 recipes of 2 tabs of 2 targets: make html",
        "the bench's own process (the engine figures, in process)",
    ]
    assert set(steps) <= set(peaks), sorted(peaks)
    assert any("plain pages" in step for step in peaks) and any("both languages" in step for step in peaks)
    # a Python process that has imported Sphinx holds tens of MiB; none of these holds gigabytes
    assert all(30 * MIB < size < 4096 * MIB for size in peaks.values()), peaks
    for step in peaks:
        assert f"| {step} | " in table


# a grandchild of the measured command that holds 200 MiB, touched page by page
GRANDCHILD = (
    "import subprocess, sys; subprocess.run([sys.executable, '-c', "
    "'block = bytearray(200 * 2**20); block[::4096] = bytes(len(block[::4096]))'], check=True)"
)


def test_a_steps_peak_is_its_largest_process_even_a_grandchild():
    bench.measured([sys.executable, "-c", GRANDCHILD], "probe")
    bench.measured([sys.executable, "-c", "pass"], "probe")  # a later, smaller run keeps the step's largest
    assert 200 * MIB <= bench.PEAKS["probe"] < 400 * MIB, bench.PEAKS["probe"]


def test_a_steps_peak_is_its_own_however_large_the_bench_has_grown():
    """The bench's process holds 300 MiB; a small command started from it is measured small (a
    child started straight from it counted the parent's size as its own)."""
    ballast = bytearray(300 * MIB)
    ballast[::4096] = bytes(len(ballast[::4096]))  # resident, page by page
    bench.measured([sys.executable, "-c", "pass"], "small step")
    assert bench.self_peak() >= 300 * MIB > 4 * bench.PEAKS["small step"], bench.PEAKS["small step"]
    del ballast


def test_a_failing_step_stops_the_bench_with_its_command_and_errors():
    with pytest.raises(SystemExit) as stop:
        bench.measured([sys.executable, "-c", "import sys; sys.exit('no such recipe')"], "broken step")
    assert "broken step failed" in str(stop.value) and "no such recipe" in str(stop.value)


def test_a_directive_without_a_plain_rendering_is_named(tmp_path: Path):
    pages = tmp_path / "src"
    pages.mkdir()
    (pages / "page.md").write_text("# Page\n\n```{recipe-newthing} x\n```\n", encoding="utf-8")
    with pytest.raises(SystemExit) as stop:
        bench.plain_source(pages, tmp_path / "plain", [], {})
    assert "page.md" in str(stop.value) and "recipe-newthing" in str(stop.value)
