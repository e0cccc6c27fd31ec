"""Korean search language for Sphinx's HTML search.

Sphinx has no Korean search language, and its default splitter indexes a Korean word
together with the particle (조사) or ending glued to it: ``모델을``, ``모델은`` and
``모델`` become three unrelated index terms.  :class:`SearchKorean` fixes that:

* :meth:`SearchKorean.split` cuts text into runs of Hangul and runs of other word
  characters (``GPU를`` → ``GPU`` + ``를``), and drops function words: the English
  stopwords, a few Korean conjunctions, and tokens that are nothing but a particle or
  an ending (the ``를`` above, or ``에서는`` after inline code).
* :meth:`SearchKorean.stem` strips particles and copula/verb endings from Hangul words
  with the table :data:`SUFFIXES` (longest match first, repeated until nothing more
  comes off), formal and colloquial (설치했는데, 지원하나요, 필요한가요), and stems every
  other word with the Porter stemmer.
* Then the glossary (``data/search_ko_glossary.json``) turns every spelling of a term
  into one index key: 디코드, decode and decoding are all found as 디코딩.

The same rules run in the browser: :func:`js_stemmer_code` and :func:`js_splitter_code`
generate the JavaScript ``Stemmer`` class and ``splitQuery`` function from the data in
this module and the glossary file, so the index (built here) and the query (stemmed in
the browser) agree; they also define ``RecipeSearchLanguage``, what the site's query
pipeline (``recipebook-search.js``) needs of the language.  Latin
words go through Porter on both sides (see :mod:`.words`).
"""

from __future__ import annotations

import functools
import json
from typing import Final

from sphinx.search.en import SearchEnglish

from .words import (
    DATA,
    HANGUL_CLASS,
    HANGUL_WORD_RE,
    JONG_COUNT,
    PORTER_JS_CLASS,
    SYLLABLE_FIRST,
    SYLLABLE_LAST,
    TOKEN_JS,
    UNSTEMMED,
    SiteSearchLanguage,
    fill,
    glossary_keys,
    js_language,
    js_splitter,
    load_glossary,
    normalize,
    porter,
    snowball_js,
    tokens,
)

__all__ = [
    "AFTER_CONSONANT",
    "AFTER_VOWEL",
    "AFTER_VOWEL_OR_RIEUL",
    "ANY",
    "GLOSSARY",
    "GLOSSARY_GROUPS",
    "KOREAN_STOPWORDS",
    "STOPWORDS",
    "SUFFIXES",
    "VERB_ENDINGS",
    "SearchKorean",
    "js_splitter_code",
    "js_stemmer_code",
    "split_words",
    "stem_info",
    "stem_spelling",
    "stem_word",
]

# ------------------------------------------------------------------------ syllables

_JONG_RIEUL: Final = 8  # ㄹ

# ------------------------------------------------------------------------ suffixes
#
# What may come off the end of a Hangul word.  Each row is
#
#     (suffix, condition on the syllable just before it, fewest syllables to leave)
#
# Conditions mirror Korean's own allomorphy and keep nouns from being cut at a
# look-alike syllable: 을/은/이/과/으로 follow a final consonant (받침), 를/는/가/와/로
# follow a vowel (로 also follows ㄹ).  So 효과 (vowel + 과), 경로 (ㅇ + 로) and
# 마을 (vowel + 을) are left whole.
#
# The minimum stem length: one syllable for suffixes of two or more syllables, and for
# 을/를/은/는/에 (값을 → 값, 위에 → 위), whose look-alikes are rare.  Two syllables for
# the other one-syllable suffixes, because short nouns end in them: 추가, 하나, 정의,
# 속도, 결과, 도로, 길이, 제한, 역할, 포함, 이해 stay whole, while 서버가, 모델의,
# 성능과 lose the particle.
#
# Stemming repeats until no row applies, so stacked particles need no rows of their own
# (모델들에서는 → 모델들에서 → 모델들 → 모델).  The rows for particle combinations that
# exist anyway (에서는, 으로는...) make a bare "에서는" a known function word.
#
# Deliberately absent: bare 다/고/면/인/지 and ㅂ니다 after a vowel stem.  They end too
# many nouns (바다, 참고, 화면, 확인, 이미지) to be cut without a dictionary.

