// mjframework playground: plain JS, no build step. Talks to the JSON API of `mj serve`.
"use strict";

const $ = (sel) => document.querySelector(sel);
const state = { rulesets: [], hand: [], winTile: null, tileNames: {} };
const FLAGS = ["after_kong", "open_kong", "last_tile", "first_turn", "no_claims_yet", "after_kong_discard"];

// The server puts a per-launch token in the page; every POST must carry it.
const TOKEN = (document.querySelector('meta[name="mj-token"]') || {}).content || "";

async function api(path, body) {
  const opts = body === undefined ? {} : {
    method: "POST", headers: { "Content-Type": "application/json", "X-MJ-Token": TOKEN },
    body: JSON.stringify(body),
  };
  const res = await fetch(path, opts);
  const type = res.headers.get("Content-Type") || "";
  const data = type.includes("json") ? await res.json() : await res.text();
  if (!res.ok) throw new Error((data && data.error) || `HTTP ${res.status}`);
  return data;
}

function tileButton(t, onClick, extra = "") {
  const b = document.createElement("button");
  b.type = "button";
  b.className = "tile " + extra;
  b.dataset.tile = t.code;
  b.title = t.code;
  b.textContent = t.name;
  if (onClick) b.addEventListener("click", onClick);
  return b;
}

// ---------------------------------------------------------------- rulesets
function current() { return state.rulesets.find((r) => r.id === $("#ruleset").value); }

async function loadRulesets() {
  const data = await api("/api/rulesets");
  state.rulesets = data.rulesets;
  const sel = $("#ruleset");
  for (const r of state.rulesets) {
    const o = document.createElement("option");
    o.value = r.id; o.textContent = `${r.name} (${r.id})`;
    sel.appendChild(o);
  }
  const wanted = new URLSearchParams(location.search).get("ruleset");
  if (wanted && state.rulesets.some((r) => r.id === wanted)) sel.value = wanted;
  sel.addEventListener("change", onRulesetChange);
  onRulesetChange();
}

function onRulesetChange() {
  const r = current();
  if (!r) return;
  const pal = $("#palette");
  pal.replaceChildren();
  for (const t of r.tiles) {
    state.tileNames[t.code] = t.name;
    pal.appendChild(tileButton(t, () => paletteClick(t)));
  }
  $("#wild-row").hidden = !r.wildcard;
  if (!r.wildcard) { $("#wildcard").value = ""; $("#indicator").value = ""; }
  showOptions(r);
  loadEditor();
  loadCard();
}

// ---------------------------------------------------------------- house-rule options
function showOptions(r) {
  const opts = r.options || [];
  const presets = r.presets || [];
  $("#options").hidden = !opts.length;
  const sel = $("#preset");
  sel.replaceChildren(new Option("(none)", ""));
  for (const p of presets) sel.appendChild(new Option(p.description ? `${p.name} — ${p.description}` : p.name, p.name));
  sel.value = r.preset || "";
  const box = $("#option-fields");
  box.replaceChildren();
  for (const o of opts) {
    const l = document.createElement("label");
    l.title = o.description || "";
    let input;
    if (o.type === "boolean") {
      input = document.createElement("input");
      input.type = "checkbox";
      input.checked = !!o.value;
    } else if (o.type === "choice") {
      input = document.createElement("select");
      for (const c of o.choices) input.appendChild(new Option(c, c));
      input.value = o.value;
    } else {
      input = document.createElement("input");
      input.type = "number"; input.size = 4;
      if (o.minimum !== null) input.min = o.minimum;
      if (o.maximum !== null) input.max = o.maximum;
      input.value = o.value;
    }
    input.id = `option-${o.name}`;
    input.dataset.option = o.name;
    input.dataset.type = o.type;
    input.addEventListener("change", () => { $("#preset").value = ""; loadCard(); });
    l.append(`${o.name} `, input);
    box.appendChild(l);
  }
  sel.onchange = () => {
    const p = presets.find((x) => x.name === sel.value);
    for (const o of opts) {
      const v = p && o.name in p.set ? p.set[o.name] : o.default;
      const input = $(`#option-${o.name}`);
      if (o.type === "boolean") input.checked = !!v; else input.value = v;
    }
    loadCard();
  };
}

// The options as chosen on the page: {NAME: VALUE}, only those that differ from the default.
function chosenOptions() {
  const r = current();
  const out = {};
  for (const o of (r && r.options) || []) {
    const input = $(`#option-${o.name}`);
    if (!input) continue;
    const v = o.type === "boolean" ? input.checked : o.type === "integer" ? Number(input.value) : input.value;
    if (v !== o.default) out[o.name] = v;
  }
  return out;
}

