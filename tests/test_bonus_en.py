"""A ruleset gives English for its bonus tiles' own words (``bonus_tiles.en``: ``name``,
``says``; docs/pattern-language.md, "Their English"), as a pattern's ``en`` names it: the
log keeps the words as written, ``--lang en`` narrates them in English."""

from __future__ import annotations

from pathlib import Path

import yaml
from click.testing import CliRunner

from mjframework.cli import main
from mjframework.rules.loader import check_file, load_ruleset
from mjframework.ui.human import ruleset_words
from mjframework.ui.words import Words

RS = Path(__file__).parent / "rulesets"


def test_changsha_birds_are_said_in_english() -> None:
    rs = load_ruleset("changsha")
    assert rs.bonus_tiles is not None
    assert rs.bonus_tiles.en == {"鸟": "birds", "起手扎鸟": "opening birds", "扎鸟": "birds"}
    words = Words("en", ruleset_words(rs))
    assert words("扎鸟  一索→北家, 五索→北家") == "birds  1s→North, 5s→North"
    assert words("起手扎鸟  三万→你") == "opening birds  3m→You"
    assert Words("zh", ruleset_words(rs))("扎鸟  一索→北家") == "扎鸟  一索→北家"


def test_the_line_mode_in_english_says_the_birds_in_english() -> None:
    r = CliRunner().invoke(main, ["play", "changsha", "--plain", "--watch", "--seed", "3", "--no-records",
                                  "--lang", "en"])
    assert r.exit_code == 0, r.output
    assert "birds  " in r.output and "扎鸟" not in r.output and "鸟" not in r.output


def _bonus(tmp_path: Path, bonus: dict[str, object]) -> Path:
    f = tmp_path / "b.yaml"
    f.write_text(yaml.safe_dump({"format": 1, "id": "t", "name": "t", "extends": str(RS / "base-108.yaml"),
                                 "bonus_tiles": bonus}, allow_unicode=True), encoding="utf-8")
    return f


def test_without_en_the_words_are_kept_whole(tmp_path: Path) -> None:
    rs, problems = check_file(_bonus(tmp_path, {"name": "马", "count": 2, "says": {"win": "买马"}}))
    assert rs is not None and not problems, problems
    assert Words("en", ruleset_words(rs))("买马  一索→北家") == "买马  1s→North"


def test_en_for_a_text_says_does_not_give_is_a_located_error(tmp_path: Path) -> None:
    rs, problems = check_file(_bonus(tmp_path, {"name": "马", "count": 2, "en": {"says": {"win": "horses"}}}))
    assert rs is None
    assert any(p.path[:3] == ("bonus_tiles", "en", "says") and "`says`" in str(p) for p in problems), problems
    rs, problems = check_file(_bonus(tmp_path, {"name": "马", "count": 2, "en": {"nom": "horse"}}))
    assert rs is None and any("nom" in str(p) for p in problems), problems