ANY: Final = "any"
AFTER_CONSONANT: Final = "consonant"
AFTER_VOWEL: Final = "vowel"
AFTER_VOWEL_OR_RIEUL: Final = "vowel-or-rieul"

_PARTICLES: Final[tuple[tuple[str, str, int], ...]] = (
    # object, topic, subject: the consonant/vowel pairs
    ("을", AFTER_CONSONANT, 1),
    ("를", AFTER_VOWEL, 1),
    ("은", AFTER_CONSONANT, 1),
    ("는", AFTER_VOWEL, 1),
    ("이", AFTER_CONSONANT, 2),
    ("가", AFTER_VOWEL, 2),
    # "and / with"
    ("과", AFTER_CONSONANT, 2),
    ("와", AFTER_VOWEL, 2),
    ("이랑", AFTER_CONSONANT, 1),
    ("랑", AFTER_VOWEL, 2),
    # instrument, direction, capacity
    ("으로", AFTER_CONSONANT, 1),
    ("로", AFTER_VOWEL_OR_RIEUL, 2),
    ("으로서", AFTER_CONSONANT, 1),
    ("으로써", AFTER_CONSONANT, 1),
    ("로서", AFTER_VOWEL_OR_RIEUL, 1),
    ("로써", AFTER_VOWEL_OR_RIEUL, 1),
    # "or", "even", "called"
    ("이나", AFTER_CONSONANT, 1),
    ("나", AFTER_VOWEL, 2),
    ("이라도", AFTER_CONSONANT, 1),
    ("라도", AFTER_VOWEL, 1),
    ("이란", AFTER_CONSONANT, 1),
    ("란", AFTER_VOWEL, 2),
    ("이라는", AFTER_CONSONANT, 1),
    ("라는", AFTER_VOWEL, 1),
    # genitive, plural
    ("의", ANY, 2),
    ("들", ANY, 2),
    # location, recipient, source
    ("에", ANY, 1),
    ("에서", ANY, 1),
    ("에게", ANY, 1),
    ("에게서", ANY, 1),
    ("한테", ANY, 1),
    ("한테서", ANY, 1),
    ("께서", ANY, 1),
    # "also", "only", "until", "from", "than", "like", "every", "as much as"...
    ("도", ANY, 2),
    ("만", ANY, 2),
    ("까지", ANY, 1),
    ("부터", ANY, 1),
    ("보다", ANY, 1),
    ("처럼", ANY, 1),
    ("마다", ANY, 1),
    ("만큼", ANY, 1),
    ("뿐", ANY, 1),  # "only" (것뿐입니다, 이름뿐이므로)
    ("밖에", ANY, 1),
    ("조차", ANY, 1),
    ("마저", ANY, 1),
    ("대로", ANY, 2),  # 순서대로 → 순서, but 그대로 stays
    ("끼리", ANY, 1),
    ("이든", AFTER_CONSONANT, 1),
    ("든", AFTER_VOWEL, 2),
    # "per" and "each" (서버당, 조합별, 하나씩) and the adjectival -적 (자체적): found as the noun
    ("당", ANY, 2),
    ("별", ANY, 2),
    ("씩", ANY, 2),
    ("적", ANY, 2),
    # frequent combinations; each keeps the condition and minimum of its first part,
    # so that it cuts exactly where stripping the parts one by one would
    ("에는", ANY, 1),
    ("에도", ANY, 1),
    ("에만", ANY, 1),
    ("에의", ANY, 1),
    ("에서는", ANY, 1),
    ("에서도", ANY, 1),
    ("에서의", ANY, 1),
    ("에서만", ANY, 1),
    ("에게는", ANY, 1),
    ("으로는", AFTER_CONSONANT, 1),
    ("으로도", AFTER_CONSONANT, 1),
    ("으로의", AFTER_CONSONANT, 1),
    ("로는", AFTER_VOWEL_OR_RIEUL, 2),
    ("로도", AFTER_VOWEL_OR_RIEUL, 2),
    ("로의", AFTER_VOWEL_OR_RIEUL, 2),
    ("과는", AFTER_CONSONANT, 2),
    ("와는", AFTER_VOWEL, 2),
    ("과의", AFTER_CONSONANT, 2),
    ("와의", AFTER_VOWEL, 2),
    ("까지는", ANY, 1),
    ("부터는", ANY, 1),
    ("보다는", ANY, 1),
)

