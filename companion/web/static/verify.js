// A Clank! companion game export (JSON Lines), checked in the browser or in node 20: a
// second implementation of companion/verify_log.py's checks, written from docs/proof.md
// and FAIR_DRAW.md, with no dependency (SHA-256 and HMAC: WebCrypto, else sha256.js).
//
//   const { ok, status, message, draws, head, final } = await verifyExport(text);
//   status: "ok" (every draw recomputed and equal, or a game without a dragon bag chained
//   whole), "failed" (message names the first bad record), "not_provably_fair" (a seed
//   chosen outside the companion, or lost with its seal key), "sealed" (the game runs:
//   its seed is not revealed). draws: how many were recomputed; head: the last record's
//   hash; final: the log ends with a "close" record (the head to photograph);
//   commitment: the one its first record shows (null when it fails).
//   Without WebCrypto (a page served over plain http) sha256.js computes the same bytes.

import { hmacSha256, sha256 } from "./sha256.js";

const FORMAT = "clank-companion-log";
const VERSION = 1;
const GENESIS = "0".repeat(64);
const DRAWN = "companion"; // seed_origin: the companion drew the seed itself
const GIVEN = "given"; // seed_origin: whoever started the game chose it

// What an export may claim before anything is computed from it.
const MAX_LINE = 1 << 20; // characters of one line, its line break included
const MAX_CUBES = 10000; // cubes in one draw's bag, and cubes one draw may take
const MAX_SEATS = 6;
const MAX_DEPTH = 500; // nesting of JSON values
const MAX_DIGITS = 4300; // digits of an integer (Python's int() refuses more)

class Finding extends Error {}
const fail = (message) => {
  throw new Finding(message);
};

// ------------------------------------------------------------------ reading JSON
// Not JSON.parse, which rounds integers above 2**53 and keeps the last of two equal
// keys: integers exact (BigInt when large), no fractions (canonical JSON holds integers
// only), a key named twice refused.

const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
const isWhole = (v) => Number.isInteger(v) || typeof v === "bigint";
const ESCAPES = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };

export function parseJSON(text) {
  let at = 0;
  const bad = (what) => fail(`not valid JSON (${what} at character ${at})`);
  const space = () => {
    while (at < text.length && " \t\n\r".includes(text[at])) at++;
  };
  const value = (depth) => {
    if (depth > MAX_DEPTH) bad("nested too deeply");
    space();
    const c = text[at];
    if (c === "{" || c === "[") {
      // an object has no prototype: a key such as "__proto__" is data
      const out = c === "{" ? Object.create(null) : [];
      const end = c === "{" ? "}" : "]";
      at++;
      space();
      if (text[at] === end) return at++, out;
      for (;;) {
        space();
        if (end === "]") out.push(value(depth + 1));
        else {
          if (text[at] !== '"') bad("expected a key");
          const key = string();
          if (key in out) fail("an object names the same key twice");
          space();
          if (text[at++] !== ":") bad("expected ':'");
          out[key] = value(depth + 1);
        }
        space();
        const sep = text[at++];
        if (sep === end) return out;
        if (sep !== ",") bad(`expected ',' or '${end}'`);
      }
    }
    if (c === '"') return string();
    for (const [word, v] of [["true", true], ["false", false], ["null", null]]) {
      if (text.startsWith(word, at)) return (at += word.length), v;
    }
    const m = /^-?(?:0|[1-9]\d*)/.exec(text.slice(at, at + MAX_DIGITS + 2));
    if (!m) bad("expected a value");
    at += m[0].length;
    if (/[.eE]/.test(text[at] ?? "")) bad("a number that is not an integer");
    if (m[0].replace("-", "").length > MAX_DIGITS) bad("an integer too long");
    const n = Number(m[0]) + 0; // -0 is 0
    return Number.isSafeInteger(n) ? n : BigInt(m[0]);
  };
  const string = () => {
    let out = "";
    at++; // the opening quote
    for (;;) {
      const start = at;
      while (at < text.length && text[at] !== '"' && text[at] !== "\\" && text[at] >= " ") at++;
      out += text.slice(start, at);
      const c = text[at++];
      if (c === '"') return out;
      if (c !== "\\") bad(c === undefined ? "unterminated text" : "a control character in text");
      const e = text[at++];
      if (e in ESCAPES) out += ESCAPES[e];
      else if (e === "u" && /^[0-9a-fA-F]{4}$/.test(text.slice(at, at + 4))) {
        out += String.fromCharCode(parseInt(text.slice(at, at + 4), 16));
        at += 4;
      } else bad("a bad escape in text");
    }
  };
  const v = value(0);
  space();
  if (at < text.length) bad("extra data");
  return v;
}

