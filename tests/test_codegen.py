"""The pattern judge generated per ruleset (``evaluate/codegen.py``) and ``mj compile --source``.

The generated judge must give exactly what the interpreted one gives
(``Evaluator(ruleset, generated=False)``): checked on every scored reading of many hands of
every shipped and purpose-made ruleset (``score_readings`` judges every reading, not only the
best). ``tests/test_scoring_reference.py`` compares the generated scorer with the slow
reference besides. A ruleset is hostile input: names that try to end a string or a comment
must stay data in the generated module.
"""

from __future__ import annotations

import ast
import io
import random
import tokenize
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_fast_paths import random_case

from mjframework.cli import main
from mjframework.evaluate import codegen
from mjframework.evaluate.scoring import Evaluator
from mjframework.rules.loader import load_ruleset

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SHIPPED = sorted(p.stem for p in (ROOT / "rulesets").glob("*.yaml"))
ALL = [*SHIPPED, *(str(p) for p in sorted((HERE / "rulesets").glob("*.yaml"))),
       str(HERE / "data" / "scoring" / "wild-measures.yaml")]
HANDS = 150


def _facts(ev: Evaluator, hand, ctx, wildcard) -> tuple:
    r = ev.evaluate(hand, ctx, wildcard)
    s = r.score
    every = [(x.win, x.reason, x.points, [(p.name, p.times) for p in x.patterns], x.reading)
             for x in ev.score_readings(hand, ctx, wildcard)]
    return (s.win, s.reason, s.points, s.uncapped, [(p.name, p.points, p.times) for p in s.patterns],
            s.reading, r.payments, r.call, every)


@pytest.mark.parametrize("rid", ALL, ids=lambda r: Path(r).stem)
def test_generated_judge_gives_what_the_interpreted_one_gives(rid: str) -> None:
    rs = load_ruleset(rid)
    gen, ref = Evaluator(rs), Evaluator(rs, generated=False)
    rng = random.Random(f"codegen {Path(rid).stem}")
    wins = 0
    for i in range(HANDS):
        hand, ctx, wildcard = random_case(gen, rng)
        for _ in range(3):  # prefer hands that win (most random ones don't)
            if gen.is_win(hand, ctx, wildcard):
                break
            hand, ctx, wildcard = random_case(gen, rng)
        want = _facts(ref, hand, ctx, wildcard)
        got = _facts(gen, hand, ctx, wildcard)
        assert got == want, (i, hand, ctx, wildcard)
        wins += bool(got[0])
    assert gen._gen is not None and ref._gen is None  # each judged the way it was made to
    assert wins > 0


PLAIN_HANDS = 400


@pytest.mark.parametrize("rid", SHIPPED)
def test_generated_search_of_a_hand_with_no_wildcard_gives_what_the_loop_gives(rid: str) -> None:
    """``best_plain`` (the search of a hand with no wildcard, generated per ruleset) against
    ``Evaluator._best_plain``'s loop: the whole result (win, reason, points, patterns, the
    reading picked, payments) of hands holding no wildcard — complete, seven pairs, singles,
    with melds and kongs, near-wins — on every shipped ruleset."""
    rs = load_ruleset(rid)
    gen, ref = Evaluator(rs), Evaluator(rs, generated=False)
    rng = random.Random(f"best_plain {rid}")
    done = wins = 0
    shapes_won: set[str] = set()
    def plain() -> tuple:
        while True:
            hand, ctx, wildcard = random_case(gen, rng)
            held = gen.split(hand.concealed, wildcard)
            if not (held.wilds or held.stand_ins or gen._is_wild(hand.win_tile, wildcard)):
                return hand, ctx, wildcard

    while done < PLAIN_HANDS:
        hand, ctx, wildcard = plain()
        for _ in range(3):  # prefer hands that win (most random ones don't)
            if gen.is_win(hand, ctx, wildcard):
                break
            hand, ctx, wildcard = plain()
        r, want = gen.evaluate(hand, ctx, wildcard), ref.evaluate(hand, ctx, wildcard)
        s, w = r.score, want.score
        assert (s.win, s.reason, s.points, s.uncapped, [(p.name, p.points, p.times) for p in s.patterns],
                s.reading, r.payments, r.call) == (
            w.win, w.reason, w.points, w.uncapped, [(p.name, p.points, p.times) for p in w.patterns],
            w.reading, want.payments, want.call), (done, hand, ctx, wildcard)
        done += 1
        if s.win:
            wins += 1
            shapes_won.add(s.reading.shape.kind if s.reading is not None else "")
    assert gen._gen is not None and gen._gen._masks and ref._gen is None  # each searched its own way
    assert wins >= PLAIN_HANDS // 10, wins
    assert "standard" in shapes_won


def _tokens(src: str) -> list[tokenize.TokenInfo]:
    return list(tokenize.generate_tokens(io.StringIO(src).readline))


def _only_data(src: str, needle: str) -> None:
    """``needle`` appears in ``src`` only inside string literals and comments."""
    for tok in _tokens(src):
        if needle in tok.string:
            assert tok.type in (tokenize.STRING, tokenize.COMMENT), tok
    tree = ast.parse(src)
    assert all(isinstance(node, ast.FunctionDef) for node in tree.body)
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    assert not names & {"os", "system", "eval", "exec", "open", "__import__", "bad"}, names


HOSTILE = [
    '"); import os; os.system("x',
    "'); import os; os.system('x",
    "x\nimport os\nos.system('x')",
    "x\r__import__('os').system('x')",
    'a"""\nbad = 1\n"""',
    "名\u2028bad = 1",
    "x\\",
    "# \x0c bad = 1",
]


