"""The site's query pipeline and scorer (recipebook_sphinx.search.query, twin of recipebook-search.js).

Unit tests of each step on a small index made here, the issue's queries on the built site,
and the agreement of the Python twin with the JavaScript the search page runs: on every
query of the reader query sets (tests/search_sets), both must return the same pages in the
same order, with the same anchors and scores.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import query_sets
from recipebook_sphinx.search.query import PARAMS, Index, Language, Searcher
from search_support import pipeline

KO, EN = Language.of("ko"), Language.of("en")


def small_index(pages: dict[str, dict[str, Any]], language: Language) -> Index:
    """An index of pages given as {docname: {"title", "body", "headings", "explorer"}}, as Sphinx
    would write it with the site's search language."""
    docnames = sorted(pages)
    terms: dict[str, set[int]] = {}
    titleterms: dict[str, set[int]] = {}
    alltitles: dict[str, list[list[Any]]] = {}
    explorer: dict[str, list[str]] = {}

    def stems(text: str) -> set[str]:
        return set(language.title_stems(text))

    for doc, name in enumerate(docnames):
        page = pages[name]
        heads = [page["title"], *page.get("headings", [])]
        for i, head in enumerate(heads):
            alltitles.setdefault(head, []).append([doc, None if i == 0 else f"h{i}"])
            for stem in stems(head):
                titleterms.setdefault(stem, set()).add(doc)
        inside = stems(page.get("explorer", ""))
        for stem in stems(page.get("body", "")) | inside:
            if doc not in titleterms.get(stem, ()):
                terms.setdefault(stem, set()).add(doc)
        explorer[name] = sorted(inside - stems(page.get("body", "")))
    data = {
        "docnames": docnames,
        "titles": [pages[n]["title"] for n in docnames],
        "terms": {t: sorted(d) for t, d in terms.items()},
        "titleterms": {t: sorted(d) for t, d in titleterms.items()},
        "alltitles": alltitles,
    }
    return Index.from_data(data, explorer)


def ranked(searcher: Searcher, query: str) -> list[str]:
    return [hit.docname for hit in searcher.search(query)[1]]


# ------------------------------------------------------------------------ scoring


def test_a_page_that_holds_more_of_the_query_ranks_first_and_is_never_dropped():
    """Sphinx kept a page only if it held all words or all words of three letters or more:
    with two-syllable Korean words the page holding both was dropped."""
    pages = {
        "both": {"title": "안내", "body": "서빙 캐시 설명"},
        "one": {"title": "서빙", "body": "다른 내용"},
        "none": {"title": "번역", "body": "카탈로그"},
    }
    searcher = Searcher(small_index(pages, KO), KO)
    assert ranked(searcher, "서빙 캐시")[0] == "both"


def test_title_beats_heading_beats_body_beats_explorer():
    pages = {
        "a-explorer": {"title": "하나", "body": "내용", "explorer": "라우터"},
        "b-body": {"title": "둘", "body": "라우터 내용"},
        "c-heading": {"title": "셋", "headings": ["라우터 설정"], "body": "내용"},
        "d-title": {"title": "라우터", "body": "내용"},
    }
    searcher = Searcher(small_index(pages, KO), KO)
    assert ranked(searcher, "라우터") == ["d-title", "c-heading", "b-body", "a-explorer"]


def test_an_exact_phrase_in_a_title_beats_the_same_words_in_the_text():
    pages = {
        "a-text": {"title": "안내", "body": "설치 순서와 매트릭스 설명"},
        "b-phrase": {"title": "다른 안내", "headings": ["설치 매트릭스"], "body": "내용"},
    }
    searcher = Searcher(small_index(pages, KO), KO)
    hits = searcher.search("설치 매트릭스")[1]
    assert [h.docname for h in hits] == ["b-phrase", "a-text"]
    assert hits[0].anchor == "#h1" and hits[0].title == "다른 안내 > 설치 매트릭스"


