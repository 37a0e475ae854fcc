"""The code stays ruff-clean and the engine stays generic."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_ruff_clean() -> None:
    ruff = shutil.which("ruff")
    if ruff is None:
        pytest.skip("ruff is not installed (pip install '.[test]')")
    proc = subprocess.run([ruff, "check", "mjframework", "plugins", "tests", "benchmarks"],
                          capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_engine_names_no_variant_and_no_pattern() -> None:
    """Variant ids and pattern names belong in rulesets/ and plugins/, never in the engine."""
    # Variant ids, and the words of what plugins do (birds, the roaming last tile,
    # the dice-drawn kong, opening wins): the engine must need none of them.
    names = {"changsha", "huandiao", "wangba", "yongzhou", "扎鸟", "海底", "开杠", "起手"}
    # and the families' own names.
    names |= {"国标", "血战", "四川", "长沙", "永州"}
    # and one family's names for two generic primitives (the exchange, the void-suit declaration).
    names |= {"换三张", "定缺"}
    for f in (ROOT / "rulesets").glob("*.yaml"):
        names.update(f.stem.split("-"))  # every shipped ruleset's id (sichuan-xuezhan, mcr …)
        # (not an English name given for one: `en: {name: bonus tiles}` is English, not a name)
        names.update(re.findall(r"(?<!en: \{)name: (\S+)", f.read_text("utf-8")))
    names = {n for n in names if re.search(r"[\u4e00-\u9fff]", n) or n.islower()}
    # 自摸 names a huandiao pattern but is also the ordinary word for a self-draw; 明杠 and 暗杠
    # name two fans of one ruleset but are also the everyday words for a melded / concealed
    # kong, which the players' views print.
    # 鸟 names changsha's bonus tiles (`bonus_tiles: {name: 鸟}`) but is also the everyday
    # word `--lang en` translates (ui/words.py: "bird").
    # 圈风 and 门风 name two 国标 fans (圈风刻, 门风刻 are others) but are also the everyday words
    # for the prevalent wind and a seat's own wind, which the tables show.
    names -= {"standard", "tiles", "自摸", "明杠", "暗杠", "鸟", "圈风", "门风"}
    offenders = []
    for py in (ROOT / "mjframework").rglob("*.py"):
        text = py.read_text("utf-8")
        offenders += [f"{py.name}: {n}" for n in sorted(names) if n in text]
    assert not offenders, offenders
