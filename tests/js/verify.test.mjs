// The browser verifier (companion/web/static/verify.js), run in node:  node --test tests/js/
// Its fixtures are made by the Python side (tests/js/make_fixtures.py): exports the
// companion recorded, forged variants, the fair draw's test vector, canonical JSON texts.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { canonical, drawCubes, parseJSON, verifyExport } from "../../companion/web/static/verify.js";

const FIXTURES = new URL("./fixtures/", import.meta.url);
const read = (name) => readFileSync(new URL(name, FIXTURES), "utf8");
const readJSON = (name) => JSON.parse(read(name));
const expected = readJSON("expected.json");
const subtle = globalThis.crypto.subtle;
const hex = (buf) => Buffer.from(buf).toString("hex");
const sha256 = async (bytes) => hex(await subtle.digest("SHA-256", bytes));

// An export changed and its chain computed again, as whoever can write the database could.
async function forge(name, change) {
  const [header, ...records] = read(name).trim().split("\n").map((line) => JSON.parse(line));
  change(records);
  let prev = "0".repeat(64);
  for (const r of records) {
    const bytes = new TextEncoder().encode(canonical({ body: r.body, game: r.game, kind: r.kind, seq: r.seq }));
    r.prev = prev;
    r.hash = prev = await sha256(Buffer.concat([Buffer.from(prev, "hex"), bytes]));
  }
  return [header, ...records].map((r) => JSON.stringify(r)).join("\n");
}
const drawsOf = (records) => records.flatMap((r) => (r.kind === "action" ? r.body.draws : []));

// ------------------------------------------------------- FAIR_DRAW.md's test vector
// server_seed 00 01 .. 1f, client_seed "table", nonce 1, bag black 24 red 3 blue 2, m 4.
// Worked out apart from both programs (openssl for HMAC-SHA256("table:1:0"), then by
// hand): the words 162079867, 327473825, 206336358, 1458601173 are all below their
// limits; their indices are 27 of 29 (blue), 21 of 28, 9 of 27, 3 of 26 (black each).
const VECTOR_DRAWN = ["blue", "black", "black", "black"];
const VECTOR_COMMITMENT = "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd";
const VECTOR_BLOCK0 = "09a9247b1384daa10c4c716656f07cd5b5e997ecb5404aa116633cd3b94d5ff3";

