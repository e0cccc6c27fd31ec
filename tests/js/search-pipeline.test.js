/*
 * The site's query pipeline and scorer (recipebook-search.js), where it runs: unit tests of each
 * step on small indexes made here, and the queries on the built site.
 * Run by tests/test_search_node.py (node --test, with RECIPEBOOK_SITE set to a built site).
 */
"use strict";
const { describe, test } = require("node:test");
const assert = require("node:assert/strict");
const { load, plain } = require("./searchkit.js");

const ko = load("ko");
const en = load("en");

// ------------------------------------------------------------------------ scoring

describe("scoring", () => {
  test("a page that holds more of the query ranks first and is never dropped", () => {
    // Sphinx kept a page only if it held all words or all words of three letters or more
    const raw = ko.small({
      both: { title: "안내", body: "서빙 캐시 설명" },
      one: { title: "서빙", body: "다른 내용" },
      none: { title: "번역", body: "카탈로그" },
    });
    assert.equal(ko.ranked("서빙 캐시", raw)[0], "both");
  });

  test("title beats heading beats body beats explorer", () => {
    const raw = ko.small({
      "a-explorer": { title: "하나", body: "내용", explorer: "라우터" },
      "b-body": { title: "둘", body: "라우터 내용" },
      "c-heading": { title: "셋", headings: ["라우터 설정"], body: "내용" },
      "d-title": { title: "라우터", body: "내용" },
    });
    assert.deepEqual(ko.ranked("라우터", raw), ["d-title", "c-heading", "b-body", "a-explorer"]);
  });

  test("an exact phrase in a title beats the same words in the text", () => {
    const raw = ko.small({
      "a-text": { title: "안내", body: "설치 순서와 매트릭스 설명" },
      "b-phrase": { title: "다른 안내", headings: ["설치 매트릭스"], body: "내용" },
    });
    const hits = plain(ko.RecipeSearch.search("설치 매트릭스", raw).hits);
    assert.deepEqual(
      hits.map((h) => h.docname),
      ["b-phrase", "a-text"],
    );
    assert.equal(hits[0].anchor, "#h1");
    assert.equal(hits[0].title, "다른 안내 > 설치 매트릭스");
  });

  test("a question about something the site lacks finds nothing", () => {
    // its known words are on most pages; the words no page holds are most of its weight
    const raw = en.small({
      serving: { title: "Serving", body: "serve a model on the NPU" },
      install: { title: "Installation", body: "install the driver of the NPU" },
      translating: { title: "Translating", body: "the catalogs of the site, built for the NPU" },
      routers: { title: "Routers", body: "serve behind a router on the NPU" },
      caching: { title: "Caching", body: "serve with a prefix cache on the NPU" },
      catalog: { title: "Catalogue", body: "every recipe for the NPU" },
    });
    assert.equal(en.ranked("how do I serve a model on the NPU", raw)[0], "serving");
    assert.deepEqual(en.ranked("how do I serve llama 3 70b on the NPU", raw), []); // no such page
  });
});

