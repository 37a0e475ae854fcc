"""A third-party plugin package, end to end: found, listed, validated, played.

The package (``mj-double-pay``: entry point ``double-pay`` → module
``mj_double_pay``, whose ``Plugin`` doubles every payment and emits a
``double_pay`` event per settlement) is written to ``tmp_path``. It is used

* in-process: its folder on ``sys.path`` and the class registered with
  :func:`mjframework.hooks.registry.register_plugin` (unregistered afterwards);
* in a subprocess, found as a real entry point: the ``*.dist-info`` folder
  (``METADATA`` + ``entry_points.txt``) a build backend would write, made here
  from the package's ``pyproject.toml`` and put on ``PYTHONPATH``. No
  ``pip install``: nothing is left in the environment.

Also: a plugin raising in a hook abandons that hand (an ``abandon`` event
naming the plugin and the hook) and a simulation goes on with the next hand.
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
import textwrap
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest
from click.testing import CliRunner, Result

from mjframework.cli import main
from mjframework.hooks import registry
from mjframework.hooks.specs import hookimpl
from mjframework.play.bots import GreedyBot
from mjframework.play.game import Game
from mjframework.rules.loader import load_ruleset
from mjframework.run.simulate import simulate

PLUGIN = "double-pay"
MODULE = "mj_double_pay"

PLUGIN_SOURCE = '''\
"""double-pay: every payment of a settlement is multiplied (doubled by default)."""

from __future__ import annotations

from typing import Any, ClassVar

from mjframework.plugin import hookimpl


class Plugin:
    """Multiplies every payment of a settlement by `factor` (2: double pay)."""

    options_schema: ClassVar[dict[str, Any]] = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "factor": {"type": "integer", "minimum": 1, "maximum": 10, "default": 2,
                       "description": "What every payment is multiplied by."},
        },
    }

    def __init__(self, options: dict[str, Any]) -> None:
        self.factor = int(options.get("factor", 2))

    @hookimpl
    def mj_context_inputs(self):
        return {"double_pay": {"description": "the factor (a conformance case may give it)"}}

    @hookimpl
    def mj_settlement_inputs(self, hand, context):
        hand.emit("double_pay", seat=context.winners[0], factor=self.factor)
        return {"double_pay": self.factor}

    @hookimpl
    def mj_modify_settlement(self, settlement, context):
        factor = context.extra.get("double_pay", self.factor)
        for p in settlement.payments:
            p.amount *= factor
            p.reason += f" x{factor} double-pay"
'''

PYPROJECT = f'''\
[build-system]
requires = ["setuptools>=68"]
build-backend = "setuptools.build_meta"

[project]
name = "mj-double-pay"
version = "0.1.0"
description = "Every payment doubled: an example mjframework plugin."
dependencies = ["mjframework"]

[project.entry-points."mjframework.plugins"]
{PLUGIN} = "{MODULE}"

[tool.setuptools]
py-modules = ["{MODULE}"]
'''


def write_package(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    (root / f"{MODULE}.py").write_text(PLUGIN_SOURCE, encoding="utf-8")
    return root


def write_dist_info(package: Path, site: Path, extra_entry_points: dict[str, str] | None = None) -> Path:
    """What installing ``package`` leaves in site-packages: the module and its ``.dist-info``."""
    project = tomllib.loads((package / "pyproject.toml").read_text("utf-8"))["project"]
    eps = {**project["entry-points"][registry.ENTRY_POINT_GROUP], **(extra_entry_points or {})}
    site.mkdir(parents=True, exist_ok=True)
    (site / f"{MODULE}.py").write_text((package / f"{MODULE}.py").read_text("utf-8"), encoding="utf-8")
    dist = site / f"{project['name'].replace('-', '_')}-{project['version']}.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {project['name']}\nVersion: {project['version']}\n", encoding="utf-8")
    (dist / "entry_points.txt").write_text(
        f"[{registry.ENTRY_POINT_GROUP}]\n" + "".join(f"{k} = {v}\n" for k, v in eps.items()),
        encoding="utf-8")
    return site


def write_ruleset(folder: Path, plugins_yaml: str, rid: str = "changsha-double") -> Path:
    path = folder / f"{rid}.yaml"
    path.write_text(f"format: 1\nid: {rid}\nname: {rid}\nextends: changsha\n"
                    f"plugins:\n{textwrap.indent(textwrap.dedent(plugins_yaml), '  ')}", encoding="utf-8")
    return path


def mj(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def events(log: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log.read_text("utf-8").splitlines()]


@pytest.fixture
def double_pay(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[type]:
    """The package's folder on sys.path and its Plugin registered in-process as ``double-pay``."""
    pkg = write_package(tmp_path / "mj-double-pay")
    monkeypatch.syspath_prepend(str(pkg))
    sys.modules.pop(MODULE, None)
    cls = importlib.import_module(MODULE).Plugin
    registry.register_plugin(PLUGIN, cls)
    registry._entry_point_plugins.cache_clear()
    try:
        yield cls
    finally:
        registry.unregister_plugin(PLUGIN)
        sys.modules.pop(MODULE, None)
        registry._entry_point_plugins.cache_clear()


