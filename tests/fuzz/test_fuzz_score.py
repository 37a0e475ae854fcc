"""Fuzzing `mj score`: random hands, melds, wildcards and context strings."""

from __future__ import annotations

from click.testing import CliRunner
from conftest import examples
from hypothesis import given
from hypothesis import strategies as st

from mjframework.cli import main

TILE_CHARS = [*"123456789mpsz ", "万", "筒", "条", "东", "中", "发", "白", "八", "三", "红", "²", "１",
              "0", "-"]
hand_text = st.text(alphabet=st.sampled_from(TILE_CHARS), max_size=40)
meld_text = st.builds(lambda k, t, f: f"{k} {t}{f}",
                      st.sampled_from(["chow", "pung", "kong", "added-kong", "concealed-kong", "peng", ""]),
                      hand_text, st.sampled_from(["", " from 1", " from 0", " from 9", " from x", " from"]))
context = st.builds(lambda k, v: f"{k}={v}", st.sampled_from(["birds", "bird", "double", "", "x"]),
                    hand_text)


@examples(250)
@given(st.sampled_from(["changsha", "yongzhou-wangba", "yongzhou-huandiao"]), hand_text,
       st.lists(meld_text, max_size=3), hand_text, st.lists(context, max_size=2),
       st.sampled_from([[], ["-s", "3"], ["-s", "9"], ["-d", "1"], ["-d", "1", "--robbed-kong"],
                        ["--opening"], ["-w", "5m"], ["-i", "9z"], ["-f", "last_tile"], ["-f", "nope"]]))
def test_score_answers_or_says_why(ruleset: str, hand: str, melds: list[str], win: str, ctx: list[str],
                                   extra: list[str]) -> None:
    args = ["score", ruleset, hand or " "]
    for m in melds:
        args += ["-m", m]
    if win and "--opening" not in extra:
        args += ["-t", win]
    for c in ctx:
        args += ["-c", c]
    r = CliRunner().invoke(main, [*args, *extra, "--json"])
    assert r.exception is None or isinstance(r.exception, SystemExit), (args, r.exc_info)
    assert r.exit_code in (0, 1, 2), (args, r.output)
    if r.exit_code == 1:
        assert r.output.strip(), args
