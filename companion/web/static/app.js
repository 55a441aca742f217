// The phone page of the table companion: it shows what the table pushes, and asks for
// nothing twice. Its words come from the table (/api/words) in the table's language;
// the game comes as Server-Sent Events (/api/events), one object after every change.
// The page never polls: the stream says when something changed. Text is always set as
// text (never as markup), so nothing in a game can become part of the page. Each object
// says the language it is worded in: when the table's language changed, the page asks
// for its words again.
//
// A dead path shows: the stream sends an "alive" event every 15 s besides the states.
// When nothing at all came for 30 s, or when the phone wakes up (the page shown again,
// or brought back from the browser's cache), the page dims what it shows, says since
// when it is not up to date, and connects again; the next state makes it current.
//
// The earlier games stay reachable (/api/games; an earlier game is shown at #game=N),
// the colour this phone follows is kept game by game (a new game asks again), and the
// phone keeps what it saw of each game's commitment, to check the revealed seed against
// it at the end (kept.js).

import * as kept from "./kept.js";
import { plural, word } from "./words.js";

const COLOURS = ["red", "yellow", "green", "blue", "purple", "orange", "black", "ghost"];
const SILENCE_MS = 30000; // nothing for this long (two "alive" events missed): a dead path
const WAKE_MS = 17000; // woken up after longer than one "alive" (15 s): not up to date
const TICK_MS = 1000; // how often the page looks at the silence
const EARLIER_SHOWN = 5; // earlier games listed on the page

let W = { lang: "en", words: {}, plurals: {}, colours: {}, letters: {} };
let current = null; // the newest object the table pushed
let past = null; // the earlier game shown (/api/state?game=N), when ``viewing``
let viewing = null; // the number of the earlier game shown (the address's #game=N)
let earlier = []; // the table's newest games (/api/games)
let earlierKey = null;
let me = null; // the colour (or the name) this phone follows in the game shown
let picking = false; // the player asked to choose again
const extras = { key: null, proof: null, bgstats: null, verdict: null, witness: null };
// the stream: the newest EventSource, when the page last heard from it (any event),
// when it last heard or connected (the silence is counted from the later), whether the
// page says it is not up to date, and whether the table turned this link away
const link = { source: null, heard: 0, since: Date.now(), stale: false, away: false };

// localStorage, or a stand-in that forgets when the browser allows none
const storage = (() => {
  try {
    const store = window.localStorage;
    store.getItem(kept.CHOICES);
    return store;
  } catch {
    const held = new Map();
    return { getItem: (k) => held.get(k) ?? null, setItem: (k, v) => held.set(k, String(v)) };
  }
})();

function t(key, values) {
  return word(W, key, values);
}

// a word with a count: the plural form the table's language gives ``n``
function tn(key, n, values) {
  return plural(W, key, n, values);
}

function el(tag, className, ...children) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function chip(colour, letter) {
  const known = COLOURS.includes(colour) ? colour : "black";
  return el("span", "chip c-" + known, letter);
}

// a time this phone saw, as its clock shows it: "20:14" (with the day if not today)
function clock(when) {
  const date = new Date(when);
  if (Number.isNaN(date.getTime())) return "?";
  const today = date.toDateString() === new Date(Date.now()).toDateString();
  const options = { hour: "numeric", minute: "2-digit" };
  if (!today) Object.assign(options, { day: "numeric", month: "short" });
  try {
    return date.toLocaleString(W.lang, options);
  } catch {
    return date.toTimeString().slice(0, 5);
  }
}

// The dot and the words beside the title: green when the page is up to date; else
// what is wrong (``reason``: "offline", the stream failed; "stale", it went silent),
// and the page's content dimmed (body.stale), but for the notice of a new link.
function showLink() {
  const node = document.getElementById("link");
  node.className = link.stale ? "link off" : "link";
  node.textContent = link.stale
    ? link.reason === "stale" && link.heard
      ? t("stale", { time: clock(link.heard) })
      : t("offline")
    : "";
  document.body.classList.toggle("stale", link.stale && !link.away);
}

