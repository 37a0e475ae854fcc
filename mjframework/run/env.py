"""The core of the learning-agent environments: any declared variant, one decision per step.

::

    from mjframework.run.env import make_env
    env = make_env("RULESET-ID", seed=7)
    obs, info = env.reset()
    terminated = False
    while not terminated:
        legal = np.flatnonzero(obs["action_mask"])
        obs, rewards, terminated, truncated, info = env.step(int(rng.choice(legal)))

:class:`MahjongEnv` is the multi-seat core: the seat to act (``info["seat"]``) steps, the
rewards are a vector with one entry per seat. The standards' forms are built on it
(:mod:`mjframework.run.envs`): PettingZoo's AEC and Parallel environments, a single-agent
Gymnasium environment, a vector of tables. Observations and actions use the fixed
encodings of :mod:`mjframework.run.envs.encoding` — the same shapes for every ruleset.

Everything a seat observes is derived from what that seat may see
(:mod:`mjframework.play.visibility`). The shapes and the rules for actions, seeds and
rewards are documented in ``docs/agents.md``. Needs numpy (the ``env`` extra).
"""

from __future__ import annotations

import operator
import random
from collections.abc import Mapping
from typing import Any

try:
    import numpy as np
except ImportError as e:  # pragma: no cover - numpy is in the env extra
    raise ImportError("mjframework.run.env needs numpy: pip install 'mjframework[env]'") from e

from ..core.tiles import format_tiles, tile_code
from ..play.actions import ActionSpace, EnvError, option_name
from ..play.game import HandResult
from ..play.players import Decision, Option
from ..play.seatlog import SeatStream
from ..play.series import Carry
from ..play.stepper import Table
from ..play.visibility import meld_for, view_for
from .envs.encoding import ACTION_N, EXCHANGE, LAYOUT, OBS_SIZE, ActionCodec, HandEncoder, ObsLayout, pickable

MAX_SEED = 2**63 - 1


def check_seed(seed: Any) -> int | None:
    """``None`` or a non-negative integer (``bool`` and floats refused): the env's seeds."""
    if seed is None:
        return None
    if isinstance(seed, bool | np.bool_):
        raise EnvError(f"a seed is a non-negative integer, got {seed!r}")
    try:
        s = operator.index(seed)
    except TypeError:
        raise EnvError(f"a seed is a non-negative integer, got {seed!r}") from None
    if not 0 <= s <= MAX_SEED:
        raise EnvError(f"a seed is a non-negative integer below 2**63, got {s}")
    return s


_BOOLS = (bool, np.bool_)


def check_action(action: Any) -> int:
    """An action index as an ``int``: integers only (``2.9``, ``2.0``, ``"2"``, ``True`` refused)."""
    if type(action) is int:  # the usual case, first (a bool's type is bool)
        return action
    if isinstance(action, _BOOLS):
        raise EnvError(f"an action is an integer index, got {action!r}")
    try:
        return operator.index(action)
    except TypeError:
        raise EnvError(f"an action is an integer index, got {action!r}") from None


class IllegalAction(EnvError):
    """An action whose mask entry is 0 (or out of range)."""


