/*
 * The site's search pipeline (recipebook-search.js) loaded in Node as the search page loads it,
 * for the tests beside this file (node --test). The pipeline is read from the extension's source;
 * the language's stemmer and the scorer's numbers, which a build generates, either from a built
 * language tree (site/questions.js: RECIPEBOOK_SITE names a built site's html folder, en/ and ko/
 * in it, and tests/site/test_search_pipeline.py runs it so) or, with no tree, made as the build makes
 * them by jsdata.py in the project's .venv (`npm test`: no site is built).
 */
"use strict";
const childProcess = require("node:child_process");
const fs = require("node:fs");
const path = require("node:path");
const vm = require("node:vm");

const ROOT = path.join(__dirname, "..", "..");
const SOURCE = path.join(ROOT, "_ext", "recipebook_sphinx", "static", "recipebook-search.js");
const PYTHON = process.env.RECIPEBOOK_PYTHON || path.join(ROOT, ".venv", "bin", "python");

/** A built language tree of the site RECIPEBOOK_SITE names. */
function site(language) {
  const found = process.env.RECIPEBOOK_SITE;
  if (!found) throw new Error("RECIPEBOOK_SITE is not set: tests/site/test_search_pipeline.py runs this with a built site");
  return path.join(found, language);
}

/** language_data.js and recipebook-search-data.js of a language, as a build writes them (jsdata.py). */
function generated(language) {
  if (!fs.existsSync(PYTHON)) throw new Error(`${PYTHON} is missing: run make venv (or set RECIPEBOOK_PYTHON)`);
  const made = childProcess.execFileSync(PYTHON, [path.join(__dirname, "jsdata.py"), language], { encoding: "utf8" });
  return JSON.parse(made);
}

/** The pipeline of one language: {search, analyse, pieces, ..., index}: with a built tree, its
    data and its searchindex.js; without one, the data a build would write and no index. */
function load(language, tree) {
  let index = null;
  const context = vm.createContext({ Search: { setIndex: (data) => (index = data) } });
  context.window = context;
  const scripts = tree
    ? ["language_data.js", "recipebook-search-data.js"].map((name) => path.join(tree, "_static", name))
    : Object.entries(generated(language));
  for (const script of [...scripts, SOURCE]) {
    const [file, text] = Array.isArray(script) ? script : [script, fs.readFileSync(script, "utf8")];
    vm.runInContext(text, context, { filename: file });
  }
  const searchIndex = tree && path.join(tree, "searchindex.js");
  if (searchIndex && fs.existsSync(searchIndex)) vm.runInContext(fs.readFileSync(searchIndex, "utf8"), context);
  const RecipeSearch = vm.runInContext("RecipeSearch", context);
  const data = vm.runInContext("RecipeSearchData", context);
  return {
    RecipeSearch,
    data,
    index,
    /** An index of pages given as {docname: {title, body, headings, explorer, terms, reference}}, as
        Sphinx writes it with the site's search language; the explorer's own terms, the page's
        terms (a definition's, an explorer's headings) and whether it is a reference page go
        where the page's data puts them. */
    small(pages) {
      const docnames = Object.keys(pages).sort();
      // the small pages' data beside the built site's (a small page's name is not one of its pages)
      data.focus = data.focus || {};
      data.reference = (data.reference || []).filter((name) => !(name in pages)).concat(docnames.filter((name) => pages[name].reference));
      const terms = new Map();
      const titleterms = new Map();
      const alltitles = {};
      const stems = (text) => new Set(RecipeSearch.titleStems(text || ""));
      const add = (map, term, doc) => map.set(term, (map.get(term) || new Set()).add(doc));
      docnames.forEach((name, doc) => {
        const page = pages[name];
        [page.title, ...(page.headings || [])].forEach((head, i) => {
          (alltitles[head] = alltitles[head] || []).push([doc, i === 0 ? null : `h${i}`]);
          stems(head).forEach((s) => add(titleterms, s, doc));
        });
        const body = new Set([...stems(page.body), ...stems(page.terms)]);
        const inside = stems(page.explorer);
        new Set([...body, ...inside]).forEach((s) => {
          if (!(titleterms.get(s) || new Set()).has(doc)) add(terms, s, doc);
        });
        data.explorer[name] = [...inside].filter((s) => !body.has(s)).sort();
        data.focus[name] = [...stems(page.terms)].sort();
      });
      const plain = (map) => Object.fromEntries([...map].map(([t, d]) => [t, [...d].sort((a, b) => a - b)]));
      return {
        docnames,
        filenames: docnames.map((n) => `${n}.md`),
        titles: docnames.map((n) => pages[n].title),
        terms: plain(terms),
        titleterms: plain(titleterms),
        alltitles,
      };
    },
    ranked(query, raw) {
      return plain(RecipeSearch.search(query, raw || index).hits.map((hit) => hit.docname));
    },
    words(query, raw) {
      return plain(RecipeSearch.analyse(query, raw || index).map((word) => [word.text, word.how]));
    },
  };
}

/** A value made in the pipeline's context as one of this realm (assert's deep equality compares prototypes). */
function plain(value) {
  return JSON.parse(JSON.stringify(value));
}

module.exports = { load, plain, site };
