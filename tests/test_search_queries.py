"""A Korean reader's queries on the built Korean site: each finds every page that holds the word.

The queries are what readers type: colloquial endings (설치했는데, 지원하나요, 필요한가요),
loanword spellings the site does not use (디코드, 프리필, 명령어), particles. For each query
the test names how the site writes the word it means (its forms); the pages expected are
the pages whose text holds a word starting with one of the forms, found by plain text
search of the built HTML, independently of the stemmer. The site's search (its own
pipeline, recipebook-search.js, on the site's language_data.js and searchindex.js) must
find all of them.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from query_sets import page_texts
from search_support import pipeline

# query → the forms the site writes the word in (Korean, or the English it keeps)
QUERIES: dict[str, tuple[str, ...]] = {
    "설치했는데": ("설치",),
    "설정했는데": ("설정",),
    "복사했는데": ("복사",),
    "컴파일했는데": ("컴파일",),
    "지원하나요": ("지원",),
    "필요한가요": ("필요",),
    "번역했는데": ("번역",),
    "빌드했는데": ("빌드",),
    "검증됐나요": ("검증",),
    "서빙하려면": ("서빙",),
    "설치되나요": ("설치",),
    "디코드": ("디코딩", "decode", "decoding"),
    "디코딩": ("디코딩",),
    "프리필": ("프리필", "prefill"),
    "명령어": ("명령",),
    "명령어를": ("명령",),
    "프리픽스 캐싱을": ("프리픽스 캐싱",),
    "캐싱": ("캐시", "캐싱"),
    "오프로드": ("오프로드",),
    "양자화": ("양자화",),
    "라우터": ("라우터", "router"),
    "병렬": ("병렬",),
    "모델을": ("모델",),
    "레시피를": ("레시피",),
    "플래그가": ("플래그",),
    "번역은": ("번역",),
    "Kubernetes": ("Kubernetes",),
    "vLLM으로": ("vLLM",),
    "prefill": ("prefill", "프리필"),
    "decode": ("decode", "디코딩"),
}
# pages the issue found missing, which must stay found whatever else changes
MUST_FIND = {
    "디코딩": {"recipes/A.X-K2"},
    "프리픽스 캐싱을": {"recipes/gpt-oss-120b"},
    "설치했는데": {"install"},
    "지원하나요": {"recipes/A.X-K2", "recipes/gpt-oss-120b"},
}


def holding(texts: dict[str, str], forms: tuple[str, ...]) -> set[str]:
    """Pages with a word that starts with one of the forms (plain text search, no stemmer)."""
    patterns = [re.compile(r"(?<![\w\uac00-\ud7a3])" + re.escape(form), re.IGNORECASE) for form in forms]
    return {docname for docname, text in texts.items() if any(p.search(text) for p in patterns)}


def recall(tree: Path) -> tuple[float, dict[str, set[str]]]:
    """The share of (query, expected page) pairs found, and the pages each query misses. The
    reference pages are left out of the oracle: they write compounds that start with these words
    (검증기, a validator; 명령줄, the command line), which a prefix search counts as the word."""
    texts = {name: text for name, text in page_texts(tree).items() if not name.startswith("reference/")}
    found = {query: {hit[0] for hit in result["hits"]} for query, result in pipeline(tree, list(QUERIES)).items()}
    expected = {query: holding(texts, forms) for query, forms in QUERIES.items()}
    missed = {query: pages - found[query] for query, pages in expected.items() if pages - found[query]}
    total = sum(len(pages) for pages in expected.values())
    return (total - sum(len(pages) for pages in missed.values())) / total, missed


def test_every_query_finds_every_page_that_holds_its_word(site):
    tree = site / "ko"
    texts = page_texts(tree)
    for query, pages in MUST_FIND.items():
        assert pages <= holding(texts, QUERIES[query]), query  # the oracle agrees with the issue
    found_share, missed = recall(tree)
    print(f"Korean query set: recall {found_share:.3f} over {len(QUERIES)} queries")
    assert not missed, missed


def test_the_oracle_is_not_empty(site):
    """Each query's word is on some page, so every query is a real test."""
    texts = page_texts(site / "ko")
    assert all(holding(texts, forms) for forms in QUERIES.values())


@pytest.mark.browser
def test_korean_results_page_says_how_many_pages_it_found(browser, server):
    """Sphinx's Korean catalog leaves the count message empty; the site's own translation shows it."""
    page = browser.new_page()
    page.goto(f"{server}/ko/search.html?q=설치했는데")
    page.wait_for_function("document.querySelector('#search-results .search-summary')?.innerText.length > 0")
    summary = page.inner_text("#search-results .search-summary")
    count = page.locator("#search-results ul.search > li").count()
    page.close()
    assert count > 1 and f"페이지를 {count}개 찾았습니다" in summary, summary
