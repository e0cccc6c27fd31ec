"""The search's figures and what a reader sees, measured in Chromium on a built site.

Runs every query of tests/search_sets (both languages, the tuning and the held-back part)
through the built ``search.html`` of each language, as tests/browser/test_search_sets.py does, and
prints recall@5, wrong first results and correct "no answer" per set; then the results of
ten common queries per language with the summary under each, as the page shows them
(highlighted words in bold); then what one query costs a reader on a warm page (the search
page opened once, so its scripts and index are in the browser's cache): the time until the
result list says it has finished and until the first results' summaries are shown, and the bytes
downloaded (the Resource Timing API's transferSize of everything the query's page fetched), per
language, for every query of the sets. ``--sets real`` (or ``portal``) measures the sets of that
folder of tests/search_sets instead of the shipped site's (on a portal built by
bench/portal.py). ``--before DIR`` measures another built tree the same way
(for example the site before this search, with Sphinx's own), ``--out FILE`` writes the
output there as a Markdown document too (``make search-report``: _build/search-report.md;
generated figures never go into the README).

Usage: python bench/search_report.py [--html _build/html] [--before DIR] [--out FILE]
(``make search-report`` builds the site first). ``--portal DIR`` also builds the test suite's
portal (bench/portal.py --suite: real recipes of every shape and generated ones) in DIR, unless
it is built there already, and measures its query sets (tests/search_sets/portal and portal-real)
on it the same way; ``make search-report`` does (_build/portal).
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "_ext"))

import portal  # noqa: E402  (bench/portal.py, beside this file)

import query_sets  # noqa: E402
from conftest import CHROMIUM, CHROMIUM_ARGS, served  # noqa: E402

LANGUAGES = ("ko", "en")
COMMON = {
    "ko": [
        "vllm-rbln 설치 방법",
        "프리픽스 캐싱 켜려면",
        "추측디코딩",
        "A.X-K2 NPU 몇 개 필요해요?",
        "gpt-oss-120b 서빙하는 법",
        "max-model-len 바꾸면 다시 컴파일돼요?",
        "LMCache 오프로드",
        "프리필 디코드 분리 서빙",
        "툴콜링 켜는 법",
        "번역하는 법",
    ],
    "en": [
        "how to install vllm-rbln",
        "enable prefix caching",
        "speculatve decoding",
        "how many NPUs does A.X-K2 need?",
        "how do I serve gpt-oss-120b?",
        "does changing max model length trigger recompilation?",
        "lmcache offload",
        "prefill decode disaggregated",
        "tool calling",
        "how do I add a new model recipe?",
    ],
}
MARKED = r"""(p) => [...p.childNodes].map((n) => n.nodeType === 1 ? `\u0001${n.textContent}\u0002` : n.textContent).join("")"""


def load(sets: str, language: str, part: str) -> list[dict]:
    folder = query_sets.SETS / sets if sets else query_sets.SETS
    return json.loads((folder / f"{language}-{part}.json").read_text(encoding="utf-8"))


def figures(page, base: str, tree: Path, language: str, part: str, sets: str = "") -> query_sets.Figures:
    entries = load(sets, language, part)
    results = {}
    for entry in entries:
        docs = [item["doc"] for item in query_sets.browser_search(page, base, entry["query"])]
        results[entry["query"]] = list(dict.fromkeys(docs))  # Sphinx's own search lists a page more than once
    # the recipes of the project the tree was built from (a portal's own), else this project's
    recipes = next(
        (d / "recipes" for d in tree.parents if (d / "recipes" / "schema.json").is_file()), query_sets.ROOT / "recipes"
    )
    texts = dict(query_sets.page_texts(tree / language))
    for path in (tree / language).rglob("*.html"):  # a page built but kept out of that tree's index (an
        name = path.relative_to(tree / language).with_suffix("").as_posix()  # older build's reference)
        if not name.startswith("_") and name not in ("search", "genindex", "404"):
            texts.setdefault(name, "")  # exists, and cannot be found
    return query_sets.figures(entries, results, texts, recipes)


# What the query's page downloaded: the page itself and every resource, as the network sent them
# (a file the browser's cache answered counts 0, a revalidated one its headers).
# What one query's page fetched: the page and its scripts as the network sent them (the browser's
# cache answers a warm page's), and each result's summary source in full even when the cache
# answered (another query fetched it before): a summary file, or with Sphinx's own search the
# result's whole page.
BYTES = """() => [performance.getEntriesByType('navigation')[0], ...performance.getEntriesByType('resource')]
  .reduce((sum, entry) => sum + (entry.initiatorType === 'fetch'
    ? Math.max(entry.transferSize || 0, entry.encodedBodySize || 0) : entry.transferSize || 0), 0)"""


def cost(page, base: str, query: str) -> tuple[int, float, float, int]:
    """One query on a warm search page: its results, the seconds until the list says it has
    finished and until the first results' summaries are shown, and the bytes downloaded."""
    start = time.perf_counter()
    page.goto(f"{base}/search.html?q={query_sets.quote(query)}")
    page.wait_for_function(query_sets.FINISHED, timeout=180_000)
    finished = time.perf_counter() - start
    page.wait_for_function(query_sets.SUMMARISED, timeout=180_000)
    summarised = time.perf_counter() - start
    page.wait_for_timeout(200)  # a summary fetched late still counts
    results = page.eval_on_selector_all("#search-results ul.search > li", "(lis) => lis.length")
    return results, finished, summarised, page.evaluate(BYTES)