# 이다 (copula) endings: 모델입니다, 모델이며, 서버였습니다.
_COPULA: Final[tuple[tuple[str, str, int], ...]] = (
    ("입니다", ANY, 1),
    ("입니까", ANY, 1),
    ("이다", ANY, 1),
    ("이며", ANY, 1),
    ("이고", ANY, 1),
    ("이면", ANY, 1),
    ("이므로", ANY, 1),
    ("이지만", AFTER_CONSONANT, 1),  # 페이지만 is 페이지 + 만, never 페
    ("이라고", ANY, 1),
    ("라고", AFTER_VOWEL, 1),  # quoting: `--fix`라고
    ("이라면", AFTER_CONSONANT, 1),
    ("라면", AFTER_VOWEL, 1),  # "if it is": 따옴표라면, 키라면
    ("이어야", ANY, 1),  # also after a vowel: 정수이어야
    ("여야", AFTER_VOWEL, 1),  # "must be": 릴리스여야, 하나여야
    ("이거나", ANY, 1),  # "or is": 것이거나, 정수이거나
    ("이라서", ANY, 1),
    ("인지", ANY, 1),
    ("이었다", ANY, 1),
    ("이었습니다", ANY, 1),
    ("였다", ANY, 2),
    ("였습니다", ANY, 1),
    ("이에요", ANY, 1),
    ("예요", ANY, 2),
    # colloquial: 무엇인가요, 모델인데
    ("인가요", ANY, 1),
    ("인데", ANY, 1),
    ("인데요", ANY, 1),
    ("일까요", ANY, 1),
    ("이죠", ANY, 1),
)

