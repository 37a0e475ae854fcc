"""The browser table (mjframework/web/play.*) in headless Chromium against `mj serve --rooms`.

Every shipped ruleset is played to its settlement from the page (the setup
form, keys and buttons), the settlement read and replayed; two people in two
browser contexts play a room, one closing the tab and rejoining mid-hand; the
hand is then in `mj records` and its export replays. At phone width the hand
fits the screen. Skipped without Playwright, Chromium or the web extra.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

pytest.importorskip("starlette", reason="the 'web' extra (starlette) is not installed")
pytest.importorskip("uvicorn", reason="the 'web' extra (uvicorn) is not installed")
sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright is not installed")

from mjframework.cli import main  # noqa: E402
from mjframework.rules.loader import available_rulesets  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]
STEP = 30_000  # ms: a guard against a hang only; each loop is bounded by a count of moves
READY = ("document.querySelector('#actions button:not([disabled])')"
         " || document.querySelector('#hand .mj-tile.can')"
         " || !document.querySelector('#over').hidden")


def _chromium() -> str:
    exe = os.environ.get("MJ_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    if not exe:
        pytest.skip("no Chromium (install the chromium package, or set MJ_CHROMIUM)")
    return exe


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    records = tmp_path_factory.mktemp("web") / "records.sqlite3"
    proc = subprocess.Popen([sys.executable, "-m", "mjframework", "serve", "--rooms", "--port", "0", "-q",
                             "--bot-pause", "0", "--records", str(records)],
                            stderr=subprocess.PIPE, text=True, cwd=ROOT,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.stderr is not None
    line = proc.stderr.readline()
    m = re.search(r"(http://\S+?/)\s", line)
    assert m, line
    try:
        yield m.group(1), records
    finally:
        proc.terminate()
        proc.wait(30)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    exe = _chromium()
    with sync_api.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=exe, args=ARGS)
        yield b
        b.close()


LOOK = ("() => ({over: !document.querySelector('#over').hidden, decision: document.body.dataset.decision,"
        " can: !!document.querySelector('#hand .mj-tile.can'),"
        " kinds: [...document.querySelectorAll('#actions button:not([disabled])')]"
        ".map(b => b.dataset.kind)})")


def _act(page: Any) -> bool:
    """Make this page's next move (keys where the page offers them); False once the hand is over."""
    page.wait_for_function(READY, timeout=STEP)
    return _act_once(page)


def _act_once(page: Any) -> bool:
    """The move for what the page shows now (one look: a browser round trip costs)."""
    look = page.evaluate(LOOK)
    if look["over"]:
        return False
    kinds = look["kinds"]
    if "suggest" in kinds:  # an exchange: the suggested tiles, then 换 (Enter)
        page.keyboard.press("s")
        page.keyboard.press("Enter")
    elif "win" in kinds:
        page.keyboard.press("h")
    elif "pung" in kinds:
        page.keyboard.press("p")
    elif "pass" in kinds:
        page.keyboard.press("x")
    elif look["can"]:  # a discard: the drawn tile (← then Enter)
        page.keyboard.press("ArrowLeft")
        page.keyboard.press("Enter")
    elif kinds:
        page.click("#actions button:not([disabled])")
    _moved(page, look["decision"])
    return True


def _moved(page: Any, before: str) -> None:
    """Wait until the decision answered is gone (a new one, none, or the hand's end)."""
    page.wait_for_function(f"document.body.dataset.decision !== {json.dumps(before)} || "
                           "!document.querySelector('#over').hidden", timeout=STEP)


def _start(page: Any, base: str, rid: str, humans: int = 1, seed: int = 7) -> None:
    page.goto(base + "play")
    page.wait_for_selector("#ruleset option", state="attached")
    page.select_option("#ruleset", rid)
    page.select_option("#humans", str(humans))
    page.fill("#hands", "1")
    page.fill("#seed", str(seed))
    page.click("#start")


