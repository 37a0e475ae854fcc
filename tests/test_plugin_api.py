"""The plugin API (``mjframework.plugin``) and the library face (``mjframework``).

- the shipped plugins import nothing from the framework but ``mjframework.plugin``;
- every name either face exports resolves, and docs/api.md documents it;
- ``import mjframework`` stays light (the engine is loaded on first use);
- a plugin ends a turn or the hand by *returning* ``Discard`` / ``Continue`` /
  ``Win`` / ``EndDrawn``; the old tuples and ``hand.win`` / ``hand.end_drawn``
  still work for one release, with a ``DeprecationWarning``, and give the same log;
- ``HandControl.stash`` holds per-hand plugin state;
- docs/plugins.md documents every public member of HandControl, TableView, Decision and
  SettlementContext.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import textwrap
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import mjframework
import mjframework.plugin as api
from mjframework.hooks import registry
from mjframework.play.bots import GreedyBot
from mjframework.play.game import Game, HandResult
from mjframework.play.outcomes import option_outcome
from mjframework.play.players import TableView
from mjframework.plugin import (
    Continue,
    Decision,
    Discard,
    EndDrawn,
    HandControl,
    Option,
    OptionOutcome,
    Stash,
    StashKey,
    Win,
    hookimpl,
)
from mjframework.rules.loader import load_ruleset

ROOT = Path(__file__).resolve().parents[1]
API_DOC = ROOT / "docs" / "api.md"


# -- the two faces ---------------------------------------------------------------------------


@pytest.mark.parametrize("path", sorted((ROOT / "plugins").glob("*.py")), ids=lambda p: p.name)
def test_shipped_plugins_import_only_the_plugin_api(path: Path) -> None:
    tree = ast.parse(path.read_text("utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            names = [node.module or ""]
            assert node.level == 0 or path.name == "__init__.py", f"{path.name}: relative import"
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            continue
        for name in names:
            if name.split(".")[0] == "mjframework":
                assert name == "mjframework.plugin", (
                    f"plugins/{path.name}:{node.lineno} imports {name}: plugins import only "
                    "mjframework.plugin")


@pytest.mark.parametrize("module", [mjframework, api], ids=lambda m: m.__name__)
def test_every_exported_name_resolves_and_is_documented(module: Any) -> None:
    doc = API_DOC.read_text("utf-8")
    assert module.__all__ == sorted(module.__all__, key=str)  # kept sorted: easy to review
    assert len(set(module.__all__)) == len(module.__all__)
    for name in module.__all__:
        assert getattr(module, name) is not None, name
        # `name` or `name(arguments…)`, in code
        assert re.search(rf"`{name}[`(]", doc), f"docs/api.md doesn't document {module.__name__}.{name}"


def test_the_plugin_face_reexports_the_engine_objects() -> None:
    assert api.HandControl is HandControl
    assert api.hookimpl is __import__("mjframework.hooks.specs", fromlist=["hookimpl"]).hookimpl
    assert mjframework.__all__ == sorted(mjframework._WHERE)
    assert mjframework.run_simulation is __import__("mjframework.run.simulate", fromlist=["x"]).simulate


def test_import_mjframework_is_light() -> None:
    code = ("import sys, mjframework; heavy = [m for m in ('mjframework.play.game', "
            "'mjframework.evaluate.scoring', 'mjframework.rules.loader', 'jsonschema', 'pluggy', 'yaml') "
            "if m in sys.modules]; print(heavy)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_faces_use_no_deprecated_path() -> None:
    """Every exported name of both faces resolves without a DeprecationWarning (no old flat path)."""
    code = ("import mjframework, mjframework.plugin as p; "
            "[getattr(mjframework, n) for n in mjframework.__all__]; [getattr(p, n) for n in p.__all__]")
    r = subprocess.run([sys.executable, "-W", "error::DeprecationWarning", "-c", code],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no_such_thing"):
        mjframework.no_such_thing  # type: ignore[attr-defined]  # noqa: B018
    assert "load_ruleset" in dir(mjframework)


# -- the stash -----------------------------------------------------------------------------


def test_stash_keys_are_typed_and_distinct() -> None:
    stash = Stash()
    a, b = StashKey[int](), StashKey[list[str]]()
    assert a not in stash and len(stash) == 0
    with pytest.raises(KeyError):
        stash[a]
    assert stash.get(a) is None and stash.get(a, 3) == 3
    stash[a] = 1
    assert stash[a] == 1 and b not in stash
    assert stash.setdefault(b, ["x"]) == ["x"]
    stash.setdefault(b, []).append("y")
    assert stash[b] == ["x", "y"] and len(stash) == 2
    assert stash.pop(a) == 1 and stash.pop(a, None) is None
    del stash[b]
    assert len(stash) == 0
    with pytest.raises(KeyError):
        stash.pop(a)


# -- typed results and the old tuples ------------------------------------------------------


def test_typed_results_are_frozen_values() -> None:
    assert Discard(5, ["after_kong_discard"]) == Discard(5, ("after_kong_discard",))
    assert Discard(5, ["x"]).flags == ("x",) and Discard(5, "x").flags == ("x",)
    assert Win([1, 2], 5, "discard", 0, {1: ["x"]}).flag_sets() == {1: {"x"}}
    assert Win([1, 2], 5, "discard").seats == (1, 2)
    assert Win((1,), 5, "self_draw", flags=("a", "b")).flag_sets() == {"a", "b"}
    with pytest.raises(AttributeError):
        Continue(3).tile = 4  # type: ignore[misc]


def test_old_tuples_convert_with_a_deprecation_warning() -> None:
    with pytest.warns(DeprecationWarning, match=r"return mjframework.plugin.Discard\(tile, flags\)"):
        assert option_outcome(("discard", 7, ["f"])) == Discard(7, ("f",))
    with pytest.warns(DeprecationWarning, match="Continue"):
        assert option_outcome(("continue", 7, [])) == Continue(7)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert option_outcome(None) is None
        assert option_outcome(EndDrawn(2)) == EndDrawn(2)
    with pytest.raises(TypeError, match="expected Discard, Continue, Win, EndDrawn or None"):
        option_outcome(("hurl", 7))


# -- in a played hand: typed results and the deprecated ways give one log ----------------------


class Pauser:
    """Offers each seat, once a hand, to pause on its drawn tile (the turn goes on: Continue),
    then to hurl it (a Discard). State: which seats paused, in the hand's stash."""

    legacy = False

    def __init__(self, options: dict[str, Any]) -> None:
        self.paused = StashKey[set[int]]()

    @hookimpl
    def mj_extra_options(self, hand: HandControl, seat: int, decision: Decision) -> list[Option] | None:
        if decision.kind != "turn" or decision.tile is None or hand.is_locked(seat):
            return None
        if seat in hand.stash.get(self.paused, set()):
            return [Option("hurl", decision.tile)]
        return [Option("pause", decision.tile)]

    @hookimpl
    def mj_handle_option(self, hand: HandControl, seat: int, option: Option) -> OptionOutcome | tuple | None:
        assert option.tile is not None
        if option.kind == "pause":
            hand.stash.setdefault(self.paused, set()).add(seat)
            hand.emit("paused", seat=seat)
            return ("continue", option.tile, []) if self.legacy else Continue(option.tile)
        if option.kind == "hurl":
            if self.legacy:
                return ("discard", option.tile, ["after_kong_discard"])
            return Discard(option.tile, ("after_kong_discard",))
        return None