describe("unknown words and ties", () => {
  test("a word no page holds weighs as the rarest word: a page must hold more than it", () => {
    const raw = en.small({
      caching: { title: "Prefix caching", body: "prefix caching keeps the cache" },
      cache: { title: "Caches", body: "caching of other things" },
      other: { title: "Translating", body: "the catalogs" },
      third: { title: "Install", body: "the driver" },
      fourth: { title: "Routers", body: "the router" },
      fifth: { title: "Nodes", body: "the nodes" },
      sixth: { title: "Ports", body: "the ports" },
      seventh: { title: "Dates", body: "the dates" },
    });
    // a question about what the site lacks, sharing one word with a page: nothing
    assert.deepEqual(en.ranked("prefix frobnicate", raw), []);
    assert.deepEqual(en.ranked("prefix caching frobnicate tweakery", raw), []);
    // one unknown word among words pages hold lowers the result, it does not hide it
    assert.equal(en.ranked("prefix caching frobnicate", raw)[0], "caching");
    const known = en.RecipeSearch.search("prefix caching", raw).hits[0].score;
    const lowered = en.RecipeSearch.search("prefix caching frobnicate", raw).hits[0].score;
    assert.ok(lowered < known, [lowered, known]);
  });

  test("equal scores go to the page whose headings hold the query, not to the first name", () => {
    const raw = ko.small({
      "a-guide": { title: "안내", body: "라우터 설명", headings: ["설치"] },
      "b-recipe": { title: "레시피", headings: ["라우터 구성", "라우터 단계"], body: "내용" },
      "c-other": { title: "기타", body: "라우터 내용" },
    });
    assert.equal(ko.ranked("라우터", raw)[0], "b-recipe");
    // between pages alike but for their length, not the shorter one: the order of their names
    const alike = en.small({
      "a-long": { title: "Notes", body: "router and many other words about install driver catalogs cache" },
      "b-short": { title: "More", body: "router" },
    });
    assert.deepEqual(en.ranked("router", alike), ["a-long", "b-short"]);
  });

  test("two swapped letters are one slip: gtp-oss finds gpt-oss", () => {
    assert.equal(en.ranked("gtp-oss")[0], "recipes/gpt-oss-120b");
  });

  test("a word made only of question words and fillers is left out, not unknown", () => {
    assert.deepEqual(ko.words("LMCache 켜는법"), [["LMCache", "exact"]]);
    assert.deepEqual(en.words("howto install vllm-rbln"), [
      ["install", "exact"],
      ["vllm-rbln", "name"],
    ]);
  });
});

// ----------------------------------------------------------------------- the words

describe("the words of a query", () => {
  const koKept = [
    // the question words and fillers
    ["어떻게 서빙해요", ["서빙해요"]],
    ["어디서 설치", ["설치"]],
    ["얼마나 필요", ["필요"]],
    ["NPU 몇 개", ["NPU"]],
    ["왜 필요", ["필요"]],
    ["프리필 뜻", ["프리필"]],
    ["설치하는 법", ["설치하는"]],
    ["설치 안 돼요", ["설치"]],
    // verbs left bare by their ending: the index holds no verbs
    ["프리픽스 캐싱 켜려면", ["프리픽스", "캐싱"]],
    ["vllm-rbln 깔려면", ["vllm-rbln", "깔려면"]], // 깔: a spelling of 설치 in the glossary
    ["서버가 죽어요", ["서버가"]],
  ];
  for (const [query, kept] of koKept) {
    test(`Korean question words, fillers and bare verbs are left out: ${query}`, () => {
      assert.deepEqual(
        ko.words(query).map((w) => w[0]),
        kept,
      );
    });
  }

  const enKept = [
    ["how do I add a recipe", ["add", "recipe"]],
    ["does it need a recompile", ["recompile"]],
    ["can I use EAGLE-3", ["EAGLE-3"]],
    ["which version", ["version"]],
  ];
  for (const [query, kept] of enKept) {
    test(`English question words are left out: ${query}`, () => {
      assert.deepEqual(
        en.words(query).map((w) => w[0]),
        kept,
      );
    });
  }

  test("names stay whole (Sphinx split A.X-K2 into a, x, k2 and dropped the stopword a)", () => {
    for (const lang of [ko, en]) {
      const analysed = plain(lang.RecipeSearch.analyse("A.X-K2 serving", lang.index));
      assert.deepEqual([analysed[0].text, analysed[0].how], ["A.X-K2", "name"]);
      assert.deepEqual(analysed[0].stems, ["x", "k2"]);
      assert.equal(lang.ranked("A.X-K2")[0], "recipes/A.X-K2");
      assert.equal(lang.ranked("ax-k2")[0], "recipes/A.X-K2"); // found in the page title
    }
  });

  const compounds = [
    ["설치매트릭스", ["설치", "매트릭스"]],
    ["파이프라인병렬", ["파이프라인", "병렬"]],
    ["프리필디코드", ["프리필", "디코드"]],
    ["추측디코딩", ["추측", "디코딩"]],
    ["레시피추가", ["레시피", "추가"]],
    ["설정법", ["설정"]], // 법 is a filler
  ];
  for (const [query, parts] of compounds) {
    test(`unspaced compounds are split into index words: ${query}`, () => {
      assert.deepEqual(
        ko.words(query),
        parts.map((p) => [p, "compound"]),
      );
    });
  }

  const loanwords = [
    ["텐서 병렬", "tensor 병렬"],
    ["스펙큘레이티브 디코딩", "speculative decoding"],
    ["엘엠캐시", "LMCache"],
    ["익스퍼트 패럴렐", "expert parallel"],
    ["툴콜링", "tool calling"],
    ["리즈닝 파서", "reasoning parser"],
    ["쿠버네티스", "Kubernetes"],
    ["플래시 어텐션", "Flash Attention"],
  ];
  for (const [query, english] of loanwords) {
    test(`loanwords find what the English finds: ${query}`, () => {
      assert.ok(ko.ranked(query).length, query);
      assert.deepEqual(ko.ranked(query), ko.ranked(english));
    });
  }

  for (const [typo, right] of [
    ["디코팅", "디코딩"],
    ["캐씽", "캐싱"],
    ["설치 매트릭수", "설치 매트릭스"],
    ["번억", "번역"],
  ]) {
    test(`a Korean typo of one jamo or syllable finds the word: ${typo}`, () => {
      assert.deepEqual(ko.ranked(typo), ko.ranked(right));
      assert.ok(ko.words(typo).some((w) => w[1] === "typo"));
    });
  }

  for (const [typo, right] of [
    ["speculatve decoding", "speculative decoding"],
    ["prefix cahing", "prefix caching"],
  ]) {
    test(`an English typo of one edit finds the word: ${typo}`, () => {
      // the same pages, the same first; a typo's lower quality may reorder pages that tie below
      assert.deepEqual([...en.ranked(typo)].sort(), [...en.ranked(right)].sort());
      assert.equal(en.ranked(typo)[0], en.ranked(right)[0]);
    });
  }

  test("a two-syllable word is only corrected for letters typists confuse", () => {
    assert.deepEqual(
      ko.words("나노").map((w) => w[1]),
      ["unknown"],
    ); // not 나눠 (ㅗ/ㅜ)
  });

  test("typos are only tried for words the index lacks", () => {
    assert.deepEqual(
      ko.words("디코딩").map((w) => w[1]),
      ["exact"],
    );
  });

  test("pieces say what became of each token, and fillers are told from bare verbs", () => {
    const pieces = plain(ko.RecipeSearch.pieces("서버가 어떻게 죽어요", ko.index));
    assert.deepEqual(
      pieces.map((p) => [p[0], p[1], p[2].length]),
      [
        [0, "서버가", 1],
        [4, "어떻게", 0],
        [8, "죽어요", 0],
      ],
    );
    assert.equal(ko.RecipeSearch.leftOutAsFiller("어떻게"), true);
    assert.equal(ko.RecipeSearch.leftOutAsFiller("서버가"), false);
  });
});

