"""``mj diff``: the semantic difference between two rulesets."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

from click.testing import CliRunner, Result

from mjframework.cli import main

ROOT = Path(__file__).resolve().parents[1]
HD = str(ROOT / "rulesets" / "yongzhou-huandiao.yaml")
WB = str(ROOT / "rulesets" / "yongzhou-wangba.yaml")


def mj(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def ok(r: Result) -> str:
    assert r.exit_code == 0, (r.output, r.exception)
    assert "Traceback" not in r.output
    return r.stdout


def diff_json(a: str, b: str) -> dict:
    return json.loads(ok(mj("diff", a, b, "--json")))


def changes(d: dict, name: str) -> dict[str, tuple]:
    (entry,) = [c for c in d["patterns"]["changed"] if c["name"] == name]
    return {c["path"]: (c["old"], c["new"]) for c in entry["changes"]}


def section(d: dict, name: str) -> dict[str, tuple]:
    (entry,) = [s for s in d["sections"] if s["name"] == name]
    return {c["path"]: (c["old"], c["new"]) for c in entry["changes"]}


def test_huandiao_vs_wangba_json() -> None:
    d = diff_json(HD, WB)
    added = {p["name"] for p in d["patterns"]["added"]}
    removed = {p["name"] for p in d["patterns"]["removed"]}
    assert "基础牌型" in added and "基础牌型" not in removed
    assert {"单换调", "双换调王", "三换调王", "自摸", "烂牌"} <= removed
    assert not added & removed
    changed = {c["name"] for c in d["patterns"]["changed"]}
    assert changed == {"七巧对", "硬巧对"}
    assert changes(d, "七巧对") == {"points": (20, 2), "require.wildcards": ({"min": 1}, None)}
    assert changes(d, "硬巧对") == {"points": (40, 8), "excludes": (None, ["七巧对"])}
    assert section(d, "scoring")["scoring.combine"] == ("highest", "sum")
    assert section(d, "wildcard") == {"wildcard.stand_ins[0].when": ("wildcard_suited", "always")}
    assert section(d, "win")["win.discard"] == (False, True)
    assert section(d, "plugins") == {"plugins.calls": (section(d, "plugins")["plugins.calls"][0], None)}
    assert "scoring.kongs.kong" in section(d, "scoring")
    # The shared table (wall, break, deal, tiles, claims) is the same.
    names = {s["name"] for s in d["sections"]}
    assert not names & {"tiles", "wall", "break", "deal", "claims", "shapes"}


def test_huandiao_vs_wangba_text() -> None:
    out = ok(mj("diff", HD, WB))
    assert "+ 基础牌型 (1)" in out
    assert "- 单换调 (30)" in out
    assert "points: 20 → 2" in out
    assert "points: 40 → 8" in out
    assert "require.wildcards: ≥1 → (absent)" in out
    assert "scoring.combine: highest → sum" in out
    assert "wildcard.stand_ins[0].when: wildcard_suited → always" in out
    assert "win.discard: false → true" in out
    assert "plugins.calls: removed" in out
    # Sections come in a fixed order.
    assert out.index("\npatterns") < out.index("\nwildcard") < out.index("\nscoring") < out.index("\nplugins")


def test_identical() -> None:
    assert "no differences" in ok(mj("diff", "changsha", "changsha"))
    assert "no differences" in ok(mj("diff", WB, "yongzhou-wangba"))
    d = diff_json("changsha", "changsha")
    assert d["identical"] is True
    assert d["patterns"] == {"added": [], "removed": [], "changed": []}
    assert d["sections"] == []


def test_planted_changes(tmp_path: Path) -> None:
    f = tmp_path / "variant.yaml"
    f.write_text(textwrap.dedent("""\
        format: 1
        id: changsha-variant
        name: 长沙麻将
        description: 108 tiles, 2-5-8 pairs, small and big wins, 扎鸟.
        extends: changsha
        patterns:
          - name: 碰碰胡
            shape: standard
            require: {sequences: 0}
            tier: big
            points: 80
          - name: 全求人
            shape: standard
            require: {claimed_melds: {min: 3}}
            tier: big
            points: 60
          - name: 门清
            shape: standard
            require: {claimed_melds: 0}
            tier: big
            points: 60
        plugins:
          kaigang: null
        """), encoding="utf-8")
    d = diff_json("changsha", str(f))
    assert d["patterns"]["removed"] == []
    assert [p["name"] for p in d["patterns"]["added"]] == ["门清"]
    assert d["patterns"]["added"][0]["points"] == 60
    assert {c["name"]: {x["path"]: (x["old"], x["new"]) for x in c["changes"]}
            for c in d["patterns"]["changed"]} == {
        "碰碰胡": {"points": (60, 80)},
        "全求人": {"require.claimed_melds": (4, {"min": 3})},
    }
    assert "order" not in d["patterns"]
    assert d["sections"] == [{"name": "plugins", "changes": [
        {"path": "plugins.kaigang", "old": {"dice": 2}, "new": None}]}]
    out = ok(mj("diff", "changsha", str(f)))
    assert "~ 碰碰胡 (re-pointed)" in out
    assert "~ 全求人 (redefined)" in out
    assert "require.claimed_melds: 4 → ≥3" in out
    assert "+ 门清 (60)" in out
    assert "plugins.kaigang: removed (was {dice: 2})" in out


def test_defaults_and_comments_do_not_count(tmp_path: Path) -> None:
    f = tmp_path / "same.yaml"
    f.write_text(textwrap.dedent("""\
        # a comment
        format: 1
        id: other-id
        name: 长沙麻将
        description: 108 tiles, 2-5-8 pairs, small and big wins, 扎鸟.
        extends: changsha
        tiles: {copies: 4}
        scoring: {dealer_bonus: 10, combine: sum}
        """), encoding="utf-8")
    assert "no differences" in ok(mj("diff", "changsha", str(f)))


def test_errors(tmp_path: Path) -> None:
    r = mj("diff", "no-such-ruleset", "changsha")
    assert r.exit_code == 1
    assert "no-such-ruleset" in r.output and "Traceback" not in r.output
    bad = tmp_path / "bad.yaml"
    bad.write_text("format: 1\nid: bad\nextends: changsha\nscoring: {combine: nope}\n", encoding="utf-8")
    r = mj("diff", "changsha", str(bad))
    assert r.exit_code == 1
    assert "combine" in r.output and "Traceback" not in r.output