class OldPauser(Pauser):
    legacy = True


class Declarer:
    """Offers ``declare`` beside every self-drawn win; the plugin settles it."""

    legacy = False

    def __init__(self, options: dict[str, Any]) -> None:
        pass

    @hookimpl
    def mj_extra_options(self, hand: HandControl, seat: int, decision: Decision) -> list[Option] | None:
        wins = [o for o in decision.options if o.kind == "win"]
        return [Option("declare", wins[0].tile)] if decision.kind == "turn" and wins else None

    @hookimpl
    def mj_handle_option(self, hand: HandControl, seat: int, option: Option) -> Win | None:
        if option.kind != "declare":
            return None
        assert option.tile is not None
        if self.legacy:
            hand.win([seat], option.tile, "self_draw", flags={seat: ["last_copy"]})
            return None  # (never reached)
        return Win((seat,), option.tile, "self_draw", flags={seat: ("last_copy",)})


class OldDeclarer(Declarer):
    legacy = True


class Stopper:
    """The last tile is never drawn: the hand ends drawn, the dealer's opposite dealing next."""

    legacy = False

    def __init__(self, options: dict[str, Any]) -> None:
        pass

    @hookimpl
    def mj_last_tile(self, hand: HandControl, seat: int) -> EndDrawn | None:
        nxt = (hand.dealer + 2) % hand.players
        hand.emit("stopped", seat=seat)
        if self.legacy:
            hand.end_drawn(next_dealer=nxt)
        return EndDrawn(next_dealer=nxt)