@pytest.fixture
def register() -> Iterator[Any]:
    """``register(name, cls)`` for the test's duration."""
    names: list[str] = []

    def add(name: str, cls: type) -> None:
        registry.register_plugin(name, cls)
        names.append(name)

    try:
        yield add
    finally:
        for n in names:
            registry.unregister_plugin(n)


# -- mj plugins --------------------------------------------------------------------


def test_mj_plugins_lists_a_registered_plugin(double_pay: type) -> None:
    r = mj("plugins", "--json")
    assert r.exit_code == 0, r.output
    found = {d["name"]: d for d in map(json.loads, r.stdout.splitlines())}
    d = found[PLUGIN]
    assert d["source"] == "registered"
    assert d["target"] == f"{MODULE}:Plugin"
    assert d["module"] == MODULE
    assert d["hooks"] == ["mj_context_inputs", "mj_modify_settlement", "mj_settlement_inputs"]
    assert d["description"] == "Multiplies every payment of a settlement by `factor` (2: double pay)."
    assert d["options_schema"] == double_pay.options_schema
    assert d["ok"] and not d["problems"] and not d["error"]
    # Entry-point plugins are listed alongside.
    assert any(x["source"] == "entry_point" for x in found.values())

    text = mj("plugins", PLUGIN)
    assert text.exit_code == 0, text.output
    assert f"{PLUGIN} — Multiplies every payment" in text.stdout
    assert "hooks    mj_context_inputs, mj_modify_settlement, mj_settlement_inputs" in text.stdout
    assert "options  factor: integer 1–10, default 2 — What every payment is multiplied by." in text.stdout
    full = mj("plugins", PLUGIN, "--schema")
    assert '"minimum": 1' in full.stdout


def test_mj_plugins_reports_problems_without_a_traceback(register: Any) -> None:
    class Flawed:
        """Has a misspelt hook and an argument its hook doesn't have."""

        options_schema: ClassVar[dict[str, Any]] = {
            "type": "object", "required": ["n"], "properties": {"n": {"type": "integer"}}}

        def __init__(self, options: dict[str, Any]) -> None:
            self.n = options["n"]  # needs options: only inspected, not created

        @hookimpl
        def mj_modify_setlement(self, settlement: Any, context: Any) -> None: ...

        @hookimpl
        def mj_after_deal(self, hand: Any, seat: int) -> None: ...

    class BadSchema:
        options_schema: ClassVar[dict[str, Any]] = {"type": "obj"}

        def __init__(self, options: dict[str, Any]) -> None: ...

        @hookimpl
        def mj_after_deal(self, hand: Any) -> None: ...

    register("flawed", Flawed)
    register("bad-schema", BadSchema)
    r = mj("plugins", "flawed", "bad-schema", "--json")
    assert r.exit_code == 0, r.output
    flawed, bad = map(json.loads, r.stdout.splitlines())
    assert flawed["hooks"] == ["mj_after_deal", "mj_modify_setlement"]
    assert any("mj_modify_setlement: not a hook" in p and "did you mean mj_modify_settlement" in p
               for p in flawed["problems"]), flawed["problems"]
    assert any("mj_after_deal: argument(s) seat" in p for p in flawed["problems"]), flawed["problems"]
    assert len(flawed["problems"]) == 2  # needing options is not a problem
    assert any("not a valid JSON Schema" in p for p in bad["problems"]), bad["problems"]
    assert "Traceback" not in r.output
    strict = mj("plugins", "flawed", "--strict")
    assert strict.exit_code == 1
    assert "problem  mj_modify_setlement" in strict.stdout


