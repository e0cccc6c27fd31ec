"""The site's search: a query pipeline and a scorer of its own, on Sphinx's search index.

This module is the Python twin of ``static/recipebook-search.js``, which the search page
runs; the tests run both on the same built site and require the same pages in the same
order. Nothing here imports Sphinx: it reads what the build wrote (``searchindex.js`` and
``_static/recipebook-search-data.js``).

A query is cut into words (:meth:`Searcher.analyse`):

1. Names with dots, hyphens or underscores between letters and digits (``A.X-K2``,
   ``gpt-oss-120b``, ``--max-model-len``, ``max_num_seqs``) stay one word; a page holds the
   name if it holds all its parts, or if a page or section title contains it (``ax-k2``
   is found in "Serving A.X-K2 ...").
2. Every other token is stemmed by the site's language (Korean particles and endings off,
   Porter for Latin words, the glossary's spellings mapped to one key). Question words and
   fillers (:func:`.words.fillers`: 어떻게, 몇, 법, how, does, need...) and stopwords are
   left out, and so is a Korean word left a bare verb by its ending (켜려면, 띄워요: the
   index holds nouns, the stemmer does not conjugate).
3. A word the index lacks is, in this order: split into index terms if it is an unspaced
   Korean compound (설치매트릭스 → 설치 매트릭스, the fewest words, longest first);
   matched to the terms it begins (파이프 → 파이프라인); matched to the terms one typo
   away: one jamo (else one syllable) in a Korean word of three syllables or more, one
   letter a typist confuses (ㅅ/ㅆ, ㅐ/ㅔ...) in a two-syllable one, one edit in an English
   word (디코팅 → 디코딩, 캐씽 → 캐싱, speculatve → speculative); found in a title
   (``gptoss``). Any other word stays, matching nothing, so that a question about
   something the site lacks finds nothing.

Each word weighs its inverse document frequency (a word on every page weighs almost
nothing; an unknown word weighs as a word on one page). A page is shown if it holds at
least :data:`PARAMS` ``threshold`` of the query's weight (``cover``: a word found only in
the command explorer counts 0.75), and ranked by the weighted share it holds with each word
counted by where (``rank``: page title 1, heading 0.85, text 0.7, explorer 0.5) and how
(``quality``: 0.7 for a prefix, 0.8 for a typo, 0.9 for a title-only match), plus a bonus
when all the query words stand together in the page title (0.5) or a section heading
(0.3). A result links to the section whose heading holds more of the query than the page
title.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, Final

from . import english, korean
from .words import (
    HANGUL_WORD_RE,
    JONG_COUNT,
    SYLLABLE_FIRST,
    SYLLABLE_LAST,
    TOKEN_RE,
    VOWEL_COUNT,
    fillers,
    normalize,
    tokens,
)

__all__ = ["PARAMS", "Hit", "Index", "Language", "Searcher", "Word"]

#: The scorer's numbers; the browser reads the same ones (``recipebook-search-data.js``).
PARAMS: Final[dict[str, Any]] = {
    # how much a word found in each place counts: towards showing the page at all (cover), and
    # towards its rank (rank)
    "cover": {"title": 1.0, "heading": 1.0, "body": 1.0, "explorer": 0.75},
    "rank": {"title": 1.0, "heading": 0.85, "body": 0.7, "explorer": 0.5},
    "quality": {"exact": 1.0, "prefix": 0.7, "typo": 0.8, "title": 0.9},
    "unknownDocs": 1,
    "threshold": 0.5,
    "phraseTitle": 0.5,
    "phraseHeading": 0.3,
    "minHangul": 2,  # syllables, for a prefix or a typo
    "minLatin": 4,  # letters, for a prefix, a typo or a title match
}

NAME_RE: Final = re.compile(r"[A-Za-z0-9]+(?:[._-]+[A-Za-z0-9]+)+")
_LOOSE_SPLIT: Final = re.compile(r"[._-]+")
_DIGITS: Final = re.compile(r"[0-9]+")
_NOT_ALNUM: Final = re.compile(r"[^a-z0-9]+")
_LATIN_EDITS: Final = "abcdefghijklmnopqrstuvwxyz"
#: Letters a Korean typist confuses: a consonant with its tense or aspirated partner (the
#: tense ones are the shifted keys), vowels that sound alike or differ by the y-glide (ㅓ/ㅕ
#: are neighbouring keys), final consonants pronounced alike. In a two-syllable word, a typo
#: is one of these; a longer word may have any one letter wrong.
CONFUSABLE_JAMO: Final = (
    "\u1100\u1101\u110f",  # ㄱ ㄲ ㅋ
    "\u1103\u1104\u1110",  # ㄷ ㄸ ㅌ
    "\u1107\u1108\u1111",  # ㅂ ㅃ ㅍ
    "\u1109\u110a",  # ㅅ ㅆ
    "\u110c\u110d\u110e",  # ㅈ ㅉ ㅊ
    "\u1161\u1163",  # ㅏ ㅑ
    "\u1165\u1167",  # ㅓ ㅕ
    "\u1169\u116d",  # ㅗ ㅛ
    "\u116e\u1172",  # ㅜ ㅠ
    "\u116e\u1173",  # ㅜ ㅡ
    "\u1162\u1164\u1166\u1168",  # ㅐ ㅒ ㅔ ㅖ
    "\u116b\u116c\u1170",  # ㅙ ㅚ ㅞ
    "\u11a8\u11a9\u11bf",  # final ㄱ ㄲ ㅋ
    "\u11ae\u11ba\u11bb\u11bd\u11be\u11c0\u11c2",  # final ㄷ ㅅ ㅆ ㅈ ㅊ ㅌ ㅎ
    "\u11b8\u11c1",  # final ㅂ ㅍ
)


def _round(value: float) -> int:
    """Scores are compared as integers, so Python and JavaScript floats rank alike."""
    return math.floor(value * 1e6 + 0.5)


# ----------------------------------------------------------------------- language


@dataclasses.dataclass(frozen=True, kw_only=True)
class Language:
    """What the pipeline needs of a search language (JavaScript: ``RecipeSearchLanguage``)."""

    code: str
    stem_info: Callable[[str], tuple[str, bool]]
    glossary: Mapping[str, str]
    stopwords: frozenset[str]
    fillers: frozenset[str]

    @classmethod
    @functools.cache
    def of(cls, code: str) -> Language:
        module = korean if code == "ko" else english
        return cls(
            code=code,
            stem_info=module.stem_info,
            glossary=module.GLOSSARY,
            stopwords=module.STOPWORDS,
            fillers=fillers(code),
        )

    def stem(self, word: str) -> str:
        return self.stem_info(word)[0]

    def is_filler(self, word: str) -> bool:
        """A question word or filler, as typed or as stemmed (JavaScript: ``isFiller``)."""
        return self.stem(word) in self.fillers or normalize(word) in self.fillers

    def stems(self, parts: Iterable[str]) -> tuple[str, ...]:
        """Words as the index holds them, in order, without numbers and stopwords (JavaScript: ``stems``)."""
        found = []
        for part in parts:
            stem = self.stem(part)
            if not _DIGITS.fullmatch(part) and normalize(part) not in self.stopwords and stem not in self.stopwords:
                found.append(stem)
        return tuple(found)

    def title_stems(self, title: str) -> tuple[str, ...]:
        """A title's words as the index holds them, in order, without stopwords."""
        return self.stems(tokens(title))