function stale(reason) {
  link.stale = true;
  link.reason = reason;
  showLink();
}

// an event came on the newest stream: the path is alive, what the page shows is current
function heard() {
  link.heard = link.since = Date.now();
  if (link.stale) {
    link.stale = false;
    showLink();
  }
}

function notice(text) {
  const main = document.getElementById("main");
  main.replaceChildren(el("p", "notice", text));
}

// ------------------------------------------------------------------ the players
function players(payload) {
  return Object.keys(payload.state.players || {});
}

function colourOf(payload, player) {
  const seen = (payload.view.players || {})[player] || {};
  return seen.colour || player;
}

function letterOf(payload, player) {
  const seen = (payload.view.players || {})[player] || {};
  return seen.letter || String(player).slice(0, 1).toUpperCase();
}

function labelOf(payload, player) {
  const seen = (payload.view.players || {})[player] || {};
  return seen.label || player;
}

// Which colour (or name) this phone follows in this game. The choice of the game
// before is never taken over silently: a new game asks again, the last choice marked.
function picker(payload) {
  const byName = payload.view.pick === "name"; // players named at the table, not colours
  const box = el("section", "panel");
  box.id = "pick";
  box.append(el("h2", "", t(byName ? "pick_name" : "pick_colour")));
  const last = kept.lastChoice(storage, payload.game);
  if (last !== null && kept.choiceFor(storage, payload.game) === null) {
    box.append(el("div", "line soft", t("pick_again")));
  }
  const grid = el("div", "pick");
  for (const player of players(payload)) {
    const was = player === last;
    const button = el("button", was ? "last" : "", chip(colourOf(payload, player),
      letterOf(payload, player)), el("span", "label-text", labelOf(payload, player)),
      was ? el("span", "was", t("last_choice")) : null);
    button.dataset.player = player;
    button.addEventListener("click", () => choose(payload.game, player));
    grid.append(button);
  }
  box.append(grid);
  const watch = el("button", "wide small", t("watching"));
  watch.dataset.player = "";
  watch.addEventListener("click", () => choose(payload.game, ""));
  box.append(watch);
  return box;
}

function choose(game, player) {
  me = player;
  picking = false;
  kept.choose(storage, game, player);
  render();
}

function changeButton() {
  const button = el("button", "small", t("change"));
  button.id = "change";
  button.addEventListener("click", () => { picking = true; render(); });
  return button;
}

// ------------------------------------------------------------------ Clank!
function oddsBlock(odds, mine) {
  const box = el("div", "");
  box.append(el("div", "label", t(mine ? "your_odds" : "all_odds")));
  const headline = el("div", "headline" + (odds.danger ? " danger" : ""), odds.headline);
  headline.id = mine ? "my-odds" : "";
  box.append(headline);
  box.append(el("div", "line", odds.knock_out));
  box.append(el("div", "line soft", odds.average));
  const cells = el("div", "cells");
  const last = odds.cells.length ? odds.cells[odds.cells.length - 1][0] : 0;
  for (const [lost, chance] of odds.cells) {
    const ko = lost === last && lost > 0;
    const what = ko ? "☠" : lost === 0 ? "0 ♥" : "−" + lost + " ♥";
    cells.append(el("div", "cell" + (ko ? " ko" : ""), el("b", "", chance), what));
  }
  box.append(cells);
  return box;
}