// ---------------------------------------------------------------- the hand
function tileObj(code) { return { code, name: state.tileNames[code] || code }; }

function paletteClick(t) {
  if ($("#palette-sets-win").checked) {
    $("#palette-sets-win").checked = false;
    setWinTile(t.code);
    return;
  }
  // The last tile clicked is the winning tile; the one it replaces joins the hand.
  if (state.winTile) state.hand.push(state.winTile);
  state.winTile = t.code;
  syncHand();
}

function setWinTile(code) {
  state.winTile = code || null;
  syncHand();
}

function syncHand() {
  const box = $("#hand");
  box.replaceChildren();
  state.hand.forEach((code, i) => {
    box.appendChild(tileButton(tileObj(code), () => { state.hand.splice(i, 1); syncHand(); }));
  });
  if (state.winTile) {
    const sep = document.createElement("span");
    sep.textContent = " + ";
    box.appendChild(sep);
    box.appendChild(tileButton(tileObj(state.winTile), () => setWinTile(null), "win"));
  }
  $("#hand-text").value = state.hand.join(" ");
  $("#win-tile").value = state.winTile || "";
}

// Typed input: split into compact codes when it is compact notation; else keep the text as typed.
function parseCompact(text) {
  const out = [];
  const re = /\s*(\d+)([mpsz])\s*/gy;
  let m;
  let pos = 0;
  while ((m = re.exec(text)) !== null) {
    for (const d of m[1]) out.push(d + m[2]);
    pos = re.lastIndex;
  }
  return pos === text.length ? out : null;
}

function onHandTyped() {
  const codes = parseCompact($("#hand-text").value.trim());
  if (codes) { state.hand = codes; syncHandKeepText(); }
}
function syncHandKeepText() {
  const text = $("#hand-text").value;
  syncHand();
  $("#hand-text").value = text;
}
function onWinTyped() {
  const v = $("#win-tile").value.trim();
  const codes = parseCompact(v);
  state.winTile = codes && codes.length === 1 ? codes[0] : (v || null);
  const text = $("#hand-text").value;
  syncHand();
  $("#hand-text").value = text;
  $("#win-tile").value = v;
}

// ---------------------------------------------------------------- scoring
function lines(text) { return text.split("\n").map((s) => s.trim()).filter(Boolean); }

function request() {
  const winBy = $("#win-by").value;
  const context = {};
  for (const l of lines($("#context").value)) {
    const i = l.indexOf("=");
    if (i > 0) context[l.slice(0, i).trim()] = l.slice(i + 1).trim();
  }
  return {
    ruleset: $("#ruleset").value,
    hand: $("#hand-text").value.trim(),
    win_tile: $("#win-tile").value.trim(),
    melds: lines($("#melds").value),
    wildcard: $("#wildcard").value.trim() || null,
    indicator: $("#indicator").value.trim() || null,
    seat: Number($("#seat").value),
    win_by: winBy,
    discarder: winBy === "self_draw" ? null : Number($("#discarder").value),
    flags: [...document.querySelectorAll("#flags input:checked")].map((c) => c.value),
    context,
    options: chosenOptions(),
  };
}

function clearResult() {
  for (const id of ["#verdict", "#reading", "#patterns", "#points", "#call", "#payments"]) $(id).replaceChildren();
  $("#error").hidden = true;
  $("#error").textContent = "";
}

function showError(msg) {
  $("#error").textContent = msg;
  $("#error").hidden = false;
}

async function doScore() {
  clearResult();
  $("#result").dataset.state = "busy";
  try {
    const r = await api("/api/score", request());
    render(r);
  } catch (e) {
    showError(e.message);
  }
  $("#result").dataset.state = "done";
}

function row(cells) {
  const tr = document.createElement("tr");
  for (const c of cells) {
    const td = document.createElement("td");
    td.textContent = c;
    tr.appendChild(td);
  }
  return tr;
}