def test_mj_plugins_unknown_name_is_an_error() -> None:
    r = mj("plugins", "no-such-plugin")
    assert r.exit_code == 1
    assert "no plugin named 'no-such-plugin'" in r.stderr


# -- validating a ruleset that uses it ------------------------------------------------


def test_validate_accepts_the_plugin_with_options(double_pay: type, tmp_path: Path) -> None:
    path = write_ruleset(tmp_path, f"{PLUGIN}: {{factor: 2}}\n")
    r = mj("validate", str(path))
    assert r.exit_code == 0, r.output
    assert r.stdout.startswith("ok ") and PLUGIN in r.stdout
    rs = load_ruleset(path)
    assert rs.plugins[PLUGIN] == {"factor": 2}
    assert "haidi" in rs.plugins and rs.bonus_tiles is not None  # inherited from changsha


def test_validate_rejects_bad_options_with_their_location(double_pay: type, tmp_path: Path) -> None:
    path = write_ruleset(tmp_path, f"""\
        {PLUGIN}:
          factor: 0
          facter: 3
        """)
    r = mj("validate", str(path))
    assert r.exit_code == 1
    lines = r.stderr.splitlines()
    assert f"{path}:7:13: plugins.{PLUGIN}.factor: plugin {PLUGIN}: must be at least 1, not 0" in lines
    assert any(line.startswith(f"{path}:8:5: plugins.{PLUGIN}.facter: plugin {PLUGIN}: unknown key 'facter'")
               and "did you mean 'factor'" in line for line in lines), lines


def test_validate_rejects_an_unknown_plugin(tmp_path: Path) -> None:
    path = write_ruleset(tmp_path, "triple-pay: {factor: 3}\n")
    r = mj("validate", str(path))
    assert r.exit_code == 1
    assert f"{path}:6:3: plugins.triple-pay: no plugin named 'triple-pay' is installed" in r.stderr


def test_conformance_cases_give_plugin_inputs_and_flags(double_pay: type, tmp_path: Path) -> None:
    write_ruleset(tmp_path, f"{PLUGIN}: {{factor: 2}}\n")
    cases = tmp_path / "double.yaml"
    cases.write_text(textwrap.dedent("""\
        format: 1
        ruleset: changsha-double.yaml
        cases:
          - id: doubled
            note: "dealer 平胡 self-draw: each pays 10+10=20, doubled"
            hand: 123m 456m 789p 345s 2p
            win_tile: 2p
            win_by: self_draw
            expect: {win: true, patterns: [平胡], payments: [120, -40, -40, -40]}
          - id: factor-from-context
            note: "the game's input (context.extra) wins over the option: ×3"
            hand: 123m 456m 789p 345s 2p
            win_tile: 2p
            win_by: self_draw
            context: {double_pay: 3}
            expect: {payments: [180, -60, -60, -60]}
          - id: with-a-bird
            note: "bird 1m hits the dealer: the birds double every payment (40), then ×2"
            hand: 123m 456m 789p 345s 2p
            win_tile: 2p
            win_by: self_draw
            context: {birds: [1m]}
            expect: {payments: [240, -80, -80, -80]}
          - id: last-tile-flag
            note: "flags: last_tile makes 海底捞月 (a big, 60+10 from each), doubled"
            hand: 123m 456m 789p 345s 2p
            win_tile: 2p
            win_by: self_draw
            flags: [last_tile]
            expect: {patterns: [海底捞月], payments: [420, -140, -140, -140]}
        """), encoding="utf-8")
    r = mj("conformance", str(cases))
    assert r.exit_code == 0, r.output
    assert "4 passed, 0 failed" in r.output


# -- playing with it --------------------------------------------------------------------


