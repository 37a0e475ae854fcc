"""Designer tools: built-in files reachable from anywhere, deterministic lint with
acknowledged warnings, bonus examples on a base win, house-rule options and presets."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from mjframework.cli import main
from mjframework.design.lint import lint_file
from mjframework.design.rulecard import build_card, render
from mjframework.rules.loader import builtin_rulesets_dir, check_file, load_ruleset
from mjframework.rules.options import OptionError
from mjframework.rules.yamlsource import to_plain

REPO = Path(__file__).resolve().parent.parent


def mj(*args: str, input: str | None = None):
    return CliRunner().invoke(main, list(args), input=input)


# --------------------------------------------------------------------------
# extending built-ins from anywhere


@pytest.mark.parametrize("rid", ["changsha", "yongzhou-huandiao", "yongzhou-wangba", "hongzhong",
                                 "guangdong-tuidaohu", "taiwan-16"])
def test_shipped_ruleset_copied_elsewhere_validates_unchanged(tmp_path: Path, rid: str,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    copy = tmp_path / "elsewhere" / f"{rid}.yaml"
    copy.parent.mkdir()
    shutil.copy(builtin_rulesets_dir() / f"{rid}.yaml", copy)
    monkeypatch.chdir(tmp_path)  # neither the repository nor the copy's folder
    res = mj("validate", str(copy))
    assert res.exit_code == 0, res.output
    assert f"ok  {copy}" in res.output
    # A rule card of the copy names the file in its check commands (the id finds the built-in).
    assert f"mj score {copy} " in render(build_card(load_ruleset(copy)), "md")


def test_extends_builtin_by_prefix_and_id(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    f = tmp_path / "mine.yaml"
    f.write_text("format: 1\nid: mine\nname: mine\n"
                 "extends: [builtin:fragments/tiles-108.yaml, builtin:changsha]\n"
                 "scoring: {dealer_bonus: 20}\n", encoding="utf-8")
    rs, problems = check_file(f)
    assert not problems and rs is not None and rs.scoring.dealer_bonus == 20
    # The inherited option `dealer_bonus` no longer describes the ruleset: lint says so.
    stale = [w for w in lint_file(f, samples=200) if w.check == "stale-option"]
    assert len(stale) == 1 and stale[0].patterns == ["dealer_bonus"]
    assert "restate the default" in stale[0].message
    f.write_text(f.read_text(encoding="utf-8") + "options: {dealer_bonus: {default: 20}}\n", encoding="utf-8")
    rs, problems = check_file(f)
    assert not problems and rs is not None and rs.scoring.dealer_bonus == 20
    assert not [w for w in lint_file(f, samples=200) if w.check == "stale-option"]
    assert load_ruleset(f, options={"dealer_bonus": "10"}).scoring.dealer_bonus == 10
    f.write_text("format: 1\nid: mine\nname: mine\nextends: [nowhere:changsha]\n", encoding="utf-8")
    _, problems = check_file(f)
    assert problems and problems[0].location.line == 4 and "builtin:PATH" in problems[0].message


# --------------------------------------------------------------------------
# lint: deterministic, acknowledgements


@pytest.mark.parametrize("rid", ["yongzhou-wangba"])
def test_lint_accept_and_strict(rid: str) -> None:
    res = mj("lint", rid, "--strict")
    assert res.exit_code == 0, res.output
    assert res.output.count("accepted: stated by the rules") == 3
    assert res.output.rstrip().endswith("no warnings (3 accepted)")
    data = json.loads(mj("lint", rid, "--json").output)
    assert data["count"] == 0 and data["accepted"] == 3


def test_lint_stale_accept_is_reported(tmp_path: Path) -> None:
    f = tmp_path / "stale.yaml"
    f.write_text("format: 1\nid: stale\nname: stale\nextends: builtin:changsha\nlint:\n  accept:\n"
                 "    - {rule: dead-pattern, pattern: 平胡, why: never true}\n", encoding="utf-8")
    ws = lint_file(f, samples=400)
    stale = [w for w in ws if w.check == "stale-accept"]
    assert len(stale) == 1 and stale[0].location.line == 7 and "平胡" in stale[0].message
    assert mj("lint", str(f), "--strict", "--samples", "400").exit_code == 1


def test_lint_has_no_clock() -> None:
    src = (REPO / "mjframework" / "design" / "lint.py").read_text(encoding="utf-8")
    assert "import time" not in src and "monotonic" not in src


BONUS_BASE = {
    "format": 1, "id": "bonus-base", "name": "bonus on a base",
    "extends": ["builtin:fragments/tiles-108.yaml", "builtin:fragments/shapes.yaml"],
}


def _bonus_ruleset(tmp_path: Path) -> Path:
    """A sum-combined ruleset where a bonus never scores alone and pays less than the base."""
    cs = load_ruleset("changsha")
    data = dict(BONUS_BASE)
    data.update({k: cs.data[k] for k in ("wall", "break", "deal", "claims", "win", "dealer")},
                players=cs.players, wildcard=None)
    data["scoring"] = {"combine": "sum", "payout": dict(cs.scoring.payout)}
    data["patterns"] = [
        {"name": "平胡", "shape": "standard", "points": 4},
        {"name": "海底", "when": {"flags": ["last_tile"]}, "points": 1},
        {"name": "杠开", "when": {"win_by": ["self_draw"], "flags": ["after_kong"]}, "points": 8},
    ]
    f = tmp_path / "bonus-base.yaml"
    f.write_text(yaml.safe_dump(to_plain(data), allow_unicode=True, sort_keys=False), encoding="utf-8")
    return f


def test_bonus_examples_on_a_base_win_and_no_inverted_payout(tmp_path: Path) -> None:
    f = _bonus_ruleset(tmp_path)
    card = render(build_card(load_ruleset(f)), "md")
    assert "scores 海底 as a bonus on the base win 平胡 (5 points in all)" in card
    assert "scores 杠开 as a bonus on the base win 平胡 (12 points in all)" in card
    assert "No exact example" not in card
    ws = lint_file(f, samples=600)
    assert not [w for w in ws if w.check == "inverted-payout"], [str(w) for w in ws]


# --------------------------------------------------------------------------
# options and presets


def _events(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def test_simulate_changsha_options_change_results_as_declared(tmp_path: Path) -> None:
    base = ["simulate", "changsha", "-n", "48", "-s", "5", "--json"]
    default = json.loads(mj(*base, "--log", str(tmp_path / "d.jsonl")).output)
    assert default["options"] == {"birds": 2, "opening_wins": True, "dealer_bonus": 10}
    d_events = _events((tmp_path / "d.jsonl").read_text(encoding="utf-8"))
    d_birds = [e for e in d_events if e["type"] == "birds"]
    assert d_birds and all(len(e["tiles"]) <= 2 for e in d_birds)
    assert any(len(e["tiles"]) == 2 for e in d_birds)
    assert default["opening_declarations"] > 0

    four = json.loads(mj(*base, "--set", "birds=4", "--log", str(tmp_path / "b.jsonl")).output)
    assert four["options"]["birds"] == 4
    b_birds = [e for e in _events((tmp_path / "b.jsonl").read_text(encoding="utf-8")) if e["type"] == "birds"]
    assert any(len(e["tiles"]) == 4 for e in b_birds)

    none = json.loads(mj(*base, "--set", "birds=0", "--log", str(tmp_path / "n.jsonl")).output)
    n_events = _events((tmp_path / "n.jsonl").read_text(encoding="utf-8"))
    assert not [e for e in n_events if e["type"] == "birds"]
    # Same seed, same hands: only the money differs.
    assert none["won"] == default["won"] and none["avg_net_by_seat"] != default["avg_net_by_seat"]

    simple = json.loads(mj(*base, "--preset", "simple").output)
    assert simple["preset"] == "simple"
    assert simple["options"] == {"birds": 0, "opening_wins": False, "dealer_bonus": 10}
    assert simple["opening_declarations"] == 0
    header = _events((tmp_path / "b.jsonl").read_text(encoding="utf-8"))[0]
    assert header["type"] == "simulation" and header["options"]["birds"] == 4


def test_score_dealer_bonus_option() -> None:
    args = ["score", "changsha", "123m 456m 789p 345s 2p", "--win-tile", "2p", "--json"]
    assert json.loads(mj(*args).output)["payments"] == [60, -20, -20, -20]
    assert json.loads(mj(*args, "--set", "dealer_bonus=30").output)["payments"] == [120, -40, -40, -40]


@pytest.mark.parametrize(("args", "message"), [
    (["--set", "bird=3"], "unknown option 'bird' (did you mean 'birds'?)"),
    (["--set", "birds=lots"], "option birds must be an integer, not 'lots'"),
    (["--set", "birds=9"], "must be at most 8"),
    (["--set", "opening_wins=maybe"], "must be true or false"),
    (["--set", "birds"], "write NAME=VALUE"),
    (["--preset", "simpel"], "no preset 'simpel' (did you mean 'simple'?)"),
])
def test_bad_option_on_the_command_line(args: list[str], message: str) -> None:
    res = mj("simulate", "changsha", "-n", "1", "-s", "1", *args)
    assert res.exit_code == 1
    assert message in res.output and "Traceback" not in res.output


OPTS = """\
format: 1
id: opts
name: opts
extends: builtin:changsha
options:
  birds: {type: integer, default: 2, minimum: 0, maximum: 8, patch: {bonus_tiles: {count: $value}},
          conflicts: [{value: 0, with: {strict: true}, why: strict tables play birds}]}
  opening_wins: {type: boolean, default: true, values: {false: {plugins: {opening-wins: null}}}}
  dealer_bonus: {type: integer, default: 10, patch: {scoring: {dealer_bonus: $value}}}
  strict: {type: boolean, default: false, values: {true: {win: {discard: false}}}}
  style: {type: choice, choices: [a, b], default: a}