test("the test vector: commitment, first block and drawn cubes", async () => {
  const seed = Array.from({ length: 32 }, (_, i) => i.toString(16).padStart(2, "0")).join("");
  assert.equal(await sha256(Buffer.from(seed, "hex")), VECTOR_COMMITMENT);
  const key = await subtle.importKey("raw", Buffer.from(seed, "hex"), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  assert.equal(hex(await subtle.sign("HMAC", key, Buffer.from("table:1:0"))), VECTOR_BLOCK0);
  const bag = { black: 24, red: 3, blue: 2 };
  assert.deepEqual(await drawCubes(seed, "table", 1, bag, ["red", "blue"], 4), VECTOR_DRAWN);
});

test("the test vector agrees with the companion's Python implementation", async () => {
  const v = readJSON("draw-vector.json"); // companion.draw.draw_cubes and stream
  assert.equal(v.commitment, VECTOR_COMMITMENT);
  assert.equal(v.block0, VECTOR_BLOCK0);
  assert.deepEqual(v.drawn, VECTOR_DRAWN);
  const words = Array.from({ length: 8 }, (_, i) => Buffer.from(VECTOR_BLOCK0, "hex").readUInt32BE(4 * i));
  assert.deepEqual(v.words.slice(0, 8), words);
  assert.deepEqual(await drawCubes(v.server_seed, v.client_seed, v.nonce, v.bag, v.seats, v.m), v.drawn);
});

test("a draw takes every cube once, never more than the bag holds", async () => {
  const seed = "ab".repeat(32);
  const drawn = await drawCubes(seed, "x", 7, { black: 3, red: 2, ghost: 1 }, ["red"], 10);
  assert.deepEqual([...drawn].sort(), ["black", "black", "black", "ghost", "red", "red"]);
  assert.deepEqual(await drawCubes(seed, "x", 7, { black: 0 }, ["red"], 4), []);
  // the draw's messages are the client seed's UTF-8: another text, other cubes in general
  const bag = { black: 40, red: 40 };
  const a = await drawCubes(seed, "Zoë", 1, bag, ["red"], 20);
  const b = await drawCubes(seed, "Zoe", 1, bag, ["red"], 20);
  assert.notDeepEqual(a, b);
});

// --------------------------------------------------------------- canonical JSON
test("canonical JSON is byte for byte Python's json.dumps", async () => {
  for (const c of readJSON("canonical.json")) {
    const text = canonical(parseJSON(c.json));
    assert.equal(text, c.canonical, c.json);
    assert.equal(await sha256(new TextEncoder().encode(text)), c.sha256, c.json);
  }
});

test("the reader keeps integers exact and refuses what canonical JSON never holds", () => {
  assert.equal(canonical(parseJSON("[9223372036854775807,-0,12]")), "[9223372036854775807,0,12]");
  for (const bad of ["1.0", "1e3", "NaN", '{"a":1,"a":1}', '"\u0001"', "[1,]", "01", '"\\x"', "[".repeat(600)]) {
    assert.throws(() => parseJSON(bad), undefined, bad);
  }
  assert.throws(() => canonical("\ud800"), /not valid Unicode/);
  assert.equal(canonical(parseJSON('{"__proto__":1,"b":[true,null]}')), '{"__proto__":1,"b":[true,null]}');
});

// ----------------------------------------------------- the exports: Python's verdicts
for (const [name, status] of Object.entries(expected)) {
  test(`${name}: ${status}, as the Python verifier says`, async () => {
    const text = read(name);
    const result = await verifyExport(text);
    assert.equal(result.status, status, result.message);
    assert.equal(result.ok, status === "ok");
    if (status === "failed") return assert.match(result.message, /^FAILED: /);
    const records = text.trim().split("\n").slice(1).map((line) => JSON.parse(line));
    assert.equal(result.head, records.at(-1).hash);
    assert.equal(result.final, records.at(-1).kind === "close");
  });
}

test("the finished game: every draw recomputed, the head final", async () => {
  const r = await verifyExport(read("clank-finished.jsonl"));
  assert.equal(r.draws, 4);
  assert.ok(r.final && /4 draws recomputed and equal/.test(r.message), r.message);
  const cata = await verifyExport(read("catacombs.jsonl"));
  assert.ok(cata.draws > 4 && cata.final, cata.message);
});

test("the verdicts say why", async () => {
  const says = async (name, pattern) => assert.match((await verifyExport(read(name))).message, pattern);
  await says("given-seed.jsonl", /seed chosen outside the companion: draws reproducible, not provably fair/);
  await says("key-lost.jsonl", /seal key was lost/);
  await says("running.jsonl", /NOT YET: the server seed is still sealed/);
  await says("tschak.jsonl", /without a dragon bag/);
  await says("forged-draw.jsonl", /^FAILED: record 7: its hash does not match its content$/);
  await says("forged-draw-rechained.jsonl", /^FAILED: record 7: draw 1 is not what the seed gives$/);
  await says("forged-date.jsonl", /game's date/);
  await says("forged-after-close.jsonl", /record 21: written after the game was closed/);
  await says("forged-huge-bag.jsonl", /record 7: draw 1's bag holds more cubes than any game/);
  await says("forged-lone-surrogate.jsonl", /record 2: its body is not canonical JSON/);
  const given = await verifyExport(read("given-seed.jsonl"));
  assert.ok(given.draws > 0 && !given.final, given.message); // recomputed, not closed
  assert.equal((await verifyExport(read("running.jsonl"))).draws, 0);
});

// ---------------------------------------------------------- the text of an export
test("line breaks of any system and blank lines are taken; a cut export is not final", async () => {
  const text = read("clank-finished.jsonl");
  assert.equal((await verifyExport(text.replaceAll("\n", "\r\n"))).status, "ok");
  assert.equal((await verifyExport("\n" + text.replaceAll("\n", "\n  \n"))).status, "ok");
  const cut = text.trim().split("\n").slice(0, -1).join("\n"); // the close dropped
  const r = await verifyExport(cut);
  assert.ok(r.ok && !r.final && /not final/.test(r.message), r.message);
  const lines = text.trim().split("\n");
  lines.splice(3, 1); // a record dropped in the middle
  assert.match((await verifyExport(lines.join("\n"))).message, /record 3 is missing or out of order/);
});

test("what an export may claim is bounded before anything is computed", async () => {
  const text = read("clank-finished.jsonl");
  const long = text.replace('"format": "clank-companion-log"', `"pad": "${"x".repeat(1 << 20)}", $&`);
  assert.match((await verifyExport(long)).message, /line 1: longer than any record/);
  const claims = [
    [(rs) => (rs[0].body.seats = rs[0].body.setup.players = ["a", "b", "c", "d", "e", "f", "g"]), /record 1: the seats are not a list of at most six/],
    [(rs) => (drawsOf(rs)[0].count = 2 ** 40), /record 7: draw 1 draws more cubes than any game/],
    [(rs) => (drawsOf(rs)[0].bag = { black: 5000, red: 5001 }), /draw 1's bag holds more cubes than any game/],
    [(rs) => (drawsOf(rs)[0].bag.purple = 1), /draw 1's bag holds cubes of no seat/],
    [(rs) => (drawsOf(rs)[0].bag.red = -1), /draw 1's bag counts must be whole numbers/],
    [(rs) => (drawsOf(rs)[0].drawn.push("red")), /draw 1 lists more cubes than it drew/],
  ];
  for (const [change, pattern] of claims) {
    assert.match((await verifyExport(await forge("clank-finished.jsonl", change))).message, pattern);
  }
});

test("what is not an export fails, naming the line", async () => {
  for (const [text, pattern] of [
    ["", /the export is empty/],
    ["\n \n", /the export is empty/],
    ['{"format": "clank-companion-log", "version": 1, "game": {"id": 1}}', /holds no record/],
    ['{"format": "other", "version": 1, "game": {"id": 1}}\n{}', /not a clank-companion-log version 1 export/],
    ['{"format": "clank-companion-log", "version": 1, "game": {}}\n{}', /does not name the game/],
    ["[1, 2]\n{", /line 2: not valid JSON/],
    ['{"format": "clank-companion-log", "version": 1.0, "game": {"id": 1}}', /line 1: not valid JSON/],
    [null, /not text/],
  ]) {
    const r = await verifyExport(text);
    assert.equal(r.status, "failed");
    assert.match(r.message, pattern);
  }
});

test("without WebCrypto (a page over plain http) a finished game still verifies", async () => {
  const url = new URL("../../companion/web/static/verify.js", import.meta.url);
  const fixture = new URL("./fixtures/clank-finished.jsonl", import.meta.url);
  const script = `Object.defineProperty(globalThis, "crypto", { value: {} });
    const { readFileSync } = await import("node:fs");
    const { verifyExport } = await import(${JSON.stringify(url.href)});
    const result = await verifyExport(readFileSync(new URL(${JSON.stringify(fixture.href)}), "utf8"));
    process.exit(result.status === "ok" && result.draws > 0 ? 0 : 4);`;
  const { spawnSync } = await import("node:child_process");
  const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" });
  assert.equal(run.status, 0, run.stderr);
});