function myPanel(payload, player) {
  const p = payload.state.players[player];
  const v = payload.view.players[player] || {};
  const area = (payload.state.clank_area || {})[player] || 0;
  const max = payload.state.settings ? payload.state.settings.health : p.health + p.damage;
  const active = payload.state.turn.active === player && !payload.state.game_over;
  const box = el("section", "panel mine band-" + player + (active ? " active" : ""));
  box.id = "me";
  box.append(el("div", "who", chip(player, v.letter), v.label, active ? turnBadge() : null,
    statusOf(p, v), el("span", "gap"), changeButton()));
  const clank = el("div", "big", area);
  clank.id = "me-clank";
  const health = el("div", "big" + (p.health <= 3 ? " hurt" : ""), p.health);
  health.id = "me-health";
  box.append(el("div", "figures",
    el("div", "figure", clank, el("div", "unit", payload.view.area)),
    el("div", "figure", health, el("div", "unit", el("span", "heart", "♥ "),
      t("health_left") + " / " + max))));
  if (v.odds) box.append(oddsBlock(v.odds, true));
  box.append(el("div", "line soft", t("gold") + " " + p.gold + " · " + t("artifacts") + " " +
    (p.artifacts.length ? p.artifacts.join(", ") : "0") + " · " + t("supply") + " " + p.supply));
  return box;
}

// whose turn it is, as the table marks it: white (colours.css: --turn), the table's word
function turnBadge() {
  return el("span", "turn-badge", t("turn"));
}

function turnBanner(payload) {
  const state = payload.state;
  const yours = me && state.turn.active === me && !state.game_over;
  const box = el("div", "turn" + (yours ? " yours" : ""), yours ? t("your_turn") : payload.view.turn);
  box.id = "turn";
  return box;
}

function nextPanel(payload) {
  const state = payload.state;
  const box = el("section", "panel");
  if (!payload.view.next) box.append(el("div", "label", t("next_attack")));
  box.append(el("div", "next", payload.view.next || tn("cubes", state.next_attack)));
  const bits = [payload.view.rage + " " + state.rage.space, t("danger") + " " + state.danger];
  if (state.countdown) bits.push(t("countdown", { space: state.countdown.space }));
  box.append(el("div", "line soft", bits.join(" · ")));
  box.append(el("div", "label", t("bag")));
  const bag = el("div", "bag");
  bag.id = "bag";
  const shown = payload.view.bag || Object.keys(state.bag); // the cubes its edition has
  for (const [kind, n] of Object.entries(state.bag)) {
    if (!shown.includes(kind)) continue;
    const letter = W.letters[kind] || (kind === "black" ? "■" : kind === "ghost" ? "◌" : "?");
    bag.append(el("span", "", chip(kind, letter), n));
  }
  box.append(bag);
  return box;
}

function lastPanel(payload) {
  if (!payload.view.last) return null;
  const box = el("section", "panel");
  box.append(el("div", "label", t("last")));
  const last = el("div", "last", payload.view.last);
  last.id = "last";
  box.append(last);
  return box;
}

function statusOf(p, v) {
  if (!v.status) return null;
  return el("span", "status" + (p.status === "escaped" ? " out-ok" : ""), v.status);
}

function othersPanel(payload, skip) {
  const state = payload.state;
  const box = el("section", "panel others");
  box.append(el("div", "label", t(skip ? "others" : "all_odds")));
  box.append(el("div", "legend", "▣ " + t("in_area") + " · ♥ " + t("health_left") + " · ☠ " +
    t("knock_out")));
  for (const player of players(payload)) {
    if (player === skip) continue;
    const p = state.players[player];
    const v = payload.view.players[player] || {};
    const area = (state.clank_area || {})[player] || 0;
    const active = state.turn.active === player && !state.game_over;
    // the figures keep together: on a narrow phone they go under a long name, never
    // past the edge
    const row = el("div", "row" + (active ? " active" : ""),
      chip(player, v.letter),
      el("span", "name", v.label, active ? turnBadge() : null,
        v.status ? el("div", "", statusOf(p, v)) : null),
      el("span", "figs",
        el("span", "num", "▣" + area),
        el("span", "num", el("span", "heart", "♥"), p.health),
        el("span", "ko", v.odds ? "☠ " + v.odds.cells[v.odds.cells.length - 1][1] : "")));
    row.dataset.player = player;
    box.append(row);
  }
  return box;
}