def test_a_question_about_something_the_site_lacks_finds_nothing():
    pages = {
        "serving": {"title": "Serving", "body": "serve a model on the NPU"},
        "install": {"title": "Installation", "body": "install the driver of the NPU"},
        "translating": {"title": "Translating", "body": "the catalogs of the site"},
    }
    searcher = Searcher(small_index(pages, EN), EN)
    assert ranked(searcher, "how do I serve a model on the NPU")[0] == "serving"
    assert ranked(searcher, "how do I serve llama 3 70b on the NPU") == []  # the site has no such page


# ----------------------------------------------------------------------- the words


@pytest.fixture(scope="module")
def ko(site: Path) -> Searcher:
    return Searcher(Index.load(site / "ko"), KO)


@pytest.fixture(scope="module")
def en(site: Path) -> Searcher:
    return Searcher(Index.load(site / "en"), EN)


def words(searcher: Searcher, query: str) -> list[tuple[str, str]]:
    return [(word.text, word.how) for word in searcher.analyse(query)]


@pytest.mark.parametrize(
    ("query", "kept"),
    [
        # the issue's question words and fillers
        ("어떻게 서빙해요", ["서빙해요"]),
        ("어디서 설치", ["설치"]),
        ("얼마나 필요", ["필요"]),
        ("NPU 몇 개", ["NPU"]),
        ("왜 필요", ["필요"]),
        ("프리필 뜻", ["프리필"]),
        ("설치하는 법", ["설치하는"]),
        ("설치 안 돼요", ["설치"]),
        # verbs left bare by their ending: the index holds no verbs
        ("프리픽스 캐싱 켜려면", ["프리픽스", "캐싱"]),
        ("vllm-rbln 깔려면", ["vllm-rbln", "깔려면"]),  # 깔: a spelling of 설치 in the glossary
        ("서버가 죽어요", ["서버가"]),
    ],
)
def test_korean_question_words_fillers_and_bare_verbs_are_left_out(ko, query, kept):
    assert [text for text, _how in words(ko, query)] == kept


@pytest.mark.parametrize(
    ("query", "kept"),
    [
        ("how do I add a recipe", ["add", "recipe"]),
        ("does it need a recompile", ["recompile"]),
        ("can I use EAGLE-3", ["EAGLE-3"]),
        ("which version", ["version"]),
    ],
)
def test_english_question_words_are_left_out(en, query, kept):
    assert [text for text, _how in words(en, query)] == kept


def test_names_stay_whole(ko, en):
    """A.X-K2 is one word (Sphinx split it into a, x, k2 and dropped the stopword a)."""
    for searcher in (ko, en):
        analysed = searcher.analyse("A.X-K2 serving")
        assert (analysed[0].text, analysed[0].how) == ("A.X-K2", "name")
        assert analysed[0].stems == ("x", "k2")
        assert ranked(searcher, "A.X-K2")[0] == "recipes/A.X-K2"
        assert ranked(searcher, "ax-k2")[0] == "recipes/A.X-K2"  # found in the page title


@pytest.mark.parametrize(
    ("query", "parts"),
    [
        ("설치매트릭스", ["설치", "매트릭스"]),
        ("파이프라인병렬", ["파이프라인", "병렬"]),
        ("프리필디코드", ["프리필", "디코드"]),
        ("추측디코딩", ["추측", "디코딩"]),
        ("레시피추가", ["레시피", "추가"]),
        ("설정법", ["설정"]),  # 법 is a filler
    ],
)
def test_unspaced_compounds_are_split_into_index_words(ko, query, parts):
    assert words(ko, query) == [(part, "compound") for part in parts]


@pytest.mark.parametrize(
    ("query", "english"),
    [
        ("텐서 병렬", "tensor 병렬"),
        ("스펙큘레이티브 디코딩", "speculative decoding"),
        ("엘엠캐시", "LMCache"),
        ("익스퍼트 패럴렐", "expert parallel"),
        ("툴콜링", "tool calling"),
        ("리즈닝 파서", "reasoning parser"),
        ("쿠버네티스", "Kubernetes"),
        ("플래시 어텐션", "Flash Attention"),
    ],
)
def test_loanwords_find_what_the_english_finds(ko, query, english):
    assert ranked(ko, query), query
    assert ranked(ko, query) == ranked(ko, english)