class MahjongEnv:
    """One hand per episode of a ruleset; the seat to act steps (see the module doc).

    ``options``: ``dealer`` (the
    first dealer, default 0, or ``"random"``: drawn from the seed, or ``"game"``: the
    episodes are the hands of one game, :class:`~mjframework.play.series.Carry`), ``events`` (``True``:
    ``info["events"]``, what the acting seat saw since it last acted, as a seat log; off by
    default: it costs about as much as the step), ``illegal``: what an integer action in
    range whose mask entry is 0 does — ``"raise"`` (the default here: :class:`EnvError`,
    nothing changes) or ``"terminate"`` (the hand ends at once, the offender's reward is
    ``illegal_reward``, default -1.0, the others' 0: PettingZoo's ``TerminateIllegalWrapper``
    convention, the default of the standard forms). A non-integer or an index out of range
    always raises.
    """

    observation_size = OBS_SIZE
    action_size = ACTION_N
    layout: ObsLayout = LAYOUT

    def __init__(self, ruleset: Any, seed: int | None = None, options: dict[str, Any] | None = None,
                 evaluator: Any = None) -> None:
        # One evaluator (its plugin manager, its tables) for every hand: building it is most of
        # a hand's start. A ruleset named by id or path shares the process's cached one.
        if isinstance(ruleset, str):
            from .simulate import load_cached

            ruleset, self.evaluator = load_cached(ruleset)
        elif evaluator is not None:  # the caller's, made for this ruleset (tables sharing one)
            self.evaluator = evaluator
        else:
            from ..evaluate.scoring import Evaluator

            self.evaluator = Evaluator(ruleset)
        self.ruleset = ruleset
        self.options = dict(options or {})
        unknown = set(self.options) - {"backend", "dealer", "events", "illegal", "illegal_reward"}
        if unknown:
            raise EnvError(f"unknown env options: {', '.join(sorted(unknown))}")
        dealer = self.options.get("dealer", 0)
        if dealer not in ("random", "game") and (isinstance(dealer, bool) or not isinstance(dealer, int)
                                   or not 0 <= dealer < ruleset.players):
            raise EnvError(f"option dealer: a seat 0–{ruleset.players - 1}, 'random' or 'game', "
                           f"got {dealer!r}")
        self.illegal = self.options.get("illegal", "raise")
        if self.illegal not in ("raise", "terminate"):
            raise EnvError(f"option illegal: 'raise' or 'terminate', got {self.illegal!r}")
        try:
            self.illegal_reward = float(self.options.get("illegal_reward", -1.0))
        except (TypeError, ValueError):
            bad = self.options["illegal_reward"]
            raise EnvError(f"option illegal_reward: a number, got {bad!r}") from None
        # (seat, action name) of an illegal action that ended the hand
        self.forfeit: tuple[int, str] | None = None
        self.players: int = ruleset.players
        self.codec = ActionCodec(ruleset)
        self.actions: ActionSpace = self.codec.local  # the ruleset's named actions
        self.names = self.codec.names  # the universal index → its name for this ruleset
        self.seed = check_seed(seed)
        self._episode = 0
        self._events = bool(self.options.get("events", False))
        self.table: Table | None = None
        self._encoder: HandEncoder | None = None  # the hand's observation encoder (made by _begin)
        self._carry: Carry | None = None  # option dealer: game — what the game carries on
        self.decision: Decision | None = None
        self.result: HandResult | None = None
        self._legal: dict[int, Option] = {}
        self._picks: list[int] = []
        self._exch = False  # the pending decision is an exchange, picked a tile a step (_arrive)
        self._pick_cache: tuple[int, list[int]] | None = None
        self._cursor = [0] * self.players
        self._streams = [SeatStream(s) for s in range(self.players)]
        #: Decision sets (:meth:`step_set`): every seat of the pending set sees its own
        #: decision in its mask and observation (the Parallel form sets it; the one-seat
        #: forms leave it off: only the seat to act has a mask).
        self.sets = False
        self._group: dict[int, Decision] | None = None  # the pending set, seat → decision
        self._set_picks: dict[int, list[int]] = {}  # exchange picks of the set's other seats
        self._set_legal: dict[int, dict[int, Option]] = {}  # the option maps of the set's other seats

    # -- the episode -------------------------------------------------------------

    @property
    def agent_to_act(self) -> int | None:
        return None if self.decision is None else self.decision.seat

    def hand_seed(self, seed: int | None = None) -> int:
        """The seed of the next hand: ``seed`` (which also restarts the sequence) or the last
        given seed plus the number of hands since (0 when none was ever given)."""
        s = check_seed(seed)
        if s is not None:
            self.seed, self._episode = s, 0
        out = ((self.seed or 0) + self._episode) % (MAX_SEED + 1)
        self._episode += 1
        return out

    def reset(self, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """Start a hand (see :meth:`hand_seed`); ``options`` is accepted for the standards and unused."""
        self._begin(seed)
        obs, _rewards, _term, _trunc, info = self._out()
        assert obs is not None
        return obs, info

    def _begin(self, seed: int | None = None) -> None:
        """:meth:`reset` without building the observation (the vector env writes its own)."""
        seed = self.hand_seed(seed)
        dealer = self.options.get("dealer", 0)
        if dealer == "random":
            dealer = random.Random(f"dealer/{seed}").randrange(self.players)
        carry = None
        if dealer == "game":  # the episodes are the hands of one game (restarted by a given seed)
            if self._carry is None or self._episode == 1:
                self._carry = Carry(self.ruleset, 0)
            carry, dealer = self._carry, self._carry.dealer
        if self.table is not None:
            self.table.close()
        # The table keeps the events only for the ``events`` option (info["events"],
        # seat_events): otherwise the hand builds none, as a silent simulation.
        self.table = Table(self.ruleset, seed=seed, dealer=int(dealer), evaluator=self.evaluator,
                           backend=self.options.get("backend"), keep_events=self._events, carry=carry)
        self.result = None
        self.forfeit = None
        self._cursor = [0] * self.players
        self._streams = [SeatStream(s) for s in range(self.players)]
        pending = self.table.reset()
        self._encoder = HandEncoder(self._game())
        self._arrive(pending)

    def step(self, action: Any) -> tuple[dict[str, np.ndarray], np.ndarray, bool, bool, dict[str, Any]]:
        """The seat to act takes ``action`` (an integer whose mask entry is 1).

        Returns the next seat's observation, every seat's reward (the hand's settlement
        money at its end; zeros before), terminated, truncated (always False: a hand ends
        on its own) and info. A non-integer or an illegal action raises :class:`EnvError`
        and changes nothing."""
        obs, rewards, terminated, truncated, info = self._step(action, True)
        assert obs is not None
        return obs, rewards, terminated, truncated, info

    def _step(self, action: Any, observe: bool) -> tuple[dict[str, np.ndarray] | None, np.ndarray, bool, bool,
                                                          dict[str, Any]]:
        """:meth:`step`; ``observe=False`` builds no observation (``None`` in its place): for
        the standard forms, which observe each agent themselves (an observation built and
        dropped is ~10 % of a step)."""
        action = check_action(action)
        try:
            self._take(action)
        except IllegalAction:
            if self.illegal == "raise" or not 0 <= action < ACTION_N:
                raise
            return self._forfeit(action)
        return self._out(observe)

    @property
    def pending_seats(self) -> list[int]:
        """The seats of the pending decision set (:attr:`Table.pending_set
        <mjframework.play.stepper.Table.pending_set>`), in the order the engine takes them:
        several for the claims on a discard, an exchange or a declaration at the deal, else
        the seat to act alone; empty when the hand is over."""
        return list(self._pending_group())

    def step_set(self, actions: Mapping[int, Any]) -> tuple[dict[str, np.ndarray], np.ndarray, bool, bool,
                                                             dict[str, Any]]:
        """Every seat of the pending decision set (:attr:`pending_seats`) acts at once:
        ``actions`` maps each to an action legal in its own mask (other seats' entries are
        ignored). An exchange is picked a tile a step, every seat of the set at once; the
        set is answered (``Table.step_all``) when every seat has acted. A missing seat or a
        non-integer raises :class:`EnvError`, an illegal action as :meth:`step` (the first
        illegal seat, in the set's order, forfeits), all before anything changes. Returns
        :meth:`step`'s 5-tuple (the observation of the next set's first seat)."""
        obs, rewards, terminated, truncated, info = self._step_set(actions, True)
        assert obs is not None
        return obs, rewards, terminated, truncated, info

    def _step_set(self, actions: Mapping[int, Any], observe: bool) -> tuple[
            dict[str, np.ndarray] | None, np.ndarray, bool, bool, dict[str, Any]]:
        """:meth:`step_set`; ``observe=False`` as in :meth:`_step`."""
        if self.table is None or self.decision is None:
            raise EnvError("no hand in progress: call reset()")
        group = self._pending_group()
        missing = [s for s in group if s not in actions]
        if missing:
            raise EnvError(f"seats {', '.join(map(str, group))} decide at once: no action for seat "
                           f"{', '.join(map(str, missing))}")
        if len(group) == 1:
            return self._step(actions[self.decision.seat], observe)
        chosen = {s: check_action(actions[s]) for s in group}
        for s, d in group.items():  # every action checked before any is taken
            a = chosen[s]
            if a not in self._seat_legal(s, d):
                if self.illegal == "raise" or not 0 <= a < ACTION_N:
                    name = self.names[a] if 0 <= a < ACTION_N else f"{a} (actions are 0–{ACTION_N - 1})"
                    raise IllegalAction(f"illegal action {name} for seat {s}'s {d.kind}")
                return self._forfeit(a, s)
        answers: dict[int, Option] = {}
        for s, d in group.items():
            if _is_exchange(d):
                picks = self._seat_picks(s)
                picks.append(chosen[s] - EXCHANGE)
                if len(picks) == self.codec.exchange:
                    want = sorted(picks)
                    answers[s] = next(o for o in d.options if sorted(o.tiles) == want)
            else:
                legal = self._seat_legal(s, d)
                assert isinstance(legal, dict)  # (not an exchange: an option map)
                answers[s] = legal[chosen[s]]
        self._pick_cache = None
        if len(answers) == len(group):
            self._arrive(self.table.step_all(answers))
        return self._out(observe)

    def _pending_group(self) -> dict[int, Decision]:
        """The pending decision set, seat → decision (read from the table once per decision)."""
        g = self._group
        if g is None:
            d = self.decision
            if d is None or self.table is None:
                return {}
            g = self._group = {x.seat: x for x in self.table.pending_set}
        return g

    def _seat_picks(self, seat: int) -> list[int]:
        """A seat's exchange picks so far (the seat to act's are :attr:`_picks`)."""
        if self.decision is not None and seat == self.decision.seat:
            return self._picks
        return self._set_picks.setdefault(seat, [])

    def _seat_legal(self, seat: int, d: Decision) -> list[int] | dict[int, Option]:
        """The legal action indices of ``seat``'s decision ``d`` in the pending set."""
        if self.decision is not None and seat == self.decision.seat:
            return self._pickable() if self._exchanging() else self._legal
        if _is_exchange(d):
            return pickable(d.options, self._seat_picks(seat))
        legal = self._set_legal.get(seat)
        if legal is None:  # mapped once per decision (its mask, the check and the answer read it)
            legal = self._set_legal[seat] = self.codec.legal(d)
        return legal

    def _forfeit(self, action: int, seat: int | None = None) -> tuple[dict[str, np.ndarray], np.ndarray, bool,
                                                                       bool, dict[str, Any]]:
        assert self.table is not None and self.decision is not None
        if seat is None:
            seat = self.decision.seat
        self.forfeit = (seat, self.names[action])
        self.table.close()
        self.decision = None
        self._exch = False
        self._group = None
        self._legal = {}
        rewards = np.zeros(self.players, dtype=np.float32)
        rewards[seat] = self.illegal_reward
        info = {"seat": None, "result": "illegal", "offender": seat, "illegal_action": self.names[action]}
        return self.observe(seat), rewards, True, False, info

    def _take(self, action: int) -> None:
        """Apply a checked action index (the hot path shared with the vector env)."""
        if self.table is None or self.decision is None:
            raise EnvError("no hand in progress: call reset()")
        if self._exchanging():
            if action not in self._pickable():
                raise IllegalAction(self._illegal(action))
            self._picks.append(action - EXCHANGE)
            if len(self._picks) < self.codec.exchange:
                return
            want = sorted(self._picks)
            option = next(o for o in self.decision.options if sorted(o.tiles) == want)
        else:
            option = self._legal.get(action)  # type: ignore[assignment]
            if option is None:
                raise IllegalAction(self._illegal(action))
        self._arrive(self.table.step(option))

    def is_legal(self, action: int) -> bool:
        """Whether ``action`` (an index) is legal for the seat to act now."""
        if self.decision is None:
            return False
        if self._exchanging():
            return action in self._pickable()
        return action in self._legal

    def act(self, option: Option) -> None:
        """Answer the pending decision with one of its engine options (a bot's choice; an
        exchange as a whole). The next state is read with :meth:`observe` / :attr:`decision`."""
        if self.table is None or self.decision is None:
            raise EnvError("no hand in progress: call reset()")
        self._arrive(self.table.step(option))

    def _illegal(self, action: int) -> str:
        assert self.decision is not None
        name = self.names[action] if 0 <= action < ACTION_N else f"{action} (actions are 0–{ACTION_N - 1})"
        return f"illegal action {name} for seat {self.decision.seat}'s {self.decision.kind}"

    def close(self) -> None:
        if self.table is not None:
            self.table.close()
        self.decision = None
        self._exch = False

    @property
    def done(self) -> bool:
        return self.result is not None or self.forfeit is not None

    # -- what a seat sees --------------------------------------------------------

    def action_mask(self, seat: int | None = None, out: np.ndarray | None = None) -> np.ndarray:
        """1 for each legal action of ``seat`` (default: the seat to act); zeros for others."""
        mask = np.frombuffer(self.mask_bytes(seat), dtype=np.int8)
        if out is None:
            return mask
        out[:] = mask
        return out

    def mask_bytes(self, seat: int | None = None) -> bytearray:
        """:meth:`action_mask` as bytes (one a byte): filled item by item, then viewed —
        cheaper than numpy stores; the vector env joins its tables' and converts them once."""
        buf = bytearray(ACTION_N)
        d = self.decision
        if d is not None and (seat is None or seat == d.seat):
            for i in (self._pickable() if self._exchanging() else self._legal):
                buf[i] = 1
        elif d is not None and self.sets and seat in self._pending_group():
            for i in self._seat_legal(seat, self._pending_group()[seat]):
                buf[i] = 1
        return buf

    def legal_options(self) -> dict[str, Option]:
        """Action name → engine option for the pending decision (exchanges: the final options)."""
        if self.decision is None:
            return {}
        if self._exchanging():
            return {option_name(self.actions, o): o for o in self.decision.options}
        return {self.names[i]: o for i, o in self._legal.items()}

    def legal_names(self) -> list[str]:
        return [self.names[i] for i in np.flatnonzero(self.action_mask())]

    def observe(self, seat: int) -> dict[str, np.ndarray]:
        """``{"observation": float32 vector (docs/agents.md), "action_mask": int8 vector}``."""
        return {"observation": self.encode(seat), "action_mask": self.action_mask(seat)}

    def encode(self, seat: int, out: np.ndarray | None = None) -> np.ndarray:
        """The flat observation of ``seat`` (:data:`~mjframework.run.envs.encoding.LAYOUT`)."""
        enc = self._encoder
        if enc is None:
            raise EnvError("no hand: call reset()")
        d = self.decision
        if self.sets and d is not None and seat != d.seat and seat in self._pending_group():
            return enc.encode(seat, self._pending_group()[seat], self._seat_picks(seat), out)
        return enc.encode(seat, d, self._picks, out)

    def observe_dict(self, seat: int) -> dict[str, Any]:
        """What ``seat`` sees as plain data: tile codes, absolute seats."""
        g = self._game()
        n = self.players
        revealed = g.revealed
        d = self.decision if self.decision is not None and self.decision.seat == seat else None
        return {
            "seat": seat,
            "ruleset": self.ruleset.id,
            "dealer": g.dealer,
            "hand": [tile_code(t) for t in sorted(g.seats[seat].hand)],
            "melds": [[{"kind": m.kind, "tiles": [tile_code(t) for t in m.tiles]}
                       for m in (meld_for(m, s, seat, revealed) for m in g.seats[s].melds)]
                      for s in range(n)],
            "discards": [[tile_code(t) for t in g.seats[s].discards] for s in range(n)],
            "flowers": [[tile_code(t) for t in g.seats[s].flowers] for s in range(n)],
            "concealed_counts": [len(g.seats[s].hand) for s in range(n)],
            "won_tiles": [tile_code(t) for t in g.seats[seat].won_tiles],
            "wildcards": [tile_code(t) for t in sorted(g.wildcards)],
            "indicator": None if g.indicator is None else tile_code(g.indicator),
            "live_remaining": g.wall.live_remaining(),
            "scores": list(g.settled),
            "declared": [{k: g.seats[s].state[k] for k in ("void_suit", "ready") if k in g.seats[s].state}
                         for s in range(n)],
            "out": sorted(g.out),
            "decision": None if d is None else {
                "kind": d.kind, "tile": None if d.tile is None else tile_code(d.tile),
                "from_seat": d.from_seat, "prompt": d.prompt,
                "picked": [tile_code(t) for t in self._picks],
                "legal": sorted(self.legal_names()),
            },
        }

    def render(self, seat: int | None = None) -> str:
        """The table as ``seat`` (default: the seat to act, or seat 0 after the hand) sees it, as text."""
        if seat is None:
            seat = self.agent_to_act if self.agent_to_act is not None else 0
        o = self.observe_dict(seat)

        def tiles(codes: list[str]) -> str:
            return format_tiles([_parse(c) for c in codes], "chinese") if codes else "—"

        lines = [f"{self.ruleset.id} · seat {seat}'s view · dealer {o['dealer']} · "
                 f"{o['live_remaining']} tiles live · scores {o['scores']}"]
        for s in range(self.players):
            melds = " ".join("[" + (tiles(m["tiles"]) if m["tiles"] else "暗杠") + "]" for m in o["melds"][s])
            hand = tiles(o["hand"]) if s == seat else f"{o['concealed_counts'][s]} tiles"
            lines.append(f"  seat {s}{' (you)' if s == seat else ''}: {hand} {melds}".rstrip())
            lines.append(f"    discards: {tiles(o['discards'][s])}")
        d = o["decision"]
        if d is not None:
            lines.append(f"  to act: {d['kind']}" + (f" on {tiles([d['tile']])}" if d["tile"] else "")
                         + f" · legal: {', '.join(d['legal'])}")
        elif self.forfeit is not None:
            lines.append(f"  hand over: seat {self.forfeit[0]} chose the illegal action {self.forfeit[1]}")
        elif self.result is not None:
            lines.append(f"  hand over: {self.result.result}, payments {self.result.payments}")
        return "\n".join(lines)

    def seat_events(self, seat: int | None, since: int = 0) -> list[dict[str, Any]]:
        """The hand's events from index ``since`` as ``seat`` saw them (engine shape); the env
        keeps them with the ``events`` option only."""
        if not self._events:
            raise EnvError("the env keeps the hand's events only with the option events=True")
        assert self.table is not None
        return [view_for(e, seat) for e in self.table.events[since:]]

    # -- internals ---------------------------------------------------------------

    def _stream(self, seat: int) -> list[dict[str, Any]]:
        assert self.table is not None
        events = self.table.events
        out: list[dict[str, Any]] = []
        for e in events[self._cursor[seat]:]:
            out.extend(self._streams[seat].feed(e))
        self._cursor[seat] = len(events)
        return out

    def _game(self) -> Any:
        if self.table is None or self.table.game is None:
            raise EnvError("no hand: call reset()")
        return self.table.game

    def _exchanging(self) -> bool:
        """Is the pending decision an exchange, picked a tile a step? (set by :meth:`_arrive`)"""
        return self._exch

    def _pickable(self) -> list[int]:
        """The exchange actions that extend the picks so far towards some offered exchange
        (computed once per pick: the mask and the step both ask)."""
        assert self.decision is not None
        picks = self._picks
        cached = self._pick_cache
        if cached is not None and cached[0] == len(picks):
            return cached[1]
        found = pickable(self.decision.options, picks)
        self._pick_cache = (len(picks), found)
        return found

    def _arrive(self, pending: Decision | HandResult) -> None:
        self._picks = []
        self._pick_cache = None
        self._group = None
        if self._set_picks:
            self._set_picks = {}
        if self._set_legal:
            self._set_legal = {}
        if isinstance(pending, HandResult):
            self.decision = None
            self._exch = False
            self._legal = {}
            self.result = pending
            return
        self.decision = pending
        self._exch = _is_exchange(pending)
        if self._exch:
            if not self.codec.exchange:
                raise EnvError("an exchange decision in a ruleset without an exchange")
            self._legal = {}
        else:
            self._legal = self.codec.legal(pending)

    def _out(self, observe: bool = True) -> tuple[dict[str, np.ndarray] | None, np.ndarray, bool, bool,
                                                  dict[str, Any]]:
        rewards = np.zeros(self.players, dtype=np.float32)
        info: dict[str, Any] = {}
        if self.result is not None:
            rewards[:] = self.result.payments
            info.update(seat=None, result=self.result.result, winners=list(self.result.winners),
                        payments=list(self.result.payments), error=self.result.error)
            obs = self.observe(0) if observe else None
            if self._events:  # each seat's stream since it last acted, to the hand's end (reveals included)
                info["events_by_seat"] = [self._stream(s) for s in range(self.players)]
            return obs, rewards, True, False, info
        assert self.decision is not None
        seat = self.decision.seat
        info["seat"] = seat
        info["decision"] = self.decision.kind
        if self._events:  # what this seat has seen since it last acted (docs/seat-log.md)
            info["events"] = self._stream(seat)
        if self.sets:  # the set's seats, each its decision's kind (and its own events)
            group = self._pending_group()
            info["seats"] = list(group)
            info["set"] = {s: {"seat": s, "decision": d.kind,
                               **({"events": self._stream(s)} if self._events and s != seat else {})}
                           for s, d in group.items()}
            if self._events:
                info["set"][seat]["events"] = info["events"]
        return (self.observe(seat) if observe else None), rewards, False, False, info


def _is_exchange(d: Decision) -> bool:
    """An exchange decision, picked a tile a step (see ``MahjongEnv._exchanging``)."""
    return d.kind == "exchange" and bool(d.options) and all(o.kind == "exchange" for o in d.options)


def _parse(code: str) -> int:
    from ..core.tiles import parse_tiles

    return parse_tiles(code)[0]


def make_env(ruleset: Any, seed: int | None = None, options: dict[str, Any] | None = None) -> MahjongEnv:
    """The multi-seat core environment for ``ruleset`` (an id, a path or a loaded ruleset)."""
    return MahjongEnv(ruleset, seed=seed, options=options)


def make_aec_env(ruleset: Any, seed: int | None = None, options: dict[str, Any] | None = None) -> Any:
    """PettingZoo's AEC environment (:class:`mjframework.run.envs.pz.MahjongAECEnv`; needs pettingzoo)."""
    from .envs.pz import MahjongAECEnv

    return MahjongAECEnv(ruleset, seed=seed, options=options)


__all__ = ["ActionSpace", "EnvError", "IllegalAction", "MahjongEnv", "check_action", "check_seed",
           "make_aec_env", "make_env"]