function clankRunning(payload, main) {
  main.append(turnBanner(payload));
  const mine = me && payload.state.players[me];
  if (mine) main.append(myPanel(payload, me));
  main.append(nextPanel(payload));
  const last = lastPanel(payload);
  if (last) main.append(last);
  main.append(othersPanel(payload, mine ? me : null));
  const seen = witnessPanel(payload);
  if (seen) main.append(seen);
}

// ------------------------------------------------------------------ the witness
// What this phone keeps of a running game's commitment (kept.js): the phone saw it
// itself, and checks the revealed seed against it at the end.
function watchCommitment(payload) {
  if (!payload || !payload.state || payload.status !== "playing") return;
  const commitment = payload.state.commitment;
  if (typeof commitment !== "string" || !commitment) return;
  kept.remember(storage, payload.game, commitment, payload.created_at,
    new Date(Date.now()).toISOString());
}

function witnessPanel(payload) {
  const entry = kept.witnessed(storage, payload.game);
  if (!entry) return null;
  const box = el("section", "panel");
  box.id = "witness";
  box.append(el("div", "label", t("witness")));
  const changed = entry.changed;
  box.append(el("div", "hex" + (changed ? " bad" : ""), entry.commitment));
  const line = el("div", changed ? "witness bad" : "witness soft", changed ? changedWords(entry)
    : t("witness_saw", { commitment: kept.short(entry.commitment), time: clock(entry.at) }) +
      ". " + t("witness_note"));
  line.id = "witness-line";
  box.append(line);
  return box;
}

function changedWords(entry) {
  return t("witness_changed", {
    commitment: kept.short(entry.commitment),
    time: clock(entry.at),
    other: kept.short(entry.changed.commitment),
    later: clock(entry.changed.at),
  });
}

// The line of the proof that says what this phone saw, and whether the revealed seed is
// the seed of the commitment it saw (``extras.witness``: kept.judge's verdict).
function witnessLine(payload, proof) {
  const entry = kept.witnessed(storage, payload.game);
  const verdict = extras.witness;
  if (!proof.commitment || verdict === null) return null;
  const values = entry
    ? { commitment: kept.short(entry.commitment), time: clock(entry.at) }
    : {};
  let text;
  let kind = "soft";
  if (verdict === "none") text = t("witness_none");
  else if (verdict === "changed") [text, kind] = [changedWords(entry), "bad"];
  else if (verdict === "other") {
    text = t("witness_other", { ...values, other: kept.short(proof.commitment) });
    kind = "bad";
  } else if (verdict === "mismatch") [text, kind] = [t("witness_mismatch", values), "bad"];
  else if (verdict === "match") {
    const checked = extras.verdict && extras.verdict.ok === true &&
      extras.verdict.commitment === entry.commitment;
    text = t(checked ? "witness_checked" : "witness_match", values);
    kind = "ok";
  } else text = t("witness_saw", values);
  const line = el("div", "witness " + kind, text);
  line.id = "witness-line";
  return line;
}

async function judgeWitness(payload, proof) {
  const entry = kept.witnessed(storage, payload.game);
  let matches = false;
  if (entry && proof.server_seed && !entry.changed && proof.commitment === entry.commitment) {
    try {
      const { seedMatches } = await import("./verify.js");
      matches = await seedMatches(proof.server_seed, entry.commitment);
    } catch {
      return "saw"; // no checker on this phone: what it saw, unchecked
    }
  }
  return kept.judge(entry, proof, matches);
}