def costs(page, base: str, queries: list[str]) -> str:
    page.goto(f"{base}/search.html")  # warm: the page, its scripts and the index in the cache
    page.wait_for_load_state("networkidle")
    found = [cost(page, base, query) for query in queries]
    many = [f for f in found if f[0] >= 15]

    def line(rows: list[tuple[int, float, float, int]]) -> str:
        if not rows:
            return "none"
        med = statistics.median
        return (
            f"finished {med(r[1] for r in rows):.2f} s / {max(r[1] for r in rows):.2f} s, "
            f"summaries {med(r[2] for r in rows):.2f} s / {max(r[2] for r in rows):.2f} s, "
            f"{med(r[3] for r in rows) / 1e3:.0f} kB / {max(r[3] for r in rows) / 1e3:.0f} kB"
        )

    slowest = max(zip(found, queries, strict=True), key=lambda pair: pair[0][1])
    return (
        f"{len(found)} queries: {line(found)}; the {len(many)} with 15 results or more: {line(many)}; "
        f"slowest `{slowest[1]}` ({slowest[0][0]} results)"
    )


def index_sizes(tree: Path, language: str) -> str:
    static = tree / language / "_static"
    files = [tree / language / "searchindex.js", static / "language_data.js", static / "recipebook-search-data.js"]
    sizes = [f.stat().st_size if f.is_file() else 0 for f in files]
    folder = tree / language / "_search"
    summaries = [f.stat().st_size for f in folder.rglob("*.json")] if folder.is_dir() else []
    largest = f", largest summary file {max(summaries) / 1e3:.0f} kB" if summaries else ""
    return (
        f"searchindex.js {sizes[0] / 1e3:.0f} kB, language_data.js {sizes[1] / 1e3:.0f} kB, "
        f"recipebook-search-data.js {sizes[2] / 1e3:.0f} kB{largest}"
    )


def _markdown(text: str) -> str:
    text = re.sub(r"([\\`*_\[\]<>#|~])", r"\\\1", " ".join(text.split()))
    return text.replace("\u0001", "**").replace("\u0002", "**")


def summaries(page, base: str, language: str) -> list[str]:
    lines = []
    for query in COMMON[language]:
        query_sets.browser_search(page, base, query, summaries=True)
        items = page.eval_on_selector_all(
            "#search-results ul.search > li",
            "(lis) => lis.filter((li) => li.querySelector('p.context'))"  # the results shown with a summary
            f".map((li) => [li.querySelector('a').innerText, ({MARKED})(li.querySelector('p.context'))])",
        )
        status = page.inner_text("#search-results .search-summary")
        lines.append(f"- `{query}`: {_markdown(status)}")
        lines += [f"  {n}. {_markdown(title)}: {_markdown(text)}" for n, (title, text) in enumerate(items, 1)]
    return lines