def test_simulated_hands_pay_double(double_pay: type, tmp_path: Path) -> None:
    path = write_ruleset(tmp_path, f"{PLUGIN}: {{factor: 2}}\n")
    plain = simulate("changsha", 16, seed=7, log=tmp_path / "plain.jsonl")
    double = simulate(str(path), 16, seed=7, log=tmp_path / "double.jsonl")
    assert double.stats.won == plain.stats.won > 0
    assert double.stats.net_by_seat == [2 * x for x in plain.stats.net_by_seat]

    a = events(tmp_path / "plain.jsonl")[1:]
    b = events(tmp_path / "double.jsonl")[1:]
    marks = [e for e in b if e["type"] == "double_pay"]
    settlements = [e for e in b if e["type"] == "settlement"]
    assert marks and all(m == {"type": "double_pay", "seat": m["seat"], "factor": 2} for m in marks)
    # One per win (and per opening declaration), each just after it (spoken calls aside).
    assert len(marks) == sum(e["type"] in ("win", "opening_win") for e in b)
    for i, e in enumerate(b):
        if e["type"] == "double_pay":
            before = next(x for x in reversed(b[:i]) if x["type"] not in ("call", "birds"))
            assert before["type"] in ("win", "opening_win") and before["seat"] == e["seat"]
    # Otherwise the same hands, every settlement doubled.
    b = [e for e in b if e["type"] != "double_pay"]
    assert [e["type"] for e in a] == [e["type"] for e in b]
    for x, y in zip(a, b, strict=True):
        if x["type"] == "settlement":
            assert y["payments"] == [2 * p for p in x["payments"]]
            assert [i["amount"] for i in y["items"]] == [2 * i["amount"] for i in x["items"]]
            assert all(i["reason"].endswith("x2 double-pay") for i in y["items"])
        elif x["type"] != "hand_start":  # hand_start names the ruleset
            assert x == y
    assert settlements


# -- a plugin that fails ---------------------------------------------------------------

HOOKS = ["mj_after_deal", "mj_extra_options", "mj_last_tile", "mj_settlement_inputs",
         "mj_modify_settlement", "mj_win_call", "mj_next_dealer", "mj_announce"]


class Boom:
    """Raises in the hook named by its ``hook`` option (in the hands listed by ``hands``, or all)."""

    options_schema: ClassVar[dict[str, Any]] = {
        "type": "object", "additionalProperties": False,
        "properties": {"hook": {"enum": HOOKS},
                       "hands": {"type": "array", "items": {"type": "integer"}}},
    }

    def __init__(self, options: dict[str, Any]) -> None:
        self.hook = options.get("hook", "mj_after_deal")
        self.hands = options.get("hands")

    def _maybe(self, hook: str, hand: Any = None) -> None:
        if hook == self.hook and (self.hands is None or hand is None or hand.hand_no in self.hands):
            raise RuntimeError(f"boom in {hook}")

    @hookimpl
    def mj_after_deal(self, hand: Any) -> None:
        self._maybe("mj_after_deal", hand)

    @hookimpl
    def mj_extra_options(self, hand: Any, seat: int, decision: Any) -> None:
        self._maybe("mj_extra_options", hand)

    @hookimpl
    def mj_last_tile(self, hand: Any, seat: int) -> None:
        self._maybe("mj_last_tile", hand)

    @hookimpl
    def mj_settlement_inputs(self, hand: Any, context: Any) -> None:
        self._maybe("mj_settlement_inputs", hand)

    @hookimpl
    def mj_modify_settlement(self, settlement: Any, context: Any) -> None:
        self._maybe("mj_modify_settlement")

    @hookimpl
    def mj_win_call(self, patterns: list[str], context: Any) -> None:
        self._maybe("mj_win_call")

    @hookimpl
    def mj_next_dealer(self, hand: Any, result: Any) -> None:
        self._maybe("mj_next_dealer", hand)

    @hookimpl
    def mj_announce(self, hand: Any, event: Any) -> None:
        self._maybe("mj_announce", hand)


