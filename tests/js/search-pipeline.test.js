/*
 * The site's query pipeline and scorer (recipebook-search.js), where it runs: unit tests of each
 * step on small indexes made here, with the language data a build would write (searchkit.js).
 * `npm test` runs them, with no site built; the queries on the built site are in
 * site/questions.js.
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

  test("a page whose heading asks the query's question is the answer, above titles sharing its one word", () => {
    const pages = (heading) => ({
      "a-recipe": { title: "Serving Alpha on RBLN NPU", body: "the npu count of alpha" },
      "b-recipe": { title: "Serving Beta on RBLN NPU", body: "the npu count of beta" },
      "c-memory": { title: "Memory figures", headings: [heading], body: "each rank of the npu", reference: true },
      "d-other": { title: "Other", body: "nothing" },
    });
    const asked = en.small(pages("How many NPUs a model needs"));
    assert.equal(en.ranked("how many NPUs do I need", asked)[0], "c-memory");
    assert.equal(en.ranked("how many NPUs do I need?", asked)[0], "c-memory");
    // the same words without the question: the recipes' titles first, as before
    assert.notEqual(en.ranked("NPUs", asked)[0], "c-memory");
    // a heading that holds the word but not the question is no answer to it
    const other = en.small(pages("NPU memory per rank"));
    assert.notEqual(en.ranked("how many NPUs do I need", other)[0], "c-memory");
    const ko_ = ko.small({
      "a-recipe": { title: "RBLN NPU에서 Alpha 서빙", body: "alpha의 NPU 수" },
      "b-recipe": { title: "RBLN NPU에서 Beta 서빙", body: "beta의 NPU 수" },
      "c-memory": { title: "메모리 수치", headings: ["모델에 NPU가 몇 개 필요한지"], body: "랭크마다 NPU 메모리", reference: true },
      "d-other": { title: "기타", body: "없음" },
    });
    assert.equal(ko.ranked("NPU 몇 개 필요해요", ko_)[0], "c-memory");
    assert.equal(ko.ranked("NPU 몇 개 필요한지 계산", ko_)[0], "c-memory");
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

  test("a name typed with its own capitals is spelt on purpose: it finds no typo of it", () => {
    const raw = en.small({
      "a-memory": { title: "Memory", body: "the figures are set in rock" },
      "b-other": { title: "Other", body: "nothing" },
    });
    assert.deepEqual(en.ranked("ROCm", raw), []); // ROCm is not rock
    assert.deepEqual(en.ranked("rocm", raw), ["a-memory"]); // typed in small letters, it may be a slip (m for k)
  });

  test("a typo is a slip of the fingers: a letter replaced by its neighbour on the keyboard, or a vowel by a vowel", () => {
    const raw = en.small({
      "a-rules": { title: "Rules", body: "an exponent of the figures, the speculative decoding" },
      "b-other": { title: "Other", body: "nothing" },
    });
    // a for p is no slip: exaone (a model the site lacks) is not expone, the stem of exponent
    assert.deepEqual(en.ranked("exaone", raw), []);
    assert.deepEqual(en.ranked("exponemt", raw), ["a-rules"]); // m for n, its neighbour
    assert.deepEqual(en.ranked("speculitive", raw), ["a-rules"]); // i for a: a vowel for a vowel
    assert.deepEqual(en.ranked("speculatve", raw), ["a-rules"]); // a letter left out
    assert.deepEqual(en.ranked("expnoent", raw), ["a-rules"]); // two letters swapped
  });

  test("a name typed with a typo is found in a title as whole words, not as pieces of two", () => {
    const raw = en.small({
      "recipes/higgs-audio-v3-tts-4b": { title: "Serving higgs-audio-v3-tts-4b on RBLN NPU", body: "speech" },
      "recipes/gpt-oss-120b": { title: "Serving gpt-oss-120b on RBLN NPU", body: "reasoning" },
      "c-other": { title: "Other", body: "nothing" },
    });
    assert.deepEqual(en.ranked("gtposs", raw), ["recipes/gpt-oss-120b"]); // gpt-oss, its hyphen left out
    // the g of higgs and the audi of audio are not Gaudi, a name the site lacks
    assert.deepEqual(en.ranked("gaudi", raw), []);
  });

  test("a model's name in another order than its title's is still its name, after the names in order", () => {
    const raw = en.small({
      "recipes/MOSS-TTS-Realtime": { title: "Serving MOSS-TTS-Realtime on RBLN NPU", body: "streaming speech" },
      "recipes/MOSS-TTS": { title: "Serving MOSS-TTS on RBLN NPU", body: "speech" },
      "recipes/Voxtral-Mini-4B-Realtime": { title: "Serving Voxtral-Mini-4B-Realtime on RBLN NPU", body: "asr" },
    });
    assert.equal(en.ranked("realtime tts", raw)[0], "recipes/MOSS-TTS-Realtime");
    assert.equal(en.ranked("tts realtime", raw)[0], "recipes/MOSS-TTS-Realtime");
    // a Korean reader's 실시간 is realtime on a page still in English
    const koRaw = ko.small({
      "recipes/MOSS-TTS-Realtime": { title: "RBLN NPU에서 MOSS-TTS-Realtime 서빙", body: "a realtime streaming tts" },
      "recipes/MOSS-TTS": { title: "RBLN NPU에서 MOSS-TTS 서빙", body: "a tts model" },
      other: { title: "설치", body: "드라이버" },
    });
    assert.equal(ko.ranked("실시간 TTS", koRaw)[0], "recipes/MOSS-TTS-Realtime");
    assert.equal(ko.ranked("스트리밍 음성 합성", koRaw)[0], "recipes/MOSS-TTS-Realtime");
  });

  test("a reference page whose title and one heading hold the query is about it: its text counts in full", () => {
    // a guide with a section on memory and the word in its text; the memory reference, whose title
    // names memory and a heading the calculation; a reference page that mentions both; recipes
    // whose memory panel names memory (a word on most pages)
    const pages = (w) => {
      const found = {
        "a-configuration": { title: w[0], headings: [w[1]], body: w[2] },
        "b-memory": { title: w[3], headings: [w[4]], body: w[5], reference: true },
        "c-rules": { title: w[6], body: w[7], reference: true },
      };
      for (let i = 1; i <= 8; i++) found[`recipes/m${i}`] = { title: `${w[8]} ${i}`, body: w[9] };
      return found;
    };
    const enRaw = en.small(
      pages([
        "Configuration", "Model and memory", "the flags computed for each rank",
        "Memory figures", "How the figures are computed", "weights and cache of each rank",
        "Rules", "memory computed per rule", "Model", "memory panel and commands",
      ]),
    );
    const koRaw = ko.small(
      pages([
        "설정", "모델과 메모리", "랭크마다 계산된 플래그",
        "메모리가 충분할까? 메모리 수치", "수치를 계산하는 방법", "랭크마다 가중치와 캐시",
        "규칙", "규칙마다 메모리 계산", "모델", "메모리 패널과 명령",
      ]),
    );
    assert.deepEqual(en.ranked("memory calculation", enRaw), ["b-memory", "a-configuration", "c-rules"]);
    assert.deepEqual(ko.ranked("메모리 계산", koRaw), ["b-memory", "a-configuration", "c-rules"]);
    assert.deepEqual(ko.ranked("메모리계산", koRaw), ["b-memory", "a-configuration", "c-rules"]);
  });

  test("a name the title writes as one word is found typed as two", () => {
    const raw = en.small({
      "recipes/HunyuanOCR": { title: "Serving HunyuanOCR on RBLN NPU", body: "the hunyuan ocr model" },
      "recipes/Hunyuan-A13B-Instruct": { title: "Serving Hunyuan-A13B-Instruct on RBLN NPU", body: "chat" },
      "recipes/DeepSeek-OCR": { title: "Serving DeepSeek-OCR on RBLN NPU", body: "ocr" },
    });
    assert.equal(en.ranked("hunyuan ocr", raw)[0], "recipes/HunyuanOCR");
    assert.deepEqual(en.ranked("hunyuan ocr", raw), en.ranked("hunyuanocr", raw).slice(0, 1));
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
    // heard by its start, with the rest of the name typed after it, spaced or not
    for (const query of ["패들 OCR", "패들OCR", "패들 ocr"]) {
      assert.equal(ko.RecipeSearch.search(query, raw).read, "paddleocr", query);
      assert.equal(ko.ranked(query, raw)[0], "recipes/PaddleOCR-VL", query);
    }
    assert.equal(ko.RecipeSearch.search("패들OCR VL", raw).read, "paddleocr VL");
    assert.equal(ko.RecipeSearch.search("딥시크OCR", raw).read, "deepseek OCR"); // a name of its own after it
    assert.equal(ko.ranked("딥시크OCR", raw)[0], "recipes/DeepSeek-OCR");
    // only the names of titles: 제미나이 (Gemini) is not the common word german
    assert.deepEqual(ko.ranked("제미나이", raw), []);
  });
});