# -------------------------------------------------------------------------- index


@dataclasses.dataclass(frozen=True, kw_only=True)
class Index:
    """Sphinx's search index of one language tree, and the explorer's words per page."""

    docnames: tuple[str, ...]
    titles: tuple[str, ...]
    terms: Mapping[str, frozenset[int]]
    titleterms: Mapping[str, frozenset[int]]
    sections: tuple[tuple[tuple[str, str], ...], ...]  # per page: (title, id) of its sections
    explorer: tuple[frozenset[str], ...]  # per page: terms only its command explorer holds

    @classmethod
    def from_data(cls, index: dict[str, Any], explorer: Mapping[str, list[str]]) -> Index:
        def files(value: int | list[int]) -> frozenset[int]:
            return frozenset([value] if isinstance(value, int) else value)

        docnames = tuple(index["docnames"])
        sections: list[list[tuple[str, str]]] = [[] for _ in docnames]
        for title, places in index["alltitles"].items():
            for doc, anchor in places:
                if anchor:
                    sections[doc].append((title, anchor))
        return cls(
            docnames=docnames,
            titles=tuple(index["titles"]),
            terms={term: files(value) for term, value in index["terms"].items()},
            titleterms={term: files(value) for term, value in index["titleterms"].items()},
            sections=tuple(tuple(sorted(found)) for found in sections),
            explorer=tuple(frozenset(explorer.get(name, ())) for name in docnames),
        )

    @classmethod
    def load(cls, tree: Path) -> Index:
        """The index of a built language tree (``_build/html/ko``)."""
        index = _js_json(tree / "searchindex.js", "Search.setIndex(", ")")
        data = _js_json(tree / "_static" / "recipebook-search-data.js", "var RecipeSearchData = ", ";\n")
        return cls.from_data(index, data["explorer"])

    @functools.cached_property
    def searchable(self) -> tuple[int, ...]:
        """Pages a search may return: those with a title (the not-found page has none)."""
        return tuple(doc for doc, title in enumerate(self.titles) if title)

    @functools.cached_property
    def vocabulary(self) -> frozenset[str]:
        return frozenset(self.terms) | frozenset(self.titleterms)

    def field(self, doc: int, term: str, title_stems: frozenset[str]) -> str | None:
        """Where a page holds a term: title, heading, body, explorer, or nowhere."""
        if doc in self.titleterms.get(term, ()):
            return "title" if term in title_stems else "heading"
        if doc in self.terms.get(term, ()):
            return "explorer" if term in self.explorer[doc] else "body"
        return None


