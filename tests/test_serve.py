"""`mj serve`: the JSON API over real HTTP, and the page end to end in headless Chromium."""

from __future__ import annotations

import json
import os
import shutil
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mjframework.ui.serve import make_server

ROOT = Path(__file__).resolve().parents[1]
HAND = "234m 345p 666s 789s 8p"


TOKEN = {"value": ""}


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    server = make_server("127.0.0.1", 0, quiet=True)
    TOKEN["value"] = server.token
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


def get(url: str) -> tuple[int, bytes, str]:
    try:
        with urllib.request.urlopen(url, timeout=30) as r:
            return r.status, r.read(), r.headers.get("Content-Type", "")
    except urllib.error.HTTPError as e:
        return e.code, e.read(), e.headers.get("Content-Type", "")


def post(url: str, body: Any) -> tuple[int, Any]:
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    headers = {"Content-Type": "application/json", "X-MJ-Token": TOKEN["value"]}
    req = urllib.request.Request(url, data, headers)
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, json.load(r)
    except urllib.error.HTTPError as e:
        return e.code, json.load(e)


# ---------------------------------------------------------------- API


def test_rulesets_list_ids_names_tiles_and_wildcard(base_url: str) -> None:
    status, body, ctype = get(base_url + "/api/rulesets")
    assert status == 200 and ctype.startswith("application/json")
    rs = {r["id"]: r for r in json.loads(body)["rulesets"]}
    assert {"changsha", "yongzhou-wangba"} <= set(rs)
    assert rs["changsha"]["name"] == "长沙麻将"
    assert rs["changsha"]["wildcard"] is False and rs["yongzhou-wangba"]["wildcard"] is True
    codes = [t["code"] for t in rs["changsha"]["tiles"]]
    assert len(codes) == 27 and "3p" in codes and "1z" not in codes
    assert {"code": "3p", "name": "三筒"}.items() <= rs["changsha"]["tiles"][11].items()


def test_score_changsha_self_draw(base_url: str) -> None:
    status, r = post(base_url + "/api/score", {
        "ruleset": "changsha", "hand": HAND, "win_tile": "8p", "seat": 3, "win_by": "self_draw"})
    assert status == 200, r
    assert r["win"] is True
    assert [p["name"] for p in r["patterns"]] == ["平胡"]
    assert r["points"] == 10
    assert [p["amount"] for p in r["payments"]] == [-20, -10, -10, 40]
    assert r["payments"][3]["name"] == "上家"
    assert r["reading"]["text"] == "234m 345p 88p 666s 789s"
    pair = next(g for g in r["reading"]["groups"] if g["kind"] == "pair")
    assert [t["name"] for t in pair["tiles"]] == ["八筒", "八筒"]
    assert not any(t["wild"] for g in r["reading"]["groups"] for t in g["tiles"])


def test_score_marks_wildcards_in_the_reading(base_url: str) -> None:
    # 王霸 with 5m wild: the 5m stands in for the missing 9s.
    status, r = post(base_url + "/api/score", {
        "ruleset": "yongzhou-wangba", "hand": "234m 345p 666s 78s 5m 8p", "win_tile": "8p",
        "wildcard": "5m", "seat": 0})
    assert status == 200, r
    assert r["wildcard"]["code"] == "5m"
    flags = [(t["code"], t["wild"]) for g in r["reading"]["groups"] for t in g["tiles"]]
    assert any(wild for _, wild in flags), flags


def test_bad_hand_is_400_and_the_server_keeps_answering(base_url: str) -> None:
    status, r = post(base_url + "/api/score", {
        "ruleset": "changsha", "hand": HAND + " 8p", "win_tile": "8p", "seat": 3})
    assert status == 400
    assert "14 tiles" in r["error"]
    status, r = post(base_url + "/api/score", {"ruleset": "changsha", "hand": "234x", "win_tile": "8p"})
    assert status == 400 and "column" in r["error"]
    status, r = post(base_url + "/api/score", {"ruleset": "nope", "hand": HAND, "win_tile": "8p"})
    assert status == 400 and "changsha" in r["error"]
    status, r = post(base_url + "/api/score", b"{not json")
    assert status == 400 and "JSON" in r["error"]
    status, r = post(base_url + "/api/score", {
        "ruleset": "changsha", "hand": HAND, "win_tile": "8p", "win_by": "discard"})
    assert status == 400 and "discarder" in r["error"]
    status, r = post(base_url + "/api/score", {
        "ruleset": "changsha", "hand": HAND, "win_tile": "8p", "seat": 3})
    assert status == 200 and r["win"]