// --------------------------------------------------------------- canonical JSON
// Python's json.dumps(v, sort_keys=True, separators=(",", ":"), ensure_ascii=False) to
// the byte: keys sorted by code point (a plain sort puts U+10000.. before U+E000), text
// as itself but for '"', '\\' and the controls below U+0020.

const SHORT = { '"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f" };

function quote(s) {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    const u = s.charCodeAt(i);
    if (c in SHORT) out += SHORT[c];
    else if (u < 0x20) out += "\\u" + u.toString(16).padStart(4, "0");
    else if (u >= 0xd800 && u <= 0xdfff) {
      // a surrogate must pair (high, low): a lone one has no UTF-8 (Python refuses it)
      const low = s.charCodeAt(i + 1);
      if (u > 0xdbff || !(low >= 0xdc00 && low <= 0xdfff)) fail("text that is not valid Unicode");
      out += c + s[++i];
    } else out += c;
  }
  return out + '"';
}

function byCodePoint(a, b) {
  for (let i = 0; i < a.length && i < b.length; ) {
    const x = a.codePointAt(i);
    const y = b.codePointAt(i);
    if (x !== y) return x - y;
    i += x > 0xffff ? 2 : 1;
  }
  return a.length - b.length;
}

export function canonical(v) {
  if (v === null || v === true || v === false) return String(v);
  if (typeof v === "bigint") return v.toString();
  if (typeof v === "number") {
    if (!Number.isSafeInteger(v)) fail("a number that is not an integer");
    return String(v);
  }
  if (typeof v === "string") return quote(v);
  if (Array.isArray(v)) return "[" + v.map(canonical).join(",") + "]";
  if (isObject(v)) {
    const keys = Object.keys(v).sort(byCodePoint);
    return "{" + keys.map((k) => quote(k) + ":" + canonical(v[k])).join(",") + "}";
  }
  fail("a value that JSON cannot hold");
}

// Two JSON values are the same when their canonical texts are.
function same(a, b) {
  try {
    return canonical(a) === canonical(b);
  } catch {
    return false;
  }
}

// ------------------------------------------------------------------------ crypto
// A browser gives WebCrypto to secure contexts only (https, localhost); a phone opening
// the Pi's page over plain http has none: sha256.js computes the same bytes there.
// hash(bytes): the SHA-256 digest; mac(key): HMAC-SHA256 with that key, a function of
// the message. Both async either way; a digest is a Uint8Array of 32 bytes.
const subtle = globalThis.crypto?.subtle;
const { hash, mac } = subtle
  ? {
      hash: async (bytes) => new Uint8Array(await subtle.digest("SHA-256", bytes)),
      mac: async (raw) => {
        const key = await subtle.importKey("raw", raw, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
        return async (msg) => new Uint8Array(await subtle.sign("HMAC", key, msg));
      },
    }
  : {
      hash: async (bytes) => sha256(bytes),
      mac: async (raw) => async (msg) => hmacSha256(raw, msg),
    };
const utf8 = (s) => new TextEncoder().encode(s);
const SEED_HEX = /^[0-9a-fA-F]{64}$/; // a server seed: 32 bytes as hex

function hexBytes(hex) {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.substr(2 * i, 2), 16);
  return out;
}

async function sha256Hex(bytes) {
  const digest = await hash(bytes);
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}

// FAIR_DRAW.md's draw. Stream: HMAC-SHA256(seed, "client:nonce:block"), block 0, 1, ...,
// as big-endian u32 words; an index below n rejects words >= 2**32 - 2**32 % n. The bag
// is black, the seats in order, ghost; a drawn cube leaves, the rest keep their order,
// so the bag stays one run per kind: the index is found by the runs' counts.
export async function drawCubes(seedHex, clientSeed, nonce, bag, seats, m) {
  const sign = await mac(hexBytes(seedHex));
  const kinds = ["black", ...seats, "ghost"];
  const left = kinds.map((k) => Number((Object.hasOwn(bag, k) && bag[k]) || 0));
  let size = left.reduce((a, b) => a + b, 0);
  let words = [];
  let block = 0;
  const next = async () => {
    if (words.length === 0) {
      const out = await sign(utf8(`${clientSeed}:${nonce}:${block++}`));
      const view = new DataView(out.buffer, out.byteOffset, out.byteLength);
      for (let i = 0; i < 32; i += 4) words.push(view.getUint32(i, false));
    }
    return words.shift();
  };
  const drawn = [];
  while (drawn.length < m && size > 0) {
    const limit = 2 ** 32 - (2 ** 32 % size);
    let x = await next();
    while (x >= limit) x = await next(); // every attempt uses a word, also when size is 1
    let j = x % size;
    let k = 0;
    while (j >= left[k]) j -= left[k++];
    left[k]--;
    size--;
    drawn.push(kinds[k]);
  }
  return drawn;
}

