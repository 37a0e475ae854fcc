// The playground's replay tab: load an `mj simulate --log` file, step through a hand.
// Pure functions (parseLog, buildFrames) are shared with the Node test
// (tests/test_web_replay.py); the DOM part runs only in a page.
"use strict";

(function (root) {
  const HONORS = ["东", "南", "西", "北", "白", "发", "中"];
  const RANKS = "一二三四五六七八九";
  const SUITS = { m: "万", p: "筒", s: "索" };
  const FLOWERS = "春夏秋冬梅兰竹菊"; // 1f–8f: bonus tiles, set aside when drawn
  const ORDER = { m: 0, p: 1, s: 2, z: 3, f: 4 };

  function tileName(code) {
    if (code === null || code === undefined) return "?";
    const n = Number(code[0]), s = code[1];
    if (s === "z") return HONORS[n - 1] || "?";
    if (s === "f") return FLOWERS[n - 1] || "?";
    return SUITS[s] && RANKS[n - 1] ? RANKS[n - 1] + SUITS[s] : "?";
  }
  // Unknown tiles (null: another seat's, in a seat's own view) sort last.
  function tileKey(code) { return code === null ? 99 : (ORDER[code[1]] ?? 5) * 10 + Number(code[0]); }
  function sortTiles(list) { return list.slice().sort((a, b) => tileKey(a) - tileKey(b)); }
  // Remove one `code` from a hand; in a masked hand (nulls) one unknown tile stands for it.
  function removeOne(list, code) {
    let i = list.indexOf(code);
    if (i < 0) i = list.indexOf(null);
    if (i >= 0) list.splice(i, 1);
  }

  // The hands of a JSON-lines log: each from hand_start to hand_end.
  function parseLog(text) {
    const hands = [];
    let current = null;
    text.split(/\r?\n/).forEach((line, i) => {
      if (!line.trim()) return;
      let e;
      try { e = JSON.parse(line); } catch (err) { throw new Error(`line ${i + 1}: not a JSON line`); }
      if (!e || typeof e !== "object" || !e.type) throw new Error(`line ${i + 1}: not an event`);
      if (e.type === "hand_start") { current = [e]; hands.push(current); }
      else if (current) { current.push(e); if (e.type === "hand_end") current = null; }
    });
    if (!hands.length) throw new Error("no hand in this log (is it an `mj simulate --log` file?)");
    return hands;
  }

  // The page's language: ?lang=en or ?lang=zh, else the page's own (<html lang>).
  function pageLang() {
    const asked = typeof location !== "undefined" ? new URLSearchParams(location.search).get("lang") : null;
    if (asked === "en" || asked === "zh") return asked;
    return typeof document !== "undefined" && document.documentElement.lang === "en" ? "en" : "zh";
  }

  // One frame per event: the table after it, as `seat` (null: everyone) saw it.
  function buildFrames(events, seat) {
    let n = 4;
    for (const e of events) if (e.type === "deal") n = e.hands.length;
    const seats = Array.from({ length: n }, () => ({ hand: [], melds: [], discards: [], flowers: [], money: 0 }));
    let wild = [], revealed = false, lastDiscard = null;
    const frames = [];
    for (const e of events) {
      const S = seats;
      // a hand masked in a seat's view (null) is a dealt hand of unknown tiles
      if (e.type === "deal") e.hands.forEach((h, i) => { S[i].hand = h ? h.slice() : Array(i === events[0].dealer ? 14 : 13).fill(null); });
      else if (e.type === "flower") { removeOne(S[e.seat].hand, e.tile); S[e.seat].flowers.push(e.tile); }
      else if (e.type === "draw") S[e.seat].hand.push(e.tile);
      else if (e.type === "discard") { removeOne(S[e.seat].hand, e.tile); S[e.seat].discards.push(e.tile); lastDiscard = e.tile; }
      else if (e.type === "claim") {
        const taken = e.tiles.includes(lastDiscard) ? lastDiscard : e.tiles[0];
        const rest = e.tiles.slice(); removeOne(rest, taken);
        rest.forEach((t) => removeOne(S[e.seat].hand, t));
        const src = S[e.from_seat].discards;
        if (src.length && src[src.length - 1] === taken) src.pop();
        S[e.seat].melds.push({ kind: e.kind, tiles: e.tiles.slice() });
      } else if (e.type === "kong") {
        const me = S[e.seat];
        if (e.kind === "concealed") { for (let i = 0; i < 4; i++) removeOne(me.hand, e.tile); me.melds.push({ kind: "concealed-kong", tiles: [e.tile, e.tile, e.tile, e.tile] }); }
        else { removeOne(me.hand, e.tile); const m = me.melds.find((x) => x.kind === "pung" && x.tiles[0] === e.tile); if (m) { m.kind = "kong"; m.tiles.push(e.tile); } }
      } else if (e.type === "exchange" && e.passes) {
        e.passes.forEach((p) => p.tiles.forEach((t) => removeOne(S[p.seat].hand, t)));
        e.passes.forEach((p) => { S[p.to].hand.push(...p.tiles); });
      } else if (e.type === "wildcard") wild = e.wildcards || [e.wildcard];
      else if (e.type === "settlement") (e.items || []).forEach((it) => { S[it.payer].money -= it.amount; if (it.payee !== null) S[it.payee].money += it.amount; });
      else if (e.type === "reveal") revealed = true;
      frames.push({
        narration: "", // said by the server in the table's words (POST /api/narrate: see load())
        actor: e.seat === undefined ? null : e.seat,
        wild: wild.slice(),
        seats: S.map((st, i) => ({
          hand: seat === null || seat === i ? sortTiles(st.hand) : st.hand.map(() => null),
          melds: st.melds.map((m) => ({ kind: m.kind, tiles: (m.kind === "concealed-kong" && !revealed && seat !== null && seat !== i) ? null : m.tiles.slice() })),
          discards: st.discards.slice(),
          flowers: st.flowers.slice(),
          money: st.money,
        })),
      });
    }
    return frames;
  }

  const exported = { parseLog, buildFrames, tileName, pageLang };
  if (typeof module !== "undefined" && module.exports) module.exports = exported;
  root.MJReplay = exported;

  // -- the tab (only in a page) ----------------------------------------------------
  if (typeof document === "undefined") return;
  let hands = [], frames = [], at = 0;
  const $ = (s) => document.querySelector(s);
  function tileSpan(code) {
    const el = document.createElement("span");
    el.className = "tile"; el.textContent = code === null ? "🀫" : tileName(code);
    if (code !== null) el.dataset.tile = code;
    return el;
  }
  function show() {
    const box = $("#replay-table");
    box.textContent = "";
    if (!frames.length) return;
    const f = frames[at];
    $("#replay-pos").textContent = `event ${at + 1}/${frames.length}` + (f.narration ? `: ${f.narration}` : "");
    f.seats.forEach((st, i) => {
      const row = document.createElement("div");
      row.className = "replay-seat" + (f.actor === i ? " acting" : "");
      row.dataset.seat = String(i);
      const head = document.createElement("b");
      head.textContent = `seat ${i} ${st.money >= 0 ? "+" : ""}${st.money}`;
      row.append(head);
      const hand = document.createElement("span"); hand.className = "tiles replay-hand";
      st.hand.forEach((t) => hand.append(tileSpan(t)));
      row.append(hand);
      if (st.flowers.length) { const fl = document.createElement("span"); fl.className = "group flowers"; st.flowers.forEach((t) => fl.append(tileSpan(t))); row.append(fl); }
      st.melds.forEach((m) => { const g = document.createElement("span"); g.className = "group"; (m.tiles || [null, null, null, null]).forEach((t) => g.append(tileSpan(t))); row.append(g); });
      const river = document.createElement("div"); river.className = "tiles replay-river";
      st.discards.forEach((t) => river.append(tileSpan(t)));
      row.append(river);
      box.append(row);
    });
  }
  let asked = 0; // the latest narration asked for (an older answer arriving late is dropped)
  async function load() {
    const h = Number($("#replay-hand").value || 0);
    const seat = $("#replay-seat").value === "" ? null : Number($("#replay-seat").value);
    frames = hands[h] ? buildFrames(hands[h], seat) : [];
    at = 0; show();
    if (!hands[h] || typeof api !== "function") return;
    // Each event as the tables say it, to this seat, in the page's language (ui/human.narration)
    const mine = ++asked, these = frames;
    try {
      const out = await api("/api/narrate", { events: hands[h], seat, lang: pageLang() });
      if (mine !== asked || out.lines.length !== these.length) return;
      these.forEach((f, i) => { f.narration = out.lines[i]; });
      show();
    } catch (err) {
      $("#replay-error").textContent = `narration: ${err.message}`; $("#replay-error").hidden = false;
    }
  }
  document.addEventListener("DOMContentLoaded", () => {
    if (!$("#replay-file")) return;
    $("#replay-file").addEventListener("change", async (ev) => {
      const file = ev.target.files[0]; if (!file) return;
      $("#replay-error").hidden = true;
      try { hands = parseLog(await file.text()); }
      catch (err) { $("#replay-error").textContent = err.message; $("#replay-error").hidden = false; hands = []; }
      const sel = $("#replay-hand"); sel.textContent = "";
      hands.forEach((h, i) => { const o = document.createElement("option"); o.value = String(i); o.textContent = `hand ${h[0].hand ?? i}`; sel.append(o); });
      load();
    });
    $("#replay-hand").addEventListener("change", load);
    $("#replay-seat").addEventListener("change", load);
    $("#replay-next").addEventListener("click", () => { if (at < frames.length - 1) { at++; show(); } });
    $("#replay-prev").addEventListener("click", () => { if (at > 0) { at--; show(); } });
  });
})(typeof window !== "undefined" ? window : globalThis);
