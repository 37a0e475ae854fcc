// Tile faces drawn in SVG, as players know them: 万 with its numeral over 萬, dots (筒),
// bamboo (索/条, the one a bird), the winds 東南西北, the dragons 中 發 and 白 (a blue frame),
// the flowers 春夏秋冬 梅蘭竹菊. A tile is a compact code (5m, 3p, 7s, 1z…7z, 1f…8f);
// null is a tile face down. Pure strings: usable in a page and under Node.
"use strict";

(function (root) {
  const NUMERALS = "一二三四五六七八九";
  const WINDS = "東南西北";
  const FLOWERS = "春夏秋冬梅蘭竹菊";
  const NAMES = { m: "万", p: "筒", s: "索" };
  const HONOR_NAMES = ["东", "南", "西", "北", "白", "发", "中"];
  const FLOWER_NAMES = "春夏秋冬梅兰竹菊";
  const RED = "#c0262d", GREEN = "#1d7a3a", BLUE = "#1f4e9c", INK = "#1b1b1b";

  function name(code) {
    if (code === null || code === undefined) return "?";
    const n = Number(code[0]), s = code[1];
    if (s === "z") return HONOR_NAMES[n - 1] || "?";
    if (s === "f") return FLOWER_NAMES[n - 1] || "?";
    return NUMERALS[n - 1] && NAMES[s] ? NUMERALS[n - 1] + NAMES[s] : "?";
  }

  const text = (x, y, size, fill, s, weight) =>
    `<text x="${x}" y="${y}" font-size="${size}" fill="${fill}" text-anchor="middle" dominant-baseline="central"` +
    ` font-family="'Noto Serif CJK SC','Noto Sans CJK SC','WenQuanYi Zen Hei',serif" font-weight="${weight || 700}">${s}</text>`;

  // Dot positions for 1–9 on a 60×80 face.
  const DOTS = {
    1: [[30, 40]], 2: [[30, 22], [30, 58]], 3: [[15, 16], [30, 40], [45, 64]],
    4: [[17, 22], [43, 22], [17, 58], [43, 58]], 5: [[17, 18], [43, 18], [30, 40], [17, 62], [43, 62]],
    6: [[18, 16], [42, 16], [18, 42], [42, 42], [18, 64], [42, 64]],
    7: [[13, 12], [30, 20], [47, 28], [18, 48], [42, 48], [18, 66], [42, 66]],
    8: [[18, 12], [42, 12], [18, 31], [42, 31], [18, 50], [42, 50], [18, 68], [42, 68]],
    9: [[14, 16], [30, 16], [46, 16], [14, 40], [30, 40], [46, 40], [14, 64], [30, 64], [46, 64]],
  };
  const DOT_COLOURS = { 1: [RED], 2: [GREEN, BLUE], 3: [BLUE, RED, GREEN], 4: [BLUE, GREEN, GREEN, BLUE],
    5: [BLUE, GREEN, RED, GREEN, BLUE], 6: [GREEN, GREEN, RED, RED, RED, RED],
    7: [GREEN, GREEN, GREEN, RED, RED, RED, RED], 8: Array(8).fill(BLUE),
    9: [BLUE, BLUE, BLUE, RED, RED, RED, GREEN, GREEN, GREEN] };

  function dots(n) {
    const r = n === 1 ? 17 : n <= 4 ? 10 : n <= 6 ? 8.5 : 7.2;
    return DOTS[n].map(([x, y], i) => {
      const c = DOT_COLOURS[n][i];
      return `<circle cx="${x}" cy="${y}" r="${r}" fill="none" stroke="${c}" stroke-width="${r / 3.2}"/>` +
        `<circle cx="${x}" cy="${y}" r="${r / 2.6}" fill="${c}"/>`;
    }).join("");
  }

  // Bamboo sticks: positions (x, y of the stick's centre) for 2–9.
  const STICKS = {
    2: [[30, 22], [30, 58]], 3: [[30, 22], [18, 58], [42, 58]],
    4: [[18, 22], [42, 22], [18, 58], [42, 58]], 5: [[15, 22], [45, 22], [30, 40], [15, 58], [45, 58]],
    6: [[14, 22], [30, 22], [46, 22], [14, 58], [30, 58], [46, 58]],
    7: [[30, 14], [14, 40], [30, 40], [46, 40], [14, 66], [30, 66], [46, 66]],
    8: [[12, 22], [24, 22], [36, 22], [48, 22], [12, 58], [24, 58], [36, 58], [48, 58]],
    9: [[14, 14], [30, 14], [46, 14], [14, 40], [30, 40], [46, 40], [14, 66], [30, 66], [46, 66]],
  };

  function stick(x, y, h, colour) {
    return `<rect x="${x - 3.6}" y="${y - h / 2}" width="7.2" height="${h}" rx="3.2" fill="${colour}"/>` +
      `<line x1="${x - 3.6}" y1="${y}" x2="${x + 3.6}" y2="${y}" stroke="#fff" stroke-width="1.2"/>`;
  }

  function bamboo(n) {
    if (n === 1) { // the bird (幺鸡)
      return `<ellipse cx="30" cy="44" rx="13" ry="16" fill="${GREEN}"/>` +
        `<circle cx="30" cy="22" r="8" fill="${GREEN}"/><circle cx="32.5" cy="20.5" r="2" fill="#fff"/>` +
        `<path d="M37 22 L45 24 L37 26 Z" fill="#d98c1a"/>` +
        `<path d="M22 56 L12 72 L24 64 L30 74 L36 64 L48 72 L38 56 Z" fill="${RED}"/>` +
        `<path d="M20 40 Q30 52 40 40" stroke="#fff" stroke-width="1.6" fill="none"/>`;
    }
    const h = n <= 4 ? 26 : n <= 6 ? 24 : 20;
    return STICKS[n].map(([x, y], i) => {
      const red = (n === 5 && i === 2) || (n === 7 && i === 0) || (n === 9 && i % 3 === 1);
      return stick(x, y, h, red ? RED : GREEN);
    }).join("");
  }

  function face(code) {
    const n = Number(code[0]), s = code[1];
    if (s === "m") return text(30, 24, 26, INK, NUMERALS[n - 1]) + text(30, 58, 30, RED, "萬");
    if (s === "p") return dots(n);
    if (s === "s") return bamboo(n);
    if (s === "z") {
      if (n <= 4) return text(30, 40, 40, INK, WINDS[n - 1]);
      if (n === 5) return `<rect x="14" y="16" width="32" height="48" rx="3" fill="none" stroke="${BLUE}" stroke-width="4"/>` +
        `<rect x="20" y="22" width="20" height="36" rx="2" fill="none" stroke="${BLUE}" stroke-width="1.5"/>`;
      if (n === 6) return text(30, 40, 40, GREEN, "發");
      return text(30, 40, 42, RED, "中");
    }
    if (s === "f") {
      const colour = n <= 4 ? GREEN : BLUE;
      return text(30, 38, 34, colour, FLOWERS[n - 1]) + text(48, 68, 14, RED, String(n <= 4 ? n : n - 4));
    }
    return text(30, 40, 30, INK, "?");
  }

  // One tile as an SVG string (``opts.cls``: extra classes; ``opts.mark``: a corner mark such as 王).
  function svg(code, opts) {
    const o = opts || {};
    const label = code === null || code === undefined ? "face down" : name(code);
    const cls = ["mj-tile", code == null ? "back" : "", o.cls || ""].filter(Boolean).join(" ");
    const data = code == null ? "" : ` data-tile="${code}"`;
    const body = code == null
      ? `<rect x="1.5" y="1.5" width="57" height="77" rx="7" fill="#2f7d57" stroke="#1d4f37" stroke-width="2"/>` +
        `<rect x="8" y="8" width="44" height="64" rx="4" fill="none" stroke="#8fd0ab" stroke-width="1.5"/>`
      : `<rect x="1.5" y="1.5" width="57" height="77" rx="7" fill="#fdfbf2" stroke="#a79f86" stroke-width="2"/>` +
        face(code) + (o.mark ? `<circle cx="50" cy="10" r="8" fill="#f2b705"/>` + text(50, 10.5, 11, INK, o.mark) : "");
    return `<svg class="${cls}" viewBox="0 0 60 80" role="img" aria-label="${label}"${data}>` +
      `<title>${label}</title>${body}</svg>`;
  }

  const api = { svg, name };
  if (typeof module !== "undefined" && module.exports) module.exports = api;
  root.MJTiles = api;
})(typeof window !== "undefined" ? window : globalThis);
