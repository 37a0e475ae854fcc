"""红中麻将 · 转转 (docs/rules/hongzhong.md) beyond its conformance file: the house-rule options."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from mjframework.cli import main
from mjframework.rules.loader import load_ruleset
from mjframework.run.conformance import run_file

DATA = Path(__file__).parent / "data"


def test_the_dianpao_option_cases_pass() -> None:
    """tests/data/hongzhong-dianpao.yaml: the file sets `options: {dianpao: true}`."""
    results = run_file(DATA / "hongzhong-dianpao.yaml")
    assert len(results) >= 4 and all(r.status == "pass" for r in results), results


def test_zhuama_sets_how_many_are_turned_up() -> None:
    rs = load_ruleset("hongzhong", options={"zhuama": 4})
    assert rs.bonus_tiles is not None and rs.bonus_tiles.count == 4 and rs.bonus_tiles.most == 5
    assert load_ruleset("hongzhong").bonus_tiles.count == 2  # type: ignore[union-attr]
    assert load_ruleset("hongzhong", options={"dianpao": True}).win.discard


def test_the_rule_card_shows_the_bonus_tiles() -> None:
    r = CliRunner().invoke(main, ["doc", "hongzhong"])
    assert r.exit_code == 0, r.output
    assert "四红中" in r.output
