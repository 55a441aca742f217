// The phone page of the table companion: it shows what the table pushes, and asks for
// nothing twice. Its words come from the table (/api/words) in the table's language;
// the game comes as Server-Sent Events (/api/events), one object after every change.
// The page never polls: the stream says when something changed. Text is always set as
// text (never as markup), so nothing in a game can become part of the page. Each object
// says the language it is worded in: when the table's language changed, the page asks
// for its words again.

import { plural, word } from "./words.js";

const KEY = "clank-table:me";
const COLOURS = ["red", "yellow", "green", "blue", "purple", "orange", "black", "ghost"];

let W = { lang: "en", words: {}, plurals: {}, colours: {}, letters: {} };
let current = null; // the newest object the table pushed
let me = localStorage.getItem(KEY); // the colour (or the name) this phone follows
let picking = false; // the player asked to choose again
const extras = { key: null, proof: null, bgstats: null, verdict: null };

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

function setLink(online) {
  const link = document.getElementById("link");
  link.className = online ? "link" : "link off";
  link.textContent = online ? "" : t("offline");
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

function picker(payload) {
  const tschak = payload.edition === "tschak";
  const box = el("section", "panel");
  box.append(el("h2", "", t(tschak ? "pick_name" : "pick_colour")));
  const grid = el("div", "pick");
  for (const player of players(payload)) {
    const button = el("button", "", chip(colourOf(payload, player), letterOf(payload, player)),
      labelOf(payload, player));
    button.dataset.player = player;
    button.addEventListener("click", () => choose(player));
    grid.append(button);
  }
  box.append(grid);
  const watch = el("button", "wide small", t("watching"));
  watch.dataset.player = "";
  watch.addEventListener("click", () => choose(""));
  box.append(watch);
  return box;
}

function choose(player) {
  me = player;
  picking = false;
  localStorage.setItem(KEY, player);
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
  for (const [kind, n] of Object.entries(state.bag)) {
    if (kind === "ghost" && state.edition !== "catacombs") continue;
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
    const row = el("div", "row" + (active ? " active" : ""),
      chip(player, v.letter),
      el("span", "name", v.label, active ? turnBadge() : null,
        v.status ? el("div", "", statusOf(p, v)) : null),
      el("span", "num", "▣" + area),
      el("span", "num", el("span", "heart", "♥"), p.health),
      el("span", "ko", v.odds ? "☠ " + v.odds.cells[v.odds.cells.length - 1][1] : ""));
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
}

// ------------------------------------------------------------------ Tschak!
function tschakRunning(payload, main) {
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
      el("span", "", team.takes)));
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
        chip(colourOf(payload, r.player), letterOf(payload, r.player)), r.label,
        el("span", "score", r.score));
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

function hex(label, value) {
  const box = el("div", "");
  box.append(el("div", "label", label), el("div", "hex", value));
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
    box.append(hex(t("commitment"), proof.commitment));
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
  extras.verdict = { ok: null, text: t("verifying") };
  render();
  let verdict;
  try {
    const { verifyExport } = await import("./verify.js");
    const response = await fetch(proof.export);
    const text = await response.text();
    verdict = await verifyExport(text);
  } catch (e) {
    extras.verdict = { ok: false, text: t("verify_missing") };
    render();
    return;
  }
  if (verdict.ok && verdict.status === "ok") {
    const text = proof.commitment ? tn("verified", verdict.draws) : t("verified_log");
    extras.verdict = { ok: true, text };
  } else if (verdict.status === "not_provably_fair") {
    extras.verdict = { ok: false, text: t("not_fair", { message: verdict.message }) };
  } else if (verdict.status === "sealed") {
    extras.verdict = { ok: false, text: t("sealed") };
  } else {
    extras.verdict = { ok: false, text: t("verify_failed", { message: verdict.message }) };
  }
  render();
}

async function fetchExtras(payload) {
  // asked once for each change of an ended game (deck scans and the close may follow its
  // end): never again until the table pushes something new
  const key = [payload.game, payload.state.actions, payload.closed, payload.status, W.lang]
    .join(":");
  if (extras.key === key) return;
  extras.key = key;
  extras.proof = extras.bgstats = extras.verdict = null;
  const proof = await fetch("/api/proof?game=" + payload.game);
  if (proof.ok) extras.proof = await proof.json();
  if (payload.status === "over") {
    const push = await fetch("/api/bgstats?game=" + payload.game);
    if (push.ok) extras.bgstats = await push.json();
  }
  if (extras.key === key) render();
}

// ------------------------------------------------------------------ the page
function render() {
  const payload = current;
  if (!payload) return notice(t("connecting"));
  if (!payload.state) return notice(t(payload.error === "unreadable" ? "unreadable" : "no_game"));
  document.getElementById("title").textContent = payload.view.title + " · #" + payload.game;
  const main = document.getElementById("main");
  main.replaceChildren();
  const known = me !== null && (me === "" || players(payload).includes(me));
  if (!known || picking) {
    main.append(picker(payload));
    return;
  }
  const ended = payload.status !== "playing";
  const tschak = payload.edition === "tschak";
  if (ended || tschak || !me) {
    // who this phone follows (in Clank!'s own panel while the game runs)
    main.append(el("div", "who bar", me ? chip(colourOf(payload, me), letterOf(payload, me)) : null,
      me ? labelOf(payload, me) + " (" + t("you") + ")" : t("watching"), el("span", "gap"),
      changeButton()));
  }
  if (payload.damaged) main.append(el("p", "warning", t("damaged", { n: payload.damaged })));
  if (ended) endPanels(payload, main);
  if (tschak) tschakRunning(payload, main);
  else if (!ended) clankRunning(payload, main);
  if (ended) fetchExtras(payload);
}

async function loadWords() {
  const answer = await fetch("/api/words");
  if (!answer.ok) return answer.status;
  W = await answer.json();
  document.documentElement.lang = W.lang;
  document.title = t("title");
  return answer.status;
}

function connect() {
  const source = new EventSource("/api/events");
  source.addEventListener("state", async (event) => {
    setLink(true);
    const payload = JSON.parse(event.data);
    if (payload.lang && payload.lang !== W.lang) await loadWords(); // the table's changed
    current = payload;
    render();
  });
  source.addEventListener("open", () => setLink(true));
  source.addEventListener("error", async () => {
    setLink(false); // it connects again by itself, unless the table turned it away
    if (source.readyState !== EventSource.CLOSED) return;
    if ((await fetch("/api/words")).status === 403) {
      // the table gave the phones a new link: this one opens nothing any more
      current = null;
      notice(t("new_link"));
    }
  });
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
  connect();
}

start();
