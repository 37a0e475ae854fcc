"""The playground's replay tab (mjframework/web/replay.js).

Its table logic runs under Node (when installed) against logs from `mj
simulate` and must agree with `mj replay`'s (mjframework.run.replay); the tab
itself is driven in headless Chromium (skipped where there is none).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as hs

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
            # the events in the table's words (POST /api/narrate), in the page's language (中文)
            page.wait_for_function("document.querySelector('#replay-pos').textContent.includes(':')")
            said = _said(page, 40)
            assert any(" 打 " in x for x in said), said  # "东家 打 三筒", not "seat 0 discards 三筒"
            assert not any("seat " in x or "discards" in x for x in said), said
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
            # ?lang=en: the same events said in English, tiles too
            page.goto(f"http://127.0.0.1:{server.server_address[1]}/?lang=en")
            page.click("button[data-tab='replay-tab']")
            page.set_input_files("#replay-file", str(log))
            page.wait_for_function("document.querySelector('#replay-pos').textContent.includes(':')")
            said = _said(page, 40)
            assert any(" discards " in x for x in said), said
            assert not any(re.search(r"[\u4e00-\u9fff]", x.partition(": ")[2]) for x in said
                           if "xuezhan" not in x and "血战" not in x), said  # (the ruleset's name stays)
            assert not errors, errors
            browser.close()
    finally:
        server.shutdown()
        server.server_close()
        t.join(5)


def _said(page: object, n: int) -> list[str]:
    """The narration of the first ``n`` events, stepping with the next button (and back)."""
    out = []
    for _ in range(n):
        out.append(page.inner_text("#replay-pos"))  # type: ignore[attr-defined]
        page.click("#replay-next")  # type: ignore[attr-defined]
    for _ in range(n):
        page.click("#replay-prev")  # type: ignore[attr-defined]
    return out


# -- the narration endpoint (POST /api/narrate): the tables' words, safe against doctored logs --

def _hand(log: Path, i: int = 0) -> list[dict]:
    return read_hands(log)[i]


def test_narrate_says_each_event_as_the_tables_do(log: Path) -> None:
    from mjframework.ui.human import narration
    from mjframework.ui.serve import narrate

    events = _hand(log)
    zh = narrate({"events": events, "seat": 1})
    assert zh["ruleset"] == "sichuan-xuezhan" and len(zh["lines"]) == len(events)
    assert zh["lines"] == narration(events, 1, 4)  # the Announcer's own lines, seat 1's view
    assert any(x.startswith("你 打 ") for x in zh["lines"])
    en = narrate({"events": events, "seat": None, "lang": "en"})["lines"]
    assert any(" discards " in x for x in en) and not any(" 打 " in x for x in en)
    # a seat's view: another seat's drawn tile is not named
    draws = [(e, x) for e, x in zip(events, zh["lines"], strict=True)
             if e["type"] == "draw" and e["seat"] == 2]
    assert draws and all(e["tile"] not in x and tile_name_of(e["tile"]) not in x for e, x in draws)


def tile_name_of(code: str) -> str:
    from mjframework.core.tiles import parse_tile, tile_name

    return tile_name(parse_tile(code))


@pytest.mark.parametrize(("body", "message"), [
    ([], "JSON object"),
    ({"events": "x"}, "events"),
    ({"events": [1, 2]}, "events[0]"),
    ({"events": [{"type": "draw"}] * 10_001}, "at most"),
    ({"events": [], "lang": "fr"}, "lang"),
    ({"events": [], "seat": 7}, "seat"),
    ({"events": [], "seat": True}, "seat"),
])
def test_narrate_refuses_what_is_not_a_hand(body: object, message: str) -> None:
    from mjframework.ui.serve import BadRequest, narrate

    with pytest.raises(BadRequest, match=re.escape(message)):
        narrate(body)


def test_narrate_never_opens_a_path_from_the_log(log: Path, tmp_path: Path, monkeypatch) -> None:
    """The ruleset is looked up by id among the known ones: a log naming a path (or a ruleset
    file beside it) is narrated without any ruleset, and no file is read for it."""
    import builtins

    from mjframework.ui.serve import narrate

    secret = tmp_path / "secret.yaml"
    secret.write_text("format: 1\nid: secret\nname: SECRET-NAME\nextends: mcr\n", "utf-8")
    opened: list[str] = []
    real_open = builtins.open

    def watching(file, *a, **kw):  # type: ignore[no-untyped-def]
        opened.append(str(file))
        return real_open(file, *a, **kw)

    events = _hand(log)
    for rid in (str(secret), "../../../etc/passwd", "/etc/passwd", "secret"):
        doctored = [dict(events[0], ruleset=rid), *events[1:]]
        monkeypatch.setattr(builtins, "open", watching)
        out = narrate({"events": doctored, "seat": 0})
        monkeypatch.setattr(builtins, "open", real_open)
        assert out["ruleset"] is None and len(out["lines"]) == len(events)
        assert not any(str(secret) in x or "passwd" in x for x in opened), opened
        assert not any("SECRET" in x for x in out["lines"])


def test_narrate_says_doctored_events_without_failing(log: Path) -> None:
    from mjframework.ui.serve import narrate

    events = _hand(log)
    doctored = [dict(e) for e in events]
    doctored[3] = {"type": "discard"}  # fields missing
    doctored[4] = dict(doctored[4], seat=99, tile="zz")  # a seat and a tile that are no such things
    doctored[5] = {"type": "win", "seat": "x", "tile": [1], "patterns": {"a": 1}}
    doctored.insert(6, {"type": "no-such-event", "junk": [[[]]]})
    out = narrate({"events": doctored, "seat": 2, "lang": "en"})["lines"]
    assert len(out) == len(doctored)
    assert out[3] == "[discard]" and out[5] == "[win]"
    assert any(" discards " in x for x in out[7:])  # the rest still said


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(junk=hs.lists(hs.dictionaries(hs.sampled_from(
    ["type", "seat", "tile", "tiles", "hands", "kind", "from_seat", "payments", "items", "dealer", "hand",
     "patterns", "result", "next_dealer", "ruleset", "seed", "wildcard", "hidden"]),
    hs.recursive(hs.none() | hs.booleans() | hs.integers(-9, 99) | hs.sampled_from(
        ["draw", "discard", "deal", "win", "claim", "kong", "settlement", "hand_end", "hand_start", "1m",
         "5z", "9f", "zz", "", "mcr", "changsha"]),
        lambda c: hs.lists(c, max_size=4) | hs.dictionaries(hs.sampled_from(["a", "seat", "tile"]), c,
                                                              max_size=3), max_leaves=8), max_size=8),
    max_size=12))
def test_narrate_answers_any_junk_with_lines_or_a_clear_refusal(junk: list[dict]) -> None:
    from mjframework.ui.serve import BadRequest, narrate

    try:
        out = narrate({"events": junk, "seat": None, "lang": "en"})
    except BadRequest as e:
        assert "events[" in str(e) or "seat" in str(e)
    else:
        assert len(out["lines"]) == len(junk) and all(isinstance(x, str) for x in out["lines"])


def test_narrate_over_http_is_limited_like_the_other_endpoints(log: Path) -> None:
    import threading
    import urllib.error
    import urllib.request

    from mjframework.ui.serve import MAX_BODY, make_server

    server = make_server("127.0.0.1", 0, quiet=True)
    t = threading.Thread(target=server.serve_forever, daemon=True)
    t.start()
    url = f"http://127.0.0.1:{server.server_address[1]}/api/narrate"

    def post(data: bytes, token: str) -> tuple[int, dict]:
        req = urllib.request.Request(url, data, {"Content-Type": "application/json", "X-MJ-Token": token})
        try:
            with urllib.request.urlopen(req, timeout=60) as r:
                return r.status, json.load(r)
        except urllib.error.HTTPError as e:
            return e.code, json.load(e)

    try:
        events = _hand(log)
        status, out = post(json.dumps({"events": events, "seat": 0}).encode(), server.token)
        assert status == 200 and len(out["lines"]) == len(events)
        assert post(json.dumps({"events": events}).encode(), "wrong")[0] == 403
        status, out = post(b"{" * 100_000, server.token)
        assert status == 400 and "JSON" in out["error"]
        # a body over MAX_BODY is refused from its Content-Length, before it is read
        import http.client

        c = http.client.HTTPConnection("127.0.0.1", server.server_address[1], timeout=60)
        c.putrequest("POST", "/api/narrate")
        for k, v in (("Content-Type", "application/json"), ("X-MJ-Token", server.token),
                     ("Content-Length", str(MAX_BODY + 1))):
            c.putheader(k, v)
        c.endheaders()
        r = c.getresponse()
        assert r.status == 413 and "at most" in json.load(r)["error"]
        c.close()
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