@pytest.mark.parametrize("name", HOSTILE)
def test_a_hostile_pattern_name_stays_data(tmp_path: Path, name: str) -> None:
    """A pattern (and the measure-bounded pattern it excludes) named to break out of a
    string or a comment: the module compiles, has only its functions, names nothing it
    shouldn't, and scores as the interpreted judge does."""
    path = tmp_path / "hostile.yaml"
    import json

    path.write_text(
        f"extends: {HERE / 'rulesets' / 'base-108.yaml'}\n"
        "id: test-hostile\n"
        "patterns:\n"
        f"  - name: {json.dumps(name)}\n"
        "    shape: [standard]\n"
        "    points: 2\n"
        "    require: {suits: 1}\n"
        "    excludes: [win]\n"
        "  - name: win\n"
        "    shape: [standard, seven_pairs]\n"
        "    points: 1\n", "utf-8")
    rs = load_ruleset(str(path))
    assert any(p.name == name for p in rs.patterns)
    ev = Evaluator(rs)
    src = codegen.source(ev)
    for needle in ("os.system", "import os", "bad = 1", "__import__", "\u2028", "\x0c"):
        if needle in name:
            _only_data(src, needle)
    assert repr(name) in src or name not in src
    # Scoring through the generated module: a one-suit hand meets the hostile pattern.
    from mjframework.core.hand import WinContext, make_hand

    hand = make_hand("111222333m 444m 5m", None, "5m")
    got = ev.score(hand, WinContext(seat=0, win_by="self_draw"))
    want = Evaluator(rs, generated=False).score(hand, WinContext(seat=0, win_by="self_draw"))
    assert got.win and [p.name for p in got.patterns] == [name] == [p.name for p in want.patterns]


@pytest.mark.parametrize("rid", ["mcr", "yongzhou-wangba", "changsha"])
def test_the_generated_module_has_no_builtins_beyond_its_few(rid: str) -> None:
    ev = Evaluator(load_ruleset(rid))
    tree = ast.parse(codegen.source(ev))
    called = {n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
    assert called <= {"holding", "judge", "Measures", "group_families", "win_wait_hit", "make_plan", "count",
                      "meets_win_require", "order_of", "condition_holds", "key_of", "sorted", "len",
                      "tuple", "judge_keyed", "could_be", "standard_readings", "pairs_readings",
                      "need_pairs", "sum", "max", "bytes", "wind_tables", "enumerate", "SETS_KEEP",
                      "count_read", "straight_kinds_held", "win_wait_of", "natural_groups", "meld_group",
                      "Reading", "wind_key", "judge_counted"}, called


def test_equal_rulesets_share_one_compiled_module() -> None:
    a = Evaluator(load_ruleset("changsha")).generated()
    b = Evaluator(load_ruleset("changsha")).generated()
    assert a.source == b.source
    assert a.judge.__code__ is b.judge.__code__
    assert a.judge is not b.judge  # each bound to its own evaluator's tables


@pytest.mark.parametrize("rid", SHIPPED)
def test_mj_compile_source_prints_the_module(rid: str) -> None:
    res = CliRunner().invoke(main, ["compile", rid, "--source"])
    assert res.exit_code == 0, res.output
    assert res.output == Evaluator(load_ruleset(rid)).generated().source
    tree = ast.parse(res.output)
    functions = [n.name for n in tree.body if isinstance(n, ast.FunctionDef)]
    ev = Evaluator(load_ruleset(rid))
    written = codegen._writes_families(ev._bulk)
    standard = any(shape.kind == "standard" for shape, _p in ev._by_shape)
    assert functions == ["holding", *(["group_families"] if written else []), "key_of", "judge",
                         "judge_keyed", *(["judge_counted"] if standard else []), "best_plain"]
    # every win pattern is named (as data) once, in its bit's comment
    for p in load_ruleset(rid).patterns_for("win"):
        assert f": {p.name!r}" in res.output or f": {p.name!a}" in res.output


def test_mj_compile_source_of_a_bad_ruleset_is_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("format: 1\nid: bad\nname: bad\npatterns: 3\n", "utf-8")
    res = CliRunner().invoke(main, ["compile", str(bad), "--source"])
    assert res.exit_code == 1
    assert "Traceback" not in res.output


def test_tile_measures_written_as_expressions_are_measures_own() -> None:
    """The generated holding's tile measures (one expression each) against
    ``Measures._tile_measures``, on random tiles of every count 0–4 per kind."""
    from mjframework.core.tiles import NUM_KINDS
    from mjframework.evaluate.patterns import HandFacts, Measures

    rng = random.Random("tile measures")
    ns = {"Z9": [0] * 9, "AT_LEAST_3": codegen._AT_LEAST[3], "AT_LEAST_4": codegen._AT_LEAST[4]}
    exprs = {name: compile(expr, name, "eval") for name, expr in codegen._TILE_EXPR.items()}
    for i in range(500):
        tiles = [k for k in range(NUM_KINDS) for _ in range(rng.choice([0, 0, 0, 1, 2, 3, 4]))]
        tiles = rng.sample(tiles, min(len(tiles), rng.choice([0, 1, 5, 14, 17, 40])))
        m = Measures(tiles, None, HandFacts(0, 0, False, rng.choice([2, 3])), None)
        m._tile_measures()
        for name, code in exprs.items():
            assert eval(code, {**ns, "c": m.counts, "m": m}) == m._cache[name], (i, name, tiles)
    assert set(codegen._TILE_EXPR) | {"rank_span"} == set(codegen.TILE_MEASURES)