# 하다 turns a noun into a verb (서빙하다, 설치합니다, 필요한); 되다 makes the passive
# (배포됩니다, 검증된).  Taking the ending off leaves the noun, which is what people search.
_HADA: Final[tuple[tuple[str, str, int], ...]] = (
    ("하다", ANY, 1),
    ("합니다", ANY, 1),
    ("합니까", ANY, 1),
    ("합시다", ANY, 1),
    ("하십시오", ANY, 1),
    ("하세요", ANY, 1),
    ("하십니다", ANY, 1),
    ("하시면", ANY, 1),
    ("하려면", ANY, 1),
    ("하려고", ANY, 1),
    ("했습니다", ANY, 1),
    ("하였습니다", ANY, 1),
    ("하겠습니다", ANY, 1),
    ("했다", ANY, 1),
    ("하였다", ANY, 1),
    ("했고", ANY, 1),
    ("했으며", ANY, 1),
    ("했으면", ANY, 1),
    ("했을", ANY, 1),
    ("했던", ANY, 1),
    ("한다", ANY, 1),
    ("하는", ANY, 1),
    ("하는지", ANY, 1),
    ("하던", ANY, 1),
    ("하고", ANY, 1),
    ("하며", ANY, 1),
    ("하면", ANY, 1),
    ("하면서", ANY, 1),
    ("하여", ANY, 1),
    ("하여야", ANY, 1),
    ("해서", ANY, 1),
    ("해야", ANY, 1),
    ("해도", ANY, 2),  # 이해도 → 이해 (via 도), never 이
    ("해요", ANY, 1),
    ("하기", ANY, 1),
    ("하지", ANY, 1),
    ("하지만", ANY, 1),
    ("하도록", ANY, 1),
    ("하므로", ANY, 1),
    ("하게", ANY, 1),
    ("하거나", ANY, 1),
    ("한", ANY, 2),
    ("할", ANY, 2),
    ("함", ANY, 2),
    ("해", ANY, 2),
    # the colloquial register a reader types into a search box: questions (지원하나요,
    # 필요한가요, 설치할까요), "I did ... but" (설치했는데, 설정했는데요), polite statements
    ("하나요", ANY, 1),
    ("했나요", ANY, 1),
    ("한가요", ANY, 1),
    ("할까요", ANY, 1),
    ("하는데", ANY, 1),
    ("하는데요", ANY, 1),
    ("했는데", ANY, 1),
    ("했는데요", ANY, 1),
    ("한데", ANY, 1),
    ("했어요", ANY, 1),
    ("했어", ANY, 1),
    ("하죠", ANY, 1),
    ("했죠", ANY, 1),
    ("하네요", ANY, 1),
    ("했네요", ANY, 1),
    ("하려는데", ANY, 1),
    ("하려는", ANY, 1),
    ("하고요", ANY, 1),
    ("하면요", ANY, 1),
    ("할게요", ANY, 1),
    ("할래요", ANY, 1),
    ("하거든요", ANY, 1),
    ("했거든요", ANY, 1),
    # "that it is ...", "whether": 필요하다고, 설치한지, 설치했는지 (한다고 is 한 + 다고)
    ("하다고", ANY, 1),
    ("한지", ANY, 1),
    ("했는지", ANY, 1),
    ("했거나", ANY, 1),
    # 해지다, "become": 필요해지면, 가능해집니다
    ("해지면", ANY, 1),
    ("해지는", ANY, 1),
    ("해진", ANY, 1),
    ("해집니다", ANY, 1),
    ("해져", ANY, 1),
    ("해졌습니다", ANY, 1),
)
_DOEDA: Final[tuple[tuple[str, str, int], ...]] = (
    ("되다", ANY, 1),
    ("됩니다", ANY, 1),
    ("됩니까", ANY, 1),
    ("되었습니다", ANY, 1),
    ("됐습니다", ANY, 1),
    ("되었다", ANY, 1),
    ("됐다", ANY, 1),
    ("되었고", ANY, 1),
    ("되었으며", ANY, 1),
    ("되었으면", ANY, 1),
    ("됐으면", ANY, 1),
    ("되었을", ANY, 1),
    ("됐을", ANY, 1),
    ("된다", ANY, 1),
    ("되는", ANY, 1),
    ("되는지", ANY, 1),
    ("되고", ANY, 1),
    ("되며", ANY, 1),
    ("되면", ANY, 1),
    ("되어", ANY, 1),
    ("되어야", ANY, 1),
    ("되어서", ANY, 1),
    ("돼서", ANY, 1),
    ("돼야", ANY, 1),
    ("되지", ANY, 1),
    ("되기", ANY, 1),
    ("되도록", ANY, 1),
    ("되므로", ANY, 1),
    ("되거나", ANY, 1),
    ("되게", ANY, 1),
    ("된", ANY, 2),
    ("될", ANY, 2),
    ("됨", ANY, 2),
    ("돼", ANY, 2),
    # colloquial: 지원되나요, 설치됐는데, 적용될까요
    ("되나요", ANY, 1),
    ("됐나요", ANY, 1),
    ("될까요", ANY, 1),
    ("되는데", ANY, 1),
    ("되는데요", ANY, 1),
    ("됐는데", ANY, 1),
    ("됐는데요", ANY, 1),
    ("돼요", ANY, 1),
    ("됐어요", ANY, 1),
    ("되죠", ANY, 1),
    ("되네요", ANY, 1),
    # 되요 is the common misspelling of 돼요; "whether": 된지, 됐는지 (된다고 is 된 + 다고)
    ("되요", ANY, 1),
    ("된지", ANY, 1),
    ("됐는지", ANY, 1),
    ("되었거나", ANY, 1),
    ("되었는지", ANY, 1),
    ("됐거나", ANY, 1),
)
# 시키다 makes a noun causative (학습시키려면, 적용시켜야): the noun is what people search.
_SIKIDA: Final[tuple[tuple[str, str, int], ...]] = (
    ("시키다", ANY, 1),
    ("시킵니다", ANY, 1),
    ("시키는", ANY, 1),
    ("시키고", ANY, 1),
    ("시키면", ANY, 1),
    ("시키려면", ANY, 1),
    ("시키기", ANY, 1),
    ("시킨", ANY, 1),
    ("시킬", ANY, 1),
    ("시켜", ANY, 1),
    ("시켜서", ANY, 1),
    ("시켜야", ANY, 1),
    ("시켜요", ANY, 1),
    ("시켰는데", ANY, 1),
    ("시키며", ANY, 1),
    ("시키지", ANY, 1),
)
# Formal endings of other verbs: 있습니다 → 있, 없었습니다 → 없.
_VERB: Final[tuple[tuple[str, str, int], ...]] = (
    ("습니다", ANY, 1),
    ("습니까", ANY, 1),
    ("었습니다", ANY, 1),
    ("았습니다", ANY, 1),
    ("겠습니다", ANY, 1),
    ("었다", ANY, 1),
    ("았다", ANY, 1),
    ("으면", ANY, 1),
    ("으며", ANY, 1),
    ("으므로", ANY, 1),
    # colloquial: 있나요, 없는데, 있었는데, 맞나요
    ("나요", ANY, 1),
    ("었나요", ANY, 1),
    ("었으면", ANY, 1),
    ("았으면", ANY, 1),
    ("었을", ANY, 1),
    ("았을", ANY, 1),
    ("았나요", ANY, 1),
    ("는데", ANY, 1),
    ("는데요", ANY, 1),
    ("었는데", ANY, 1),
    ("았는데", ANY, 1),
    ("었어요", ANY, 1),
    ("았어요", ANY, 1),
    ("을까요", ANY, 1),
    ("네요", ANY, 1),
    ("거나", ANY, 1),
    ("도록", ANY, 1),
    ("다면", ANY, 1),
    ("어야", ANY, 1),
    ("아야", ANY, 1),
    # a reader's question: "to turn on" (켜려면, 깔려면, 읽으려면), "in order to", "they say"
    # (느리다고), polite statements (죽어요, 있어요, 맞아요), "whether" (있는지)
    ("려면", ANY, 1),
    ("으려면", ANY, 1),
    ("려고", ANY, 1),
    ("으려고", ANY, 1),
    ("다고", ANY, 1),
    ("어요", ANY, 1),
    ("아요", ANY, 1),
    ("는지", ANY, 1),
)