def test_a_failing_plugin_abandons_its_hand_and_the_next_hand_is_played(
        register: Any, tmp_path: Path) -> None:
    register("boom", Boom)
    path = write_ruleset(tmp_path, "boom: {hook: mj_after_deal, hands: [0]}\n", rid="boom")
    # One hand through the Game API.
    rs = load_ruleset(path)
    log: list[dict[str, Any]] = []
    result = Game(rs, [GreedyBot() for _ in range(rs.players)], seed=1, emit=log.append).play()
    assert result.result == "abandon"
    assert result.payments == [0] * rs.players
    assert "'boom'" in result.error and "mj_after_deal" in result.error
    assert [e["type"] for e in log][-2:] == ["abandon", "hand_end"]
    # A game of 4 hands: the first is abandoned, the others are played.
    sim = simulate(str(path), 4, seed=5, hands_per_game=4, log=tmp_path / "boom.jsonl")
    assert (sim.stats.hands, sim.stats.abandoned, sim.stats.engine_errors) == (4, 1, 0)
    ends = [e for e in events(tmp_path / "boom.jsonl") if e["type"] in ("abandon", "hand_end")]
    assert ends[0]["type"] == "abandon"
    assert ends[0]["reason"].startswith("plugin 'boom' failed in mj_after_deal: RuntimeError: boom")
    assert next(e["result"] for e in ends if e["type"] == "hand_end") == "abandon"
    assert all(e["result"] != "abandon" for e in ends[2:])


@pytest.mark.parametrize("hook", HOOKS)
def test_a_plugin_raising_in_any_hook_is_named(register: Any, tmp_path: Path, hook: str) -> None:
    register("boom", Boom)
    # Without the built-in plugins that answer first-result hooks (the 海底 one ends the
    # hand at the last tile), so that boom's hook is reached.
    path = write_ruleset(tmp_path, f"haidi: null\nkaigang: null\nboom: {{hook: {hook}}}\n",
                         rid="boom")
    sim = simulate(str(path), 8, seed=3, log=tmp_path / "boom.jsonl")
    assert sim.stats.hands == 8
    assert sim.stats.abandoned >= 1
    assert sim.stats.engine_errors == 0
    reasons = [e["reason"] for e in events(tmp_path / "boom.jsonl") if e["type"] == "abandon"]
    assert len(reasons) == sim.stats.abandoned
    assert all(r.startswith(f"plugin 'boom' failed in {hook}: RuntimeError") for r in reasons), reasons


# -- installed for real: found through its entry point ---------------------------------------


def test_an_installed_package_is_found_through_its_entry_point(tmp_path: Path) -> None:
    site = write_dist_info(write_package(tmp_path / "mj-double-pay"), tmp_path / "site",
                          {"broken-pay": "mj_broken_pay"})
    (site / "mj_broken_pay.py").write_text("import mj_missing_dependency  # noqa\n", encoding="utf-8")
    env = {**os.environ,
           "PYTHONPATH": os.pathsep.join(filter(None, [str(site), os.environ.get("PYTHONPATH")]))}

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "mjframework", *args], capture_output=True,
                              text=True, env=env, cwd=tmp_path, timeout=120)

    listed = run("plugins", "--json")
    assert listed.returncode == 0, listed.stderr
    assert "Traceback" not in listed.stderr
    found = {d["name"]: d for d in map(json.loads, listed.stdout.splitlines())}
    d = found[PLUGIN]
    assert (d["source"], d["distribution"], d["target"]) == ("entry_point", "mj-double-pay 0.1.0", MODULE)
    assert d["hooks"] == ["mj_context_inputs", "mj_modify_settlement", "mj_settlement_inputs"] and d["ok"]
    assert d["file"] == str(site / f"{MODULE}.py")
    broken = found["broken-pay"]
    assert not broken["ok"]
    assert "failed to load" in broken["error"] and "mj_missing_dependency" in broken["error"]
    assert run("plugins", PLUGIN, "--strict").returncode == 0
    strict = run("plugins", "broken-pay", "--strict")
    assert strict.returncode == 1 and "FAILED TO LOAD" in strict.stdout
    assert "Traceback" not in strict.stderr

    path = write_ruleset(tmp_path, f"{PLUGIN}: {{factor: 2}}\n")
    ok = run("validate", str(path))
    assert ok.returncode == 0, ok.stderr
    sim = run("simulate", str(path), "-n", "8", "--seed", "7", "--json", "--log", "log.jsonl")
    assert sim.returncode == 0, sim.stderr
    stats = json.loads(sim.stdout)
    assert stats["hands"] == 8 and stats["abandoned"] == 0 and stats["won"] > 0
    log = events(tmp_path / "log.jsonl")
    assert sum(e["type"] == "double_pay" for e in log) >= stats["won"]
    assert all(i["reason"].endswith("x2 double-pay")
               for e in log if e["type"] == "settlement" for i in e["items"])
