"""The Korean search language: Python stemmer, its JavaScript twin, and a real build."""

from __future__ import annotations

import json
import random
import re
import shutil
import subprocess
import unicodedata
from pathlib import Path
from typing import Any

import pytest
import sphinx
from hypothesis import given, settings
from hypothesis import strategies as st

from recipebook_sphinx.search.korean import (
    AFTER_CONSONANT,
    AFTER_VOWEL,
    AFTER_VOWEL_OR_RIEUL,
    ANY,
    GLOSSARY,
    NAMES_FILE,
    STOPWORDS,
    SUFFIXES,
    SearchKorean,
    js_splitter_code,
    js_stemmer_code,
    split_words,
    stem_word,
)
from search_support import search

ROOT = Path(__file__).parents[1] / "roots" / "test-search-ko"
NODE = shutil.which("node")


@pytest.fixture
def node_available() -> None:
    """Node.js runs the browser-side stemmer; make test installs it (tools/system-packages), so it is never skipped."""
    if NODE is None:
        pytest.fail("Node.js is not installed; run make test (tools/system-packages) or apt-get install nodejs")


needs_node = pytest.mark.usefixtures("node_available")

# Nouns the way they show up in serving docs: loanwords and Sino-Korean, both with
# and without a final consonant, some ending in ㄹ (로 attaches to those).
NOUNS = [
    "모델",
    "서버",
    "서빙",
    "엔진",
    "토큰",
    "파일",
    "배포",
    "컨테이너",
    "쿠버네티스",
    "메모리",
    "레이어",
    "디바이스",
    "클러스터",
    "텐서",
    "양자화",
    "프로토콜",
    "추가",
    "결과",
    "경로",
    "성능",
    "요청",
    "가이드",
    "인스턴스",
    "파이프라인",
    "로그인",
    "하드웨어",
]

# Particles that attach to any noun of at least two syllables, and the pairs that
# depend on its final consonant: (after a final consonant, after a vowel).
PLAIN_PARTICLES = ["의", "에", "에서", "에게", "도", "만", "까지", "부터", "보다", "처럼", "마다", "에서는", "들"]
PAIRED_PARTICLES = [
    ("을", "를"),
    ("은", "는"),
    ("이", "가"),
    ("과", "와"),
    ("으로", "로"),
    ("이나", "나"),
    ("입니다", "입니다"),
]


def has_final_consonant(syllable: str) -> bool:
    return (ord(syllable) - 0xAC00) % 28 != 0


# ------------------------------------------------------------------ Python stemmer


@pytest.mark.parametrize(
    ("word", "stem"),
    [
        ("모델을", "모델"),
        ("모델은", "모델"),
        ("모델이", "모델"),
        ("모델의", "모델"),
        ("모델", "모델"),
        ("모델들에서는", "모델"),
        ("서버가", "서버"),
        ("서버입니다", "서버"),
        ("서빙합니다", "서빙"),
        ("서빙하는", "서빙"),
        ("서빙해야", "서빙"),
        ("배포됩니다", "배포"),
        ("검증된", "검증"),
        ("필요한", "필요"),
        ("파일로", "파일"),
        ("값을", "값"),
        ("값으로", "값"),
        ("위에", "위"),
        ("있습니다", "있"),
        ("디바이스마다", "디바이스"),
        # nouns that merely end like a particle stay whole
        ("추가", "추가"),
        ("추가합니다", "추가"),
        ("결과", "결과"),
        ("효과", "효과"),
        ("경로", "경로"),
        ("도로", "도로"),
        ("마을", "마을"),
        ("하나", "하나"),
        ("정의", "정의"),
        ("속도", "속도"),
        ("길이", "길이"),
        ("제한", "제한"),
        ("역할", "역할"),
        ("포함", "포함"),
        ("확인", "확인"),
        ("로그인", "로그인"),
        ("나이", "나이"),
        ("이해도", "이해"),  # 도 comes off, 해도 may not (it would leave 이)
        ("결과의", "결과"),
        ("도로의", "도로"),
        # English goes through Porter, lower-cased
        ("running", "run"),
        ("Running", "run"),
        ("workers", "worker"),
        # ... and the glossary makes the English the site keeps one term with the Korean
        ("serving", "서빙"),
        ("Models", "모델"),
        ("Kubernetes", "쿠버네티스"),
        # a reader's endings: "to turn on", polite statements, "whether", a misspelling
        ("켜려면", "켜"),
        ("죽어요", "죽"),
        ("있어요", "있"),
        ("필요하다고", "필요"),
        ("설치한지", "설치"),
        ("설치되요", "설치"),
        ("학습시키려면", "학습"),
        ("GPU", "gpu"),
        ("max_tokens", "max_token"),
        ("s", "s"),  # Porter alone would give ""
        # normalisation: decomposed Hangul is composed first
        (unicodedata.normalize("NFD", "모델을"), "모델"),
    ],
)
def test_stem(word: str, stem: str) -> None:
    assert stem_word(word) == stem
    assert SearchKorean({}).stem(word) == stem


