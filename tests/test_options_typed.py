"""Declared house-rule options reach the engine and the tools typed, read once at load."""

from __future__ import annotations

import pytest

from mjframework.rules.loader import load_ruleset
from mjframework.rules.options import Conflict, Option, OptionError, Preset, choose, declared
from mjframework.rules.yamlsource import load_yaml_text

DECL = """\
options:
  birds: {type: integer, default: 2, minimum: 0, maximum: 8,
          conflicts: [{value: 0, with: {strict: "yes"}, why: strict tables play birds}, {with: {style: b}}]}
  strict: {type: boolean, default: false}
  style: {type: choice, choices: [a, b], default: a}
presets:
  club: {description: the club's, set: {birds: "4", strict: "on"}}
"""


def test_declarations_are_typed() -> None:
    problems: list = []
    opts, presets = declared(load_yaml_text(DECL, "t.yaml"), problems)
    assert problems == []
    assert all(isinstance(o, Option) for o in opts.values())
    birds = opts["birds"]
    assert birds.conflicts == (Conflict(0, {"strict": True}, "strict tables play birds"),
                               Conflict(None, {"style": "b"}, "", any_but_default=True))
    assert presets == {"club": Preset("club", {"birds": 4, "strict": True}, "the club's")}
    assert type(presets["club"].set["birds"]) is int


def test_choose_reads_command_line_strings_and_presets() -> None:
    opts, presets = declared(load_yaml_text(DECL, "t.yaml"), [])
    assert choose(opts, presets=presets, preset="club") == {"birds": 4, "strict": True, "style": "a"}
    assert choose(opts, presets=presets, sets={"birds": "3", "strict": "no"}) == {
        "birds": 3, "strict": False, "style": "a"}
    with pytest.raises(OptionError, match="birds=0 conflicts with strict=true: strict tables play birds"):
        choose(opts, presets=presets, preset="club", sets={"birds": "0"})
    with pytest.raises(OptionError, match="birds=3 conflicts with style=b"):  # any value but the default
        choose(opts, presets=presets, sets={"birds": 3, "style": "b"})
    assert choose(opts, presets=presets, sets={"style": "b"})["style"] == "b"  # birds at its default


def test_loaded_ruleset_keeps_typed_declarations() -> None:
    rs = load_ruleset("changsha", preset="simple")
    assert rs.options == {"birds": 0, "opening_wins": False, "dealer_bonus": 10}
    assert set(rs.option_decls) == {"birds", "opening_wins", "dealer_bonus"}
    assert rs.option_decls["birds"].default == 2 and rs.option_decls["opening_wins"].default is True
    assert rs.preset_decls["simple"].set == {"birds": 0, "opening_wins": False}
    # --set NAME=VALUE strings and typed values load the same ruleset
    a = load_ruleset("changsha", options={"birds": "4", "opening_wins": "false"})
    b = load_ruleset("changsha", options={"birds": 4, "opening_wins": False})
    assert a.options == b.options == {"birds": 4, "opening_wins": False, "dealer_bonus": 10}
    assert a.plugins == b.plugins and "opening-wins" not in a.plugins


def test_bad_declarations_still_reported() -> None:
    problems: list = []
    declared(load_yaml_text(DECL.replace('set: {birds: "4"', 'set: {birds: "many"'), "t.yaml"), problems)
    assert [p.message for p in problems] == ["option birds: must be an integer, not 'many'"]