presets:
  bad: {set: {birds: many}}
  clash: {set: {birds: 0, strict: true}}
"""


def test_bad_option_declarations_are_located(tmp_path: Path) -> None:
    f = tmp_path / "opts.yaml"
    f.write_text(OPTS, encoding="utf-8")
    res = mj("validate", str(f))
    assert res.exit_code == 1
    lines = OPTS.splitlines()
    bad = next(i for i, line in enumerate(lines, 1) if "bad:" in line)
    clash = next(i for i, line in enumerate(lines, 1) if "clash:" in line)
    assert f"{f}:{bad}:" in res.output
    assert "presets.bad.set.birds: option birds: must be an integer" in res.output
    assert f"{f}:{clash}:" in res.output
    assert "conflicts with strict=true: strict tables play birds" in res.output
    # A default that contradicts the ruleset is caught.
    f.write_text(OPTS.replace("dealer_bonus: {type: integer, default: 10", "dealer_bonus: {type: integer, "
                              "default: 5").split("presets:")[0], encoding="utf-8")
    res = mj("validate", str(f))
    assert res.exit_code == 1 and "options.dealer_bonus.default: option dealer_bonus: the patch for the " \
        "default value '5' changes the ruleset" in res.output


def test_option_conflicts_and_patches(tmp_path: Path) -> None:
    f = tmp_path / "opts.yaml"
    f.write_text(OPTS.split("presets:")[0], encoding="utf-8")
    rs = load_ruleset(f, options={"strict": "yes"})
    assert rs.win.discard is False and rs.options["strict"] is True
    with pytest.raises(OptionError, match="birds=0 conflicts with strict=true"):
        load_ruleset(f, options={"strict": "true", "birds": 0})
    with pytest.raises(OptionError, match="not one of: a, b"):
        load_ruleset(f, options={"style": "c"})
    assert load_ruleset(f).options["style"] == "a"


def test_rule_card_lists_options() -> None:
    md = render(build_card(load_ruleset("changsha", preset="simple")), "md")
    assert "## Options" in md
    assert "| --set birds=… |" in md and "integer 0–8, default 2; this card: 0" in md
    assert "| --preset simple |" in md
    assert "--set birds=0 --set opening_wins=false" in md  # check commands replay the card's options


def test_playground_offers_options() -> None:
    from mjframework.ui import serve

    cs = next(r for r in serve.list_rulesets({"birds": "4"}) if r["id"] == "changsha")
    birds = next(o for o in cs["options"] if o["name"] == "birds")
    assert birds["type"] == "integer" and birds["default"] == 2 and birds["value"] == 4
    assert {p["name"] for p in cs["presets"]} == {"simple", "big-birds"}
    req = {"ruleset": "changsha", "hand": "123m 456m 789p 345s 2p", "win_tile": "2p"}
    assert [p["amount"] for p in serve.score(req)["payments"]] == [60, -20, -20, -20]
    got = serve.score({**req, "options": {"dealer_bonus": 30}})
    assert [p["amount"] for p in got["payments"]] == [120, -40, -40, -40]
    assert got["options"]["dealer_bonus"] == 30
    with pytest.raises(OptionError, match="must be an integer"):
        serve.score({**req, "options": {"dealer_bonus": "lots"}})
    assert "this card: 0" in serve.rule_card("changsha", {"birds": "0"})
    with pytest.raises(serve.BadRequest, match="no ruleset declares that option"):
        serve.make_server("127.0.0.1", 0, options={"nonesuch": "1"})
    res = mj("serve", "--port", "0", "--set", "nonesuch=1")
    assert res.exit_code == 1 and "no ruleset declares that option" in res.output
    page = (REPO / "mjframework" / "web" / "app.js").read_text(encoding="utf-8")
    assert "options: chosenOptions()" in page