class OldStopper(Stopper):
    legacy = True


PLUGINS = {"t-pause": Pauser, "t-old-pause": OldPauser, "t-declare": Declarer,
           "t-old-declare": OldDeclarer, "t-stop": Stopper, "t-old-stop": OldStopper}


@pytest.fixture(autouse=True)
def _registered() -> Iterator[None]:
    for name, cls in PLUGINS.items():
        registry.register_plugin(name, cls)
    try:
        yield
    finally:
        for name in PLUGINS:
            registry.unregister_plugin(name)


class Picky:
    """Takes the first offered option of ``kinds``; otherwise decides as the greedy bot."""

    def __init__(self, *kinds: str) -> None:
        self.kinds = kinds
        self.bot = GreedyBot()

    def decide(self, view: Any, decision: Decision) -> Option:
        for o in decision.options:
            if o.kind in self.kinds:
                return o
        return self.bot.decide(view, decision)


def play(tmp_path: Path, plugin: str, seed: int,
         *kinds: str) -> tuple[HandResult, list[dict[str, Any]], list[str]]:
    path = tmp_path / f"{plugin}.yaml"
    off = "".join(f"  {p}: null\n" for p in ("opening-wins", "haidi", "kaigang", "calls"))
    path.write_text(textwrap.dedent(f"""\
        format: 1
        id: api-{plugin}
        name: api
        extends: changsha
        plugins:
          {plugin}: {{}}
        """) + off, encoding="utf-8")
    rs = load_ruleset(path)
    log: list[dict[str, Any]] = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = Game(rs, [Picky(*kinds) for _ in range(rs.players)], seed=seed, emit=log.append).play()
    ours = [str(w.message) for w in caught if issubclass(w.category, DeprecationWarning)
            and "mjframework.plugin." in str(w.message)]
    for e in log:
        if e.get("type") == "hand_start":
            e.pop("ruleset")
    return result, log, ours


def test_continue_and_discard_results_and_the_old_tuples_give_one_log(tmp_path: Path) -> None:
    for seed in (1, 2):
        new, new_log, new_warn = play(tmp_path, "t-pause", seed, "pause", "hurl")
        old, old_log, old_warn = play(tmp_path, "t-old-pause", seed, "pause", "hurl")
        assert new.result != "abandon", new.error
        assert new_log == old_log and new == old
        assert sum(e["type"] == "paused" for e in new_log) >= 4  # each seat paused, then hurled
        assert not new_warn
        assert any("Continue(tile, flags)" in m for m in old_warn)
        assert any("Discard(tile, flags)" in m for m in old_warn)


def test_a_returned_win_and_the_deprecated_hand_win_give_one_log(tmp_path: Path) -> None:
    for seed in range(1, 30):
        new, new_log, new_warn = play(tmp_path, "t-declare", seed, "declare")
        if new.result == "win" and any(e.get("win_by") == "self_draw" for e in new_log):
            break
    else:
        pytest.fail("no self-drawn win in 30 seeds")
    old, old_log, old_warn = play(tmp_path, "t-old-declare", seed, "declare")
    assert new_log == old_log and new == old
    assert not new_warn and any("HandControl.win() is deprecated" in m for m in old_warn)