// ------------------------------------------------------------------- the export
// Lines as Python's text files read them (a line break is \n, \r\n or \r); blank lines
// (Python's whitespace only) are skipped but counted.
const BLANK = /^[\t\n\v\f\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*$/;

function readExport(text) {
  if (typeof text !== "string") fail("the export is not text");
  const rows = [];
  const parts = text.split(/(\r\n|\r|\n)/);
  for (let i = 0, number = 1; i < parts.length; i += 2, number++) {
    const line = parts[i];
    const broken = i + 1 < parts.length; // followed by a line break, which counts as 1
    if (i + 1 >= parts.length && line === "") break; // after the last line break
    // Python counts characters: a UTF-16 surrogate pair is one
    const units = line.length + (broken ? 1 : 0);
    const pairs = () => (line.match(/[\ud800-\udbff][\udc00-\udfff]/g) ?? []).length;
    if (units > MAX_LINE && (units > 2 * MAX_LINE || units - pairs() > MAX_LINE)) {
      fail(`line ${number}: longer than any record the companion writes`);
    }
    if (BLANK.test(line)) continue;
    try {
      rows.push(parseJSON(line));
    } catch (e) {
      if (e instanceof Finding) fail(`line ${number}: ${e.message}`);
      fail(`line ${number}: not a record (${e.name})`); // a stack overflow, say
    }
  }
  if (rows.length === 0) fail("the export is empty");
  return [rows[0], rows.slice(1)];
}

// The record's field, or a failure naming the record.
function need(obj, key, where) {
  if (!isObject(obj) || !(key in obj)) fail(`${where}: malformed record (no ${JSON.stringify(key)})`);
  return obj[key];
}

// A draw's bag and count as the companion writes them, checked before anything is
// computed from them: known kinds, whole counts, a bounded size.
function checkBag(where, draw, seats) {
  const d = `${where}: draw ${draw.nonce}`;
  const bag = need(draw, "bag", where);
  const kinds = new Set(["black", ...seats, "ghost"]);
  if (!isObject(bag) || !Object.keys(bag).every((k) => kinds.has(k))) {
    fail(`${d}'s bag holds cubes of no seat`);
  }
  const counts = Object.values(bag);
  if (!counts.every((n) => isWhole(n) && n >= 0)) fail(`${d}'s bag counts must be whole numbers`);
  if (counts.reduce((a, n) => a + Number(n), 0) > MAX_CUBES) {
    fail(`${d}'s bag holds more cubes than any game`);
  }
  if (!(draw.count >= 0 && draw.count <= MAX_CUBES)) fail(`${d} draws more cubes than any game`);
  const drawn = draw.drawn;
  if (!Array.isArray(drawn) || drawn.length > draw.count) fail(`${d} lists more cubes than it drew`);
}

async function check(header, records) {
  // The header: the format and the game's id.
  if (!isObject(header) || header.format !== FORMAT || header.version !== VERSION) {
    fail(`not a ${FORMAT} version ${VERSION} export`);
  }
  const info = header.game;
  const game = isObject(info) ? info.id : undefined;
  if (!isWhole(game)) fail("the header does not name the game");

  let prev = GENESIS;
  let seq = 0; // the last record's number
  let commitment, seats, edition, origin, createdAt, firstSeed, noBag;
  let seed = null; // the revealed server seed
  let seedLost = false;
  let ended = null; // "over" or "abandoned"
  let closed = false;
  const standing = []; // the client seed in force after each action not taken back
  let tableSeed; // the client seed in force now
  let drawSeed = null; // the client seed of the first draw: none other may follow
  const draws = []; // [where, draw]

  for (const rec of records) {
    // The chain: number, game, prev; hash = SHA-256(prev's 32 bytes || canonical bytes).
    const expected = seq + 1;
    if (!isObject(rec)) fail(`record ${expected}: not a record`);
    const where = `record ${rec.seq}`;
    if (!isWhole(rec.seq) || !isWhole(rec.game)) fail(`record ${expected}: its game and number must be whole numbers`);
    if (rec.game !== game) fail(`${where}: belongs to game ${rec.game}, not ${game}`);
    if (rec.seq !== expected) fail(`record ${expected} is missing or out of order (found ${rec.seq})`);
    const { body, kind } = rec;
    // an export gives a body whose stored bytes were not canonical as a string
    if (!isObject(body) || typeof kind !== "string") fail(`${where}: its body is not a canonical record`);
    if (rec.prev !== prev) fail(`${where}: not chained to record ${expected - 1}`);
    let bytes;
    try {
      bytes = utf8(canonical({ body, game, kind, seq: expected }));
    } catch (e) {
      fail(`${where}: its body is not canonical JSON (${e.message})`);
    }
    if ((await sha256Hex(new Uint8Array([...hexBytes(prev), ...bytes]))) !== rec.hash) {
      fail(`${where}: its hash does not match its content`);
    }

    // The order of the kinds: nothing after the close; once the game is over only deck
    // scans (a "cards" action without draws; any action in a game without a bag, the
    // elixir's choices) and the close; nothing at all after an abandon.
    const action = body.action;
    const scoring =
      kind === "action" &&
      (noBag || (isObject(action) && action.do === "cards" && !(Array.isArray(body.draws) && body.draws.length)));
    if (closed) fail(`${where}: written after the game was closed`);
    if (ended !== null && !(ended === "over" && (scoring || kind === "close"))) {
      fail(`${where}: written after the game was ${ended}`);
    }

    if (expected === 1) {
      // "new": the set-up, the seats, the commitment (none without a dragon bag), the
      // client seed, where the server seed came from, the date.
      if (kind !== "new") fail("record 1: a game log starts with its 'new' record");
      commitment = need(body, "commitment", where);
      seats = need(body, "seats", where);
      const setup = need(body, "setup", where);
      edition = need(setup, "edition", where);
      tableSeed = firstSeed = need(body, "client_seed", where);
      noBag = commitment === "";
      origin = body.seed_origin;
      createdAt = body.created_at;
      const names = Array.isArray(seats) && seats.every((s) => typeof s === "string");
      if (!names || seats.length < 1 || seats.length > MAX_SEATS) {
        fail("record 1: the seats are not a list of at most six players");
      }
      if (!same(seats, need(setup, "players", where))) fail("record 1: the seats are not the set-up's players");
      if (typeof firstSeed !== "string") fail("record 1: the client seed is not text");
      if ("seed_origin" in body && (noBag || (origin !== DRAWN && origin !== GIVEN))) {
        fail("record 1: the seed's origin is not one the companion writes");
      }
      // every log of a game with a dragon bag says it: one that does not was stripped of
      // it, to pass a chosen seed off as the companion's
      if (!noBag && !("seed_origin" in body)) fail("record 1: it does not say where the server seed came from");
      if ("created_at" in body && typeof createdAt !== "string") fail("record 1: the game's date is not text");
    } else if (kind === "new") {
      fail(`${where}: a second 'new' record`);
    } else if (kind === "action") {
      // The client seed in force: the set-up's, or the last "seed" action still
      // standing; an "undo" takes back the last action not yet taken back.
      if (!isObject(need(body, "action", where))) fail(`${where}: malformed record (the action)`);
      if (action.do === "undo") {
        standing.pop();
        tableSeed = standing.length ? standing[standing.length - 1] : firstSeed;
      } else {
        if (action.do === "seed") tableSeed = need(action, "client_seed", where);
        standing.push(tableSeed);
      }
      const list = "draws" in body ? body.draws : [];
      if (!Array.isArray(list)) fail(`${where}: malformed record (the draws)`);
      if (noBag && list.length) fail(`${where}: a draw in a game without a dragon bag`);
      for (const draw of list) {
        // Each draw: whole nonce and count, a bounded bag, the client seed in force,
        // nonces 1, 2, 3, ... over the game (an undone draw keeps its nonce).
        const nonce = need(draw, "nonce", where);
        if (!isWhole(nonce) || !isWhole(need(draw, "count", where))) {
          fail(`${where}: a draw's nonce and count must be whole numbers`);
        }
        checkBag(where, draw, seats);
        const clientSeed = need(draw, "client_seed", where);
        if (!same(clientSeed, tableSeed)) fail(`${where}: draw ${nonce} used a client seed other than the table's`);
        if (typeof clientSeed !== "string") fail(`${where}: draw ${nonce}'s client seed is not text`);
        if (nonce >= 1 && nonce <= draws.length) fail(`${where}: nonce ${nonce} used twice`);
        if (nonce !== draws.length + 1) fail(`${where}: nonce ${nonce} skips or goes back`);
        if (drawSeed !== null && clientSeed !== drawSeed) fail(`${where}: the client seed changed after a draw`);
        drawSeed = clientSeed;
        draws.push([where, draw]);
      }
    } else if (noBag && (kind === "end" || kind === "abandon")) {
      // A game without a dragon bag ends with "end", and has no seed to reveal.
      if (kind === "abandon" && need(body, "server_seed", where) !== null) {
        fail(`${where}: a seed revealed in a game without a dragon bag`);
      }
      ended = kind === "end" ? "over" : "abandoned";
    } else if (kind === "close") {
      if (ended !== "over") fail(`${where}: the game is closed before it is over`);
      closed = true;
    } else if (!noBag && (kind === "reveal" || kind === "abandon")) {
      // The seed revealed must be the committed one; an abandon without a seed: the
      // seal key was lost, the draws can never be recomputed.
      const revealed = need(body, "server_seed", where);
      if (revealed === null && kind === "abandon") seedLost = true;
      else if (typeof revealed !== "string" || !SEED_HEX.test(revealed)) {
        fail(`${where}: the revealed server seed is not 32 bytes in hex`);
      } else if ((await sha256Hex(hexBytes(revealed))) !== commitment) {
        fail(`${where}: the revealed server seed does not match the commitment`);
      } else seed = revealed;
      ended = kind === "reveal" ? "over" : "abandoned";
    } else {
      fail(`${where}: unknown kind ${JSON.stringify(kind)}`);
    }
    prev = rec.hash;
    seq = expected;
  }
  if (seq === 0) fail("the export holds no record");

  // The header (the games table's row) must say what the records say.
  const facts = { commitment, players: seats, edition, status: ended ?? "playing", server_seed: seed };
  const labels = { server_seed: "revealed server seed" };
  for (const key of Object.keys(facts)) {
    if (key in info && !same(info[key], facts[key])) {
      fail(`the header and the records disagree on the ${labels[key] ?? key}`);
    }
  }
  if (createdAt !== undefined && info.created_at !== createdAt) {
    fail("the header and the records disagree on the game's date");
  }
  const missing = ["commitment", "players", "edition", "status"].filter((k) => !(k in info));
  if (missing.length) fail(`the header does not give the game's ${missing.join(", ")}`);

  // Every draw again, once the seed is known.
  let checked = 0;
  if (seed !== null) {
    for (const [where, d] of draws) {
      const again = await drawCubes(seed, d.client_seed, d.nonce, d.bag, seats, Number(d.count));
      if (!same(again, d.drawn)) fail(`${where}: draw ${d.nonce} is not what the seed gives`);
      checked++;
    }
  }
  return { records: seq, head: prev, draws: draws.length, checked, seed, seedLost, noBag, origin, closed, commitment };
}

// Whether ``seedHex`` (a revealed server seed) is the seed of ``commitment``: SHA-256 of
// its 32 bytes, in lowercase hex (the phone's own check of what it saw).
export async function seedMatches(seedHex, commitment) {
  if (typeof seedHex !== "string" || !SEED_HEX.test(seedHex)) return false;
  return (await sha256Hex(hexBytes(seedHex))) === commitment;
}

export async function verifyExport(text) {
  let s;
  try {
    s = await check(...readExport(text));
  } catch (e) {
    const message = e instanceof Finding ? e.message : `malformed record (${e.name}: ${e.message})`;
    return { ok: false, status: "failed", message: `FAILED: ${message}`, draws: 0, head: null, final: false, commitment: null };
  }
  // The verdict: a game without a bag is proven by its chain; a seed lost or chosen
  // outside the companion proves nothing; a sealed one cannot be checked yet.
  let status = "ok";
  let verdict = "OK: the server seed matches the commitment";
  if (s.noBag) verdict = "OK: a game without a dragon bag: no seed and no draw to check";
  else if (s.seedLost) {
    status = "not_provably_fair";
    verdict = `NOT PROVABLY FAIR: the seal key was lost: its ${s.draws} draws can never be recomputed`;
  } else if (s.seed === null) {
    status = "sealed";
    verdict = `NOT YET: the server seed is still sealed until the game ends (${s.draws} draws)`;
  } else if (s.origin === GIVEN) {
    status = "not_provably_fair";
    verdict = "NOT PROVABLY FAIR: seed chosen outside the companion: draws reproducible, not provably fair";
  }
  const message = [
    `OK: ${s.records} records chained, head ${s.head}`,
    s.closed
      ? "FINAL: the table closed the game: this head is final"
      : "CHECK: the game was not closed: this head is not final",
    verdict + (s.seed === null ? "" : `; ${s.checked} draws recomputed and equal`),
  ];
  if (s.seed !== null && s.origin === undefined) message.push("NOTE: the log does not tell where the seed came from");
  return { ok: status === "ok", status, message: message.join("\n"), draws: s.checked, head: s.head, final: s.closed, commitment: s.commitment };
}
