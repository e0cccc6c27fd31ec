/*
 * The site's search: a query pipeline and a scorer of its own on Sphinx's search index,
 * and summaries a reader can read. The one implementation: tests/js/*.test.js test it in
 * Node.js (on small indexes and on a built site), tests/browser/test_search_sets.py in Chromium.
 *
 * A query is cut into words (analyse):
 *
 * 1. Names with dots, hyphens or underscores between letters and digits (`A.X-K2`,
 *    `gpt-oss-120b`, `--max-model-len`, `max_num_seqs`) stay one word; a page holds the
 *    name if it holds all its parts, or if a page or section title contains it (`ax-k2`
 *    is found in "Serving A.X-K2 ...").
 * 2. Every other token is stemmed by the site's language (Korean particles and endings off,
 *    Porter for Latin words, the glossary's spellings mapped to one key). Question words and
 *    fillers (search/data/search_fillers.json: 어떻게, 몇, 법, how, does, need...) and stopwords are
 *    left out, and so is a Korean word left a bare verb by its ending (켜려면, 띄워요: the
 *    index holds nouns, the stemmer does not conjugate).
 * 3. A word the index lacks is, in this order: split into index terms if it is an unspaced
 *    Korean compound (설치매트릭스 → 설치 매트릭스, the fewest words, longest first);
 *    matched to the terms it begins (파이프 → 파이프라인); matched to the terms one typo
 *    away: one jamo (else one syllable) in a Korean word of three syllables or more, one
 *    letter a typist confuses (ㅅ/ㅆ, ㅐ/ㅔ...) in a two-syllable one, one slip in an English
 *    word (a letter left out or added, two swapped, one replaced by its keyboard neighbour or a
 *    vowel by a vowel: 디코팅 → 디코딩, 캐씽 → 캐싱, speculatve → speculative); found in a title
 *    (`gptoss`). Any other word stays, matching nothing, so that a question about
 *    something the site lacks finds nothing.
 *
 * A word made only of question words and fillers (켜는법, 뭐하는거, howto) is left out.
 *
 * Each word weighs its inverse document frequency (a word on every page weighs almost
 * nothing; an unknown word weighs as a word on one page times `unknown`, 0.7: it lowers
 * every result rather than vetoing it, and a query that is mostly such words finds nothing). A page is shown if it holds at
 * least RecipeSearchData.params (search/build.py PARAMS) `threshold` of the query's weight (`cover`: a word found only in
 * the command explorer counts 0.75), and ranked by the weighted share it holds with each word
 * counted by where (`rank`: page title 1, heading 0.85, text 0.7, explorer 0.5) and how
 * (`quality`: 0.7 for a prefix, 0.8 for a typo, 0.9 for a title-only match), plus a bonus
 * when all the query words stand together in the page title (0.5) or a section heading
 * (0.3). Equal scores go to the page whose section headings hold more of the query, then to
 * the shorter page (fewer index words); the index's order (by name) only between equal pages.
 * A result links to the section whose heading holds more of the query than the page title.
 * Typos: one edit, two neighbouring letters swapped counting as one (gtp-oss → gpt-oss).
 *
 * Reads RecipeSearchLanguage (language_data.js: the language's tokens, stemmer, glossary,
 * stopwords and fillers) and RecipeSearchData (recipebook-search-data.js: the scorer's
 * numbers, the terms only a page's command explorer holds, the page's strings). Replaces
 * Search.query, Search.makeSearchSummary and Search.htmlToText of Sphinx's searchtools.js;
 * the rest of searchtools.js (the index, the result list, the fetching of each result's
 * page) is used as it is.
 */
