// The browser table (mj serve --rooms): open a room, then play your seat over a WebSocket.
// The server decides everything and sends only this seat's view (docs/play-online.md);
// this page draws it and sends back the index of the option chosen.
"use strict";

(function () {
  const $ = (s) => document.querySelector(s);
  const T = window.MJTiles;
  const params = new URLSearchParams(location.search);
  // The page's language: ?lang=en, or 中文 (the default). The server says the narration,
  // the settlement and the options in the same language (the socket's ?lang=en).
  const EN = params.get("lang") === "en";
  const tr = (zh, en) => (EN ? en : zh);
  const HONORS_EN = ["East", "South", "West", "North", "White", "Green", "Red"];
  const FLOWERS_EN = ["Spring", "Summer", "Autumn", "Winter", "Plum", "Orchid", "Bamboo", "Chrysanthemum"];
  // a tile as the terminal's --lang en names it: 5m, 3p, 7s, East … Red, Plum …
  const tname = (c) => !EN || !c ? T.name(c) : c[1] === "z" ? HONORS_EN[Number(c[0]) - 1] || "?"
    : c[1] === "f" ? FLOWERS_EN[Number(c[0]) - 1] || "?" : c;
  const withLang = (url) => (EN ? url + (url.includes("?") ? "&" : "?") + "lang=en" : url);
  const pageToken = (document.querySelector('meta[name="mj-token"]') || {}).content || "";
  const KIND_KEYS = { win: "h", pung: "p", chow: "c", kong: "k", pass: "x", declare: "d", exchange: "e" };
  const S = { hello: null, seats: null, state: null, decision: null, over: null, ws: null, closedByUs: false,
              pick: -1, picked: [], keys: {}, lastEvent: null, frames: [], at: 0 };

  function el(tag, attrs, ...kids) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "class") e.className = v; else if (k === "text") e.textContent = v;
      else if (k.startsWith("on")) e.addEventListener(k.slice(2), v); else e.setAttribute(k, v);
    }
    kids.flat().forEach((k) => { if (k !== null && k !== undefined) e.append(k); });
    return e;
  }
  // Tiles are parsed once per look and cloned after: a table redraw is a few hundred of them.
  const parsed = new Map();
  function tile(code, cls, mark) {
    const key = `${code}|${cls || ""}|${mark || ""}`;
    let t = parsed.get(key);
    if (!t) {
      const box = document.createElement("span");
      box.innerHTML = T.svg(code, { cls, mark });
      t = box.firstChild;
      parsed.set(key, t);
    }
    return t.cloneNode(true);
  }
  function tiles(codes, cls) { return el("span", { class: "tiles " + (cls || "") }, (codes || []).map((c) => tile(c))); }
  function status(text) { $("#status").textContent = text || ""; }
  const names = (codes) => codes.map(tname).join(" ");

  // -- setup: open a room ------------------------------------------------------------------------
  async function setup() {
    $("#setup").hidden = false;
    const res = await fetch("/api/rulesets");
    const data = await res.json();
    const sel = $("#ruleset");
    data.rulesets.forEach((r) => sel.append(el("option", { value: r.id, text: `${r.name} (${r.id})` })));
    const bots = await (await fetch("/api/bots")).json();  // trained policies the server was given
    bots.bots.filter((b) => b !== "greedy").forEach((b) => $("#bot").append(el("option", { value: b, text: b })));
    document.querySelectorAll('input[name="source"]').forEach((r) => r.addEventListener("change", () => {
      $("#yaml").hidden = document.querySelector('input[name="source"]:checked').value !== "yaml";
    }));
    $("#setup-form").addEventListener("submit", async (ev) => {
      ev.preventDefault();
      $("#setup-error").hidden = true;
      const body = { humans: Number($("#humans").value), hands: Number($("#hands").value),
                     away_timeout: Number($("#away").value), bot: $("#bot").value };
      if ($("#seed").value !== "") body.seed = Number($("#seed").value);
      body.names = $("#names").value.split(",").map((x) => x.trim()).slice(0, 4);
      if (document.querySelector('input[name="source"]:checked').value === "yaml") body.yaml = $("#yaml").value;
      else body.ruleset = $("#ruleset").value;
      const opts = {};
      $("#options").value.split(",").map((x) => x.trim()).filter(Boolean).forEach((pair) => {
        const [k, ...v] = pair.split("="); opts[k.trim()] = v.join("=").trim();
      });
      body.options = opts;
      $("#start").disabled = true;
      try {
        const r = await fetch("/api/rooms", { method: "POST", body: JSON.stringify(body),
          headers: { "Content-Type": "application/json", "X-MJ-Token": pageToken } });
        const out = await r.json();
        if (!r.ok) throw new Error(out.error || `HTTP ${r.status}`);
        const humans = out.seats.filter((s) => s.human);
        if (humans.length === 1) { location.href = withLang(humans[0].url); return; }
        const list = $("#invite-list"); list.textContent = "";
        humans.forEach((s) => {
          const url = new URL(withLang(s.url), location.href).href;
          list.append(el("li", {}, `seat ${s.seat} (${s.name}): `, el("a", { href: url, class: "invite", text: url })));
        });
        $("#invites").hidden = false;
      } catch (err) {
        $("#setup-error").textContent = err.message; $("#setup-error").hidden = false;
      } finally { $("#start").disabled = false; }
    });
  }

  // -- the table ----------------------------------------------------------------------------------
  function connect() {
    const proto = location.protocol === "https:" ? "wss" : "ws";
    const ws = new WebSocket(`${proto}://${location.host}/ws/${encodeURIComponent(params.get("room"))}` +
                             `?token=${encodeURIComponent(params.get("token"))}${EN ? "&lang=en" : ""}`);
    S.ws = ws;
    status("connecting…");
    ws.onopen = () => status("");
    ws.onmessage = (ev) => on(JSON.parse(ev.data));
    ws.onclose = (ev) => {
      if (S.closedByUs) return;
      if (ev.code === 4404) { status("no such room or seat: check the invite link"); return; }
      if (S.finished) { status(""); return; }
      status("disconnected — rejoining…");
      setTimeout(connect, 1500);
    };
  }
  function send(m) { if (S.ws && S.ws.readyState === 1) S.ws.send(JSON.stringify(m)); }

  function on(m) {
    switch (m.type) {
      case "hello": S.hello = m; S.seats = m.seats; S.state = null; S.decision = null; $("#log").textContent = ""; break;
      case "seats": S.seats = m.seats.map((s, i) => ({ ...(S.seats ? S.seats[i] : {}), ...s })); break;
      case "state": S.state = m; break;
      case "decision": S.decision = m; S.pick = -1; S.picked = []; break;
      case "waits": // 听 after each discard offered, sent just after the decision
        if (S.decision && S.decision.decision === m.decision) {
          S.decision.options.forEach((o) => { if (o.kind === "discard" && o.tile in m.after) o.waits = m.after[o.tile]; });
        }
        break;
      case "event": S.lastEvent = m.event; if (m.event.type === "start_kyoku") { hideOver(); S.over = null; } break;
      case "say": $("#log").append(el("li", { text: m.text })); $("#log").scrollTop = 1e9; break;
      case "hand_over": S.over = m; S.decision = null; S.hello.played = m.hand + 1; showOver(m); break;
      case "room_over": S.finished = true; S.decision = null; finalTotals(m); break;
      case "error": status(m.message); break;
      default: break;
    }
    // one redraw per frame however many messages came (bots move in bursts)
    if (!S.drawPending) { S.drawPending = true; requestAnimationFrame(() => { S.drawPending = false; render(); }); }
  }

  function word(s) { return S.hello ? S.hello.seats[s].word : `seat ${s}`; }
  function seatStatus(s) { const x = S.seats && S.seats[s]; return x ? x.status : ""; }

  function render() {
    const st = S.state, h = S.hello;
    if (!h) return;
    const me = h.seat, n = h.players;
    if (st) {
      const winds = st.prevalent ? `${tr("圈风", "round wind")} ${st.prevalent} · ` : "";
      const wild = st.wildcards.length ? ` · ${tr("王", "wild")} ${names(st.wildcards)}` : "";
      $("#info").textContent = `${h.ruleset.name} · ${tr(`第 ${st.hand_no + 1}/${h.hands} 手`, `hand ${st.hand_no + 1}/${h.hands}`)}` +
        ` · ${winds}${tr("庄", "dealer")} ${word(st.dealer)} · ${tr("牌墙", "wall")} ${st.live}${wild}`;
    } else $("#info").textContent = `${h.ruleset.name} — waiting for the deal…`;
    const places = n === 4 ? { 1: "#seat-right", 2: "#seat-top", 3: "#seat-left" } : {};
    ["#seat-right", "#seat-top", "#seat-left"].forEach((q) => { $(q).textContent = ""; $(q).classList.remove("acting"); });
    const acting = S.decision ? S.decision.seat : (S.lastEvent && S.lastEvent.actor);
    for (let s = 0; s < n; s++) {
      if (s === me) continue;
      const rel = (s - me + n) % n;
      const box = $(places[rel] || "#seat-top");
      box.append(seatBox(s));
      if (acting === s && !S.decision) box.classList.add("acting");
    }
    $("#centre-info").textContent = st ? `${word(me)} · ${st.seats[me].wind || ""}${st.dealer === me ? tr(" 庄", " dealer") : ""}` : "";
    const le = S.lastEvent;
    $("#last-move").textContent = "";
    if (le && le.type === "dahai") $("#last-move").append(`${word(le.actor)} ${tr("打", "discards")} `, tile(le.pai === "?" ? null : mjaiCode(le.pai)));
    renderMe();
  }

  // seat-log tiles are mjai names (5m, E … C); the state's are compact codes (5m, 1z …)
  function mjaiCode(p) {
    const honors = { E: "1z", S: "2z", W: "3z", N: "4z", P: "5z", F: "6z", C: "7z" };
    if (honors[p]) return honors[p];
    if (/^5[mps]r$/.test(p)) return p.slice(0, 2);
    return p;
  }

  function seatBox(s) {
    const st = S.state;
    const head = el("div", { class: "seat-head" }, el("b", { text: word(s) }), " ");
    if (st) {
      const x = st.seats[s];
      if (x.wind) head.append(el("span", { class: "wind", text: x.wind }), " ");
      if (st.dealer === s) head.append(el("span", { class: "dealer", text: tr("庄 ", "dealer ") }));
      head.append(`${x.name} `, el("span", { class: "status", text: seatStatus(s) }), ` ${x.total >= 0 ? "+" : ""}${x.total}`);
      const suits = EN ? { m: "characters", p: "dots", s: "bamboo" } : { m: "万", p: "筒", s: "条" };
      if (x.declared && x.declared.void_suit) head.append(` ${tr("缺", "void ")}${suits[x.declared.void_suit] || x.declared.void_suit}`);
      if (x.declared && x.declared.ready) head.append(tr(" 报听", " ready"));
      if (x.out) head.append(tr(" (胡了)", " (won)"));
    }
    const box = el("div", { class: "small", "data-seat": String(s) }, head);
    if (!st) return box;
    const x = st.seats[s];
    box.append(el("span", { class: "tiles backs" }, Array.from({ length: x.concealed }, () => tile(null))));
    box.append(melds(x.melds));
    if (x.flowers.length) box.append(el("span", { class: "meld flowers" }, x.flowers.map((c) => tile(c))));
    box.append(tiles(x.discards, "river"));
    return box;
  }
  function melds(list) {
    return el("span", { class: "tiles" }, list.map((m) => el("span", { class: "meld", title: m.kind },
      (m.tiles.length ? m.tiles : [null, null, null, null]).map((c) => tile(c)))));
  }

  function renderMe() {
    const st = S.state, d = S.decision, h = S.hello;
    const me = h.seat;
    document.body.dataset.decision = d ? String(d.decision) : "";  // (for tests and assistive tools)
    $("#me").classList.toggle("acting", !!d);
    $("#me-head").textContent = "";
    $("#me-open").textContent = "";
    $("#hand").textContent = "";
    $("#actions").textContent = "";
    $("#ting").textContent = "";
    $("#prompt").textContent = "";
    S.keys = {};
    if (!st) return;
    const x = st.seats[me];
    $("#me-head").append(el("b", { text: tr("你 ", "You ") }), x.wind ? el("span", { class: "wind", text: x.wind }) : "",
      st.dealer === me ? el("span", { class: "dealer", text: tr(" 庄", " dealer") }) : "", ` ${x.name} ${x.total >= 0 ? "+" : ""}${x.total}`);
    $("#me-open").append(melds(x.melds));
    if (x.flowers.length) $("#me-open").append(el("span", { class: "meld flowers" }, x.flowers.map((c) => tile(c))));
    $("#me-open").append(tiles(x.discards, "river small"));
    // the hand, the drawn tile apart
    let hand = st.hand.slice();
    let drawn = null;
    if (d && d.kind === "turn" && d.tile && hand.includes(d.tile)) { hand.splice(hand.lastIndexOf(d.tile), 1); drawn = d.tile; }
    const order = drawn ? hand.concat([drawn]) : hand;
    // the room the hand needs at a turn (13 + 1, taiwan-16's 16 + 1): a phone sizes the tiles by it
    const held = st.hand.length + 3 * x.melds.length + (d && d.kind === "turn" ? 0 : 1);
    $("#hand").style.setProperty("--slots", String(Math.max(14, held) + 0.4));
    const discards = {};
    const others = [];
    if (d) d.options.forEach((o) => {
      if (o.kind === "discard" && o.tile && !o.value && !(o.tile in discards)) discards[o.tile] = o;
      else others.push(o);
    });
    const wild = new Set(st.wildcards);
    const exchange = d && d.kind === "exchange";
    order.forEach((c, i) => {
      const o = discards[c];
      const cls = [o || exchange ? "can" : "", i === order.length - 1 && drawn ? "drawn" : "",
                   o && o.waits && o.waits.length ? "ready" : "", i === S.pick ? "sel" : "",
                   S.picked.includes(i) ? "picked" : ""].filter(Boolean).join(" ");
      const t = tile(c, cls, wild.has(c) ? "王" : "");
      if (o || exchange) {
        t.setAttribute("tabindex", "0");
        t.addEventListener("click", () => exchange ? togglePick(i) : choose(o.index));
        t.addEventListener("mouseenter", () => { S.pick = i; showTing(o); });
      }
      $("#hand").append(t);
    });
    showTing(S.pick >= 0 ? discards[order[S.pick]] : null);
    if (!d) { $("#prompt").textContent = S.finished ? "the room is over" : ""; return; }
    const what = { turn: "your turn: click a tile to discard (← → Enter)", claim: "a discard you may claim",
                   rob: tr("可以抢杠", "you may rob the kong"),
                   exchange: `choose the tiles to pass (click them), then ${tr("换", "pass")}`, declare: "declare" };
    $("#prompt").textContent = (d.prompt || what[d.kind] || d.kind) +
      (d.kind === "claim" && d.tile ? ` — ${word(d.from_seat)} ${tr("打", "discards")} ${tname(d.tile)}` : "");
    if (exchange) {
      const picked = S.picked.map((i) => order[i]).sort().join(",");
      const match = others.find((o) => o.tiles.slice().sort().join(",") === picked);
      actionButton({ label: tr("换 ", "pass ") + (match ? names(match.tiles) : `(${S.picked.length} tiles)`), index: match ? match.index : -1,
                     kind: "exchange" }, "Enter", !match);
      actionButton({ label: "suggest", index: -2, kind: "suggest" }, "s", false, () => {
        const o = others[0]; const used = new Set();
        S.picked = o.tiles.map((c) => { const i = order.findIndex((t, j) => t === c && !used.has(j)); used.add(i); return i; });
        render();
      });
      return;
    }
    const used = {};
    let digit = 1;
    others.forEach((o) => {
      let key = KIND_KEYS[o.kind];
      if (!key || used[key]) key = digit <= 9 ? String(digit++) : null;
      if (key) used[key] = true;
      actionButton(o, key, false);
    });
  }

  function actionButton(o, key, disabled, fn) {
    const b = el("button", { type: "button", class: o.kind, "data-kind": o.kind }, o.label, key ? el("kbd", { text: key === " " ? "space" : key }) : "");
    b.disabled = disabled;
    const act = fn || (() => choose(o.index));
    b.addEventListener("click", act);
    if (o.tiles && o.tiles.length) b.title = names(o.tiles);
    $("#actions").append(b);
    if (key) S.keys[key] = () => { if (!b.disabled) act(); };
  }

  function showTing(o) {
    const st = S.state;
    const box = $("#ting");
    box.textContent = "";
    const waits = o && o.waits ? o.waits : (st ? st.waits : []);
    if (waits && waits.length) {
      box.append(o && o.waits ? tr(`打 ${T.name(o.tile)} 听 `, `discard ${tname(o.tile)} → waits `) : tr("听 ", "waits "),
                 ...waits.map((c) => tile(c)));
    }
  }

  function togglePick(i) {
    const k = S.picked.indexOf(i);
    if (k >= 0) S.picked.splice(k, 1); else S.picked.push(i);
    render();
  }

  function choose(index) {
    const d = S.decision;
    if (!d || index < 0) return;
    send({ type: "choose", decision: d.decision, index });
    S.decision = null;
    render();
  }

  // -- after the hand -------------------------------------------------------------------------------
  function showOver(m) {
    $("#over-title").textContent = m.result === "win" ? tr("结算 — settlement", "settlement")
      : m.result === "draw" ? tr("流局 — a draw", "a draw") : `${tr("本手作废", "hand abandoned")} — ${m.result}`;
    $("#over-lines").textContent = "";
    m.lines.forEach((line) => $("#over-lines").append(el("li", { text: line })));
    const n = S.hello.players;
    $("#over-totals").textContent = tr("总计 ", "total ") + Array.from({ length: n }, (_, s) => `${word(s)} ${m.totals[s] >= 0 ? "+" : ""}${m.totals[s]}`).join("   ") +
      `   · ${tr("下一手庄家", "next dealer")} ${m.next_dealer}`;
    $("#next-btn").hidden = !!m.last;
    $("#over").hidden = false;
    $("#next-btn").disabled = false;
    listHands();
  }
  function hideOver() { $("#over").hidden = true; $("#replay").hidden = true; }
  function finalTotals(m) {
    const n = S.hello ? S.hello.players : 4;
    $("#log").append(el("li", { text: `room over: ${m.played} hands · ` + Array.from({ length: n }, (_, s) => `${word(s)} ${m.totals[s] >= 0 ? "+" : ""}${m.totals[s]}`).join("  ") + (m.error ? ` · ${m.error}` : "") }));
  }
  async function listHands() {
    const box = $("#room-hands");
    box.textContent = "";
    try {
      const r = await fetch(`/api/rooms/${encodeURIComponent(params.get("room"))}/hands?token=${encodeURIComponent(params.get("token"))}`);
      const out = await r.json();
      if (!out.hands || !out.hands.length) return;
      box.append(el("b", { text: "This room's hands: " }));
      out.hands.slice().reverse().forEach((hd) => box.append(el("button", { type: "button", class: "hand-replay",
        onclick: () => replayHand(hd.id) }, `hand ${hd.hand + 1}`)));
    } catch (err) { /* records off: no list */ }
  }
  async function replayHand(id) {
    const r = await fetch(withLang(`/api/rooms/${encodeURIComponent(params.get("room"))}/hands/${id}?token=${encodeURIComponent(params.get("token"))}`));
    const out = await r.json();
    if (r.ok) openReplay(out.log, out.said);
  }
  // The replay says each event in the table's words, in the page's language (`said`, one line per
  // event from the server: ui/human.narration); an event the table says nothing of shows none.
  function openReplay(log, said) {
    S.frames = window.MJReplay.buildFrames(log, S.hello.seat);
    if (said && said.length === S.frames.length) S.frames.forEach((f, i) => { f.narration = said[i]; });
    S.at = S.frames.length - 1;
    $("#replay").hidden = false;
    showFrame();
  }
  function showFrame() {
    const f = S.frames[S.at];
    if (!f) return;
    $("#rp-pos").textContent = `${S.at + 1}/${S.frames.length}` + (f.narration ? `: ${f.narration}` : "");
    const box = $("#rp-table");
    box.textContent = "";
    f.seats.forEach((st, i) => {
      const row = el("div", { class: "rp-seat" + (f.actor === i ? " acting" : ""), "data-seat": String(i) },
        el("b", { text: `${word(i)} ${st.money >= 0 ? "+" : ""}${st.money} ` }),
        tiles(st.hand), st.flowers && st.flowers.length ? el("span", { class: "meld" }, st.flowers.map((c) => tile(c))) : "",
        st.melds.map((m) => el("span", { class: "meld" }, (m.tiles || [null, null, null, null]).map((c) => tile(c)))),
        el("div", {}, tiles(st.discards)));
      box.append(row);
    });
  }

  // -- keys -------------------------------------------------------------------------------------------
  document.addEventListener("keydown", (ev) => {
    if (ev.target && /INPUT|TEXTAREA|SELECT/.test(ev.target.tagName)) return;
    if (!$("#replay").hidden) {
      if (ev.key === "ArrowRight" && S.at < S.frames.length - 1) { S.at++; showFrame(); }
      else if (ev.key === "ArrowLeft" && S.at > 0) { S.at--; showFrame(); }
      else if (ev.key === "Escape") $("#replay").hidden = true;
      return;
    }
    if (!$("#over").hidden) {
      if (ev.key === "n" && !$("#next-btn").hidden) $("#next-btn").click();
      else if (ev.key === "r") $("#replay-btn").click();
      else if (ev.key === "Escape") $("#over").hidden = true;
      return;
    }
    const d = S.decision;
    if (!d) return;
    if (ev.key === "ArrowRight" || ev.key === "ArrowLeft") {
      const all = [...document.querySelectorAll("#hand .mj-tile")];
      const can = all.map((t, i) => (t.classList.contains("can") ? i : -1)).filter((i) => i >= 0);
      if (!can.length) return;
      let k = can.indexOf(S.pick);
      k = k < 0 ? (ev.key === "ArrowRight" ? 0 : can.length - 1) : (k + (ev.key === "ArrowRight" ? 1 : can.length - 1)) % can.length;
      S.pick = can[k];
      render();
      ev.preventDefault();
      return;
    }
    if (ev.key === "Enter") {
      if (d.kind === "exchange" && S.keys.Enter) { S.keys.Enter(); ev.preventDefault(); return; }
      const all = [...document.querySelectorAll("#hand .mj-tile")];
      if (S.pick >= 0 && all[S.pick] && all[S.pick].classList.contains("can")) { all[S.pick].dispatchEvent(new MouseEvent("click")); ev.preventDefault(); }
      return;
    }
    if (ev.key === " " && S.keys.x) { S.keys.x(); ev.preventDefault(); return; }
    if (S.keys[ev.key]) { S.keys[ev.key](); ev.preventDefault(); }
  });

  $("#next-btn").addEventListener("click", () => { send({ type: "next" }); $("#next-btn").disabled = true; $("#over").hidden = true; });
  $("#replay-btn").addEventListener("click", () => { if (S.over) openReplay(S.over.log, S.over.said); });
  $("#close-over").addEventListener("click", () => { $("#over").hidden = true; });
  $("#rp-prev").addEventListener("click", () => { if (S.at > 0) { S.at--; showFrame(); } });
  $("#rp-next").addEventListener("click", () => { if (S.at < S.frames.length - 1) { S.at++; showFrame(); } });
  $("#rp-close").addEventListener("click", () => { $("#replay").hidden = true; });

  // the language switch: the same page (room and seat kept) in the other language; the seat rejoins
  document.documentElement.lang = EN ? "en" : "zh";
  const other = new URLSearchParams(location.search);
  other.set("lang", EN ? "zh" : "en");
  $("#lang-switch").href = `?${other}`;
  $("#lang-switch").textContent = EN ? "中文" : "English";
  $("#lang-switch").hreflang = EN ? "zh" : "en";
  if (EN) $("h1").textContent = "mjframework · play";

  if (params.get("room") && params.get("token")) { $("#table").hidden = false; connect(); }
  else setup();
})();