function render(r) {
  $("#verdict").textContent = r.win
    ? `胡 (${r.ruleset})` + (r.wildcard ? ` · 王 ${r.wildcard.name}` : "")
    : `不胡: ${r.reason}`;
  if (r.reading) {
    for (const g of r.reading.groups) {
      const span = document.createElement("span");
      span.className = "group";
      span.title = g.kind + (g.meld ? ` (${g.meld})` : "");
      for (const t of g.tiles) {
        const cls = t.wild ? "wild" : t.stand_in ? "stand-in" : "";
        const b = tileButton(t, null, cls);
        if (t.wild) b.textContent += "(王)";
        if (t.stand_in) b.textContent += "(替)";
        span.appendChild(b);
      }
      $("#reading").appendChild(span);
    }
  }
  for (const p of r.patterns) {
    const tr = row([p.name, String(p.points), p.times > 1 ? `×${p.times}` : ""]);
    tr.dataset.pattern = p.name;
    $("#patterns").appendChild(tr);
  }
  $("#points").textContent = String(r.points);
  if (r.call) $("#call").textContent = `报 ${r.call}`;
  for (const p of r.payments) {
    const tr = row([String(p.seat), p.name, (p.amount > 0 ? "+" : "") + p.amount]);
    tr.dataset.amount = String(p.amount);
    $("#payments").appendChild(tr);
  }
}

// ---------------------------------------------------------------- editor
let validateTimer = null;
let validateSeq = 0;

async function loadEditor() {
  const id = $("#ruleset").value;
  try {
    const src = await api(`/api/ruleset-source?ruleset=${encodeURIComponent(id)}`);
    $("#editor").value = src.yaml;
    $("#editor").dataset.name = src.name;
    validateNow();
  } catch (e) {
    $("#validate-status").textContent = e.message;
  }
}

function scheduleValidate() {
  clearTimeout(validateTimer);
  $("#validate-status").textContent = "checking…";
  validateTimer = setTimeout(validateNow, 400);
}

async function validateNow() {
  const seq = ++validateSeq;
  let res;
  try {
    res = await api("/api/validate", { yaml: $("#editor").value, name: $("#editor").dataset.name });
  } catch (e) {
    res = { ok: false, problems: [{ text: e.message }] };
  }
  if (seq !== validateSeq) return; // a newer check is on its way
  const ul = $("#problems");
  ul.replaceChildren();
  ul.className = res.ok ? "ok" : "";
  $("#validate-status").textContent = res.ok ? "✓ valid" : `${res.problems.length} problem(s)`;
  if (res.ok) {
    const li = document.createElement("li");
    li.textContent = res.summary || "valid";
    ul.appendChild(li);
  }
  for (const p of res.problems) {
    const li = document.createElement("li");
    li.textContent = p.text;
    if (p.line) li.dataset.line = String(p.line);
    if (p.in_editor && p.line) li.addEventListener("click", () => gotoLine(p.line, p.column || 1));
    ul.appendChild(li);
  }
}

function gotoLine(line, col) {
  const ed = $("#editor");
  const rows = ed.value.split("\n");
  let pos = 0;
  for (let i = 0; i < line - 1 && i < rows.length; i++) pos += rows[i].length + 1;
  pos += col - 1;
  ed.focus();
  ed.setSelectionRange(pos, pos);
}

// ---------------------------------------------------------------- rule card
function loadCard() {
  const q = new URLSearchParams({ ruleset: $("#ruleset").value });
  for (const [k, v] of Object.entries(chosenOptions())) q.append("set", `${k}=${v}`);
  const url = `/api/card?${q}`;
  $("#card-link").href = url;
  $("#card").dataset.src = url;
  if ($("#card-tab").classList.contains("active")) $("#card").src = url;
}

function showTab(id) {
  for (const t of document.querySelectorAll(".tab")) t.classList.toggle("active", t.dataset.tab === id);
  for (const p of document.querySelectorAll(".panel")) p.classList.toggle("active", p.id === id);
  if (id === "card-tab" && $("#card").src !== new URL($("#card").dataset.src, location.href).href) {
    $("#card").src = $("#card").dataset.src;
  }
}

// ---------------------------------------------------------------- wiring
function init() {
  for (const f of FLAGS) {
    const l = document.createElement("label");
    const c = document.createElement("input");
    c.type = "checkbox"; c.value = f; c.id = `flag-${f}`;
    l.append(c, " " + f);
    $("#flags").appendChild(l);
  }
  for (const t of document.querySelectorAll(".tab")) t.addEventListener("click", () => showTab(t.dataset.tab));
  $("#hand-text").addEventListener("input", onHandTyped);
  $("#win-tile").addEventListener("input", onWinTyped);
  $("#score-btn").addEventListener("click", doScore);
  $("#editor").addEventListener("input", scheduleValidate);
  const syncDiscarder = () => { $("#discarder").disabled = $("#win-by").value === "self_draw"; };
  $("#win-by").addEventListener("change", syncDiscarder);
  syncDiscarder();
  loadRulesets()
    .then(() => { document.body.dataset.ready = "1"; })
    .catch((e) => showError(e.message));
}

init();