def test_in_a_hand_that_goes_on_a_returned_win_and_the_deprecated_hand_win_give_one_log(
        tmp_path: Path) -> None:
    """血战 goes on after a win: the win a plugin returns is settled and play resumes (the
    engine's Resume step); the deprecated ``hand.win`` ends its hook from inside the plugin's
    frame and the turn loop resumes the same way. Same log."""
    def play_on(plugin: str, seed: int) -> tuple[HandResult, list[dict[str, Any]]]:
        path = tmp_path / f"{plugin}-on.yaml"
        path.write_text(textwrap.dedent(f"""\
            format: 1
            id: api-on-{plugin}
            name: api
            extends: sichuan-xuezhan
            plugins:
              {plugin}: {{}}
            """), encoding="utf-8")
        rs = load_ruleset(path)
        log: list[dict[str, Any]] = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            result = Game(rs, [Picky("declare") for _ in range(rs.players)], seed=seed,
                          emit=log.append).play()
        for e in log:
            if e.get("type") == "hand_start":
                e.pop("ruleset")
        return result, log

    for seed in range(1, 40):
        new, new_log = play_on("t-declare", seed)
        wins = [e for e in new_log if e.get("type") == "win"]
        if wins and wins[0]["win_by"] == "self_draw" and new_log.index(wins[0]) < len(new_log) - 12 and any(
                e.get("type") == "draw" for e in new_log[new_log.index(wins[0]):]):
            break
    else:
        pytest.fail("no self-drawn win with play going on after it in 40 seeds")
    assert new.result == "win", new.error
    old, old_log = play_on("t-old-declare", seed)
    assert new_log == old_log and new == old


def test_a_returned_drawn_end_and_the_deprecated_end_drawn_give_one_log(tmp_path: Path) -> None:
    for seed in range(1, 40):
        new, new_log, new_warn = play(tmp_path, "t-stop", seed)
        if new.result == "draw":
            break
    else:
        pytest.fail("no drawn hand in 40 seeds")
    old, old_log, old_warn = play(tmp_path, "t-old-stop", seed)
    assert new_log == old_log and new == old
    dealer = new_log[0]["dealer"]
    assert new.next_dealer == (dealer + 2) % 4
    assert new_log[-1]["type"] == "hand_end" and new_log[-1]["next_dealer"] == (dealer + 2) % 4
    assert [e["type"] for e in new_log].count("stopped") == 1  # the hook ended it, not the wall
    assert not new_warn and any("HandControl.end_drawn() is deprecated" in m for m in old_warn)


def test_a_handler_returning_junk_abandons_the_hand(tmp_path: Path) -> None:
    class Junk(Pauser):
        @hookimpl
        def mj_handle_option(self, hand: HandControl, seat: int, option: Option) -> Any:
            return ("hurl", option.tile)

    registry.register_plugin("t-junk", Junk)
    try:
        result, _, _ = play(tmp_path, "t-junk", 1, "pause")
    finally:
        registry.unregister_plugin("t-junk")
    assert result.result == "abandon"
    assert "mj_handle_option returned ('hurl'" in result.error


# -- docs/plugins.md documents every public member of the objects a plugin is handed -----------

PLUGINS_DOC = ROOT / "docs" / "plugins.md"


def _public_members(cls: type) -> list[str]:
    """Public attributes and methods: ``dir`` plus dataclass fields, ``__slots__`` and what
    ``__init__`` assigns to ``self`` (``HandControl.stash``), none of which ``dir`` of the
    class alone lists reliably."""
    import dataclasses
    import inspect
    names = {n for n in dir(cls) if not n.startswith("_")}
    if dataclasses.is_dataclass(cls):
        names |= {f.name for f in dataclasses.fields(cls)}
    elif "__init__" in vars(cls):
        init = textwrap.dedent(inspect.getsource(cls.__init__))
        names |= set(re.findall(r"self\.([a-z]\w*)\s*=", init))
    names |= {n for n in getattr(cls, "__slots__", ()) if not n.startswith("_")}
    return sorted(names)


@pytest.mark.parametrize("cls", [HandControl, TableView, Decision, api.SettlementContext],
                         ids=lambda c: c.__name__)
def test_plugins_doc_documents_every_public_member(cls: type) -> None:
    doc = PLUGINS_DOC.read_text("utf-8")
    m = re.search(rf"^### `{cls.__name__}`$(.*?)(?=^##)", doc, re.M | re.S)
    assert m, f"docs/plugins.md has no '### `{cls.__name__}`' reference section"
    section = m.group(1)
    members = _public_members(cls)
    assert len(members) >= 6, members  # the introspection found the members at all
    # each as a table row: | `name` or | `name(arguments…)`
    missing = [n for n in members if not re.search(rf"^\| `{n}[`(]", section, re.M)]
    assert not missing, f"docs/plugins.md doesn't document {cls.__name__}.{', '.join(missing)}"