@pytest.mark.parametrize("rid", sorted(available_rulesets()))
def test_one_person_plays_a_hand_of_every_ruleset_in_the_browser(rid: str, server: tuple[str, Path],
                                                                 browser: Any) -> None:
    base, _ = server
    page = browser.new_page(viewport={"width": 1200, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    _start(page, base, rid)
    page.wait_for_selector("#hand .mj-tile", timeout=STEP)
    assert "/play?room=" in page.url
    # tiles are drawn faces with their names (万 as 萬 under its numeral)
    names = page.eval_on_selector_all("#hand .mj-tile", "els => els.map(e => e.getAttribute('aria-label'))")
    face = re.compile(r"[一二三四五六七八九][万筒索]|[东南西北白发中]")
    assert names and all(face.fullmatch(n) for n in names), names
    for _ in range(500):
        if not _act(page):
            break
    assert page.is_visible("#over")
    lines = page.inner_text("#over-lines")
    assert "本手" in lines and "总计" in page.inner_text("#over-totals")
    if rid == "mcr":  # 国标: seat and prevalent wind, flowers laid aside and shown
        assert "圈风" in page.inner_text("#info")
        assert page.locator("#me-head .wind").count() == 1
        assert page.locator(".meld.flowers .mj-tile").count() > 0
    elif rid == "changsha":  # no winds in the ruleset: neither 圈风 nor a seat's wind
        assert "圈风" not in page.inner_text("#info") and page.locator(".wind").count() == 0
    page.keyboard.press("r")  # the replay, at the hand's end; ← steps back
    page.wait_for_selector("#replay .rp-seat")
    last = page.inner_text("#rp-pos")
    page.keyboard.press("ArrowLeft")
    assert page.inner_text("#rp-pos") != last
    # the replay shows the other seats' concealed tiles face down
    backs = page.locator(".rp-seat[data-seat='1'] .tiles .mj-tile.back").count()
    assert backs > 0 or rid == "sichuan-xuezhan"  # (血战: seat 1 may have won and shown its hand)
    # the room's kept hands are listed under the settlement and replay from the records
    page.keyboard.press("Escape")
    page.click("#room-hands button.hand-replay")
    page.wait_for_selector("#replay .rp-seat")
    assert page.inner_text("#rp-pos").startswith(last.split(":")[0])
    assert not errors, errors
    page.close()


def test_two_people_in_two_browsers_one_rejoins_and_the_hand_is_kept(server: tuple[str, Path],
                                                                    browser: Any) -> None:
    base, records = server
    for rid, seed in (("changsha", 3), ("sichuan-xuezhan", 4)):
        host = browser.new_context()
        page = host.new_page()
        _start(page, base, rid, humans=2, seed=seed)
        page.wait_for_selector("#invite-list a.invite")
        links = page.eval_on_selector_all("#invite-list a.invite", "els => els.map(e => e.href)")
        assert len(links) == 2 and len(set(links)) == 2
        contexts = [browser.new_context(), browser.new_context()]
        pages = [c.new_page() for c in contexts]
        for p, link in zip(pages, links, strict=True):
            p.goto(link)
        errors: list[str] = []
        for p in pages:
            p.on("pageerror", lambda e, errors=errors: errors.append(str(e)))
        moves = 0
        rejoined = False
        done = [False, False]
        for _ in range(2000):
            if all(done):
                break
            for i, p in enumerate(pages):
                if done[i]:
                    continue
                ready = p.evaluate(f"!!({READY})")
                if not ready:
                    continue
                if p.is_visible("#over"):
                    done[i] = True
                    continue
                _act_once(p)
                moves += 1
                if moves == 6 and not rejoined:  # the second person closes the tab mid-hand, then comes back
                    pages[1].close()
                    pages[1] = contexts[1].new_page()
                    pages[1].goto(links[1])
                    pages[1].wait_for_selector("#hand .mj-tile", timeout=STEP)
                    rejoined = True
            else:
                pages[0].wait_for_timeout(20)
        assert all(done) and rejoined and not errors, (done, errors)
        totals = [p.inner_text("#over-totals") for p in pages]
        assert all("总计" in t for t in totals)
        for c in (*contexts, host):
            c.close()
        # the hand is in the records, with both people, and its export replays
        r = CliRunner().invoke(main, ["records", "list", "--records", str(records), "--ruleset", rid,
                                      "--json"])
        rows = [json.loads(x) for x in r.output.splitlines()]
        row = next(x for x in rows if [s["kind"] for s in x["seats"]][:2] == ["human", "human"])
        out = records.parent / f"{rid}.jsonl"
        r = CliRunner().invoke(main, ["records", "export", str(row["id"]), "--records", str(records),
                                      "-o", str(out)])
        assert r.exit_code == 0, r.output
        r = CliRunner().invoke(main, ["replay", str(out), "--all"])
        assert r.exit_code == 0 and "hand ends" in r.output
        # the totals the pages showed are the kept settlement
        me = [int(x) for x in re.findall(r"你 ([+-]\d+)", totals[0])][:1]
        assert me == [row["deltas"][0]]


@pytest.mark.parametrize(("rid", "seed", "held", "least"), [("mcr", 9, 14, 20), ("taiwan-16", 5, 17, 18)])
def test_the_hand_fits_a_phone_screen(rid: str, seed: int, held: int, least: int, server: tuple[str, Path],
                                      browser: Any, tmp_path: Path) -> None:
    """A turn's hand on a phone (390 px): 14 tiles (国标), 17 (taiwan-16) — all in view, one row."""
    base, _ = server
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True,
                              has_touch=True)
    page = ctx.new_page()
    _start(page, base, rid, seed=seed)
    page.wait_for_function("document.querySelector('#hand .mj-tile.can')", timeout=STEP)
    boxes = page.eval_on_selector_all("#hand .mj-tile",
                                      "els => els.map(e => e.getBoundingClientRect().toJSON())")
    assert len(boxes) == held
    assert all(b["right"] <= 390 and b["width"] >= least for b in boxes), boxes  # all in view, readable
    assert len({round(b["top"]) for b in boxes}) == 1  # on one row
    page.screenshot(path=str(tmp_path / f"phone-{rid}.png"))
    ctx.close()


def test_the_table_in_english_and_its_language_switch(server: tuple[str, Path], browser: Any) -> None:
    """``?lang=en``: the page's labels, the narration and the settlement in English; the header's
    switch reopens the same seat in Chinese (it rejoins)."""
    base, _ = server
    page = browser.new_page(viewport={"width": 1200, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(base + "play?lang=en")
    page.wait_for_selector("#ruleset option", state="attached")
    assert page.inner_text("#lang-switch") == "中文"
    page.select_option("#ruleset", "mcr")
    page.fill("#hands", "1")
    page.fill("#seed", "7")
    page.click("#start")
    page.wait_for_selector("#hand .mj-tile", timeout=STEP)
    assert "lang=en" in page.url
    page.wait_for_function("document.querySelector('#info').textContent.includes('round wind')", timeout=STEP)
    assert "dealer" in page.inner_text("#info")
    for _ in range(500):
        if not _act(page):
            break
    assert page.is_visible("#over")
    assert "discards" in page.inner_text("#log")
    assert "this hand" in page.inner_text("#over-lines")
    assert page.inner_text("#over-totals").startswith("total")
    # the replay says each event in the table's words, in the page's language (its last: the next dealer)
    page.keyboard.press("r")
    page.wait_for_selector("#replay .rp-seat")
    said = page.inner_text("#rp-pos")
    assert re.search(r"next dealer: (You|Right|Across|Left)", said), said
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    assert not re.search(r"[\u4e00-\u9fff]", page.inner_text("#rp-pos")), page.inner_text("#rp-pos")
    page.keyboard.press("Escape")
    page.click("#room-hands button.hand-replay")  # the records' copy: the same words
    page.wait_for_selector("#replay .rp-seat")
    assert re.search(r"next dealer: (You|Right|Across|Left)", page.inner_text("#rp-pos"))
    page.keyboard.press("Escape")
    page.click("#lang-switch")  # the same seat, in Chinese
    page.wait_for_function("document.querySelector('#over-lines') && "
                           "document.querySelector('#over-lines').textContent.includes('本手')", timeout=STEP)
    assert "lang=zh" in page.url and page.inner_text("#lang-switch") == "English"
    page.keyboard.press("r")
    page.wait_for_selector("#replay .rp-seat")
    assert "下一手庄家: " in page.inner_text("#rp-pos")
    assert not errors, errors
    page.close()