def _js_json(path: Path, prefix: str, suffix: str) -> Any:
    text = path.read_text(encoding="utf-8")
    if not (text.startswith(prefix) and text.endswith(suffix)):
        msg = f"{path}: not {prefix}...{suffix}"
        raise ValueError(msg)
    return json.loads(text[len(prefix) : len(text) - len(suffix)])


@dataclasses.dataclass(frozen=True)
class _Titles:
    """Per page: its title's stems and the stems of each section title, and their letters."""

    page: tuple[tuple[str, ...], ...]
    sections: tuple[tuple[tuple[str, ...], ...], ...]
    keys: tuple[tuple[str, ...], ...]  # page title first, then the sections: lower-case letters and digits

    @classmethod
    def of(cls, index: Index, language: Language) -> _Titles:
        return cls(
            page=tuple(language.title_stems(title) for title in index.titles),
            sections=tuple(tuple(language.title_stems(t) for t, _ in found) for found in index.sections),
            keys=tuple(
                (_key(title), *(_key(t) for t, _ in found))
                for title, found in zip(index.titles, index.sections, strict=True)
            ),
        )


def _key(text: str) -> str:
    return _NOT_ALNUM.sub("", normalize(text))


# -------------------------------------------------------------------------- words


@dataclasses.dataclass(frozen=True, kw_only=True)
class Word:
    """One word of a query: what it was typed as, how it was found, the pages that hold it."""

    text: str
    how: str  # exact, name, compound, prefix, typo, title, unknown
    stems: tuple[str, ...]  # the index terms it stands for, in order (a name: its parts)
    terms: frozenset[str]  # every index term that counts as this word
    matches: Mapping[int, tuple[float, str]]  # page → (quality, where: title, heading, body, explorer)
    weight: float


@dataclasses.dataclass(frozen=True)
class _Alternative:
    terms: tuple[str, ...]  # all of them, on the same page
    quality: float


def _matches(
    index: Index, titles: _Titles, alternatives: list[_Alternative], title_key: str = "", key_quality: float = 1.0
) -> dict[int, tuple[float, str]]:
    """Per page that holds the word: the quality of the best way it does, and where."""
    rank = PARAMS["rank"]
    found: dict[int, tuple[float, str]] = {}
    for doc in index.searchable:
        page = frozenset(titles.page[doc])
        best: tuple[float, str] = (0.0, "")

        def consider(quality: float, where: str) -> None:
            nonlocal best
            if quality * rank[where] > best[0] * rank.get(best[1], 0.0):
                best = (quality, where)

        for alternative in alternatives:
            places = [index.field(doc, term, page) for term in alternative.terms]
            if all(places):
                consider(alternative.quality, min((p for p in places if p), key=lambda p: rank[p]))
        if title_key:
            keys = titles.keys[doc]
            if title_key in keys[0]:
                consider(key_quality, "title")
            elif any(title_key in key for key in keys[1:]):
                consider(key_quality, "heading")
            elif len(title_key) > PARAMS["minLatin"] and _near(title_key, keys[0]):
                consider(PARAMS["quality"]["typo"], "title")
        if best[1]:
            found[doc] = best
    return found


def _weight(index: Index, matches: Mapping[int, tuple[float, str]]) -> float:
    pages = len(index.searchable)
    holding = len(matches) or PARAMS["unknownDocs"]
    return math.log(1 + (pages - holding + 0.5) / (holding + 0.5))


