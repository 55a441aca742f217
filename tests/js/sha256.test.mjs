// companion/web/static/sha256.js, the SHA-256 and HMAC-SHA256 that verify.js uses where a
// browser gives no crypto.subtle (a page over plain http):  node --test tests/js/
// Checked against the published vectors, against node's OpenSSL on random inputs, and
// by the whole verifier run without WebCrypto over every fixture.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash, createHmac, randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { hmacSha256, sha256 } from "../../companion/web/static/sha256.js";
import { drawCubes, verifyExport } from "../../companion/web/static/verify.js";

const VERIFY_JS = new URL("../../companion/web/static/verify.js", import.meta.url);
const FIXTURES = new URL("./fixtures/", import.meta.url);
const hex = (bytes) => Buffer.from(bytes).toString("hex");
const bytes = (text) => new TextEncoder().encode(text);
const repeat = (byte, n) => new Uint8Array(n).fill(byte);

// ---------------------------------------------------- FIPS 180-4 (NIST examples)
test("SHA-256: the NIST test vectors", () => {
  const vectors = [
    ["abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"],
    ["", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"],
    [
      "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", // 448 bits: two blocks
      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
    ],
    ["a".repeat(1000000), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"],
  ];
  for (const [text, digest] of vectors) {
    const out = sha256(bytes(text));
    assert.ok(out instanceof Uint8Array && out.length === 32);
    assert.equal(hex(out), digest, `${text.length} characters`);
  }
});

// ------------------------------------------------------------------ RFC 4231
test("HMAC-SHA256: RFC 4231 test cases 1-7", () => {
  const block = "Test Using Larger Than Block-Size Key - Hash Key First";
  const long =
    "This is a test using a larger than block-size key and a larger than block-size data." +
    " The key needs to be hashed before being used by the HMAC algorithm.";
  const cases = [
    [repeat(0x0b, 20), bytes("Hi There"), "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"],
    [
      bytes("Jefe"),
      bytes("what do ya want for nothing?"),
      "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
    ],
    [repeat(0xaa, 20), repeat(0xdd, 50), "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"],
    [
      Uint8Array.from({ length: 25 }, (_, i) => i + 1),
      repeat(0xcd, 50),
      "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b",
    ],
    [repeat(0x0c, 20), bytes("Test With Truncation"), "a3b6167473100ee06e0c796c2955552b"], // 128 bits
    [repeat(0xaa, 131), bytes(block), "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"],
    [repeat(0xaa, 131), bytes(long), "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"],
  ];
  cases.forEach(([key, msg, mac], i) => {
    const out = hmacSha256(key, msg);
    assert.equal(out.length, 32);
    assert.equal(hex(out).slice(0, mac.length), mac, `test case ${i + 1}`);
  });
});

// ----------------------------------------------------------- node's OpenSSL
test("SHA-256 of random inputs of every length 0..300 is node's", () => {
  for (let n = 0; n <= 300; n++) {
    const input = randomBytes(n);
    assert.equal(hex(sha256(input)), createHash("sha256").update(input).digest("hex"), hex(input));
  }
  // a view into a larger buffer is read from its own start
  const big = randomBytes(200);
  const view = new Uint8Array(big.buffer, big.byteOffset + 13, 150);
  assert.equal(hex(sha256(view)), createHash("sha256").update(view).digest("hex"));
});

test("HMAC-SHA256 with random keys of every length 0..200 is node's", () => {
  // message lengths around the 64-byte block's edges, and one at random
  const lengths = [0, 1, 31, 55, 56, 63, 64, 65, 119, 120, 128, 300];
  for (let k = 0; k <= 200; k++) {
    const key = randomBytes(k);
    for (const n of [...lengths, Math.floor(Math.random() * 301)]) {
      const msg = randomBytes(n);
      const want = createHmac("sha256", key).update(msg).digest("hex");
      assert.equal(hex(hmacSha256(key, msg)), want, `key ${hex(key)} message ${hex(msg)}`);
    }
  }
});

test("the inputs are left as they were", () => {
  const key = randomBytes(100);
  const msg = randomBytes(100);
  const [k, m] = [hex(key), hex(msg)];
  hmacSha256(key, msg);
  sha256(msg);
  assert.deepEqual([hex(key), hex(msg)], [k, m]);
});

// -------------------------------------------------------------------- speed
test("speed: a game's draws in well under a second", (t) => {
  const key = randomBytes(32);
  const messages = Array.from({ length: 5000 }, (_, i) => bytes(`table scan 04a1b2c3:${i}:0`));
  hmacSha256(key, messages[0]); // compiled once, as a page's first draw would be
  const start = performance.now();
  for (const msg of messages) hmacSha256(key, msg);
  const ms = performance.now() - start;
  const mib = new Uint8Array(1 << 20);
  const at = performance.now();
  sha256(mib);
  const hashMs = performance.now() - at;
  t.diagnostic(`sha256.js: 5000 HMAC-SHA256 in ${ms.toFixed(1)} ms (${((1000 * ms) / 5000).toFixed(1)} µs each)`);
  t.diagnostic(`sha256.js: SHA-256 of 1 MiB in ${hashMs.toFixed(1)} ms`);
  assert.ok(ms < 1000, `5000 HMACs took ${ms} ms`); // a bound for a loaded machine only
});

// ----------------------------------------------- the verifier without WebCrypto
// A separate node, as a phone's browser on a plain http page: crypto without subtle (or
// no crypto at all). It prints the verdicts of the exports named and some draws.
const WITHOUT_SUBTLE = `
  import { readFileSync } from "node:fs";
  const [url, mode, draws, ...files] = process.argv.slice(1);
  const real = globalThis.crypto;
  const crypto = mode === "none" ? undefined : { getRandomValues: (a) => real.getRandomValues(a) };
  Object.defineProperty(globalThis, "crypto", { value: crypto, configurable: true });
  const { drawCubes, verifyExport } = await import(url);
  const out = { subtle: typeof globalThis.crypto?.subtle, verdicts: {}, draws: [] };
  for (const d of JSON.parse(draws)) out.draws.push(await drawCubes(...d));
  const start = performance.now();
  for (const file of files) out.verdicts[file] = await verifyExport(readFileSync(file, "utf8"));
  out.ms = performance.now() - start;
  console.log(JSON.stringify(out));
`;

// FAIR_DRAW.md's test vector, a client seed beyond ASCII, and a bag emptied whole (over
// a thousand blocks of the stream).
const VECTOR_SEED = Array.from({ length: 32 }, (_, i) => i.toString(16).padStart(2, "0")).join("");
const DRAWS = [
  [VECTOR_SEED, "table", 1, { black: 24, red: 3, blue: 2 }, ["red", "blue"], 4],
  ["ab".repeat(32), "Zoë 🐉", 7, { black: 3, red: 2, ghost: 1 }, ["red"], 10],
  ["5e".repeat(32), "", 3, { black: 4000, red: 3000, blue: 2000, ghost: 1000 }, ["red", "blue"], 10000],
];

test("without crypto.subtle the verifier gives every fixture the same result", async (t) => {
  const files = readdirSync(FIXTURES)
    .filter((name) => name.endsWith(".jsonl"))
    .map((name) => fileURLToPath(new URL(name, FIXTURES)));
  assert.ok(files.length >= 20, "the fixtures are there");
  const verdicts = {};
  for (const file of files) verdicts[file] = await verifyExport(readFileSync(file, "utf8"));
  const draws = [];
  for (const d of DRAWS) draws.push(await drawCubes(...d));
  assert.deepEqual(draws[0], ["blue", "black", "black", "black"]);
  const expected = JSON.parse(readFileSync(new URL("expected.json", FIXTURES), "utf8"));
  for (const mode of ["no-subtle", "none"]) {
    const args = ["--input-type=module", "-e", WITHOUT_SUBTLE, VERIFY_JS.href, mode, JSON.stringify(DRAWS), ...files];
    const run = spawnSync(process.execPath, args, { encoding: "utf8" });
    assert.equal(run.status, 0, run.stderr);
    const out = JSON.parse(run.stdout);
    assert.equal(out.subtle, "undefined", mode);
    assert.deepEqual(out.draws, draws, mode);
    assert.deepEqual(out.verdicts, verdicts, mode);
    for (const file of files) {
      const name = file.split(/[\\/]/).at(-1);
      assert.equal(out.verdicts[file].status, expected[name], `${mode}: ${name}`);
    }
    const recomputed = Object.values(out.verdicts).reduce((n, v) => n + v.draws, 0);
    const took = `${files.length} exports verified (${recomputed} draws recomputed) in ${out.ms.toFixed(0)} ms`;
    t.diagnostic(`sha256.js (${mode}): ${took}`);
  }
});