@pytest.mark.parametrize(
    ("typo", "right"),
    [("디코팅", "디코딩"), ("캐씽", "캐싱"), ("설치 매트릭수", "설치 매트릭스"), ("번억", "번역")],
)
def test_a_korean_typo_of_one_jamo_or_syllable_finds_the_word(ko, typo, right):
    assert ranked(ko, typo) == ranked(ko, right)
    assert any(how == "typo" for _text, how in words(ko, typo))


@pytest.mark.parametrize(
    ("typo", "right"), [("speculatve decoding", "speculative decoding"), ("prefix cahing", "prefix caching")]
)
def test_an_english_typo_of_one_edit_finds_the_word(en, typo, right):
    assert ranked(en, typo) == ranked(en, right)


def test_a_two_syllable_word_is_only_corrected_for_letters_typists_confuse(ko):
    assert [w.how for w in ko.analyse("나노")] == ["unknown"]  # not 나눠 (ㅗ/ㅜ)


def test_typos_are_only_tried_for_words_the_index_lacks(ko):
    assert [w.how for w in ko.analyse("디코딩")] == ["exact"]


def test_the_issues_questions_find_their_page(ko, en):
    assert ranked(en, "how do I add a new model recipe?")[0] == "adding-a-recipe"
    assert ranked(en, "how many NPUs does gpt-oss-120b need?")[0] == "recipes/gpt-oss-120b"
    assert "configuration" in ranked(en, "does changing max model length trigger recompilation?")[:2]
    assert ranked(en, "speculatve decoding")
    assert "recipes/A.X-K2" in ranked(en, "dissagregated prefill decode router")
    assert ranked(ko, "gpt-oss-120b 서빙하는 법")[0] == "recipes/gpt-oss-120b"
    assert ranked(ko, "텐서 병렬")[0] == "configuration"  # the guide; recipes that offer it may follow


def test_the_guide_that_explains_a_feature_ranks_above_the_recipes_that_offer_it(ko, en):
    assert ranked(ko, "프리픽스 캐싱")[0] == "configuration"
    assert ranked(en, "prefix caching")[0] == "configuration"


# --------------------------------------------------------------- twin and browser


def _queries(language: str) -> list[str]:
    found = [entry["query"] for part in query_sets.PARTS for entry in query_sets.load(language, part)]
    return [*found, "", "   ", "?", "0.30.0", "A.X-K2", "ax-k2", "gpt-os-120b", "--max-model-len 8192"]


@pytest.mark.parametrize("language", ["ko", "en"])
def test_the_python_twin_ranks_every_query_as_the_search_page_does(site, language):
    tree = site / language
    searcher = Searcher(Index.load(tree), Language.of(language))
    queries = _queries(language)
    browser = pipeline(tree, queries)
    differ = []
    for query in queries:
        analysed, hits = searcher.search(query)
        python = {
            "words": [(w.text, w.how, round(w.weight, 9), sorted(w.matches)) for w in analysed],
            "hits": [[h.docname, h.anchor, h.score, h.coverage] for h in hits],
        }
        js = {
            "words": [(w["text"], w["how"], round(w["weight"], 9), w["pages"]) for w in browser[query]["words"]],
            "hits": browser[query]["hits"],
        }
        if python != js:
            differ.append(f"{query!r}:\n  python {python}\n  browser {js}")
    assert not differ, "\n".join(differ)


def test_the_search_page_reads_the_scorers_numbers_from_the_build(site):
    text = (site / "ko" / "_static" / "recipebook-search-data.js").read_text(encoding="utf-8")
    data = json.loads(text.removeprefix("var RecipeSearchData = ").removesuffix(";\n"))
    assert data["params"] == PARAMS
    assert data["explorer"]["recipes/A.X-K2"]  # the explorer's own terms of a recipe page