@pytest.mark.parametrize("noun", NOUNS)
def test_noun_with_any_particle_stems_like_the_noun(noun: str) -> None:
    expected = stem_word(noun)
    final = has_final_consonant(noun[-1])
    particles = PLAIN_PARTICLES + [pair[0] if final else pair[1] for pair in PAIRED_PARTICLES]
    for particle in particles:
        assert stem_word(noun + particle) == expected, noun + particle
    for ending in ("합니다", "하는", "된", "됩니다", "하고", "해서"):
        assert stem_word(noun + ending) == expected, noun + ending


def test_split_mixed_text() -> None:
    text = "vLLM으로 모델을 서빙합니다. GPU를 쓰고, `vllm`에서는 8B의 max_tokens 및 Triton 서버를 설정합니다."
    assert split_words(text) == [
        "vLLM",
        "모델을",
        "서빙합니다",
        "GPU",
        "쓰고",
        "vllm",
        "8B",
        "max_tokens",
        "Triton",
        "서버를",
        "설정합니다",
    ]
    stems = [stem_word(word) for word in split_words(text)]
    assert stems == ["vllm", "모델", "서빙", "gpu", "쓰고", "vllm", "8b", "max_token", "triton", "서버", "설정"]


def test_split_drops_function_words() -> None:
    # bare particles (after inline markup), conjunctions, English stopwords
    assert split_words("를 에서는 및 그리고 the and 이 모델") == ["모델"]


def test_word_filter() -> None:
    language = SearchKorean({})
    assert language.word_filter("모델")
    assert language.word_filter("serv")
    assert not language.word_filter("")
    assert not language.word_filter("2024")
    assert not language.word_filter("를")
    assert not language.word_filter("the")


def test_suffix_table_is_longest_first_and_well_formed() -> None:
    lengths = [len(suffix) for suffix, _, _ in SUFFIXES]
    assert lengths == sorted(lengths, reverse=True)
    assert len({suffix for suffix, _, _ in SUFFIXES}) == len(SUFFIXES)
    conditions = {ANY, AFTER_CONSONANT, AFTER_VOWEL, AFTER_VOWEL_OR_RIEUL}
    for suffix, condition, min_stem in SUFFIXES:
        assert re.fullmatch("[가-힣]+", suffix), suffix
        assert condition in conditions
        assert min_stem >= 1
        # a one-syllable suffix only cuts one-syllable stems if it is a case particle
        # whose look-alikes are rare
        if len(suffix) == 1 and min_stem == 1:
            assert suffix in {"을", "를", "은", "는", "에", "뿐"}  # no noun ends in 뿐
    assert {suffix for suffix, _, _ in SUFFIXES} <= STOPWORDS


def test_combined_suffixes_cut_where_their_first_part_would() -> None:
    """A row like 과의 must not cut where 과 alone would not (결과의 → 결과, not 결)."""
    rows = {suffix: (condition, min_stem) for suffix, condition, min_stem in SUFFIXES}
    # 이나, 이란, 이라는... are particles of their own after a final consonant, not 이 + 나
    own_particles = {"이나", "이든", "이란", "이랑", "이라는", "이라도", "이었다", "이었습니다"}
    own_particles |= {"이거나", "이어야", "이라면", "이라고"}  # the copula's 이, written after a vowel too (정수이거나)
    for suffix, condition, min_stem in SUFFIXES:
        for cut in range(1, len(suffix)):
            head, tail = suffix[:cut], suffix[cut:]
            if head in rows and tail in rows and suffix not in own_particles:
                assert condition == rows[head][0], suffix
                assert min_stem >= rows[head][1], suffix


# ---------------------------------------------------------------------- properties

syllables = st.characters(min_codepoint=0xAC00, max_codepoint=0xD7A3)
suffixes = st.sampled_from([suffix for suffix, _, _ in SUFFIXES])
korean_words = st.builds(
    lambda stem, tails: stem + "".join(tails),
    st.text(syllables, min_size=1, max_size=6),
    st.lists(suffixes, max_size=3),
)


@settings(max_examples=500)
@given(korean_words)
def test_korean_stem_is_a_nonempty_idempotent_prefix(word: str) -> None:
    stem = stem_word(word)
    assert stem
    assert word.startswith(stem) or stem in GLOSSARY.values()  # the glossary may respell a stem
    assert stem_word(stem) == stem