// ------------------------------------------------------------------ the towers (Tschak!)
function towersRunning(payload, main) {
  const state = payload.state;
  const where = [t("tower", { tower: state.tower })];
  if (state.floor) where.push(t("floor", { floor: state.floor }));
  if (payload.status === "playing") {
    const banner = el("div", "turn", where.join(" · "));
    banner.id = "turn";
    main.append(banner);
  }
  if (payload.view.tower_cards.length && payload.status === "playing") {
    const tower = el("section", "panel");
    tower.append(el("div", "label", t("this_tower")));
    const grid = el("div", "tower");
    grid.append(el("span", "head", ""), el("span", "head", t("treasure")),
      el("span", "head", t("monster")));
    for (const card of payload.view.tower_cards) {
      const now = card.floor === state.floor;
      const kind = card.done ? "done" : now ? "now" : "";
      grid.append(el("span", "fl " + kind, card.floor), el("span", kind, card.treasure),
        el("span", kind, card.monster));
    }
    tower.append(grid);
    main.append(tower);
  }
  if (payload.view.floors.length) main.append(floorsPanel(payload));
}

function floorBlock(payload, floor) {
  const item = el("div", "floor", el("div", "title", floor.title));
  for (const team of floor.teams) {
    item.append(el("div", "team" + (team.player === me ? " me" : ""),
      chip(colourOf(payload, team.player), letterOf(payload, team.player)),
      el("span", "name", labelOf(payload, team.player)), el("span", "strength", team.strength),
      el("span", "takes", team.takes)));
  }
  for (const reason of floor.reasons) item.append(el("div", "line soft", reason));
  return item;
}

function floorsPanel(payload) {
  // the newest floor open (while the game runs), the earlier ones folded away
  const box = el("section", "panel");
  box.id = "floors";
  const floors = payload.view.floors;
  const open = payload.status === "playing" ? 1 : 0;
  if (open) {
    box.append(el("div", "label", t("floors")));
    box.append(floorBlock(payload, floors[0]));
  }
  if (floors.length > open) {
    const folded = floors.length - open;
    const title = tn(open ? "earlier" : "floors_played", folded);
    const more = el("details", "", el("summary", "", title));
    for (const floor of floors.slice(open)) more.append(floorBlock(payload, floor));
    box.append(more);
  }
  return box;
}

// ------------------------------------------------------------------ the lines (any box)
// A box without a layout of its own: whose turn it is, its view's ``lines`` (short texts
// in the table's words) in one panel, and the last action; the ranking after the game.
function linesRunning(payload, main) {
  const view = payload.view;
  if (view.turn && payload.status === "playing") {
    const banner = el("div", "turn", view.turn);
    banner.id = "turn";
    main.append(banner);
  }
  const lines = view.lines || [];
  if (lines.length) {
    const box = el("section", "panel");
    box.id = "lines";
    for (const line of lines) box.append(el("div", "line", line));
    main.append(box);
  }
  const last = lastPanel(payload);
  if (last && payload.status === "playing") main.append(last);
}

// ------------------------------------------------------------------ after the game
function endPanels(payload, main) {
  const view = payload.view;
  const box = el("section", "panel");
  box.id = "end";
  box.append(el("h2", "", payload.status === "abandoned" ? t("abandoned") : t("game_over")));
  if (view.end) box.append(el("div", "line soft", view.end));
  const winners = view.winners || [];
  if (winners.length) {
    box.append(el("div", "label", tn("winners", winners.length)));
    const names = winners.map((p) => labelOf(payload, p)).join(", ");
    const win = el("div", "winner", names);
    win.id = "winner";
    box.append(win);
  }
  if (view.ranking && view.ranking.length) {
    box.append(el("div", "label", t("scores")));
    const list = el("div", "ranking");
    list.id = "scores";
    for (const r of view.ranking) {
      const row = el("div", "row", el("span", "place", r.place + "."),
        chip(colourOf(payload, r.player), letterOf(payload, r.player)),
        el("span", "name", r.label), el("span", "score", r.score));
      row.dataset.player = r.player;
      list.append(row);
    }
    box.append(list);
  }
  main.append(box);
  main.append(proofPanel(payload));
  if (extras.bgstats) {
    const push = el("section", "panel");
    const link = el("a", "button wide", t("bgstats"));
    link.id = "bgstats";
    link.href = extras.bgstats.url;
    link.rel = "noopener noreferrer";
    link.target = "_blank";
    push.append(link, el("div", "line soft", t("bgstats_note")));
    main.append(push);
  }
}

