/*
 * The explorer's nearest offered selection (recipebook.js nearestOffered, the one implementation:
 * the button under an excluded selection switches to it), run in Node.js as the page runs it,
 * with recipebook-files.js's `admits` as the test of an exclusion entry. Needs no built site.
 */
"use strict";
const { describe, test } = require("node:test");
const assert = require("node:assert/strict");
const fs = require("node:fs");
const path = require("node:path");
const vm = require("node:vm");

const STATIC = path.join(__dirname, "..", "..", "_ext", "recipebook_sphinx", "static");

/** recipebook.js's nearestOffered, loaded after recipebook-files.js as the page loads them (no document). */
function load() {
  const context = vm.createContext({});
  context.window = context;
  const run = (name) => {
    const file = path.join(STATIC, name);
    vm.runInContext(fs.readFileSync(file, "utf8"), context, { filename: file });
  };
  run("recipebook-files.js");
  context.module = { exports: {} };
  run("recipebook.js");
  const nearest = context.module.exports.nearestOffered;
  // its objects come from the script's own realm: compared here as plain data
  return (sizes, chosen, excluded) => JSON.parse(JSON.stringify(nearest(sizes, chosen, excluded)));
}

const nearestOffered = load();

/** Every selection as value indices, in axis order (the first axis changes slowest). */
function every(sizes) {
  let out = [[]];
  for (const n of sizes) out = out.flatMap((s) => Array.from({ length: n }, (_, v) => [...s, v]));
  return out;
}

/** An exclusion entry (null: any value of the axis) that one selection matches. */
const hits = (entry, selection) => entry.every((allowed, a) => allowed === null || allowed.includes(selection[a]));
const distance = (a, b) => a.filter((v, i) => v !== b[i]).length;

/** A small seeded generator (mulberry32), so a failure repeats. */
function random(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe("nearest offered selection", () => {
  test("by hand: one change suffices, the first axis in order before the next", () => {
    // axes a: x y, b: p q, c: 1 2; the recipe excludes a=y with b=q
    const excluded = [[[1], [1], null]];
    const chosen = [1, 1, 1]; // a=y, b=q, c=2
    assert.ok(excluded.some((e) => hits(e, chosen)));
    const found = nearestOffered([2, 2, 2], chosen, excluded);
    assert.deepEqual(found, { index: [0, 1, 1], distance: 1 }); // a=x, b=q, c=2 (not a=y, b=p)
    assert.ok(!excluded.some((e) => hits(e, found.index)));
  });

  test("an offered selection is its own nearest; nothing offered gives null", () => {
    assert.deepEqual(nearestOffered([2, 3], [1, 2], [[[0], null]]), { index: [1, 2], distance: 0 });
    assert.equal(nearestOffered([2, 2], [0, 0], [[null, null]]), null);
  });

  test("changes the fewest axes, ties to the first selection in axis order, deterministic", () => {
    const next = random(31);
    const pick = (n) => Math.floor(next() * n);
    for (let round = 0; round < 400; round += 1) {
      const sizes = Array.from({ length: 1 + pick(4) }, () => 1 + pick(3));
      const all = every(sizes);
      // up to all-but-one selections excluded, as single selections or with an axis left open
      const excluded = Array.from({ length: pick(all.length) }, () => {
        const s = all[pick(all.length)];
        return s.map((v, a) => (next() < 0.2 ? null : [v, pick(sizes[a])].filter((x, i, l) => l.indexOf(x) === i)));
      });
      const offered = all.filter((s) => !excluded.some((e) => hits(e, s)));
      const chosen = all[pick(all.length)];
      const found = nearestOffered(sizes, chosen, excluded);
      if (!offered.length) {
        assert.equal(found, null);
        continue;
      }
      const fewest = Math.min(...offered.map((s) => distance(s, chosen)));
      // the first offered selection in axis order with the fewest changes
      const first = offered.find((s) => distance(s, chosen) === fewest);
      assert.deepEqual(found, { index: first, distance: fewest }, JSON.stringify({ sizes, excluded, chosen }));
      assert.equal(found.distance === 0, offered.some((s) => distance(s, chosen) === 0));
      assert.deepEqual(nearestOffered(sizes, chosen, excluded), found);
    }
  });
});