def test_validate_reports_problems_with_line_and_column(base_url: str) -> None:
    status, body, _ = get(base_url + "/api/ruleset-source?ruleset=changsha")
    src = json.loads(body)["yaml"]
    status, r = post(base_url + "/api/validate", {"yaml": src, "name": "changsha.yaml"})
    assert status == 200 and r["ok"] and r["problems"] == [], r
    lines = src.splitlines()
    n = next(i for i, line in enumerate(lines) if line.startswith("name:"))
    lines.insert(n, "players: four")  # players comes from a fragment; override it badly
    status, r = post(base_url + "/api/validate", {"yaml": "\n".join(lines) + "\n", "name": "changsha.yaml"})
    assert status == 200 and not r["ok"]
    p = r["problems"][0]
    assert p["line"] == n + 1 and p["column"] >= 1 and p["in_editor"]
    assert p["text"].startswith(f"changsha.yaml:{n + 1}:")
    assert "players" in p["text"]
    status, r = post(base_url + "/api/validate", {"yaml": "id: [\n"})
    assert status == 200 and not r["ok"] and r["problems"][0]["line"]


def test_static_page_and_rule_card(base_url: str) -> None:
    status, body, ctype = get(base_url + "/")
    assert status == 200 and ctype.startswith("text/html")
    for needle in (b'id="palette"', b'id="patterns"', b'id="payments"', b'id="error"', b'id="editor"'):
        assert needle in body
    assert get(base_url + "/app.js")[0] == 200 and get(base_url + "/style.css")[0] == 200
    status, body, ctype = get(base_url + "/api/card?ruleset=changsha")
    assert status == 200 and ctype.startswith("text/html") and "长沙麻将".encode() in body
    assert get(base_url + "/api/card?ruleset=../../etc/passwd")[0] == 400
    assert get(base_url + "/nope")[0] == 404


# ---------------------------------------------------------------- browser

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


def _chromium() -> str:
    exe = os.environ.get("MJ_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    if not exe:
        pytest.skip("no Chromium (install the chromium package, or set MJ_CHROMIUM)")
    return exe


def test_playground_in_headless_chromium(base_url: str) -> None:
    sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright is not installed")
    exe = _chromium()
    with sync_api.sync_playwright() as pw:
        try:
            browser = pw.chromium.launch(executable_path=exe, args=CHROMIUM_ARGS)
        except sync_api.Error as e:
            pytest.skip(f"Chromium at {exe} would not start: {e.message.splitlines()[0]}")
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 1000})
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(base_url + "/?ruleset=changsha")
            page.wait_for_selector("body[data-ready='1']")
            assert page.locator("#palette [data-tile='3p']").inner_text() == "三筒"
            # 13 tiles, then the winning tile: the last tile clicked is the winning tile.
            held = "2m 3m 4m 3p 4p 5p 6s 6s 6s 7s 8s 9s 8p"
            for code in [*held.split(" "), "8p"]:
                page.click(f"#palette [data-tile='{code}']")
            assert page.input_value("#win-tile") == "8p"
            assert page.input_value("#hand-text") == held
            # Take the 9s out of the hand and click it again: it becomes the winning tile
            # and the 8p joins the hand (234m 345p 666s 78s 88p + 9s, still 平胡).
            page.click("#hand .tile[data-tile='9s']:not(.win)")
            page.click("#palette [data-tile='9s']")
            assert page.input_value("#win-tile") == "9s"
            assert page.locator("#hand .tile").count() == 14
            page.select_option("#seat", "3")
            page.select_option("#win-by", "self_draw")
            page.click("#score-btn")
            page.wait_for_selector("#patterns tr")
            assert page.locator("#patterns tr").first.get_attribute("data-pattern") == "平胡"
            amounts = page.locator("#payments tr").evaluate_all("rows => rows.map(r => r.dataset.amount)")
            assert amounts == ["-20", "-10", "-10", "40"]
            assert page.inner_text("#points") == "10"
            assert page.locator("#reading .group").count() == 5
            assert page.is_hidden("#error")
            art = ROOT / "test-artifacts"
            art.mkdir(exist_ok=True)
            page.screenshot(path=str(art / "playground.png"), full_page=True)

            # A bad hand shows the server's message; the page keeps working.
            page.click("#hand .tile[data-tile='2m']")
            page.click("#score-btn")
            page.wait_for_selector("#error:not([hidden])")
            assert "tiles" in page.inner_text("#error")

            # The editor checks YAML as it is typed and lists located errors.
            page.click(".tab[data-tab='editor-tab']")
            page.wait_for_function("document.querySelector('#editor').value.includes('name:')")
            src = page.input_value("#editor")
            page.fill("#editor", src.replace("\nname:", "\nplayers: four\nname:", 1))
            page.wait_for_selector("#problems li[data-line]")
            assert "players" in page.inner_text("#problems")
            assert errors == []
        finally:
            browser.close()
