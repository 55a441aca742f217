// What this phone keeps in the browser's storage (localStorage), game by game: the
// colour (or, in Tschak!, the name) it follows in each game, and what it saw of each
// game's commitment, and when. Plain functions over a storage object (the page's
// localStorage; a Map-like stand-in in the tests), so that they run in node too.
//
// The witness: from the moment the page first shows a running game, it keeps that
// game's commitment and the time it first saw it; a different commitment for the same
// game later (while it runs, or in the proof at its end) is kept too, and shown in red.
// At the end the page hashes the revealed seed itself and compares it with what it kept
// (docs/proof.md: the commitment is SHA-256 of the seed's 32 bytes).

export const CHOICES = "clank-table:me";
export const WITNESS = "clank-table:witness";
export const KEPT_GAMES = 20; // the newest games kept, by number
export const KEPT_DAYS = 7; // a witness older than this is forgotten
const COMMITMENT = /^[0-9a-f]{64}$/;

function load(storage, key) {
  try {
    const value = JSON.parse(storage.getItem(key) || "{}");
    return value && typeof value === "object" && !Array.isArray(value) ? value : {};
  } catch {
    return {}; // not ours (an older page kept a bare colour here), or damaged
  }
}

function save(storage, key, all) {
  const games = Object.keys(all)
    .filter((g) => /^[1-9][0-9]*$/.test(g))
    .sort((a, b) => Number(b) - Number(a))
    .slice(0, KEPT_GAMES);
  const out = {};
  for (const game of games) out[game] = all[game];
  try {
    storage.setItem(key, JSON.stringify(out));
  } catch {
    // storage full or turned off: the page works on, it only forgets
  }
}

// ------------------------------------------------------------------ the colour
// The colour (or the name) chosen for ``game``: "" just watching; null when this phone
// has not chosen for that game (a new game asks again).
export function choiceFor(storage, game) {
  const value = load(storage, CHOICES)[String(game)];
  return typeof value === "string" ? value : null;
}

export function choose(storage, game, player) {
  const all = load(storage, CHOICES);
  all[String(game)] = String(player);
  save(storage, CHOICES, all);
}

// The choice made for the newest game before ``game`` (shown beside the picker of a new
// game, never taken silently); null if none.
export function lastChoice(storage, game) {
  const all = load(storage, CHOICES);
  const before = Object.keys(all)
    .map(Number)
    .filter((g) => Number.isInteger(g) && g < Number(game))
    .sort((a, b) => b - a);
  for (const g of before) {
    if (typeof all[String(g)] === "string" && all[String(g)] !== "") return all[String(g)];
  }
  return null;
}

// ------------------------------------------------------------------ the witness
function witnessValid(entry) {
  return (
    entry !== null &&
    typeof entry === "object" &&
    typeof entry.commitment === "string" &&
    typeof entry.at === "string"
  );
}

// What this phone kept of ``game``: {commitment, at, created, changed: {commitment, at}
// or absent}; null when it saw nothing of it while it ran.
export function witnessed(storage, game) {
  const entry = load(storage, WITNESS)[String(game)];
  return witnessValid(entry) ? entry : null;
}

// The table showed ``commitment`` for ``game`` (begun ``created``) at ``at`` (ISO text),
// while the game ran: kept if it is the first, and kept as a change if it differs from
// the first (a game number begun at another date is another game: a change all the
// same, said as one). Returns what is kept of the game.
export function remember(storage, game, commitment, created, at) {
  if (!game || typeof commitment !== "string" || !COMMITMENT.test(commitment)) {
    return witnessed(storage, game);
  }
  const all = load(storage, WITNESS);
  const now = Date.parse(at);
  for (const [key, entry] of Object.entries(all)) {
    const when = witnessValid(entry) ? Date.parse(entry.at) : NaN;
    if (!(now - when < KEPT_DAYS * 86400000)) delete all[key]; // old, or damaged
  }
  const key = String(game);
  const seen = all[key];
  if (!witnessValid(seen)) {
    all[key] = { commitment, at, created: String(created || "") };
  } else if (seen.changed) {
    return seen; // the first change is the one shown
  } else if (seen.commitment !== commitment) {
    seen.changed = { commitment, at };
  } else if (created && seen.created && seen.created !== String(created)) {
    seen.changed = { commitment, at, created: String(created) };
  } else {
    return seen;
  }
  save(storage, WITNESS, all);
  return all[key];
}

// The verdict of what this phone saw, at the end of ``game``:
//   "none"      it saw no commitment while the game ran (it joined later);
//   "changed"   the commitment changed while it watched (red);
//   "other"     the proof names another commitment than the one it saw (red);
//   "saw"       no revealed seed to check (lost with its seal key);
//   "match"     the revealed seed hashes to the commitment it saw;
//   "mismatch"  it does not (red).
// ``seedMatches``: whether SHA-256 of the revealed seed is the commitment it saw.
export function judge(entry, proof, seedMatches) {
  if (!entry) return "none";
  if (entry.changed) return "changed";
  if (!proof || proof.commitment !== entry.commitment) return "other";
  if (!proof.server_seed) return "saw";
  return seedMatches ? "match" : "mismatch";
}

// The first digits of a commitment, as the page names it in a sentence.
export function short(commitment) {
  return String(commitment || "").slice(0, 8) + "…";
}
