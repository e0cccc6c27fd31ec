"""The search's figures and what a reader sees, measured in Chromium on a built site.

Runs every query of tests/search_sets (both languages, the tuning and the held-back part)
through the built ``search.html`` of each language, as tests/browser/test_search_sets.py does, and
prints recall@5, wrong first results and correct "no answer" per set; then the results of
ten common queries per language with the summary under each, as the page shows them
(highlighted words in bold). ``--before DIR`` measures another built tree the same way
(for example the site before this search, with Sphinx's own), ``--out FILE`` writes the
output there as a Markdown document too (``make search-report``: _build/search-report.md;
generated figures never go into the README).

Usage: python bench/search_report.py [--html _build/html] [--before DIR] [--out FILE]
(``make search-report`` builds the site first).
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "_ext"))

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


def figures(page, base: str, tree: Path, language: str, part: str) -> query_sets.Figures:
    entries = query_sets.load(language, part)
    results = {}
    for entry in entries:
        docs = [item["doc"] for item in query_sets.browser_search(page, base, entry["query"])]
        results[entry["query"]] = list(dict.fromkeys(docs))  # Sphinx's own search lists a page more than once
    return query_sets.figures(entries, results, query_sets.page_texts(tree / language))


def _markdown(text: str) -> str:
    text = re.sub(r"([\\`*_\[\]<>#|~])", r"\\\1", " ".join(text.split()))
    return text.replace("\u0001", "**").replace("\u0002", "**")


def summaries(page, base: str, language: str) -> list[str]:
    lines = []
    for query in COMMON[language]:
        query_sets.browser_search(page, base, query, summaries=True)
        items = page.eval_on_selector_all(
            "#search-results ul.search > li",
            f"(lis) => lis.map((li) => [li.querySelector('a').innerText, ({MARKED})(li.querySelector('p.context'))])",
        )
        status = page.inner_text("#search-results .search-summary")
        lines.append(f"- `{query}`: {_markdown(status)}")
        lines += [f"  {n}. {_markdown(title)}: {_markdown(text)}" for n, (title, text) in enumerate(items, 1)]
    return lines


def report(tree: Path, before: Path | None) -> str:
    from playwright.sync_api import sync_playwright

    rows: dict[tuple[str, str], list[str]] = {}
    shown: dict[str, list[str]] = {}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        for name, site in (("before", before), ("now", tree)):
            if site is None:
                continue
            with served(site) as server:
                for language in LANGUAGES:
                    for part in query_sets.PARTS:
                        found = figures(page, f"{server}/{language}", site, language, part)
                        rows.setdefault((language, part), []).append(found.line())
                    if name == "now":
                        shown[language] = summaries(page, f"{server}/{language}", language)
        browser.close()
    names = {"ko": "Korean", "en": "English"}
    lines = [
        "| Set | Queries | " + ("Before (Sphinx's search) | " if before else "") + "Now |",
        "| --- | --- | " + ("--- | " if before else "") + "--- |",
    ]
    for (language, part), found in rows.items():
        count = len(query_sets.load(language, part))
        lines.append(f"| {names[language]}, {part} | {count} | " + " | ".join(found) + " |")
    for language in LANGUAGES:
        lines += ["", f"{names[language]} (`{language}/search.html`), the summary under each result:", ""]
        lines += shown[language]
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    parser.add_argument("--html", type=Path, default=ROOT / "_build" / "html")
    parser.add_argument("--before", type=Path)
    parser.add_argument("--out", type=Path, help="also write the report to this file")
    args = parser.parse_args(argv)
    text = report(args.html, args.before)
    print(text)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text("# Search report (make search-report)\n\n" + text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