def _word(index: Index, titles: _Titles, text: str, how: str, stems: tuple[str, ...], **found: Any) -> Word:
    alternatives: list[_Alternative] = found.get("alternatives", [])
    matches = _matches(index, titles, alternatives, found.get("title_key", ""), found.get("key_quality", 1.0))
    return Word(
        text=text,
        how=how,
        stems=stems,
        terms=frozenset(term for alternative in alternatives for term in alternative.terms),
        matches=matches,
        weight=_weight(index, matches),
    )


def _is_hangul(word: str) -> bool:
    return bool(HANGUL_WORD_RE.fullmatch(word))


def _jamo(word: str) -> list[int]:
    """Hangul syllables as initial, vowel and final letters (a typo is one of them wrong)."""
    letters = []
    for char in word:
        code = ord(char) - SYLLABLE_FIRST
        if 0 <= code <= SYLLABLE_LAST - SYLLABLE_FIRST:
            per_initial = VOWEL_COUNT * JONG_COUNT
            letters += [0x1100 + code // per_initial, 0x1161 + code % per_initial // JONG_COUNT]
            if code % JONG_COUNT:
                letters.append(0x11A7 + code % JONG_COUNT)
        else:
            letters.append(ord(char))
    return letters


def _within_one(a: list[int] | str, b: list[int] | str) -> bool:
    """Levenshtein distance at most one."""
    if abs(len(a) - len(b)) > 1:
        return False
    i = 0
    while i < len(a) and i < len(b) and a[i] == b[i]:
        i += 1
    if len(a) == len(b):
        return a[i + 1 :] == b[i + 1 :]
    if len(a) > len(b):
        return a[i + 1 :] == b[i:]
    return a[i:] == b[i + 1 :]


def _confused(a: list[int], b: list[int]) -> bool:
    """The same letters but one, and that one a pair a typist confuses (:data:`CONFUSABLE_JAMO`)."""
    if len(a) != len(b):
        return False
    differ = [(x, y) for x, y in zip(a, b, strict=True) if x != y]
    return len(differ) == 1 and any(
        chr(differ[0][0]) in group and chr(differ[0][1]) in group for group in CONFUSABLE_JAMO
    )


def _near(key: str, text: str) -> bool:
    """Whether some part of text is one edit from key."""
    for start in range(len(text)):
        for length in (len(key) - 1, len(key), len(key) + 1):
            if start + length <= len(text) and _within_one(key, text[start : start + length]):
                return True
    return False


def _edits(word: str) -> list[str]:
    """Every string one deletion, transposition, substitution or insertion (a-z) away."""
    found = []
    for i in range(len(word) + 1):
        head, tail = word[:i], word[i:]
        if tail:
            found.append(head + tail[1:])
        if len(tail) > 1:
            found.append(head + tail[1] + tail[0] + tail[2:])
        for letter in _LATIN_EDITS:
            if tail:
                found.append(head + letter + tail[1:])
            found.append(head + letter + tail)
    return found


class _Analyser:
    def __init__(self, index: Index, language: Language) -> None:
        self.index, self.language = index, language
        self.titles = _Titles.of(index, language)
        vocabulary = index.vocabulary
        self.vocabulary = vocabulary
        self.sorted_terms = sorted(vocabulary)
        # Hangul spellings a typo may be near: the index's words and the glossary's, each → its key
        self.hangul = {term: term for term in self.sorted_terms if _is_hangul(term)}
        for spelling, key in sorted(language.glossary.items()):
            if key in vocabulary and _is_hangul(spelling):
                self.hangul.setdefault(spelling, key)

    def skipped(self, lower: str, stem: str) -> bool:
        lang = self.language
        return bool(
            _DIGITS.fullmatch(lower)
            or lower in lang.stopwords
            or lower in lang.fillers
            or stem in lang.stopwords
            or stem in lang.fillers
        )

    def pieces(self, query: str) -> list[tuple[int, str, list[Word]]]:
        """Each name and token of the (NFC) query, where it starts, and the words it gives."""
        text = unicodedata.normalize("NFC", query)
        found = [(match.start(), match.group(), self.name(match.group())) for match in NAME_RE.finditer(text)]
        blanked = NAME_RE.sub(lambda m: " " * len(m.group()), text)
        found += [(match.start(), match.group(), self.token(match.group())) for match in TOKEN_RE.finditer(blanked)]
        return sorted(found, key=lambda item: item[0])

    def words(self, query: str) -> list[Word]:
        return [word for _start, _text, words in self.pieces(query) for word in words]

    # -- names

    def name(self, text: str) -> list[Word]:
        lang = self.language
        alternatives = []
        for parts in (tokens(text), [p for p in _LOOSE_SPLIT.split(text) if p]):
            stems = lang.stems(parts)
            if stems and all(alt.terms != stems for alt in alternatives):
                alternatives.append(_Alternative(stems, PARAMS["quality"]["exact"]))
        key = _key(text)
        if not alternatives and not re.search("[a-z]", key):
            return []  # a version number: nothing the index holds
        stems = alternatives[0].terms if alternatives else ()
        word = _word(self.index, self.titles, text, "name", stems, alternatives=alternatives, title_key=key)
        return [dataclasses.replace(word, how="unknown")] if not word.matches else [word]

    # -- other tokens

    def token(self, token: str) -> list[Word]:
        lower = normalize(token)
        stem, verb = self.language.stem_info(token)
        if self.skipped(lower, stem):
            return []
        index, titles, quality = self.index, self.titles, PARAMS["quality"]
        if stem in self.vocabulary:
            return [self.exact(token, stem)]
        hangul = _is_hangul(stem)
        if hangul and (parts := self.compound(lower) or self.compound(stem)):
            return [self.exact(part, self.language.stem(part), "compound") for part in parts]
        if hangul and (len(stem) < 2 or verb or lower.endswith("요")):
            return []  # a verb (켜려면, 띄워요: the index holds no verbs) or a one-syllable word it lacks
        long_enough = len(stem) >= (PARAMS["minHangul"] if hangul else PARAMS["minLatin"])
        if long_enough and (begun := [t for t in self.sorted_terms if t.startswith(stem) and t != stem]):
            alternatives = [_Alternative((t,), quality["prefix"]) for t in begun]
            return [_word(index, titles, token, "prefix", (stem,), alternatives=alternatives)]
        if long_enough and (near := self.typos(lower, stem, hangul)):
            alternatives = [_Alternative((t,), quality["typo"]) for t in near]
            return [_word(index, titles, token, "typo", (near[0],), alternatives=alternatives)]
        key = _key(token)
        if not hangul and len(key) >= PARAMS["minLatin"]:
            word = _word(index, titles, token, "title", (), title_key=key, key_quality=quality["title"])
            if word.matches:
                return [word]
        return [_word(index, titles, token, "unknown", (stem,))]

    def exact(self, text: str, stem: str, how: str = "exact") -> Word:
        alternative = _Alternative((stem,), PARAMS["quality"]["exact"])
        return _word(self.index, self.titles, text, how, (stem,), alternatives=[alternative])

    def part_ok(self, part: str) -> bool:
        if self.language.is_filler(part):
            return True  # 설정법 is 설정 + 법
        stem = self.language.stem(part)
        return stem in self.vocabulary and (len(part) >= 2 or stem != part)

    def compound(self, word: str) -> list[str]:
        """The fewest index words that spell the word, longest first; at least two, not all fillers."""
        if not _is_hangul(word) or len(word) < 2:
            return []
        best: list[list[str] | None] = [None] * len(word) + [[]]
        for start in range(len(word) - 1, -1, -1):
            for end in range(len(word), start, -1):  # longest part first
                rest = best[end]
                part = word[start:end]
                if rest is not None and self.part_ok(part):
                    candidate = [part, *rest]
                    current = best[start]
                    if current is None or len(candidate) < len(current):
                        best[start] = candidate
        parts = best[0] or []
        contentful = [p for p in parts if not self.language.is_filler(p)]
        return contentful if len(parts) >= 2 and contentful else []

    def typos(self, lower: str, stem: str, hangul: bool) -> list[str]:
        """Index terms one typo away, sorted."""
        if hangul:
            letter, syllable = set(), set()  # one letter wrong is closer than one syllable
            for typed in dict.fromkeys((stem, lower)):
                letters = _jamo(typed)
                for spelling, term in self.hangul.items():
                    if len(typed) >= 3 and len(spelling) >= 3:
                        if _within_one(letters, _jamo(spelling)):
                            letter.add(term)
                        elif _within_one(typed, spelling):
                            syllable.add(term)
                    elif _confused(letters, _jamo(spelling)):
                        letter.add(term)
            return sorted(letter or syllable)
        stems = {self.language.stem(edit) for edit in _edits(lower)}
        return sorted(stems & self.vocabulary)


# -------------------------------------------------------------------------- ranking


@dataclasses.dataclass(frozen=True, kw_only=True)
class Hit:
    doc: int
    docname: str
    title: str  # the page title, or "page title > section title" when a section holds more of the query
    anchor: str  # "#id" of that section, or ""
    score: int  # coverage + phrase bonus, times 10**6
    coverage: int


def _holds(sequence: tuple[str, ...], word: Word) -> bool:
    if word.how == "name":
        n = len(word.stems)
        return any(sequence[i : i + n] == word.stems for i in range(len(sequence) - n + 1))
    return any(stem in word.terms for stem in sequence)


def _phrase(sequence: tuple[str, ...], words: list[Word]) -> bool:
    """All the words, in order and next to each other, somewhere in the title."""
    if len(words) < 2 or any(not w.terms for w in words):
        return False
    for start in range(len(sequence)):
        at = start
        for word in words:
            if word.how == "name":
                if sequence[at : at + len(word.stems)] != word.stems:
                    break
                at += len(word.stems)
            elif at < len(sequence) and sequence[at] in word.terms:
                at += 1
            else:
                break
        else:
            return True
    return False


class Searcher:
    """The site's search over one language tree: :meth:`search` is what the search page does."""

    def __init__(self, index: Index, language: Language) -> None:
        self.index, self.language = index, language
        self._analyser = _Analyser(index, language)

    def analyse(self, query: str) -> list[Word]:
        """The words of a query, each with the pages that hold it."""
        return self._analyser.words(query)

    def pieces(self, query: str) -> list[tuple[int, str, list[Word]]]:
        """What became of each token of the query: where it starts, its text, its words (none: left out)."""
        return self._analyser.pieces(query)

    def left_out_as_filler(self, token: str) -> bool:
        """Whether a token is left out as a question word, a filler or a stopword (not as a bare verb)."""
        return self._analyser.skipped(normalize(token), self.language.stem(token))

    def rank(self, words: list[Word]) -> list[Hit]:
        """Pages that hold enough of the query, best first."""
        total = sum(word.weight for word in words)
        if not words or total <= 0:
            return []
        index, titles = self.index, self._analyser.titles
        threshold = _round(PARAMS["threshold"])
        scored = []
        cover, rank = PARAMS["cover"], PARAMS["rank"]
        for doc in index.searchable:
            held = [(word.weight, word.matches.get(doc, (0.0, ""))) for word in words]
            coverage = sum(weight * quality * cover.get(where, 0.0) for weight, (quality, where) in held) / total
            if _round(coverage) < threshold:
                continue
            score = sum(weight * quality * rank.get(where, 0.0) for weight, (quality, where) in held) / total
            if _phrase(titles.page[doc], words):
                score += PARAMS["phraseTitle"]
            elif any(_phrase(section, words) for section in titles.sections[doc]):
                score += PARAMS["phraseHeading"]
            scored.append((_round(score), _round(coverage), doc))
        scored.sort(key=lambda item: (-item[0], -item[1], item[2]))
        return [_hit(index, titles, words, doc, score, coverage) for score, coverage, doc in scored]

    def search(self, query: str) -> tuple[list[Word], list[Hit]]:
        words = self.analyse(bounded(query))
        return words, self.rank(words)


# A query is bounded before any work (recipebook-search.js bounded is its twin): a link may carry
# any text, and one word of thousands of letters took the tab minutes.
MAX_QUERY = 400
MAX_WORDS = 16
MAX_WORD = 64
_QUERY_BLANKS = re.compile(r"[ \t\n\r\f\v]+")


def bounded(query: str) -> str:
    """The query cut to MAX_QUERY characters, MAX_WORDS words and MAX_WORD letters a word."""
    words = [word for word in _QUERY_BLANKS.split(query[:MAX_QUERY]) if word]
    return " ".join(word[:MAX_WORD] for word in words[:MAX_WORDS])


def _hit(index: Index, titles: _Titles, words: list[Word], doc: int, score: int, coverage: int) -> Hit:
    def held(sequence: tuple[str, ...]) -> float:
        return sum(word.weight for word in words if _holds(sequence, word))

    title, anchor = index.titles[doc], ""
    best = _round(held(titles.page[doc]))
    for (section, section_id), sequence in zip(index.sections[doc], titles.sections[doc], strict=True):
        if (value := _round(held(sequence))) > best:
            best, title, anchor = value, f"{index.titles[doc]} > {section}", f"#{section_id}"
    return Hit(doc=doc, docname=index.docnames[doc], title=title, anchor=anchor, score=score, coverage=coverage)