@settings(max_examples=300)
@given(st.text(st.characters(codec="utf-8"), max_size=40))
def test_split_tokens_are_pure_runs(text: str) -> None:
    normalized = unicodedata.normalize("NFC", text)
    for token in split_words(text):
        assert token in normalized
        hangul = [bool(re.fullmatch("[\u1100-\u11ff\u3130-\u318f\ua960-\ua97f\uac00-\ud7ff]", c)) for c in token]
        assert all(hangul) or not any(hangul), token
        assert stem_word(token)


# ---------------------------------------------------------- JavaScript agreement

NODE_RUNNER = r"""
const fs = require("fs");
const vm = require("vm");
const input = JSON.parse(fs.readFileSync(0, "utf8"));
const context = vm.createContext({});
context.window = context;
for (const code of input.scripts) vm.runInContext(code, context);
const stemmer = vm.runInContext("new Stemmer()", context);
const splitQuery = vm.runInContext("splitQuery", context);
process.stdout.write(JSON.stringify({
  stems: input.words.map((word) => stemmer.stemWord(word)),
  splits: input.texts.map((text) => Array.from(splitQuery(text))),
}));
"""


def run_js(scripts: list[str], words: list[str], texts: list[str]) -> dict[str, Any]:
    """Load scripts into one fresh global scope, then stem words and split texts."""
    assert NODE is not None
    payload = json.dumps({"scripts": scripts, "words": words, "texts": texts})
    result = subprocess.run(
        [NODE, "-e", NODE_RUNNER], input=payload, capture_output=True, text=True, check=True, timeout=60
    )
    return json.loads(result.stdout)


def sample_words() -> list[str]:
    """A few thousand words: inflected nouns, random Hangul, English, edge cases."""
    rng = random.Random(20250601)
    table = [suffix for suffix, _, _ in SUFFIXES]
    words = [noun + suffix for noun in NOUNS for suffix in ["", *table]]
    for _ in range(3000):
        stem = "".join(chr(rng.randint(0xAC00, 0xD7A3)) for _ in range(rng.randint(1, 4)))
        words.append(stem + "".join(rng.choice(table) for _ in range(rng.randint(0, 3))))
    sphinx_dir = Path(sphinx.__file__).parent
    for name in ("search/__init__.py", "builders/html/__init__.py", "application.py"):
        words += sorted(set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", (sphinx_dir / name).read_text(encoding="utf-8"))))
    words += [
        "",
        "a",
        "I",
        "internal",
        "interval",
        "skis",
        "GPU",
        "H100",
        "2024",
        "gpu를",  # mixed: only normalised
        "ㅋㅋ",  # bare jamo
        "ㅋ을",
        unicodedata.normalize("NFD", "서빙합니다"),
        "İstanbul",
        "Straße",
    ]
    return words


SAMPLE_TEXTS = [
    "vLLM으로 모델을 서빙합니다.",
    "GPU를 여러 대 쓰는 Kubernetes 환경에서도 serving 작업을 실행합니다.",
    "`vllm`에서는 8B의 max_tokens 및 Triton 서버를 설정합니다 — 그리고 the end.",
    unicodedata.normalize("NFD", "모델은 H100에서 배포됩니다"),
    "",
    "  ... !!! ",
    "ㅋㅋ 웃음 émigré naïve 東京 데이터",
]


def random_texts(count: int) -> list[str]:
    """Texts drawn from Hangul, jamo, Latin, accents, digits, CJK, marks, emoji, punctuation."""
    rng = random.Random(7)
    pools = [
        "모델을은는이가서빙합니다배포됩니다에서의로와과까지",
        "".join(chr(code) for code in range(0xAC00, 0xD7A4, 97)),
        "ㄱㄴㅋㅏㅣ\u1100\u1161\u11a8\ua960\ud7b0",
        "abcXYZ_019 ",
        "éßİıÅø\u0301\u0308",
        "東京中文\u3192²½٣",
        "😀🚀 .,;:!?-—/()[]`'\"\t\n",
    ]
    alphabet = "".join(pools)
    return ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 30))) for _ in range(count)]


@needs_node
def test_javascript_stemmer_and_splitter_agree_with_python() -> None:
    words = sample_words()
    texts = SAMPLE_TEXTS + random_texts(1000)
    result = run_js([js_stemmer_code(), js_splitter_code()], words, texts)
    mismatches = [
        (word, python, js)
        for word, python, js in zip(words, map(stem_word, words), result["stems"], strict=True)
        if python != js
    ]
    assert not mismatches, mismatches[:20]
    split_mismatches = [
        (text, python, js)
        for text, python, js in zip(texts, map(split_words, texts), result["splits"], strict=True)
        if python != js
    ]
    assert not split_mismatches, split_mismatches[:10]