def report(tree: Path, before: Path | None, sets: tuple[str, ...] = ("",), cost_queries: int = 0) -> str:
    """The figures of the query sets of the folders `sets` of tests/search_sets ("": the shipped
    site's) on a built tree (and on `before`), what a reader sees and what a query costs."""
    from playwright.sync_api import sync_playwright

    rows: dict[tuple[str, str, str], list[str]] = {}
    shown: dict[str, list[str]] = {}
    spent: dict[str, list[str]] = {}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        for name, site in (("before", before), ("now", tree)):
            if site is None:
                continue
            with served(site) as server:
                for language in LANGUAGES:
                    for folder in sets:
                        for part in query_sets.PARTS:
                            found = figures(page, f"{server}/{language}", site, language, part, folder)
                            rows.setdefault((folder, language, part), []).append(found.line())
                    if name == "now":
                        shown[language] = summaries(page, f"{server}/{language}", language)
                    queries = COMMON[language] + [
                        e["query"] for folder in sets for part in query_sets.PARTS for e in load(folder, language, part)
                    ]
                    queries = queries[:cost_queries] if cost_queries else queries
                    spent.setdefault(language, []).append(
                        f"{name}: {costs(page, f'{server}/{language}', queries)}; {index_sizes(site, language)}"
                    )
        browser.close()
    names = {"ko": "Korean", "en": "English"}
    lines = [
        "| Set | Queries | " + ("Before (Sphinx's search) | " if before else "") + "Now |",
        "| --- | --- | " + ("--- | " if before else "") + "--- |",
    ]
    for (folder, language, part), found in rows.items():
        count = len(load(folder, language, part))
        label = f"{folder}: " if folder else ""
        lines.append(f"| {label}{names[language]}, {part} | {count} | " + " | ".join(found) + " |")
    for language in LANGUAGES:
        lines += ["", f"{names[language]} (`{language}/search.html`), the summary under each result:", ""]
        lines += shown[language]
    lines += ["", "What one query costs on a warm page (median / max), and the index:", ""]
    for language in LANGUAGES:
        lines += [f"- {names[language]}, {found}" for found in spent[language]]
    return "\n".join(lines) + "\n"


def suite_portal(folder: Path) -> Path:
    """The built html of the test suite's portal in `folder` (built there unless it was before)."""
    project = folder / "project"
    html = project / "_build" / "html"
    if not (html / "ko" / "searchindex.js").is_file():
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        portal.suite(project)
        subprocess.run(["make", "-s", "html", "SPHINXOPTS=", f"BUILD={project / '_build'}"], cwd=project, check=True)
    return html


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    parser.add_argument("--html", type=Path, default=ROOT / "_build" / "html")
    parser.add_argument("--before", type=Path)
    parser.add_argument("--out", type=Path, help="also write the report to this file")
    parser.add_argument(
        "--sets",
        default="",
        help="folders of tests/search_sets, comma-separated (real, portal, portal-real), instead of the site's sets",
    )
    parser.add_argument(
        "--portal",
        type=Path,
        metavar="DIR",
        help="also build the test suite's portal in DIR (bench/portal.py --suite; kept when built before) "
        "and measure its sets (portal, portal-real) on it",
    )
    parser.add_argument(
        "--cost-queries",
        type=int,
        default=0,
        help="measure the cost of the first N queries only (the ten common ones first)",
    )
    args = parser.parse_args(argv)
    text = report(args.html, args.before, tuple(args.sets.split(",")), args.cost_queries)
    if args.portal:
        text += "\n## The test suite's portal (bench/portal.py --suite)\n\n"
        text += report(suite_portal(args.portal), None, ("portal", "portal-real"), args.cost_queries)
    print(text)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text("# Search report (make search-report)\n\n" + text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