var RecipeSearch = (function () {
  "use strict";
  var P = RecipeSearchData.params;
  var L = RecipeSearchLanguage;
  var NAME_RE = /[A-Za-z0-9]+(?:[._-]+[A-Za-z0-9]+)+/g;
  var LOOSE_SPLIT = /[._-]+/;
  var DIGITS = /^[0-9]+$/;
  var NOT_ALNUM = /[^a-z0-9]+/g;
  var ALNUM = /[a-z0-9]+/g;
  var HAS_DIGIT = /[0-9]/;
  var HAS_LETTER = /[a-z]/;
  var HANGUL_WORD = new RegExp("^" + L.hangul + "+$", "u");
  var LATIN_EDITS = "abcdefghijklmnopqrstuvwxyz";
  var SYLLABLE_FIRST = 0xac00;
  var SYLLABLE_LAST = 0xd7a3;

  function tokenRe() {
    return new RegExp(L.tokenPattern, "gu");
  }

  function tokens(text) {
    return text.normalize("NFC").match(tokenRe()) || [];
  }

  function normalize(word) {
    return word.normalize("NFC").toLowerCase();
  }

  function round(value) {
    return Math.floor(value * 1e6 + 0.5);
  }

  function stem(word) {
    return L.stemInfo(word)[0];
  }

  function key(text) {
    return normalize(text).replace(NOT_ALNUM, "");
  }

  function isHangul(word) {
    return HANGUL_WORD.test(word);
  }

  function byCodePoint(a, b) {
    return a < b ? -1 : a > b ? 1 : 0;
  }

  // words as the index holds them, in order, without numbers and stopwords (Python: Language.stems)
  function stems(parts) {
    var found = [];
    parts.forEach(function (part) {
      var s = stem(part);
      if (!DIGITS.test(part) && !L.stopwords.has(normalize(part)) && !L.stopwords.has(s)) found.push(s);
    });
    return found;
  }

  function titleStems(title) {
    return stems(tokens(title));
  }

  // ------------------------------------------------------------------------ index

  var prepared = new WeakMap();

  function files(value) {
    return new Set(typeof value === "number" ? [value] : value);
  }

  function prepare(raw) {
    if (prepared.has(raw)) return prepared.get(raw);
    var docnames = raw.docnames;
    var sections = docnames.map(function () {
      return [];
    });
    Object.entries(raw.alltitles).forEach(function (entry) {
      entry[1].forEach(function (place) {
        if (place[1]) sections[place[0]].push([entry[0], place[1]]);
      });
    });
    sections.forEach(function (found) {
      found.sort(function (a, b) {
        return byCodePoint(a[0], b[0]) || byCodePoint(a[1], b[1]);
      });
    });
    // a term no page holds any more (an incremental build keeps it, with no pages) is not a word
    var held = function (table) {
      return new Map(
        Object.entries(table)
          .map(function (e) {
            return [e[0], files(e[1])];
          })
          .filter(function (e) {
            return e[1].size;
          }),
      );
    };
    var terms = held(raw.terms);
    var titleterms = held(raw.titleterms);
    var vocabulary = new Set([].concat(Array.from(terms.keys()), Array.from(titleterms.keys())));
    var size = docnames.map(function () {
      return 0;
    });
    [terms, titleterms].forEach(function (map) {
      map.forEach(function (docs) {
        docs.forEach(function (doc) {
          size[doc] += 1;
        });
      });
    });
    var sortedTerms = Array.from(vocabulary).sort(byCodePoint);
    var hangul = new Map();
    sortedTerms.forEach(function (term) {
      if (isHangul(term)) hangul.set(term, term);
    });
    Array.from(L.glossary.entries())
      .sort(function (a, b) {
        return byCodePoint(a[0], b[0]);
      })
      .forEach(function (entry) {
        if (vocabulary.has(entry[1]) && isHangul(entry[0]) && !hangul.has(entry[0])) hangul.set(entry[0], entry[1]);
      });
    var index = {
      docnames: docnames,
      titles: raw.titles,
      filenames: raw.filenames,
      terms: terms,
      titleterms: titleterms,
      sections: sections,
      explorer: docnames.map(function (name) {
        return new Set(RecipeSearchData.explorer[name] || []);
      }),
      focus: docnames.map(function (name) {
        return new Set((RecipeSearchData.focus || {})[name] || []);
      }),
      chunks: raw.titles.map(titleChunks),
      reference: docnames.map(function (name) {
        return (RecipeSearchData.reference || []).includes(name);
      }),
      searchable: raw.titles
        .map(function (title, doc) {
          return title ? doc : -1;
        })
        .filter(function (doc) {
          return doc >= 0;
        }),
      vocabulary: vocabulary,
      size: size,
      sortedTerms: sortedTerms,
      hangul: hangul,
      page: raw.titles.map(titleStems),
      sectionStems: sections.map(function (found) {
        return found.map(function (s) {
          return titleStems(s[0]);
        });
      }),
      keyBounds: raw.titles.map(keyBounds),
      keys: raw.titles.map(function (title, doc) {
        return [key(title)].concat(
          sections[doc].map(function (s) {
            return key(s[0]);
          }),
        );
      }),
    };
    index.nameParts = new Set();
    index.chunks.forEach(function (chunks) {
      chunks.forEach(function (chunk) {
        if (chunk.length > 1)
          chunk.forEach(function (token) {
            if (HAS_LETTER.test(token)) index.nameParts.add(token);
          });
      });
    });
    prepared.set(raw, index);
    return index;
  }

  /** A title's names as runs of Latin letters and digits: "Serving Qwen3.5-0.8B on RBLN NPU" gives
      [serving], [qwen3, 5, 0, 8b], [on], [rbln], [npu] (Hangul left out: "NPU에서" gives [npu]). */
  function titleChunks(title) {
    return (title || "")
      .split(/\s+/)
      .map(function (chunk) {
        return chunk.toLowerCase().match(ALNUM) || [];
      })
      .filter(function (chunk) {
        return chunk.length;
      });
  }

  function field(index, doc, term, pageStems) {
    var t = index.titleterms.get(term);
    if (t && t.has(doc)) return pageStems.has(term) ? "title" : "heading";
    var b = index.terms.get(term);
    if (b && b.has(doc)) {
      if (index.focus[doc].has(term)) return "term";
      return index.explorer[doc].has(term) ? "explorer" : "body";
    }
    return null;
  }

  // ------------------------------------------------------------------------ words

  function withinOne(a, b) {
    a = Array.from(a);
    b = Array.from(b);
    if (Math.abs(a.length - b.length) > 1) return false;
    var i = 0;
    while (i < a.length && i < b.length && a[i] === b[i]) i++;
    var rest = function (x, from) {
      return x.slice(from).join(",");
    };
    if (a.length === b.length)
      return (
        rest(a, i + 1) === rest(b, i + 1) ||
        // two neighbouring letters swapped (gtp for gpt) is one slip of the fingers
        (i + 1 < a.length && a[i] === b[i + 1] && a[i + 1] === b[i] && rest(a, i + 2) === rest(b, i + 2))
      );
    if (a.length > b.length) return rest(a, i + 1) === rest(b, i);
    return rest(a, i) === rest(b, i + 1);
  }

  /** The same letters but one, and that one a pair a typist confuses (RecipeSearchData.confusable). */
  function confused(a, b) {
    if (a.length !== b.length) return false;
    var differ = [];
    for (var i = 0; i < a.length; i++) if (a[i] !== b[i]) differ.push([a[i], b[i]]);
    return (
      differ.length === 1 &&
      RecipeSearchData.confusable.some(function (group) {
        return (
          group.includes(String.fromCharCode(differ[0][0])) && group.includes(String.fromCharCode(differ[0][1]))
        );
      })
    );
  }

  /** Whether a word typed with one typo stands in a title's key as whole words of the title
      (gtposs in "servinggptoss120b...": gpt-oss typed without its hyphen); a stretch that starts
      or ends inside a word is pieces of words, not a name (gaudi is not the g of higgs and the
      audi of audio). `bounds`: where the title's words start and end in its key. */
  function near(k, text, bounds) {
    var ends = new Set(bounds[1]);
    return bounds[0].some(function (start) {
      for (var length = k.length - 1; length <= k.length + 1; length++) {
        if (ends.has(start + length) && withinOne(k, text.slice(start, start + length))) return true;
      }
      return false;
    });
  }

  /** Where each run of letters and digits of a title starts and ends in its key (key()). */
  function keyBounds(title) {
    var starts = [];
    var ends = [];
    var at = 0;
    (normalize(title || "").match(ALNUM) || []).forEach(function (run) {
      starts.push(at);
      at += run.length;
      ends.push(at);
    });
    return [starts, ends];
  }

  function jamo(word) {
    var letters = [];
    for (var i = 0; i < word.length; i++) {
      var code = word.charCodeAt(i) - SYLLABLE_FIRST;
      if (code >= 0 && code <= SYLLABLE_LAST - SYLLABLE_FIRST) {
        letters.push(0x1100 + Math.floor(code / 588), 0x1161 + Math.floor((code % 588) / 28));
        if (code % 28) letters.push(0x11a7 + (code % 28));
      } else letters.push(word.charCodeAt(i));
    }
    return letters;
  }

  // The letters a typist hits for a letter: its neighbours on the keyboard (QWERTY, rows
  // staggered), and for a vowel any vowel (a spelling slip: speculitive). Another letter put in
  // its place is not a slip of the fingers but another word (exaone is not expone).
  var KEY_ROWS = ["qwertyuiop", "asdfghjkl", "zxcvbnm"];
  var KEY_SHIFT = [0, 0.25, 0.75];
  var SPELT_ALIKE = "aeiouy";

  function keyAt(letter) {
    for (var row = 0; row < KEY_ROWS.length; row++) {
      var col = KEY_ROWS[row].indexOf(letter);
      if (col >= 0) return [row, col + KEY_SHIFT[row]];
    }
    return null;
  }

  function slipFor(typed, meant) {
    if (SPELT_ALIKE.includes(typed) && SPELT_ALIKE.includes(meant)) return true;
    var a = keyAt(typed);
    var b = keyAt(meant);
    return !!a && !!b && Math.abs(a[0] - b[0]) <= 1 && Math.abs(a[1] - b[1]) <= 1;
  }

  /** The words one slip away from a typed word: a letter left out, one typed too many, two
      neighbouring letters swapped, or one replaced by a letter a typist hits for it (slipFor). */
  function edits(word) {
    var found = [];
    for (var i = 0; i <= word.length; i++) {
      var head = word.slice(0, i);
      var tail = word.slice(i);
      if (tail) found.push(head + tail.slice(1));
      if (tail.length > 1) found.push(head + tail[1] + tail[0] + tail.slice(2));
      for (var j = 0; j < LATIN_EDITS.length; j++) {
        if (tail && slipFor(tail[0], LATIN_EDITS[j])) found.push(head + LATIN_EDITS[j] + tail.slice(1));
        found.push(head + LATIN_EDITS[j] + tail);
      }
    }
    return found;
  }

  /** Per page that holds the word: [the quality of the best way it does, where]. */
  function matchesOf(index, alternatives, titleKey, keyQuality) {
    var rank = P.rank;
    var found = new Map();
    index.searchable.forEach(function (doc) {
      var page = new Set(index.page[doc]);
      var best = [0, ""];
      var consider = function (quality, where) {
        if (quality * rank[where] > best[0] * (rank[best[1]] || 0)) best = [quality, where];
      };
      alternatives.forEach(function (alternative) {
        var places = alternative.terms.map(function (term) {
          return field(index, doc, term, page);
        });
        if (places.every(Boolean)) {
          var weakest = places.reduce(function (a, b) {
            return rank[b] < rank[a] ? b : a;
          });
          consider(alternative.quality, weakest);
        }
      });
      if (titleKey) {
        var keys = index.keys[doc];
        if (keys[0].includes(titleKey)) consider(keyQuality, "title");
        else if (
          keys.slice(1).some(function (k) {
            return k.includes(titleKey);
          })
        )
          consider(keyQuality, "heading");
        else if (titleKey.length > P.minLatin && near(titleKey, keys[0], index.keyBounds[doc]))
          consider(P.quality.typo, "title");
      }
      if (best[1]) found.set(doc, best);
    });
    return found;
  }

  /** A word's weight: its inverse document frequency. A word no page holds weighs as a word on
      one page, times params.unknown: it lowers every result, and only a query that is mostly
      such words (a question about something the site lacks) finds nothing. */
  function weightOf(index, matches) {
    var weight = idf(index, matches.size || P.unknownDocs);
    return matches.size ? weight : weight * P.unknown;
  }

  function idf(index, holding) {
    var pages = index.searchable.length;
    return Math.log(1 + (pages - holding + 0.5) / (holding + 0.5));
  }

  /** A word's weight on a page: more where it is much of the page's title and few titles hold it
      ("Benchmarks", "Rules": what the page is about, however many pages mention the word). */
  function weightOn(index, doc, word, match) {
    if (match[1] !== "title") return word.weight;
    return Math.max(word.weight, word.titleWeight / Math.max(1, new Set(index.page[doc]).size));
  }

  function makeWord(index, text, how, stems, alternatives, titleKey, keyQuality) {
    var matches = matchesOf(index, alternatives || [], titleKey || "", keyQuality === undefined ? 1 : keyQuality);
    var terms = new Set();
    (alternatives || []).forEach(function (alternative) {
      alternative.terms.forEach(function (term) {
        terms.add(term);
      });
    });
    var titled = 0;
    matches.forEach(function (match) {
      if (match[1] === "title") titled++;
    });
    return {
      text: text,
      how: how,
      stems: stems,
      terms: terms,
      matches: matches,
      weight: weightOf(index, matches),
      // the weight of a word by the page titles that hold it (weightOn)
      titleWeight: titled ? idf(index, titled) : 0,
    };
  }

  function skipped(lower, s) {
    return DIGITS.test(lower) || L.stopwords.has(lower) || L.fillers.has(lower) || L.stopwords.has(s) || L.fillers.has(s);
  }

  function nameWords(index, text) {
    var alternatives = [];
    [tokens(text), text.split(LOOSE_SPLIT).filter(Boolean)].forEach(function (parts) {
      var found = stems(parts);
      var seen = alternatives.some(function (alternative) {
        return alternative.terms.join("\u0000") === found.join("\u0000");
      });
      if (found.length && !seen) alternatives.push({ terms: found, quality: P.quality.exact });
    });
    var k = key(text);
    if (!alternatives.length && !HAS_LETTER.test(k)) return [];
    var terms = alternatives.length ? alternatives[0].terms : [];
    var word = makeWord(index, text, "name", terms, alternatives, k, 1);
    if (!word.matches.size) word.how = "unknown";
    return [word];
  }

  function exact(index, text, s, how) {
    return makeWord(index, text, how || "exact", [s], [{ terms: [s], quality: P.quality.exact }]);
  }

  // a question word or filler, as typed or as stemmed (Python: Language.is_filler)
  function isFiller(part) {
    return L.fillers.has(stem(part)) || L.fillers.has(normalize(part));
  }

  function partOk(index, part) {
    if (isFiller(part)) return true; // 설정법 is 설정 + 법
    var s = stem(part);
    return index.vocabulary.has(s) && (part.length >= 2 || s !== part);
  }

  /** The fewest parts an unspaced word is made of (null: none), each an index word or a filler;
      a Latin word only of fillers and stopwords (howto, whatis). */
  function split(index, word) {
    var hangul = isHangul(word);
    var ok = hangul
      ? function (part) {
          return partOk(index, part);
        }
      : function (part) {
          return isFiller(part) || L.stopwords.has(part);
        };
    if (word.length < 2) return null;
    var best = new Array(word.length + 1).fill(null);
    best[word.length] = [];
    for (var start = word.length - 1; start >= 0; start--) {
      for (var end = word.length; end > start; end--) {
        var rest = best[end];
        var part = word.slice(start, end);
        if (rest !== null && ok(part)) {
          var candidate = [part].concat(rest);
          if (best[start] === null || candidate.length < best[start].length) best[start] = candidate;
        }
      }
    }
    return best[0] && best[0].length >= 2 ? best[0] : null;
  }

  function compound(index, word) {
    var parts = isHangul(word) ? split(index, word) || [] : [];
    var contentful = parts.filter(function (p) {
      return !isFiller(p);
    });
    return contentful.length ? contentful : [];
  }

  /** A word made only of question words and fillers (켜는법: 켜 + 법, 뭐하는거, howto): left out. */
  function fillersOnly(index, lower, s) {
    return [lower, s].some(function (word) {
      var parts = split(index, word);
      return (
        parts !== null &&
        parts.every(function (p) {
          return isFiller(p) || L.stopwords.has(p);
        })
      );
    });
  }

  /** Whether a Latin word carries capitals of its own, beyond a first letter, beside small letters. */
  function cased(token) {
    return /[a-z]/.test(token) && /[A-Z]/.test(token.slice(1));
  }

  function typos(index, lower, s, hangul) {
    var near = new Set();
    if (hangul) {
      var syllable = new Set(); // one letter wrong is closer than one syllable
      Array.from(new Set([s, lower])).forEach(function (typed) {
        var letters = jamo(typed);
        index.hangul.forEach(function (term, spelling) {
          if (typed.length >= 3 && spelling.length >= 3) {
            if (withinOne(letters, jamo(spelling))) near.add(term);
            else if (withinOne(typed, spelling)) syllable.add(term);
          } else if (confused(letters, jamo(spelling))) near.add(term);
        });
      });
      if (!near.size) near = syllable;
    } else {
      edits(lower).forEach(function (edit) {
        var e = stem(edit);
        if (index.vocabulary.has(e)) near.add(e);
      });
      // a letter typed twice or once too few, however often (dissagregated, disaggregated)
      var single = singled(s);
      if (!near.size && single.length >= P.minLatin)
        index.sortedTerms.forEach(function (term) {
          if (singled(term) === single) near.add(term);
        });
    }
    return Array.from(near).sort(byCodePoint);
  }

  function singled(word) {
    return word.replace(/(.)\1+/g, "$1");
  }

  function tokenWords(index, token) {
    var lower = normalize(token);
    var info = L.stemInfo(token);
    var s = info[0];
    if (skipped(lower, s)) return [];
    var quality = P.quality;
    if (index.vocabulary.has(s)) return [exact(index, token, s)];
    var hangul = isHangul(s);
    if (fillersOnly(index, lower, s)) return [];
    if ((L.unstemmed || new Set()).has(lower)) return [makeWord(index, token, "unknown", [s], [])]; // a name as typed
    if (hangul) {
      var parts = compound(index, lower);
      if (!parts.length) parts = compound(index, s);
      if (parts.length)
        return parts.map(function (part) {
          return exact(index, part, stem(part), "compound");
        });
    }
    // a verb (켜려면, 띄워요: the index holds no verbs) or a one-syllable word it lacks
    if (hangul && (s.length < 2 || info[1] || lower.endsWith("\uc694"))) return [];
    var longEnough = s.length >= (hangul ? P.minHangul : P.minLatin);
    if (longEnough) {
      var begun = index.sortedTerms.filter(function (t) {
        return t.startsWith(s) && t !== s;
      });
      if (begun.length)
        return [
          makeWord(
            index,
            token,
            "prefix",
            [s],
            begun.map(function (t) {
              return { terms: [t], quality: quality.prefix };
            }),
          ),
        ];
      // a name typed with its own capitals (ROCm, vLLM) is spelt on purpose: no typo of it
      var close = hangul || !cased(token) ? typos(index, lower, s, hangul) : [];
      if (close.length)
        return [
          makeWord(
            index,
            token,
            "typo",
            [close[0]],
            close.map(function (t) {
              return { terms: [t], quality: quality.typo };
            }),
          ),
        ];
    }
    var k = key(token);
    if (!hangul && k.length >= P.minLatin) {
      var titled = makeWord(index, token, "title", [], [], k, quality.title);
      if (titled.matches.size) return [titled];
    }
    return [makeWord(index, token, "unknown", [s], [])];
  }

  /** Each name and token of the (NFC) query: [where it starts, its text, the words it gives (none: left out)]. */
  function pieces(query, raw) {
    var index = prepare(raw);
    var text = query.normalize("NFC");
    var found = [];
    text.replace(NAME_RE, function (match, offset) {
      found.push([offset, match, nameWords(index, match)]);
      return match;
    });
    var blanked = text.replace(NAME_RE, function (match) {
      return " ".repeat(match.length);
    });
    var re = tokenRe();
    var m;
    while ((m = re.exec(blanked)) !== null) found.push([m.index, m[0], tokenWords(index, m[0])]);
    found.sort(function (a, b) {
      return a[0] - b[0];
    });
    return found;
  }

  function analyse(query, raw) {
    return [].concat.apply(
      [],
      pieces(query, raw).map(function (f) {
        return f[2];
      }),
    );
  }

  /** Whether a token is left out as a question word, a filler or a stopword (not as a bare verb). */
  function leftOutAsFiller(token) {
    return skipped(normalize(token), stem(token));
  }

  // ---------------------------------------------------------------------- ranking

  function holds(sequence, word) {
    if (word.how === "name") {
      var n = word.stems.length;
      for (var i = 0; i + n <= sequence.length; i++) {
        if (sequence.slice(i, i + n).join("\u0000") === word.stems.join("\u0000")) return true;
      }
      return false;
    }
    return sequence.some(function (s) {
      return word.terms.has(s);
    });
  }

  function phrase(sequence, words) {
    if (
      words.length < 2 ||
      words.some(function (w) {
        return !w.terms.size;
      })
    )
      return false;
    for (var start = 0; start < sequence.length; start++) {
      var at = start;
      var all = words.every(function (word) {
        if (word.how === "name") {
          if (sequence.slice(at, at + word.stems.length).join("\u0000") !== word.stems.join("\u0000")) return false;
          at += word.stems.length;
          return true;
        }
        if (at < sequence.length && word.terms.has(sequence[at])) {
          at += 1;
          return true;
        }
        return false;
      });
      if (all) return true;
    }
    return false;
  }

  // ------------------------------------------------------------------------ names

  // How a Hangul spelling of a Latin name sounds, as consonants: a Korean reader writes Qwen
  // 큐웬, DeepSeek 딥시크, Llama 라마, Paddle 패들. Both spellings are reduced to the same coarse
  // sounds (K: ㄱㅋ / c g k q, T: ㄷㅌ / d t, P: ㅂㅍ / b p f v, S: ㅅㅈㅊ / s z j ch, L: ㄹ / l r,
  // M, N, H), every vowel to V (Korean's ㅡ, the vowel it puts between consonants English
  // joins, to nothing), repeats to one, and a last vowel dropped (플래시 for flash).
  var H_INITIAL = "K K N T T L M P P S S - S S S K T P H".split(" ");
  var H_FINAL = ["", "K", "K", "K", "N", "N", "N", "T", "L", "L", "L", "L", "L", "L", "L", "L", "M", "P", "P", "T", "T", "N", "T", "T", "K", "T", "P", ""];
  var H_EU = 18; // ㅡ
  var LATIN_SOUND = { b: "P", p: "P", f: "P", v: "P", d: "T", t: "T", k: "K", q: "K", j: "S", s: "S", z: "S", l: "L", m: "M", n: "N" };
  var VOWELS = "aeiou";

  function squeeze(sounds) {
    var out = [];
    sounds.forEach(function (sound) {
      if (sound && out[out.length - 1] !== sound) out.push(sound);
    });
    if (out[out.length - 1] === "V") out.pop();
    return out.join("");
  }

  /** The sounds of a word of Hangul syllables, or "" (another letter in it). */
  function hangulSounds(word) {
    var sounds = [];
    for (var i = 0; i < word.length; i++) {
      var code = word.charCodeAt(i) - SYLLABLE_FIRST;
      if (code < 0 || code > SYLLABLE_LAST - SYLLABLE_FIRST) return "";
      var initial = H_INITIAL[Math.floor(code / 588)];
      if (initial !== "-") sounds.push(initial);
      if (Math.floor((code % 588) / 28) !== H_EU) sounds.push("V");
      sounds.push(H_FINAL[code % 28]);
    }
    return squeeze(sounds);
  }

  /** The ways a Korean reader may hear a word of Latin letters: with and without its silent final
      e, its r after a vowel (water, 워터), its soft g (gemma, 젬마). */
  function latinSounds(word) {
    var found = new Set();
    [false, true].forEach(function (silentE) {
      [false, true].forEach(function (dropR) {
        [false, true].forEach(function (softG) {
          found.add(latinSound(word, silentE, dropR, softG));
        });
      });
    });
    return Array.from(found);
  }

  function latinSound(word, silentE, dropR, softG) {
    var sounds = [];
    var vowel = function (ch) {
      return ch !== "" && VOWELS.includes(ch);
    };
    for (var i = 0; i < word.length; i++) {
      var c = word[i];
      var next = word[i + 1] || "";
      var before = word[i - 1] || "";
      var pair = c + next;
      if (pair === "ph") sounds.push("P");
      else if (pair === "sh" || pair === "ch") sounds.push("S");
      else if (pair === "th") sounds.push("S");
      else if (pair === "ck") sounds.push("K");
      else if (pair === "ng" && !vowel(word[i + 2] || "")) sounds.push("N");
      else if (pair === "wh") sounds.push("");
      else {
        if (vowel(c)) {
          if (c === "e" && silentE && i === word.length - 1 && i > 1 && !vowel(before)) continue;
          sounds.push("V");
        } else if (c === "y") sounds.push(vowel(next) && (i === 0 || !vowel(before)) ? "" : "V");
        else if (c === "w") sounds.push("");
        else if (c === "h") sounds.push(vowel(next) || next === "y" ? "H" : "");
        else if (c === "r") sounds.push(dropR && !vowel(next) && next !== "y" ? "" : "L");
        else if (c === "c") sounds.push("eiy".includes(next || "-") ? "S" : "K");
        else if (c === "g") sounds.push(softG && "eiy".includes(next || "-") ? "S" : "K");
        else if (c === "x") sounds.push(i === 0 ? "S" : "KS");
        else sounds.push(LATIN_SOUND[c] || "");
        continue;
      }
      i++; // a pair of letters
    }
    return squeeze(sounds.join("").split(""));
  }

  function consonants(sound) {
    return sound.replace(/V/g, "").length;
  }

  /** The Latin words a Hangul word may be spelling, by sound: the names in the titles (a model's,
      whose start is enough: 패들 for PaddleOCR), each with the pages whose titles hold it. Only
      names: a common word that sounds alike (German for 제미나이, Gemini) is not what a reader
      spells in Hangul. */
  function soundsOf(index) {
    if (index.sounds) return index.sounds;
    var sounds = new Map();
    var add = function (word, letters, pages, name) {
      latinSounds(letters).forEach(function (sound) {
        if (consonants(sound) < 2) return;
        if (!sounds.has(sound)) sounds.set(sound, []);
        sounds.get(sound).push({ word: word, pages: pages });
      });
    };
    var names = new Map();
    index.chunks.forEach(function (chunks, doc) {
      chunks.forEach(function (chunk) {
        chunk.forEach(function (token) {
          var letters = (token.match(/^[a-z]+/) || [""])[0];
          if (letters.length < 3) return;
          if (!names.has(letters)) names.set(letters, new Set());
          names.get(letters).add(doc);
        });
      });
    });
    Array.from(names.keys())
      .sort(byCodePoint)
      .forEach(function (letters) {
        add(letters, letters, names.get(letters));
      });
    index.sounds = sounds;
    return sounds;
  }

  /** The Latin spelling of a Hangul word the index lacks, read by its sound (큐웬 → qwen), or "". */
  function spelling(index, word) {
    var s = stem(word);
    if (index.vocabulary.has(s) || isFiller(word) || L.stopwords.has(s) || split(index, word) !== null) return "";
    var sound = hangulSounds(s);
    if (word.length < 2 || consonants(sound) < 2) return "";
    var sounds = soundsOf(index);
    var pages = new Map();
    sounds.forEach(function (candidates, latin) {
      var exact = latin === sound;
      if (!exact && !(consonants(sound) >= 3 && latin.startsWith(sound))) return;
      candidates.forEach(function (candidate) {
        var held = pages.get(candidate.word) || new Set();
        candidate.pages.forEach(function (doc) {
          held.add(doc);
        });
        pages.set(candidate.word, held);
      });
    });
    var best = "";
    Array.from(pages.keys())
      .sort(byCodePoint)
      .forEach(function (latin) {
        if (!best || pages.get(latin).size > pages.get(best).size) best = latin;
      });
    return best;
  }

  /** The query with each Hangul word the index lacks that spells a Latin name by sound written
      in Latin letters (큐웬3 8b → qwen3 8b, 딥시크 → deepseek); the rest as typed. */
  function readNames(index, query) {
    var re = new RegExp("(" + L.hangul + "+)(?:([\\s._-]*)([A-Za-z]+)(?![A-Za-z0-9]))?", "gu");
    return query.normalize("NFC").replace(re, function (match, word, between, latin, at, text) {
      var read = spelling(index, word);
      if (!read) return match;
      // the rest of the name typed in Latin letters after it (패들 OCR, 패들OCR for PaddleOCR: the
      // reading is the whole name, heard by its start) is that name, not a word of its own
      if (latin && read.length > latin.length && read.endsWith(latin.toLowerCase())) return read;
      if (latin) return read + (between || " ") + latin;
      return read + (/^[A-Za-z]/.test(text.slice(at + match.length)) ? " " : "");
    });
  }

  /** The runs of the query that name a model as its titles write it: adjacent words of letters and
      digits, starting with a part of a title's name (qwen3 of "Qwen3-8B") and going on with parts
      of names or words with digits (qwen3 8b, llama 3.3 70b, deepseek v3, kimi k2 thinking).
      A page holds such a run only if one name of its title holds its words in order. */
  function nameRuns(index, query) {
    var found = [];
    var re = /[A-Za-z0-9]+/g;
    var m;
    while ((m = re.exec(query)) !== null) found.push([m.index, m.index + m[0].length, m[0].toLowerCase()]);
    var runs = [];
    var run = [];
    var close = function () {
      if (run.length > 1)
        runs.push(
          run.map(function (t) {
            return t[2];
          }),
        );
      run = [];
    };
    var held = function (tokens) {
      var words = tokens.map(function (t) {
        return t[2];
      });
      return index.searchable.some(function (doc) {
        return nameScore(index, doc, [words]) > 0;
      });
    };
    found.forEach(function (token, i) {
      var joined = i > 0 && !/[^\s._\-/]/.test(query.slice(found[i - 1][1], token[0]));
      // a part of a name goes on the run; another word with digits only if a title names the
      // longer run (A.X-K2 NVFP4: NVFP4 is a format, not part of the name)
      var part = index.nameParts.has(token[2]);
      if (run.length && joined && (part || (HAS_DIGIT.test(token[2]) && held(run.concat([token]))))) run.push(token);
      else {
        close();
        if (part) run = [token];
      }
    });
    close();
    return runs;
  }

  /** Whether a word of a title's name is the word of the query, or the query's word with the
      version a name writes after it (qwen for Qwen2.5, llama for Llama3). */
  function namePart(part, word) {
    return part === word || (!HAS_DIGIT.test(word) && part.startsWith(word) && DIGITS.test(part.slice(word.length)));
  }

  /** How well a page's title names the runs: for each run, the best name of the title that holds
      its words in order, as the share of the name they make (1 for "qwen3 8b" and "Qwen3-8B",
      2/3 for "minimax m2" and "MiniMax-M2.1"), halved when other words come between, a quarter
      when they come in another order; 0 when a run is in none of its names. */
  function nameScore(index, doc, runs) {
    var score = 1;
    runs.forEach(function (run) {
      var best = 0;
      var glued = run.join("");
      index.chunks[doc].forEach(function (chunk) {
        for (var start = 0; start < chunk.length; start++) {
          // a name the title writes as one word, typed as two (hunyuan ocr for HunyuanOCR)
          if (run.length > 1 && namePart(chunk[start], glued)) best = Math.max(best, 1 / chunk.length);
          if (!namePart(chunk[start], run[0])) continue;
          var at = start + 1;
          var gaps = 0;
          for (var i = 1; i < run.length && at <= chunk.length; i++) {
            while (at < chunk.length && !namePart(chunk[at], run[i])) {
              at++;
              gaps++;
            }
            if (at >= chunk.length) {
              at = chunk.length + 1;
              break;
            }
            at++;
          }
          if (at <= chunk.length) best = Math.max(best, (run.length / chunk.length) * (gaps ? 0.5 : 1));
        }
        // its words in another order than the name's (realtime tts for MOSS-TTS-Realtime): the
        // name still, below every name that holds them in order
        var used = new Set();
        var all = run.every(function (word) {
          for (var j = 0; j < chunk.length; j++) {
            if (!used.has(j) && namePart(chunk[j], word)) {
              used.add(j);
              return true;
            }
          }
          return false;
        });
        if (all) best = Math.max(best, (run.length / chunk.length) * 0.25);
      });
      score = Math.min(score, best);
    });
    return score;
  }

  /** The question words of a query (how many, need; 몇, 개): its fillers that are not
      stopwords, as stems. Left out of its words, they still say what it asks. */
  function questionStems(query) {
    var found = [];
    tokens(query).forEach(function (token) {
      var lower = normalize(token);
      var s = stem(token);
      if (DIGITS.test(lower) || L.stopwords.has(lower) || L.stopwords.has(s) || !isFiller(token)) return;
      if (found.indexOf(s) < 0) found.push(s);
    });
    return found;
  }

  /** Whether the page's title or one of its headings asks the query's question: it holds every
      question word of the query, two at least (how many, 몇 개: one alone, a counter or "need",
      asks nothing), and one of its words ("How many NPUs a model needs" for "how many NPUs do
      I need"). */
  function asks(index, doc, question, words) {
    if (question.length < 2) return false;
    return [index.page[doc]].concat(index.sectionStems[doc]).some(function (sequence) {
      return (
        question.every(function (s) {
          return sequence.indexOf(s) >= 0;
        }) &&
        words.some(function (word) {
          return word.terms.size && holds(sequence, word);
        })
      );
    });
  }

  /** Whether the page's title and one of its headings hold every word of the query between them,
      the title one at least (메모리 계산: "메모리가 충분할까? 메모리 수치" > "수치를 계산하는 방법"): a
      reference page that is about the query, whose text counts in full, not as a reference page's
      that names everything once. */
  function aboutIt(index, doc, words) {
    var known = words.filter(function (word) {
      return word.terms.size;
    });
    if (!known.length || known.length < words.length) return false;
    var rest = known.filter(function (word) {
      return !holds(index.page[doc], word);
    });
    if (rest.length === known.length) return false;
    return (
      !rest.length ||
      index.sectionStems[doc].some(function (section) {
        return rest.every(function (word) {
          return holds(section, word);
        });
      })
    );
  }

  function rank(words, raw, runs, question) {
    var index = prepare(raw);
    runs = runs || [];
    question = question || [];
    var total = 0;
    words.forEach(function (word) {
      total += word.weight;
    });
    if (!words.length || total <= 0) return [];
    var threshold = round(P.threshold); // a page must hold more than this share
    var scored = [];
    index.searchable.forEach(function (doc) {
      var covered = 0;
      var score = 0;
      var own = 0; // the query's weight on this page
      words.forEach(function (word) {
        var match = word.matches.get(doc) || [0, ""];
        var weight = weightOn(index, doc, word, match);
        own += weight;
        if (match[0] > 0) covered += weight * (P.cover[match[1]] || 0); // where, not how: a typo covers as its word does
      });
      var coverage = covered / own;
      var named = runs.length ? nameScore(index, doc, runs) : 0;
      if (runs.length && !named) return;
      if (round(coverage) <= threshold) return;
      var text = index.reference[doc] && !aboutIt(index, doc, words) ? P.referenceText : 1;
      words.forEach(function (word) {
        var match = word.matches.get(doc) || [0, ""];
        var where = match[1] === "title" ? 1 : text;
        score += weightOn(index, doc, word, match) * match[0] * (P.rank[match[1]] || 0) * where;
      });
      score /= own;
      if (phrase(index.page[doc], words)) score += P.phraseTitle;
      else if (
        index.sectionStems[doc].some(function (section) {
          return phrase(section, words);
        })
      )
        score += P.phraseHeading;
      if (asks(index, doc, question, words)) score += P.question;
      scored.push([round(named), round(score), round(coverage), round(focus(index, doc, words)), doc]);
    });
    // a model the query names: the page whose title names it most exactly first; then the score;
    // equal scores: the page whose headings and terms hold more of the query (the most specific
    // page, not the smallest); the order of the index (by name) only between equal pages
    scored.sort(function (a, b) {
      return b[0] - a[0] || b[1] - a[1] || b[2] - a[2] || b[3] - a[3] || a[4] - b[4];
    });
    return scored.map(function (s) {
      return hit(index, words, s[4], s[1], s[2]);
    });
  }

  /** How much of the query the page's section headings hold, each heading counted (the page is
      about what many of its sections are about), and its terms (a definition's, an explorer's
      headings) half as much. */
  function focus(index, doc, words) {
    var sum = 0;
    index.sectionStems[doc].forEach(function (section) {
      words.forEach(function (word) {
        if (holds(section, word)) sum += word.weight;
      });
    });
    words.forEach(function (word) {
      word.terms.forEach(function (term) {
        if (index.focus[doc].has(term)) sum += word.weight / 2;
      });
    });
    return sum;
  }

  function hit(index, words, doc, score, coverage) {
    var held = function (sequence) {
      var sum = 0;
      words.forEach(function (word) {
        if (holds(sequence, word)) sum += word.weight;
      });
      return sum;
    };
    var title = index.titles[doc];
    var anchor = "";
    var best = round(held(index.page[doc]));
    index.sections[doc].forEach(function (section, i) {
      var value = round(held(index.sectionStems[doc][i]));
      if (value > best) {
        best = value;
        title = index.titles[doc] + " > " + section[0];
        anchor = "#" + section[1];
      }
    });
    return {
      doc: doc,
      docname: index.docnames[doc],
      filename: index.filenames[doc],
      title: title,
      anchor: anchor,
      score: score,
      coverage: coverage,
    };
  }

  // A query is bounded before any work (tests/engine/test_hostile_round3.py states the bounds): a link may carry any text,
  // and one word of thousands of letters took the tab minutes (typo edits grow with its length).
  var MAX_QUERY = 400;
  var MAX_WORDS = 16;
  var MAX_WORD = 64;

  function bounded(query) {
    var words = Array.from(String(query)).slice(0, MAX_QUERY).join("").split(/[ \t\n\r\f\v]+/).filter(Boolean);
    return words.slice(0, MAX_WORDS).map(function (word) { return Array.from(word).slice(0, MAX_WORD).join(""); }).join(" ");
  }

  function search(query, raw) {
    var index = prepare(raw);
    var read = readNames(index, bounded(query));
    var words = analyse(read, raw);
    return { words: words, hits: rank(words, raw, nameRuns(index, read), questionStems(read)), read: read };
  }

  // -------------------------------------------------------------------- summaries

  // Left out of a summary: what the page does not show as text, or shows only on request.
  var LEFT_OUT = [
    "h1", // the page title: the result's link shows it
    ".headerlink",
    "script",
    "style",
    "template",
    "noscript",
    "button",
    "input",
    "select",
    "textarea",
    ".rb-copy",
    ".copybtn",
    ".rb-sr",
    ".rb-del",
    ".rb-bar",
    ".rb-excluded",
    "[hidden]",
    "[aria-hidden='true']",
    ".visually-hidden",
    ".screen-reader-text",
    ".sr-only",
  ].join(",");
  // Boundaries between parts of the page, weakest first; where several meet, the strongest
  // is written, and after a sentence's own punctuation only a space.
  var SPACE = [0, " "];
  var COMMA = [1, ", "];
  var DOT = [2, " \u00b7 "];
  var COLON = [3, ": "];
  var BLOCKS = new Set(
    ("ADDRESS ARTICLE ASIDE BLOCKQUOTE CAPTION DD DETAILS DIV DL FIELDSET FIGCAPTION FIGURE FOOTER " +
      "FORM HEADER HR LI MAIN NAV OL P PRE SECTION SUMMARY TABLE TBODY TFOOT THEAD TR UL").split(" "),
  );
  // a title of what follows: headings, a definition's term, a selector's legend, a caption
  var TITLES = new Set("H1 H2 H3 H4 H5 H6 DT LEGEND".split(" "));
  var TITLE_CLASSES = ["admonition-title", "rb-role-title", "rb-rank", "rb-ph-title"];
  // one of a list of short items: a selector's choices, a table's cells
  var ITEMS = new Set(["LABEL", "TD", "TH"]);
  var SENTENCE_END = /[.:;!?\u3002]$/;

  function boundaryOf(element) {
    var tag = element.tagName;
    if (
      TITLES.has(tag) ||
      TITLE_CLASSES.some(function (name) {
        return element.classList.contains(name);
      })
    )
      return COLON;
    if (ITEMS.has(tag)) return COMMA;
    return BLOCKS.has(tag) ? DOT : null;
  }

  /** The text of a page's main part (or of the section the anchor names), as a reader reads it:
      labels, terms and blocks kept apart, what the page hides or only offers to click left out;
      and where in it the code (commands) is. */
  function pageParts(htmlString, anchor) {
    var page = new DOMParser().parseFromString(htmlString, "text/html");
    var root = (anchor && page.querySelector('[role="main"] ' + anchor)) || page.querySelector('[role="main"]');
    var code = [];
    if (!root) return { text: "", code: code };
    root.querySelectorAll(LEFT_OUT).forEach(function (element) {
      element.remove();
    });
    var out = "";
    var pending = null; // the boundary before the next text; null: glued (inline markup)
    var boundary = function (kind) {
      if (!pending || kind[0] > pending[0]) pending = kind;
    };
    var emit = function (raw, isCode) {
      var text = raw.replace(/\s+/g, " ");
      if (!text) return;
      if (text[0] === " ") boundary(SPACE);
      var trailing = text[text.length - 1] === " ";
      text = text.trim();
      if (text) {
        if (out && pending) out += SENTENCE_END.test(out) ? " " : pending[1];
        if (isCode) code.push([out.length, out.length + text.length]);
        out += text;
        pending = null;
      }
      if (trailing) boundary(SPACE);
    };
    var walk = function (node) {
      if (node.nodeType === 3) {
        emit(node.nodeValue, false);
        return;
      }
      if (node.nodeType !== 1) return;
      var kind = boundaryOf(node);
      if (node.tagName === "BR") boundary(SPACE);
      if (kind) boundary(kind === COLON ? DOT : kind);
      if (node.tagName === "PRE")
        // a command as one line: its line continuations (a backslash at a line's end) dropped
        emit(node.textContent.replace(/[ \t]*\\\n/g, "\n"), true);
      else node.childNodes.forEach(walk);
      if (kind) boundary(kind);
    };
    walk(root);
    return { text: out, code: code };
  }

  function pageText(htmlString, anchor) {
    return pageParts(htmlString, anchor).text;
  }

  function wordAt(words, token) {
    var s = stem(token);
    for (var i = 0; i < words.length; i++) {
      if (words[i].how !== "name" && words[i].terms.has(s)) return i;
    }
    return -1;
  }

  /** Where a name stands in a text, whatever joins its parts (A.X-K2, a.x-k2, gpt oss 120b), but
      not as a piece of a longer identifier (vllm-rbln is not in VLLM_RBLN_AUTO_PORT). */
  function namePattern(name) {
    var parts = normalize(name).split(/[^a-z0-9]+/).filter(Boolean);
    return new RegExp("(?<![A-Za-z0-9_])" + parts.join("[._\\-\\s]*") + "(?![A-Za-z0-9]|_[A-Za-z0-9])", "gi");
  }

  /** Where each query word stands in a text: a name as a whole, any other word as a token that
      stems to one of its terms (so 캐싱을 and caching mark 캐시). */
  function occurrences(text, words, code) {
    var found = [];
    var re = tokenRe();
    var m;
    while ((m = re.exec(text)) !== null) {
      var w = wordAt(words, m[0]);
      if (w >= 0) found.push({ start: m.index, end: m.index + m[0].length, word: w });
    }
    words.forEach(function (word, w) {
      if (word.how !== "name") return;
      var pattern = namePattern(word.text);
      while ((m = pattern.exec(text)) !== null) found.push({ start: m.index, end: m.index + m[0].length, word: w });
    });
    found.sort(function (a, b) {
      return a.start - b.start;
    });
    found.forEach(function (f) {
      f.code = code.some(function (range) {
        return range[0] <= f.start && f.start < range[1];
      });
    });
    return found;
  }

  // where a summary may start: after a sentence or a block, not in the middle of one
  var STARTS = /(?:[.!?\u3002] | \u00b7 )/g;

  /** A result's summary: the window of the page's text where the query's words are densest
      (a word counts half inside a command), its words marked. */
  function summary(htmlString, words, anchor) {
    return summaryOf(pageParts(htmlString, anchor), words);
  }

  /** The part of a page's summary file (search/summaries.py: its text, its code, its sections) that
      a result links to: the section the anchor names, or the whole page. */
  function partOf(file, anchor) {
    var range = anchor && file.sections && file.sections[anchor.replace(/^#/, "")];
    if (!range) return { text: file.text, code: file.code };
    var from = range[0];
    var text = file.text.slice(from, range[1]);
    var lead = text.length - text.replace(/^[\s\u00b7,:]+/, "").length; // the separator before it
    return {
      text: text.slice(lead),
      code: file.code
        .filter(function (c) {
          return c[0] >= from + lead && c[1] <= range[1];
        })
        .map(function (c) {
          return [c[0] - from - lead, c[1] - from - lead];
        }),
    };
  }

  function summaryOf(parts, words) {
    words = words || [];
    var text = parts.text;
    var length = 240;
    var lead = 60;
    var found = occurrences(text, words, parts.code);
    var best = null;
    found.forEach(function (candidate) {
      var value = new Map();
      var count = 0;
      found.forEach(function (other) {
        if (other.start >= candidate.start && other.end <= candidate.start + length - lead) {
          count++;
          var worth = words[other.word].weight * (other.code ? 0.5 : 1);
          value.set(other.word, Math.max(value.get(other.word) || 0, worth));
        }
      });
      var total = 0;
      value.forEach(function (v) {
        total += v;
      });
      var score = [round(total), count];
      if (!best || score[0] > best.score[0] || (score[0] === best.score[0] && score[1] > best.score[1]))
        best = { start: candidate.start, score: score };
    });
    var start = 0;
    if (best && best.start > lead) {
      // the last sentence or block that starts close before the words, else a word boundary
      start = -1;
      STARTS.lastIndex = best.start - lead;
      var boundary;
      while ((boundary = STARTS.exec(text)) !== null && boundary.index + boundary[0].length <= best.start)
        start = boundary.index + boundary[0].length;
      if (start < 0) {
        var space = text.indexOf(" ", best.start - lead);
        start = space >= 0 && space < best.start ? space + 1 : best.start;
      }
    }
    var end = Math.min(text.length, start + length);
    if (end < text.length) {
      var last = text.lastIndexOf(" ", end);
      if (last > start) end = last;
    }
    var element = document.createElement("p");
    element.classList.add("context");
    var at = start;
    var put = function (from, to, marked) {
      if (to <= from) return;
      var piece = text.slice(from, to);
      if (marked) {
        var span = document.createElement("span");
        span.className = "highlighted";
        span.textContent = piece;
        element.appendChild(span);
      } else element.appendChild(document.createTextNode(piece));
    };
    element.appendChild(document.createTextNode(start > 0 ? "\u2026" : ""));
    found.forEach(function (f) {
      if (f.start >= at && f.end <= end) {
        put(at, f.start, false);
        put(f.start, f.end, true);
        at = f.end;
      }
    });
    put(at, end, false);
    if (end < text.length) element.appendChild(document.createTextNode("\u2026"));
    return element;
  }

  return {
    readNames: readNames,
    hangulSounds: hangulSounds,
    latinSounds: latinSounds,
    pieces: pieces,
    leftOutAsFiller: leftOutAsFiller,
    titleStems: titleStems,
    analyse: analyse,
    bounded: bounded,
    rank: rank,
    questionStems: questionStems,
    search: search,
    pageText: pageText,
    summary: summary,
    summaryOf: summaryOf,
    partOf: partOf,
  };
})();

/*
 * The result list, shown at once from the index: each result's link, then its summary from the
 * page's small summary file (_search/<docname>.json, search/summaries.py), never the page
 * itself. The first results' summaries are fetched at once, the others when they come into
 * view, so one query downloads a few kilobytes whatever the number of results.
 */
var RecipeSearchResults = (function () {
  "use strict";
  var EAGER = 10; // results whose summaries are fetched at once

  function link(docname, anchor) {
    var options = DOCUMENTATION_OPTIONS;
    if (options.BUILDER === "dirhtml") {
      var dir = docname + "/";
      if (/\/index\/$/.test(dir)) dir = dir.slice(0, -6);
      else if (dir === "index/") dir = "";
      return dir + anchor;
    }
    return docname + options.LINK_SUFFIX + anchor;
  }

  function summarize(item, hit, words) {
    var root = document.documentElement.dataset.content_root || "";
    fetch(root + RecipeSearchData.summaries + "/" + hit.docname + ".json")
      .then(function (response) {
        return response.ok ? response.json() : null;
      })
      .then(function (file) {
        if (file) item.appendChild(RecipeSearch.summaryOf(RecipeSearch.partOf(file, hit.anchor), words));
      })
      .catch(function () {});
  }

  function show(hits, words) {
    var later = [];
    hits.forEach(function (hit, i) {
      var item = document.createElement("li");
      item.classList.add("kind-text");
      var anchor = document.createElement("a");
      anchor.href = link(hit.docname, hit.anchor);
      anchor.dataset.score = hit.score;
      anchor.textContent = hit.title;
      item.appendChild(anchor);
      Search.output.appendChild(item);
      if (!DOCUMENTATION_OPTIONS.SHOW_SEARCH_SUMMARY) return;
      if (i < EAGER) summarize(item, hit, words);
      else later.push([item, hit]);
    });
    if (later.length && typeof IntersectionObserver !== "undefined") {
      var waiting = new Map(later);
      var observer = new IntersectionObserver(function (entries) {
        entries.forEach(function (entry) {
          if (!entry.isIntersecting || !waiting.has(entry.target)) return;
          summarize(entry.target, waiting.get(entry.target), words);
          waiting.delete(entry.target);
          observer.unobserve(entry.target);
        });
      });
      waiting.forEach(function (_hit, item) {
        observer.observe(item);
      });
    }
    _finishSearch(hits.length);
  }

  return { show: show, EAGER: EAGER };
})();

if (typeof Search !== "undefined" && typeof Search.query === "function") {
  Search.query = function (query) {
    var result = RecipeSearch.search(query, Search._index);
    _removeChildren(document.getElementById("search-progress"));
    if (typeof SPHINX_HIGHLIGHT_ENABLED !== "undefined" && SPHINX_HIGHLIGHT_ENABLED)
      localStorage.setItem(
        "sphinx_highlight_terms",
        result.words
          .filter(function (w) {
            return w.terms.size;
          })
          .map(function (w) {
            return w.text.toLowerCase();
          })
          .join(" "),
      );
    RecipeSearchResults.show(result.hits, result.words);
  };
  Search.makeSearchSummary = RecipeSearch.summary;
  Search.htmlToText = RecipeSearch.pageText;
  Documentation.TRANSLATIONS[RecipeSearchData.sphinxNoResults] = RecipeSearchData.strings.noResults;
}
