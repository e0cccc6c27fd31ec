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
  test("a word the index does not know lowers a result, it does not veto it", () => {
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
    // two words no page holds: counted at their full weight, they were most of the query
    assert.equal(en.ranked("prefix caching frobnicate tweakery", raw)[0], "caching");
    const known = en.RecipeSearch.search("prefix caching", raw).hits[0].score;
    const lowered = en.RecipeSearch.search("prefix caching frobnicate tweakery", raw).hits[0].score;
    assert.ok(lowered < known, [lowered, known]);
  });

  test("equal scores go to the page whose headings hold the query, not to the first name", () => {
    const raw = ko.small({
      "a-guide": { title: "안내", body: "라우터 설명", headings: ["설치"] },
      "b-recipe": { title: "레시피", headings: ["라우터 구성", "라우터 단계"], body: "내용" },
      "c-other": { title: "기타", body: "라우터 내용" },
    });
    assert.equal(ko.ranked("라우터", raw)[0], "b-recipe");
    // between pages alike but for their length, the shorter one: the word is more of it
    const alike = en.small({
      "a-long": { title: "Notes", body: "router and many other words about install driver catalogs cache" },
      "b-short": { title: "More", body: "router" },
    });
    assert.deepEqual(en.ranked("router", alike), ["b-short", "a-long"]);
  });
});