def test_js_code_reuses_sphinx_snowball_files() -> None:
    code = js_stemmer_code()
    minified = Path(sphinx.__file__).parent / "search" / "minified-js"
    assert (minified / "porter-stemmer.js").read_text(encoding="utf-8") in code
    assert (minified / "base-stemmer.js").read_text(encoding="utf-8") in code
    assert json.dumps([list(row) for row in SUFFIXES]) in code  # the table, generated


# -------------------------------------------------------------------- real build


def load_search_index(outdir: Path) -> dict[str, Any]:
    text = (outdir / "searchindex.js").read_text(encoding="utf-8")
    prefix, suffix = "Search.setIndex(", ")"
    assert text.startswith(prefix)
    assert text.endswith(suffix)
    return json.loads(text[len(prefix) : -len(suffix)])


def docs_for(index: dict[str, Any], term: str, key: str = "terms") -> set[str]:
    files = index[key].get(term, [])
    files = [files] if isinstance(files, int) else files
    return {index["docnames"][file] for file in files}


@pytest.fixture
def built_site(make_app: Any, tmp_path: Path) -> Path:
    srcdir = tmp_path / "test-search-ko"
    shutil.copytree(ROOT, srcdir)
    app = make_app("html", srcdir=srcdir, freshenv=True)
    app.build()
    assert "WARNING" not in app.warning.getvalue(), app.warning.getvalue()
    return Path(app.outdir)


def test_build_indexes_stems(built_site: Path) -> None:
    index = load_search_index(built_site)
    # index.rst only has 모델을, serving.rst only has 모델은
    assert docs_for(index, "모델") == {"index", "serving"}
    assert "모델을" not in index["terms"]
    assert "모델은" not in index["terms"]
    # English on a Korean page, stemmed the same way as a query would be (the glossary's
    # spellings as the Korean term)
    assert docs_for(index, stem_word("serving")) == {"serving"}
    assert docs_for(index, stem_word("Kubernetes")) == docs_for(index, "쿠버네티스") == {"serving"}
    assert docs_for(index, "gpu") == {"serving"}
    # 하다/되다 verbs are indexed by their noun, bare particles not at all
    assert docs_for(index, "설명") == {"index"}
    assert docs_for(index, "실행") == {"serving"}
    assert "를" not in index["terms"]
    assert "이" not in index["terms"]
    # titles go through the same stemmer into titleterms
    assert docs_for(index, "소개", "titleterms") == {"index"}
    assert docs_for(index, "배포", "titleterms") == {"serving"}


@needs_node
def test_built_language_data_stems_queries_to_indexed_terms(built_site: Path) -> None:
    index = load_search_index(built_site)
    language_data = (built_site / "_static" / "language_data.js").read_text(encoding="utf-8")
    assert "KoreanSearch" in language_data
    queries = ["모델", "모델을", "모델은", "serving", "Serving", "GPU를", "쿠버네티스 Kubernetes"]
    splits = run_js([language_data], [], queries)["splits"]
    assert splits == [["모델"], ["모델을"], ["모델은"], ["serving"], ["Serving"], ["GPU"], ["쿠버네티스", "Kubernetes"]]
    stems = run_js([language_data], [term for terms in splits for term in terms], [])["stems"]
    assert stems == ["모델", "모델", "모델", "서빙", "서빙", "gpu", "쿠버네티스", "쿠버네티스"]
    assert set(stems) <= set(index["terms"])


@needs_node
def test_browser_search_finds_pages(built_site: Path) -> None:
    assert NODE is not None
    queries = {
        "모델": ["index", "serving"],
        "모델을": ["index", "serving"],
        "모델은": ["index", "serving"],
        "모델이": ["index", "serving"],
        "serving": ["serving"],
        "Serve": ["serving"],
        "GPU": ["serving"],
        "GPU를": ["serving"],
        "kubernetes에서": ["serving"],
        "설명": ["index"],
        "설명하는": ["index"],
        "실행": ["serving"],
        "모델 실행": ["serving"],
        "그래픽": [],
    }
    found = search(built_site, list(queries))
    assert {query: sorted(pages) for query, pages in found.items()} == queries


def test_a_hangul_reading_of_a_name_finds_the_name_as_pages_write_it() -> None:
    """search_ko_names.json: each reading stems to the name's key (엔비디아 finds a page's NVIDIA),
    and the key is the name's own stem, so a page written in Latin letters keeps its index word."""
    groups = json.loads(NAMES_FILE.read_text(encoding="utf-8"))["groups"]
    assert len(groups) >= 20
    for name, *readings in groups:
        assert stem_word(name) == stem_word(name.upper())  # the key is the name as pages write it
        for reading in readings:
            assert stem_word(reading) == stem_word(name), reading
            if len(reading) >= 2:  # 의 comes off two syllables or more (구글의)
                assert stem_word(reading + "의") == stem_word(name), reading
    assert stem_word("엔비디아") == stem_word("NVIDIA") and stem_word("구글") == stem_word("Google")
