"""The playground's replay tab (mjframework/web/replay.js).

Its table logic runs under Node (when installed) against logs from `mj
simulate` and must agree with `mj replay`'s (mjframework.run.replay); the tab
itself is driven in headless Chromium (skipped where there is none).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from mjframework.cli import main
from mjframework.run.replay import Replay, read_hands

ROOT = Path(__file__).resolve().parent.parent
REPLAY_JS = ROOT / "mjframework" / "web" / "replay.js"

NODE_SCRIPT = """
const R = require(process.argv[2]);
const fs = require('fs');
const hands = R.parseLog(fs.readFileSync(process.argv[3], 'utf8'));
const out = hands.map((h) => [null, 0, 1, 2, 3].map((seat) => {
  const fr = R.buildFrames(h, seat);
  const deal = h.findIndex((e) => e.type === 'deal');
  return { n: fr.length, last: fr[fr.length - 1].seats, afterDeal: fr[deal].seats };
}));
process.stdout.write(JSON.stringify(out));
"""


@pytest.fixture(scope="module")
def log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    p = tmp_path_factory.mktemp("wr") / "g.jsonl"
    for rid, n in (("sichuan-xuezhan", 3), ("yongzhou-wangba", 3), ("hongzhong", 3)):
        q = p.with_name(f"{rid}.jsonl")
        r = CliRunner().invoke(main, ["simulate", rid, "-n", str(n), "-s", "2", "--log", str(q)])
        assert r.exit_code == 0, r.output
    # One file holding both rulesets' hands (the tab reads hands, whatever the ruleset).
    p.write_text("".join(p.with_name(f"{rid}.jsonl").read_text("utf-8") for rid in
                         ("sichuan-xuezhan", "yongzhou-wangba", "hongzhong")), "utf-8")
    return p


def test_replay_js_agrees_with_mj_replay(log: Path, tmp_path: Path) -> None:
    node = shutil.which("node")
    if not node:
        pytest.skip("no Node.js to run replay.js")
    script = tmp_path / "run.js"
    script.write_text(NODE_SCRIPT, "utf-8")
    res = subprocess.run([node, str(script), str(REPLAY_JS), str(log)], capture_output=True, text=True,
                         timeout=60, check=True)
    out = json.loads(res.stdout)
    hands = read_hands(log)
    assert len(out) == len(hands) == 9
    for h, events in enumerate(hands):
        truth = Replay(events)
        final = [(sorted(s.hand), [m[1] for m in s.melds], s.discards, s.money) for s in truth._seats]
        js_all = out[h][0]
        assert js_all["n"] == len(events)
        for i, st in enumerate(js_all["last"]):
            assert sorted(st["hand"]) == final[i][0]
            assert [m["tiles"] for m in st["melds"]] == final[i][1]
            assert st["discards"] == final[i][2] and st["money"] == final[i][3]
        for seat in range(4):  # a seat sees its own hand, only backs of the others'
            for i, st in enumerate(out[h][1 + seat]["afterDeal"]):
                assert all(t is not None for t in st["hand"]) == (i == seat) or not st["hand"]
                if i != seat:
                    assert set(st["hand"]) <= {None}


def test_static_replay_js_is_served_and_tab_present() -> None:
    html = (ROOT / "mjframework" / "web" / "index.html").read_text("utf-8")
    assert 'data-tab="replay-tab"' in html and '<script src="replay.js">' in html
    from mjframework.ui.serve import STATIC_FILES

    assert "replay.js" in STATIC_FILES


def test_replay_tab_in_headless_chromium(log: Path) -> None:
    sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright is not installed")
    import os

    exe = os.environ.get("MJ_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    if not exe:
        pytest.skip("no Chromium (install the chromium package, or set MJ_CHROMIUM)")
    import threading

    from mjframework.ui.serve import make_server

    server = make_server("127.0.0.1", 0, quiet=True)
    t = threading.Thread(target=server.serve_forever, daemon=True)
    t.start()
    try:
        with sync_api.sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=exe, args=["--headless", "--no-sandbox"])
            page = browser.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(f"http://127.0.0.1:{server.server_address[1]}/")
            page.click("button[data-tab='replay-tab']")
            page.set_input_files("#replay-file", str(log))
            page.wait_for_selector("#replay-table .replay-seat")
            assert "event 1/" in page.inner_text("#replay-pos")
            for _ in range(5):
                page.click("#replay-next")
            assert "event 6/" in page.inner_text("#replay-pos")
            page.click("#replay-prev")
            assert "event 5/" in page.inner_text("#replay-pos")
            page.select_option("#replay-seat", "1")
            page.click("#replay-next")
            page.click("#replay-next")
            page.click("#replay-next")
            assert page.locator(".replay-seat[data-seat='0'] .replay-hand [data-tile]").count() == 0
            assert page.locator(".replay-seat[data-seat='1'] .replay-hand [data-tile]").count() > 0
            assert not errors, errors
            browser.close()
    finally:
        server.shutdown()
        server.server_close()
        t.join(5)


FLOWER_SCRIPT = """
const R = require(process.argv[2]); const fs = require('fs');
const hands = R.parseLog(fs.readFileSync(process.argv[3], 'utf8'));
let bad = 0, flowers = 0, maxHand = 0;
for (const h of hands) for (const seat of [null, 0, 3]) for (const f of R.buildFrames(h, seat)) {
  if (f.narration.includes("undefined")) bad++;
  for (const s of f.seats) {
    maxHand = Math.max(maxHand, s.hand.length); flowers += s.flowers.length;
    for (const t of s.hand.concat(s.flowers)) if (t !== null && /undefined|\\?/.test(R.tileName(t))) bad++;
  }
}
process.stdout.write(JSON.stringify({hands: hands.length, bad, flowers, maxHand}));
"""


def test_replay_js_sets_flowers_aside_in_200_guobiao_hands(tmp_path: Path) -> None:
    """国标 deals flowers in most hands: each is named (春 … 菊, never `六undefined`) and laid
    aside, so no hand ever holds more than 14 tiles, in every view."""
    node = shutil.which("node")
    if not node:
        pytest.skip("no Node.js to run replay.js")
    log = tmp_path / "mcr.jsonl"
    r = CliRunner().invoke(main, ["simulate", "mcr", "-n", "200", "-s", "9", "--log", str(log)])
    assert r.exit_code == 0, r.output
    script = tmp_path / "fl.js"
    script.write_text(FLOWER_SCRIPT, "utf-8")
    res = subprocess.run([node, str(script), str(REPLAY_JS), str(log)], capture_output=True, text=True,
                         timeout=300, check=True)
    out = json.loads(res.stdout)
    assert out["hands"] == 200 and out["bad"] == 0 and out["flowers"] > 0 and out["maxHand"] <= 14