// ------------------------------------------------------------------ about, names

describe("a page about the thing, and names as names", () => {
  test("a page that defines a word (a term, an explorer's heading) ranks above one that mentions it", () => {
    const raw = en.small({
      "a-install": { title: "Install", body: "the extra that speculative decoding needs" },
      "b-guide": { title: "Guide", body: "turns it on", terms: "speculative decoding" },
      "c-other": { title: "Other", body: "nothing" },
    });
    assert.deepEqual(en.ranked("speculative decoding", raw), ["b-guide", "a-install"]);
  });

  test("a reference page is found by its title, and ranks below the guides for what its text mentions", () => {
    const raw = en.small({
      "a-reference": { title: "Benchmarks", body: "router caching examples", reference: true },
      "b-guide": { title: "Routers", body: "the router" },
      "c-recipe": { title: "Serving", body: "a router step" },
      "d-other": { title: "Other", body: "nothing" },
    });
    assert.deepEqual(en.ranked("router", raw).slice(-1), ["a-reference"]);
    assert.equal(en.ranked("benchmarks", raw)[0], "a-reference");
  });

  test("a model's name matches as a name: its parts in order, in one name of a title", () => {
    const raw = en.small({
      "recipes/Qwen3.5-0.8B": { title: "Serving Qwen3.5-0.8B on RBLN NPU", body: "qwen3 small model" },
      "recipes/Qwen3-8B": { title: "Serving Qwen3-8B on RBLN NPU", body: "qwen3 model" },
      "recipes/Qwen3-8B-Base": { title: "Serving Qwen3-8B-Base on RBLN NPU", body: "qwen3 base" },
      "recipes/whisper-large-v3": { title: "Serving whisper-large-v3 on RBLN NPU", body: "speech" },
      "recipes/DeepSeek-OCR": { title: "Serving DeepSeek-OCR on RBLN NPU", body: "ocr" },
    });
    // the exact name first, the longer name next, the name whose parts are apart last
    assert.deepEqual(en.ranked("qwen3 8b", raw), ["recipes/Qwen3-8B", "recipes/Qwen3-8B-Base", "recipes/Qwen3.5-0.8B"]);
    // parts of names that no one title holds together: a model the site does not have
    assert.deepEqual(en.ranked("deepseek v3", raw), []);
    // a word with digits that is not part of a name stays a word of its own
    assert.equal(en.ranked("qwen3 8b bf16", raw).length, 0);
  });

  test("a Hangul spelling of a name is read by its sound", () => {
    const cases = [
      ["큐웬", "qwen"],
      ["딥시크", "deepseek"],
      ["라마", "llama"],
      ["미니맥스", "minimax"],
      ["패들", "paddle"],
      ["젬마", "gemma"],
      ["미스트랄", "mistral"],
      ["스테이블", "stable"],
      ["디퓨전", "diffusion"],
      ["위스퍼", "whisper"],
      ["엑사원", "exaone"],
      ["그래나이트", "granite"],
      ["플래시", "flash"],
    ];
    for (const [hangul, latin] of cases)
      assert.ok(ko.RecipeSearch.latinSounds(latin).includes(ko.RecipeSearch.hangulSounds(hangul)), [hangul, latin]);
    // a sound too short to tell, and a word that only looks alike
    assert.ok(!ko.RecipeSearch.latinSounds("llm").includes(ko.RecipeSearch.hangulSounds("라마")));
    const raw = ko.small({
      "recipes/Qwen3-8B": { title: "RBLN NPU에서 Qwen3-8B 서빙", body: "모델" },
      "recipes/DeepSeek-OCR": { title: "RBLN NPU에서 DeepSeek-OCR 서빙", body: "문서" },
      "recipes/PaddleOCR-VL": { title: "RBLN NPU에서 PaddleOCR-VL 서빙", body: "문서" },
      german: { title: "독일어", body: "german" },
    });
    assert.equal(ko.RecipeSearch.search("큐웬3 8b 설치", raw).read, "qwen3 8b 설치");
    assert.deepEqual(ko.ranked("큐웬3 8b", raw), ["recipes/Qwen3-8B"]);
    assert.equal(ko.ranked("딥시크 OCR", raw)[0], "recipes/DeepSeek-OCR");
    assert.equal(ko.ranked("패들", raw)[0], "recipes/PaddleOCR-VL"); // the start of a title's name
    // only the names of titles: 제미나이 (Gemini) is not the common word german
    assert.deepEqual(ko.ranked("제미나이", raw), []);
  });
});

