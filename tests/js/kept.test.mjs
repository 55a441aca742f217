// What the phone page keeps in the browser's storage (companion/web/static/kept.js), run
// in node with a stand-in for localStorage: the colour chosen game by game (a new game
// asks again, the last choice only shown), and the phone as a witness of the proof: the
// commitment it saw and when, a change of it kept and judged, the revealed seed judged
// against what it saw.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  CHOICES,
  KEPT_GAMES,
  WITNESS,
  choiceFor,
  choose,
  judge,
  lastChoice,
  remember,
  short,
  witnessed,
} from "../../companion/web/static/kept.js";
import { seedMatches } from "../../companion/web/static/verify.js";

function storage() {
  const held = new Map();
  return {
    held,
    getItem: (k) => (held.has(k) ? held.get(k) : null),
    setItem: (k, v) => held.set(k, String(v)),
  };
}

// FAIR_DRAW.md's test vector: the seed 00 01 .. 1f and its commitment
const SEED = Array.from({ length: 32 }, (_, i) => i.toString(16).padStart(2, "0")).join("");
const COMMITMENT = "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd";
const OTHER = "ab".repeat(32);
const AT = "2026-05-02T20:14:00.000Z";
const LATER = "2026-05-02T21:02:00.000Z";
const CREATED = "2026-05-02T20:10:00+00:00";

test("the colour is kept per game: a new game asks again, the last choice only shown", () => {
  const s = storage();
  assert.equal(choiceFor(s, 3), null);
  choose(s, 3, "red");
  assert.equal(choiceFor(s, 3), "red");
  assert.equal(choiceFor(s, 4), null); // never carried over silently
  assert.equal(lastChoice(s, 4), "red"); // shown beside the picker of game 4
  choose(s, 4, ""); // just watching
  assert.equal(choiceFor(s, 4), "");
  assert.equal(lastChoice(s, 5), "red"); // watching is no colour to suggest
  assert.equal(lastChoice(s, 3), null);
});

test("a bare colour kept by an older page is not taken for any game", () => {
  const s = storage();
  s.setItem(CHOICES, "red");
  assert.equal(choiceFor(s, 1), null);
  assert.equal(lastChoice(s, 2), null);
  choose(s, 1, "blue");
  assert.equal(choiceFor(s, 1), "blue");
});

test("the witness keeps the first commitment and when it saw it, per game", () => {
  const s = storage();
  assert.equal(witnessed(s, 7), null);
  const first = remember(s, 7, COMMITMENT, CREATED, AT);
  assert.deepEqual(first, { commitment: COMMITMENT, at: AT, created: CREATED });
  remember(s, 7, COMMITMENT, CREATED, LATER); // seen again: the first time stays
  assert.deepEqual(witnessed(s, 7), first);
  assert.deepEqual(JSON.parse(s.getItem(WITNESS))["7"], first); // in the storage itself
  assert.equal(remember(s, 8, "not a commitment", CREATED, AT), null);
  assert.equal(witnessed(s, 8), null);
});

test("a commitment that changes during the game is kept as a change, the first one with it", () => {
  const s = storage();
  remember(s, 7, COMMITMENT, CREATED, AT);
  const changed = remember(s, 7, OTHER, CREATED, LATER);
  assert.equal(changed.commitment, COMMITMENT);
  assert.deepEqual(changed.changed, { commitment: OTHER, at: LATER });
  remember(s, 7, COMMITMENT, CREATED, LATER); // and back: still a change
  assert.ok(witnessed(s, 7).changed);
  assert.equal(judge(witnessed(s, 7), { commitment: COMMITMENT, server_seed: SEED }, true), "changed");
});

test("the same game number begun at another date is a change too", () => {
  const s = storage();
  remember(s, 7, COMMITMENT, CREATED, AT);
  const other = remember(s, 7, COMMITMENT, "2026-05-03T19:00:00+00:00", LATER);
  assert.ok(other.changed);
});

test("the verdicts at the end: the revealed seed against what the phone saw", async () => {
  const s = storage();
  const entry = remember(s, 7, COMMITMENT, CREATED, AT);
  const proof = { commitment: COMMITMENT, server_seed: SEED };
  assert.equal(await seedMatches(SEED, COMMITMENT), true);
  assert.equal(await seedMatches(SEED, OTHER), false);
  assert.equal(await seedMatches("zz", COMMITMENT), false);
  assert.equal(judge(entry, proof, await seedMatches(SEED, entry.commitment)), "match");
  assert.equal(judge(entry, proof, false), "mismatch");
  assert.equal(judge(entry, { commitment: OTHER, server_seed: SEED }, false), "other");
  assert.equal(judge(entry, { commitment: COMMITMENT, server_seed: null }, false), "saw");
  assert.equal(judge(null, proof, false), "none"); // it joined after the end
  assert.equal(short(COMMITMENT), "630dcd29…");
});

test("the storage holds the newest games only, forgets week-old ones, and never throws", () => {
  const s = storage();
  remember(s, 1, COMMITMENT, CREATED, "2026-04-01T20:00:00.000Z");
  for (let game = 2; game <= KEPT_GAMES + 5; game++) remember(s, game, COMMITMENT, CREATED, AT);
  const kept = Object.keys(JSON.parse(s.getItem(WITNESS))).map(Number);
  assert.equal(kept.length, KEPT_GAMES);
  assert.equal(Math.min(...kept), 6);
  assert.equal(witnessed(s, 1), null);
  s.setItem(WITNESS, "{not json");
  assert.equal(witnessed(s, 7), null);
  const full = { getItem: () => null, setItem: () => { throw new Error("QuotaExceededError"); } };
  assert.deepEqual(remember(full, 3, COMMITMENT, CREATED, AT), { commitment: COMMITMENT, at: AT, created: CREATED });
  choose(full, 3, "red");
});
