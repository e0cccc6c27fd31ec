/*
 * The query pipeline (recipebook-search.js) on the built site's own index (the searchindex.js a
 * build wrote): the words of a query as the site's index reads them, and the questions.
 * Needs a built site: tests/site/test_search_pipeline.py runs this file (node --test, RECIPEBOOK_SITE
 * set to the site the test session built); `npm test`, which runs the *.test.js files and builds
 * nothing, does not.
 */
"use strict";
const { describe, test } = require("node:test");
const assert = require("node:assert/strict");
const { load, plain, site } = require("../searchkit.js");

const ko = load("ko", site("ko"));
const en = load("en", site("en"));

describe("the index of the built site", () => {
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

// ------------------------------------------------------------- the questions

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

  test("a Hangul run typed without its spaces ranks as typed with them", () => {
    const pairs = [
      ["텐서병렬 설정", "텐서 병렬 설정"],
      ["익스퍼트병렬 켜기", "익스퍼트 병렬 켜기"],
      ["리즈닝파서 끄기", "리즈닝 파서 끄기"],
      ["프리필디코드 분리서빙", "프리필 디코드 분리 서빙"],
      ["모델정보 출처", "모델 정보 출처"],
      ["라우터설정", "라우터 설정"],
    ];
    for (const [glued, spaced] of pairs) {
      assert.ok(ko.ranked(spaced).length, spaced);
      assert.deepEqual(ko.ranked(glued).slice(0, 3), ko.ranked(spaced).slice(0, 3), glued);
    }
    assert.equal(ko.ranked("텐서병렬 설정")[0], "configuration"); // the guide that defines the flag
  });

  test("how many NPUs: the memory page answers, in both languages", () => {
    assert.equal(en.ranked("how many NPUs do I need")[0], "reference/memory");
    assert.equal(ko.ranked("NPU 몇 개 필요한지 계산")[0], "reference/memory");
    assert.equal(ko.ranked("NPU 몇 개 필요해요")[0], "reference/memory");
    // a model named in the question: its recipe, whose targets say how many
    assert.equal(en.ranked("how many NPUs does gpt-oss-120b need?")[0], "recipes/gpt-oss-120b");
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