function hex(label, value, bad) {
  const box = el("div", "");
  box.append(el("div", "label", label), el("div", "hex" + (bad ? " bad" : ""), value));
  return box;
}

function proofPanel(payload) {
  const box = el("section", "panel");
  box.id = "proof";
  box.append(el("h2", "", t("proof")));
  const proof = extras.proof;
  if (!proof) return box;
  if (proof.commitment) {
    box.append(el("div", "line soft", t("proof_note")));
    const doubted = extras.witness === "changed" || extras.witness === "other";
    box.append(hex(t("commitment"), proof.commitment, doubted));
    const seen = witnessLine(payload, proof);
    if (seen) box.append(seen);
    if (proof.server_seed) box.append(hex(t("seed"), proof.server_seed));
    else box.append(el("div", "line warning", t("seed_lost")));
    if (proof.seed_origin === "given") box.append(el("div", "line warning", t("seed_given")));
    box.append(hex(t("client_seed"), proof.client_seed || "—"));
  } else {
    box.append(el("div", "line soft", t("no_bag")));
  }
  box.append(hex(t(proof.final ? "head_final" : "head_so_far"), proof.head));
  box.append(el("div", "line soft", tn("records", proof.records)));
  const download = el("a", "button wide", t("download"));
  download.id = "download";
  download.href = proof.export;
  download.setAttribute("download", proof.file);
  box.append(download);
  const check = el("button", "wide", t(proof.commitment ? "verify" : "verify_log"));
  check.id = "verify";
  check.addEventListener("click", () => verify(proof));
  box.append(check);
  const result = el("div", "result", "");
  result.id = "verify-result";
  if (extras.verdict) {
    const ok = extras.verdict.ok;
    result.className = "result" + (ok === true ? " ok" : ok === false ? " bad" : "");
    result.textContent = extras.verdict.text;
  }
  box.append(result);
  return box;
}

async function verify(proof) {
  // A verdict belongs to the proof it checked: if the page has moved on to another game
  // (or this one changed) while the log was read and hashed, it is dropped, never shown
  // under a game it did not check.
  const key = extras.key;
  const settle = (verdict) => {
    if (extras.key !== key) return;
    extras.verdict = verdict;
    render();
  };
  settle({ ok: null, text: t("verifying") });
  let verdict;
  try {
    const { verifyExport } = await import("./verify.js");
    const response = await fetch(proof.export);
    const text = await response.text();
    verdict = await verifyExport(text);
  } catch (e) {
    settle({ ok: false, text: t("verify_missing") });
    return;
  }
  if (verdict.ok && verdict.status === "ok") {
    const text = proof.commitment ? tn("verified", verdict.draws) : t("verified_log");
    settle({ ok: true, text, commitment: verdict.commitment }); // the log's
  } else if (verdict.status === "not_provably_fair") {
    settle({ ok: false, text: t("not_fair", { message: verdict.message }) });
  } else if (verdict.status === "sealed") {
    settle({ ok: false, text: t("sealed") });
  } else {
    settle({ ok: false, text: t("verify_failed", { message: verdict.message }) });
  }
}

async function fetchExtras(payload) {
  // asked once for each change of an ended game (deck scans and the close may follow its
  // end): never again until the table pushes something new. What another game (or an
  // earlier state of this one) had is forgotten at once, before the first wait: the page
  // calls this before it draws its panels, so no panel offers one game's proof under another.
  const key = [payload.game, payload.state.actions, payload.closed, payload.status, W.lang]
    .join(":");
  if (extras.key === key) return;
  extras.key = key;
  extras.proof = extras.bgstats = extras.verdict = extras.witness = null;
  // what comes is kept only while the page still shows this state; a request that fails is
  // asked again with the next render
  let proof = null, witness = null, bgstats = null;
  try {
    const answer = await fetch("/api/proof?game=" + payload.game);
    if (answer.ok) proof = await answer.json();
    if (proof && proof.commitment) witness = await judgeWitness(payload, proof);
    if (payload.status === "over") {
      const push = await fetch("/api/bgstats?game=" + payload.game);
      if (push.ok) bgstats = await push.json();
    }
  } catch {
    if (extras.key === key) extras.key = null;
    return;
  }
  if (extras.key !== key) return;
  Object.assign(extras, { proof, witness, bgstats });
  render();
}