def _longest_first(*groups: tuple[tuple[str, str, int], ...]) -> tuple[tuple[str, str, int], ...]:
    rows: dict[str, tuple[str, str, int]] = {}
    for group in groups:
        for row in group:
            if row[0] in rows:
                msg = f"suffix {row[0]!r} is listed twice"
                raise ValueError(msg)
            rows[row[0]] = row
    # Longest first; ties in code-point order so the JavaScript copy is deterministic.
    return tuple(sorted(rows.values(), key=lambda row: (-len(row[0]), row[0])))


#: Every strippable suffix as ``(suffix, condition, min_stem_syllables)``, longest first.
#: The single source of truth: the JavaScript stemmer is generated from it.
SUFFIXES: Final = _longest_first(_PARTICLES, _COPULA, _HADA, _DOEDA, _SIKIDA, _VERB)

#: The endings that follow a verb's own stem (있습니다, 켜려면), not a noun (서빙하려면 is the
#: noun 서빙): what is left when one of them comes off is a verb, which the index does not
#: hold as a word (the stemmer does not conjugate); the query pipeline leaves such a word out.
VERB_ENDINGS: Final = frozenset(suffix for suffix, _, _ in _VERB)

#: Korean words never worth indexing or searching for on their own: conjunctions and
#: postpositions that head a phrase, every entry of :data:`SUFFIXES` standing alone, and
#: the bare stems 하/되 left by 하는/되는.
KOREAN_STOPWORDS: Final = frozenset(
    {
        "및",
        "또",
        "또는",
        "혹은",
        "즉",
        "그리고",
        "그러나",
        "하지만",
        "그런데",
        "그래서",
        "따라서",
        "또한",
        "위한",
        "위해",
        "대한",
        "대해",
        "관한",
        "관해",
        "통해",
        "통한",
        "따라",
        "따른",
        "하",
        "되",
    }
    | {suffix for suffix, _, _ in SUFFIXES}
)