// ------------------------------------------------------------- the built site

describe("the issue's questions on the built site", () => {
  test("each finds its page", () => {
    assert.equal(en.ranked("how do I add a new model recipe?")[0], "adding-a-recipe");
    assert.equal(en.ranked("how many NPUs does gpt-oss-120b need?")[0], "recipes/gpt-oss-120b");
    assert.ok(en.ranked("does changing max model length trigger recompilation?").slice(0, 2).includes("configuration"));
    assert.ok(en.ranked("speculatve decoding").length);
    assert.ok(en.ranked("dissagregated prefill decode router").includes("recipes/A.X-K2"));
    assert.equal(ko.ranked("gpt-oss-120b 서빙하는 법")[0], "recipes/gpt-oss-120b");
    assert.equal(ko.ranked("텐서 병렬")[0], "configuration"); // the guide; recipes that offer it may follow
  });

  test("asking for a list finds the landing page's catalogue first", () => {
    for (const query of ["model list", "supported models", "list of recipes"]) assert.equal(en.ranked(query)[0], "index", query);
    for (const query of ["지원 모델", "모델 목록", "레시피 목록"]) assert.equal(ko.ranked(query)[0], "index", query);
  });

  test("the guide that explains a feature ranks above the recipes that offer it", () => {
    assert.equal(ko.ranked("프리픽스 캐싱")[0], "configuration");
    assert.equal(en.ranked("prefix caching")[0], "configuration");
  });
});