// ------------------------------------------------------------------ earlier games
// The table's newest games (/api/games), asked again when the newest game or its status
// changed: a game the table began pushes the last one off the stream, never off the page.
async function fetchEarlier(payload) {
  const key = [payload ? payload.game : "", payload ? payload.status : "", W.lang].join(":");
  if (earlierKey === key) return;
  earlierKey = key;
  let listed = [];
  try {
    const answer = await fetch("/api/games");
    if (answer.ok) listed = (await answer.json()).games || [];
  } catch {
    earlierKey = null; // asked again with the next state
    return;
  }
  if (earlierKey !== key) return;
  earlier = listed;
  render();
}

function earlierPanel(payload) {
  const newest = payload && payload.game;
  const games = earlier.filter((g) => g.game !== newest && g.status !== "playing")
    .slice(0, EARLIER_SHOWN);
  if (!games.length) return null;
  const box = el("section", "panel");
  box.id = "earlier";
  box.append(el("div", "label", t("earlier_games")));
  for (const g of games) {
    const status = g.status === "abandoned" ? t("abandoned") : t("game_over");
    const item = el("a", "game-link", el("b", "", "#" + g.game + " · " + g.title),
      el("span", "soft", clock(g.created_at) + " · " + status));
    item.href = "#game=" + g.game;
    item.dataset.game = g.game;
    box.append(item);
  }
  return box;
}

// An earlier game is shown at #game=N (a link of the list above; the browser's Back
// returns to the table's game): its state asked once, its proof and BG Stats as for the
// newest game.
function wanted() {
  const found = /^#game=([1-9][0-9]{0,17})$/.exec(location.hash);
  return found ? Number(found[1]) : null;
}

async function openEarlier() {
  let number = wanted();
  if (number !== null && current && current.game === number) {
    number = null; // the table's own game: shown live
    history.replaceState(null, "", location.pathname + location.search);
  }
  viewing = number;
  past = null;
  picking = false;
  if (number === null) return render();
  render();
  try {
    const answer = await fetch("/api/state?game=" + number);
    const payload = await answer.json();
    if (viewing === number) past = payload;
  } catch {
    if (viewing === number) past = { game: null, error: "unreadable" };
  }
  if (viewing === number) render();
}

function backBar() {
  const back = el("a", "button small", t("back_live"));
  back.id = "back";
  back.href = "#";
  return el("div", "who bar earlier-bar", el("span", "", t("earlier_game")), el("span", "gap"),
    back);
}