# ----------------------------------------------------------------------- glossary

GLOSSARY_FILE: Final = DATA / "search_ko_glossary.json"
#: Hangul readings of publishers', vendors' and families' names, the name as pages write it first.
NAMES_FILE: Final = DATA / "search_ko_names.json"

#: Groups of spellings of one term, the term (its index key) first; from the data files.
GLOSSARY_GROUPS: Final = load_glossary(GLOSSARY_FILE) + load_glossary(NAMES_FILE)


#: What :class:`SearchKorean` never indexes: Sphinx's English stopwords plus the Korean.
STOPWORDS: Final = frozenset(SearchEnglish.stopwords) | KOREAN_STOPWORDS

# --------------------------------------------------------------------- Python side


def _condition_holds(condition: str, syllable: str) -> bool:
    if condition == ANY:
        return True
    code = ord(syllable) - SYLLABLE_FIRST
    if not 0 <= code <= SYLLABLE_LAST - SYLLABLE_FIRST:
        return False  # a bare jamo: no reliable final consonant
    jong = code % JONG_COUNT
    if condition == AFTER_CONSONANT:
        return jong != 0
    if condition == AFTER_VOWEL:
        return jong == 0
    return jong in (0, _JONG_RIEUL)  # AFTER_VOWEL_OR_RIEUL


#: :data:`SUFFIXES` by suffix, and their lengths, longest first: of the suffixes of one length,
#: only the word's own last syllables can end it, so the first suffix :data:`SUFFIXES`' order
#: strips is found by one look-up a length instead of a pass over the table.
_SUFFIX_RULES: Final = {suffix: (condition, min_stem) for suffix, condition, min_stem in SUFFIXES}
_SUFFIX_LENGTHS: Final = tuple(sorted({len(suffix) for suffix in _SUFFIX_RULES}, reverse=True))


def _strip_once(word: str) -> str:
    """The suffix that comes off the word first, or ""."""
    for length in _SUFFIX_LENGTHS:
        stem_length = len(word) - length
        if stem_length < 0:  # longer than the word
            continue
        suffix = word[stem_length:]
        rule = _SUFFIX_RULES.get(suffix)
        if rule is not None and stem_length >= rule[1] and _condition_holds(rule[0], word[stem_length - 1]):
            return suffix
    return ""


def _stem_korean(word: str) -> tuple[str, bool]:
    """The stem, and whether a verb's own ending came off on the way (:data:`VERB_ENDINGS`)."""
    verb = False
    while suffix := _strip_once(word):
        verb = verb or suffix in VERB_ENDINGS
        word = word[: -len(suffix)]
    return word, verb


