"""The compiled ruleset (``evaluate/compiler.py``) and ``mj compile``, which prints it.

The scorer (:class:`~mjframework.evaluate.scoring.Evaluator`) extends the compiled ruleset with
its memos; what it walks is built once from the ruleset. Checked here: the command works on
every shipped ruleset and says what the scorer uses (every pattern once, with its bit; the
exclusion masks name what the ruleset excludes); a bad ruleset is a clear error. (The payment
plans are checked against the long way in ``test_settle_plan.py``.)
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from mjframework.cli import main
from mjframework.evaluate.compiler import CompiledRuleset, compile_ruleset
from mjframework.evaluate.scoring import Evaluator
from mjframework.rules.loader import load_ruleset

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = sorted(p.stem for p in (ROOT / "rulesets").glob("*.yaml"))


@pytest.mark.parametrize("rid", SHIPPED)
def test_mj_compile_prints_every_pattern_with_its_bit(rid: str) -> None:
    rs = load_ruleset(rid)
    res = CliRunner().invoke(main, ["compile", rid])
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    assert lines[0].startswith(f"ruleset {rs.id}: {len(rs.patterns_for('win'))} win pattern(s)")
    bits = [ln.split(":")[0].split(None, 2)[2] for ln in lines if ln.startswith("  bit ")]
    assert sorted(bits) == sorted(p.name for p in rs.patterns_for("win"))
    # A pattern's excluded names are listed on its line (the mask's bits, by name).
    for p in rs.patterns_for("win"):
        line = next(ln for ln in lines if ln.startswith("  bit ") and ln.split(":")[0].endswith(f" {p.name}"))
        for name in p.excludes:
            if any(q.name == name for q in rs.patterns_for("win")):
                assert "excludes" in line and name in line.split("excludes", 1)[1], (p.name, name, line)


@pytest.mark.parametrize("rid", SHIPPED)
def test_evaluator_is_the_compiled_ruleset_plus_memos(rid: str) -> None:
    rs = load_ruleset(rid)
    ev = Evaluator(rs)
    compiled = compile_ruleset(rs)
    assert isinstance(ev, CompiledRuleset)
    assert [p.name for p in compiled._bulk.patterns] == [p.name for p in ev._bulk.patterns]
    assert [(s, [p.name for p in ps]) for s, ps in compiled._by_shape] == \
        [(s, [p.name for p in ps]) for s, ps in ev._by_shape]
    assert compiled.describe() == ev.describe()


def test_mj_compile_bad_ruleset_is_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("format: 1\nid: bad\nname: bad\npatterns: 3\n", "utf-8")
    res = CliRunner().invoke(main, ["compile", str(bad)])
    assert res.exit_code == 1
    assert "Traceback" not in res.output
    res = CliRunner().invoke(main, ["compile", "no-such-ruleset"])
    assert res.exit_code == 1 and "no ruleset" in res.output