// ------------------------------------------------------------------ the page
function render() {
  const live = viewing === null;
  const payload = live ? current : past;
  const main = document.getElementById("main");
  main.replaceChildren();
  if (!live) main.append(backBar());
  if (!payload) {
    main.append(el("p", "notice", t("connecting")));
    return;
  }
  if (!payload.state) {
    const why = ["unreadable", "not_shown"].includes(payload.error) ? payload.error : "no_game";
    if (payload.title) {
      document.getElementById("title").textContent = payload.title + " · #" + payload.game;
    }
    main.append(el("p", "notice", t(why)));
    if (live) appendEarlier(main, payload);
    return;
  }
  document.getElementById("title").textContent = payload.view.title + " · #" + payload.game;
  me = kept.choiceFor(storage, payload.game);
  if (me === null && !live) me = ""; // an earlier game: everybody alike, unless chosen
  const known = me !== null && (me === "" || players(payload).includes(me));
  if (!known || picking) {
    main.append(picker(payload));
    if (live) appendEarlier(main, payload);
    return;
  }
  const ended = payload.status !== "playing";
  const towers = payload.view.layout === "towers";
  const lines = payload.view.layout === "lines"; // else the dragon's: the table's own panels
  if (ended || towers || lines || !me) {
    // who this phone follows (in Clank!'s own panel while the game runs)
    main.append(el("div", "who bar", me ? chip(colourOf(payload, me), letterOf(payload, me)) : null,
      me ? labelOf(payload, me) + " (" + t("you") + ")" : t("watching"), el("span", "gap"),
      changeButton()));
  }
  if (payload.damaged) main.append(el("p", "warning", t("damaged", { n: payload.damaged })));
  if (ended) {
    fetchExtras(payload); // forgets another game's proof before the panels are drawn
    endPanels(payload, main);
  }
  if (towers) towersRunning(payload, main);
  else if (lines) linesRunning(payload, main);
  else if (!ended) clankRunning(payload, main);
  if (live) appendEarlier(main, payload);
}

function appendEarlier(main, payload) {
  const list = earlierPanel(payload);
  if (list) main.append(list);
  fetchEarlier(payload);
}

async function loadWords() {
  const answer = await fetch("/api/words");
  if (!answer.ok) return answer.status;
  W = await answer.json();
  document.documentElement.lang = W.lang;
  document.title = t("title");
  return answer.status;
}

// A new stream (the one before closed): the table sends the newest state at once.
function connect() {
  if (link.source) link.source.close();
  link.since = Date.now(); // the new stream has SILENCE_MS to say something
  const source = new EventSource("/api/events");
  link.source = source;
  source.addEventListener("state", async (event) => {
    if (source !== link.source) return;
    heard();
    const payload = JSON.parse(event.data);
    if (payload.lang && payload.lang !== W.lang) await loadWords(); // the table's changed
    current = payload;
    watchCommitment(payload);
    render();
  });
  source.addEventListener("alive", () => {
    if (source === link.source) heard();
  });
  source.addEventListener("error", async () => {
    if (source !== link.source) return;
    stale("offline"); // it connects again by itself, unless the table turned it away
    if (source.readyState !== EventSource.CLOSED) return;
    if ((await fetch("/api/words")).status === 403) {
      // the table gave the phones a new link: this one opens nothing any more
      link.away = true;
      current = null;
      showLink();
      notice(t("new_link"));
    }
  });
}

// Nothing from the table for SILENCE_MS (a phone that walked out of the Wi-Fi, a router
// that dropped the connection without a word): not up to date; connect again.
function lookAtTheSilence() {
  if (link.away || !link.source) return;
  if (Date.now() - link.since > SILENCE_MS) {
    stale("stale");
    connect();
  }
}

// The phone woke up (the page shown again, or restored from the browser's cache): its
// stream may have died meanwhile. Connect again at once; dimmed if it was silent longer
// than an "alive" event's interval.
function wake() {
  if (document.visibilityState === "hidden" || link.away || !link.source) return;
  if (Date.now() - Math.max(link.heard, link.since) > WAKE_MS) stale("stale");
  connect();
}

async function start() {
  const url = new URL(location.href);
  if (url.searchParams.has("t")) {
    // the cookie carries the token from now on: it leaves the address bar (and any
    // screenshot or shared link of this page)
    url.searchParams.delete("t");
    history.replaceState(null, "", url.pathname + url.search + url.hash);
  }
  await loadWords();
  notice(t("connecting"));
  window.addEventListener("hashchange", openEarlier);
  document.addEventListener("visibilitychange", wake);
  window.addEventListener("pageshow", (event) => {
    if (event.persisted) wake();
  });
  setInterval(lookAtTheSilence, TICK_MS);
  if (wanted() !== null) openEarlier();
  connect();
}

start();