def _stem_alone(word: str) -> tuple[str, bool]:
    word = normalize(word)
    if HANGUL_WORD_RE.fullmatch(word):
        return _stem_korean(word)
    if HANGUL_WORD_RE.search(word):
        return word, False
    return porter(word), False


def stem_spelling(word: str) -> str:
    """Stem one word as :func:`stem_word` does, without the glossary (the word as spelt)."""
    return _stem_alone(word)[0]


#: Stem of a spelling → index key, from the glossary; the JavaScript stemmer gets the same map.
GLOSSARY: Final = glossary_keys(GLOSSARY_GROUPS, stem_spelling)


@functools.lru_cache(maxsize=65536)
def stem_info(word: str) -> tuple[str, bool]:
    """:func:`stem_word`, and whether a verb's own ending came off (켜려면 → 켜, True)."""
    stem, verb = _stem_alone(word)
    return GLOSSARY.get(stem, stem), verb


def stem_word(word: str) -> str:
    """Stem one word: NFC, lower case, then the Korean rules or the Porter stemmer.

    A Hangul word loses particles and endings, a word without Hangul goes through
    Porter; neither comes out empty.  A mixed word (which :func:`split_words` never
    produces) is only normalised.  A stem that the glossary knows as another spelling
    of a term becomes the term's key (디코드 → 디코딩, decoding → 디코딩).
    """
    return stem_info(word)[0]


@functools.lru_cache(maxsize=65536)
def _is_function_word(token: str) -> bool:
    """Whether a token is left out of the index (a pure function of its text, kept: a page's
    tokens repeat, and a build splits hundreds of thousands of them)."""
    return normalize(token) in STOPWORDS or stem_word(token) in STOPWORDS


def split_words(text: str) -> list[str]:
    """Split text into Hangul runs and other word runs, leaving out function words."""
    return [token for token in tokens(text) if not _is_function_word(token)]


# ----------------------------------------------------------------- JavaScript side

# Filled in by js_stemmer_code(); "@NAME@" markers avoid clashing with JS braces.
_JS_TEMPLATE: Final = """\
/* Korean stemmer, generated by recipebook_sphinx.search.korean; keep in step with it. */
var KoreanSearch = (function () {
  "use strict";
  var SUFFIXES = @SUFFIXES@;
  var VERB_ENDINGS = new Set(@VERB_ENDINGS@);
  var GLOSSARY = new Map(Object.entries(@GLOSSARY@));
  var STOPWORDS = new Set(@STOPWORDS@);
  var UNSTEMMED = new Set(@UNSTEMMED@);
  var HANGUL = @HANGUL_CLASS@;
  var TOKEN_RE = new RegExp(@TOKENS@, "gu");
  var HANGUL_WORD_RE = new RegExp("^" + HANGUL + "+$", "u");
  var HAS_HANGUL_RE = new RegExp(HANGUL, "u");
  var english = new @ENGLISH_CLASS@();

  function normalize(word) {
    return word.normalize("NFC").toLowerCase();
  }

  function conditionHolds(condition, syllable) {
    if (condition === "@ANY@") return true;
    var code = syllable.charCodeAt(0) - @SYLLABLE_FIRST@;
    if (code < 0 || code > @SYLLABLE_SPAN@) return false;
    var jong = code % @JONG_COUNT@;
    if (condition === "@AFTER_CONSONANT@") return jong !== 0;
    if (condition === "@AFTER_VOWEL@") return jong === 0;
    return jong === 0 || jong === @JONG_RIEUL@;
  }

  function stripOnce(word) {
    for (var i = 0; i < SUFFIXES.length; i++) {
      var suffix = SUFFIXES[i][0];
      var stemLength = word.length - suffix.length;
      if (
        stemLength >= SUFFIXES[i][2] &&
        word.endsWith(suffix) &&
        conditionHolds(SUFFIXES[i][1], word.charAt(stemLength - 1))
      )
        return suffix;
    }
    return "";
  }

  function stemKorean(word) {
    var verb = false;
    for (;;) {
      var suffix = stripOnce(word);
      if (!suffix) return [word, verb];
      verb = verb || VERB_ENDINGS.has(suffix);
      word = word.slice(0, word.length - suffix.length);
    }
  }

  function stemAlone(word) {
    word = normalize(word);
    if (HANGUL_WORD_RE.test(word)) return stemKorean(word);
    if (HAS_HANGUL_RE.test(word)) return [word, false];
    return [UNSTEMMED.has(word) ? word : english.stemWord(word) || word, false];
  }

  function stemInfo(word) {
    var info = stemAlone(word);
    return [GLOSSARY.has(info[0]) ? GLOSSARY.get(info[0]) : info[0], info[1]];
  }

  function stemWord(word) {
    return stemInfo(word)[0];
  }

  function isFunctionWord(token) {
    return STOPWORDS.has(normalize(token)) || STOPWORDS.has(stemWord(token));
  }

  function splitQuery(query) {
    var tokens = query.normalize("NFC").match(TOKEN_RE) || [];
    return tokens.filter(function (token) {
      return !isFunctionWord(token);
    });
  }

  return { stemWord: stemWord, stemInfo: stemInfo, splitQuery: splitQuery, glossary: GLOSSARY };
})();

/** The class searchtools.js instantiates to stem query words. */
var Stemmer = function () {
  this.stemWord = KoreanSearch.stemWord;
};
"""


@functools.cache
def js_stemmer_code() -> str:
    """JavaScript for ``language_data.js``: Sphinx's Snowball Porter code, the Korean rules,
    and the language the query pipeline reads (``RecipeSearchLanguage``).

    Sphinx's minified Snowball files are read from the installed Sphinx, not copied.
    """
    values = {
        "SUFFIXES": json.dumps([list(row) for row in SUFFIXES]),
        "VERB_ENDINGS": json.dumps(sorted(VERB_ENDINGS)),
        "GLOSSARY": json.dumps(GLOSSARY, ensure_ascii=False),
        "STOPWORDS": json.dumps(sorted(STOPWORDS)),
        "UNSTEMMED": json.dumps(sorted(UNSTEMMED)),
        "HANGUL_CLASS": json.dumps(HANGUL_CLASS),
        "TOKENS": json.dumps(TOKEN_JS),
        "ENGLISH_CLASS": PORTER_JS_CLASS,
        "ANY": ANY,
        "AFTER_CONSONANT": AFTER_CONSONANT,
        "AFTER_VOWEL": AFTER_VOWEL,
        "SYLLABLE_FIRST": str(SYLLABLE_FIRST),
        "SYLLABLE_SPAN": str(SYLLABLE_LAST - SYLLABLE_FIRST),
        "JONG_COUNT": str(JONG_COUNT),
        "JONG_RIEUL": str(_JONG_RIEUL),
    }
    korean = fill(_JS_TEMPLATE, values)
    language = js_language("ko", "KoreanSearch.stemInfo", "KoreanSearch.glossary", STOPWORDS)
    return f"{snowball_js()}\n{korean}\n{language}"


def js_splitter_code() -> str:
    """JavaScript ``splitQuery`` for ``language_data.js`` (uses :func:`js_stemmer_code`)."""
    return js_splitter("KoreanSearch")


class SearchKorean(SiteSearchLanguage):
    """Korean: particle-stripping stemmer for Hangul, Porter for Latin words."""

    lang = "ko"
    language_name = "Korean"
    stopwords = STOPWORDS

    def split(self, input: str) -> list[str]:
        return split_words(input)

    stem = staticmethod(stem_word)
    stemmer_js = staticmethod(js_stemmer_code)
    splitter_js = staticmethod(js_splitter_code)
