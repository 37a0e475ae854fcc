"""An environment for learning agents: any declared variant, one decision per step.

::

    from mjframework.run.env import make_env
    env = make_env("my-variant", seed=7)
    obs, info = env.reset()
    done = False
    while not done:
        legal = np.flatnonzero(obs["action_mask"])
        obs, rewards, done, info = env.step(int(rng.choice(legal)))

Also the multi-agent AEC form (PettingZoo's protocol, without needing
pettingzoo): :func:`make_aec_env` → ``agent_selection``, ``observe(agent)``,
``last()``, ``step(action)``.

The shapes, the action space and the observation are documented in
``docs/agents.md``. Everything a seat observes is derived from what that seat
may see (:mod:`mjframework.play.visibility`): own tiles, all discards and melds
(another's concealed kong face down until revealed), the wildcards, the wall
count, declarations and the money settled so far. Needs numpy (the ``env``
extra).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, ClassVar

try:
    import numpy as np
except ImportError as e:  # pragma: no cover - numpy is in the env extra
    raise ImportError("mjframework.run.env needs numpy: pip install 'mjframework[env]'") from e

from ..core.tiles import tile_code, to_mjai
from ..play.actions import DECISION_KINDS, VOID_SUITS, ActionSpace, EnvError, option_name
from ..play.game import HandResult
from ..play.players import Decision, Option
from ..play.seatlog import SeatStream
from ..play.stepper import Table
from ..play.visibility import is_face_down, meld_for, view_for


@dataclass(frozen=True)
class Layout:
    """Where each feature sits in the flat observation vector (see docs/agents.md)."""

    kinds: int
    players: int
    planes: tuple[str, ...]
    scalars: tuple[str, ...]

    @property
    def size(self) -> int:
        return len(self.planes) * self.kinds + len(self.scalars)

    def plane(self, name: str) -> slice:
        i = self.planes.index(name)
        return slice(i * self.kinds, (i + 1) * self.kinds)

    def scalar(self, name: str) -> int:
        return self._scalar_index[name]

    @property
    def _scalar_index(self) -> dict[str, int]:
        cached = self.__dict__.get("_scalars_at")
        if cached is None:
            base = len(self.planes) * self.kinds
            cached = {n: base + i for i, n in enumerate(self.scalars)}
            object.__setattr__(self, "_scalars_at", cached)
        return cached


def make_layout(kinds: int, players: int) -> Layout:
    rel = range(players)
    planes = ("hand", *(f"discards_{r}" for r in rel), *(f"melds_{r}" for r in rel),
              "wildcards", "indicator", "decision_tile", "exchange_picked", "won_tiles")
    scalars = ("live_remaining", *(f"dealer_{r}" for r in rel), *(f"score_{r}" for r in rel),
               *(f"face_down_kongs_{r}" for r in rel), *(f"concealed_count_{r}" for r in rel),
               *(f"void_{s}_{r}" for r in rel for s in VOID_SUITS), *(f"ready_{r}" for r in rel),
               *(f"out_{r}" for r in rel), *(f"decision_{k}" for k in DECISION_KINDS))
    return Layout(kinds, players, planes, scalars)


class MahjongEnv:
    """One hand per episode of a ruleset; the seat to act steps (see the module doc).

    ``options``: ``backend`` (the stepper's: ``greenlet`` | ``thread``), ``dealer``
    (the first dealer, default 0, or ``"random"``: drawn from the seed).
    """

    def __init__(self, ruleset: Any, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if isinstance(ruleset, str):
            from ..rules.loader import load_ruleset

            ruleset = load_ruleset(ruleset)
        self.ruleset = ruleset
        self.options = dict(options or {})
        unknown = set(self.options) - {"backend", "dealer"}
        if unknown:
            raise EnvError(f"unknown env options: {', '.join(sorted(unknown))}")
        self.players = ruleset.players
        self.actions = ActionSpace(ruleset)
        self.layout = make_layout(len(self.actions.kinds), self.players)
        self.seed = seed
        self._episode = 0
        self.table: Table | None = None
        self.decision: Decision | None = None
        self.result: HandResult | None = None
        self._legal: dict[int, Option] = {}
        self._picks: list[int] = []
        self._cursor = [0] * self.players
        self._streams = [SeatStream(s) for s in range(self.players)]

    # -- the episode -------------------------------------------------------------

    @property
    def agent_to_act(self) -> int | None:
        return None if self.decision is None else self.decision.seat

    def reset(self, seed: int | None = None) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """Start a hand. Without ``seed``: the env's seed plus the episode number."""
        if seed is None:
            seed = (self.seed or 0) + self._episode
        self._episode += 1
        dealer = self.options.get("dealer", 0)
        if dealer == "random":
            dealer = random.Random(f"dealer/{seed}").randrange(self.players)
        if self.table is not None:
            self.table.close()
        self.table = Table(self.ruleset, seed=seed, dealer=int(dealer), backend=self.options.get("backend"))
        self.result = None
        self._cursor = [0] * self.players
        self._streams = [SeatStream(s) for s in range(self.players)]
        self._arrive(self.table.reset())
        obs, _rewards, _done, info = self._out()
        return obs, info

    def step(self, action: int) -> tuple[dict[str, np.ndarray], np.ndarray, bool, dict[str, Any]]:
        """The seat to act takes ``action`` (an index whose mask entry is 1).

        Returns the next seat's observation, every seat's reward (the hand's
        settlement money, at its end; zeros before), done, and info."""
        if self.table is None or self.decision is None:
            raise EnvError("no hand in progress: call reset()")
        action = int(action)
        mask = self.action_mask()
        if not 0 <= action < self.actions.n or not mask[action]:
            name = self.actions.names[action] if 0 <= action < self.actions.n else str(action)
            raise EnvError(f"illegal action {name} for seat {self.decision.seat}'s {self.decision.kind}")
        if self._exchanging():
            self._picks.append(self.actions.kinds[action - self._exchange_base()])
            if len(self._picks) < self.actions.exchange:
                return self._out()
            want = sorted(self._picks)
            option = next(o for o in self.decision.options if sorted(o.tiles) == want)
        else:
            option = self._legal[action]
        self._arrive(self.table.step(option))
        return self._out()

    def close(self) -> None:
        if self.table is not None:
            self.table.close()
        self.decision = None

    # -- what a seat sees --------------------------------------------------------

    def action_mask(self, seat: int | None = None) -> np.ndarray:
        """1 for each legal action of ``seat`` (default: the seat to act); zeros for others."""
        mask = np.zeros(self.actions.n, dtype=np.int8)
        d = self.decision
        if d is None or (seat is not None and seat != d.seat):
            return mask
        if self._exchanging():
            for i in self._pickable():
                mask[i] = 1
        else:
            for i in self._legal:
                mask[i] = 1
        return mask

    def legal_options(self) -> dict[str, Option]:
        """Action name → engine option for the pending decision (exchanges: the final options)."""
        if self.decision is None:
            return {}
        if self._exchanging():
            return {option_name(self.actions, o): o for o in self.decision.options}
        return {self.actions.names[i]: o for i, o in self._legal.items()}

    def observe(self, seat: int) -> dict[str, np.ndarray]:
        """``{"observation": float32 vector (docs/agents.md), "action_mask": int8 vector}``."""
        return {"observation": self.encode(seat), "action_mask": self.action_mask(seat)}

    def observe_dict(self, seat: int) -> dict[str, Any]:
        """The same observation as plain data: tile codes, absolute seats."""
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
            "concealed_counts": [len(g.seats[s].hand) for s in range(n)],
            "won_tiles": [[tile_code(t) for t in g.seats[s].won_tiles] for s in range(n)],
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

    def legal_names(self) -> list[str]:
        return [self.actions.names[i] for i in np.flatnonzero(self.action_mask())]

    def encode(self, seat: int) -> np.ndarray:
        """The flat observation of ``seat`` (layout: :attr:`layout`, docs/agents.md)."""
        g = self._game()
        lay = self.layout
        n = self.players
        ki = self.actions.kind_index
        K = lay.kinds
        obs = np.zeros(lay.size, dtype=np.float32)

        def add(plane: int, tiles: Iterable[int]) -> None:
            base = plane * K
            for t in tiles:
                obs[base + ki[t]] += 1

        add(0, g.seats[seat].hand)
        for r in range(n):
            s = (seat + r) % n
            st = g.seats[s]
            add(1 + r, st.discards)
            face_down = 0
            for m in st.melds:
                shown = meld_for(m, s, seat, g.revealed)
                if is_face_down(m) and not shown.tiles:
                    face_down += 1
                add(1 + n + r, shown.tiles)
            obs[lay.scalar(f"face_down_kongs_{r}")] = face_down
            obs[lay.scalar(f"concealed_count_{r}")] = len(st.hand)
            obs[lay.scalar(f"score_{r}")] = g.settled[s]
            obs[lay.scalar(f"ready_{r}")] = 1.0 if st.state.get("ready") else 0.0
            obs[lay.scalar(f"out_{r}")] = 1.0 if s in g.out else 0.0
            void = st.state.get("void_suit")
            if void in tuple(VOID_SUITS):
                obs[lay.scalar(f"void_{void}_{r}")] = 1.0
            if r == 0:
                add(2 * n + 5, st.won_tiles)
        obs[lay.scalar(f"dealer_{(g.dealer - seat) % n}")] = 1.0
        add(2 * n + 1, g.wildcards)
        if g.indicator is not None and g.indicator in ki:
            add(2 * n + 2, [g.indicator])
        obs[lay.scalar("live_remaining")] = g.wall.live_remaining()
        d = self.decision
        if d is not None and d.seat == seat:
            if d.tile is not None:
                add(2 * n + 3, [d.tile])
            add(2 * n + 4, self._picks)
            kind = d.kind if d.kind in DECISION_KINDS else "other"
            obs[lay.scalar(f"decision_{kind}")] = 1.0
        return obs

    def seat_events(self, seat: int | None, since: int = 0) -> list[dict[str, Any]]:
        """The hand's events from index ``since`` as ``seat`` saw them (engine shape)."""
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
        d = self.decision
        return d is not None and bool(d.options) and all(o.kind == "exchange" for o in d.options)

    def _exchange_base(self) -> int:
        return self.actions.index[f"exchange:{to_mjai(self.actions.kinds[0])}"]

    def _pickable(self) -> list[int]:
        assert self.decision is not None
        have = Counter(self._picks)
        base = self._exchange_base()
        out: set[int] = set()
        for o in self.decision.options:
            left = Counter(o.tiles)
            left.subtract(have)
            if min(left.values(), default=0) < 0:
                continue
            out.update(t for t, c in left.items() if c > 0)
        return sorted(base + self.actions.kind_index[t] for t in out)

    def _arrive(self, pending: Decision | HandResult) -> None:
        self._picks = []
        if isinstance(pending, HandResult):
            self.decision = None
            self._legal = {}
            self.result = pending
            return
        self.decision = pending
        if self._exchanging():
            if not self.actions.exchange:
                raise EnvError("an exchange decision in a ruleset without an exchange")
            self._legal = {}
        else:
            self._legal = self.actions.legal(pending)

    def _out(self) -> Any:
        rewards = np.zeros(self.players, dtype=np.float32)
        info: dict[str, Any] = {}
        assert self.table is not None
        if self.result is not None:
            rewards[:] = self.result.payments
            info.update(result=self.result.result, winners=list(self.result.winners),
                        payments=list(self.result.payments), error=self.result.error)
            seat = 0 if self.decision is None else self.decision.seat
            obs = {"observation": self.encode(seat), "action_mask": self.action_mask(seat)}
            info["seat"] = None
            # Each seat's stream since it last acted, to the hand's end (reveals included).
            info["events_by_seat"] = [self._stream(s) for s in range(self.players)]
            done = True
        else:
            assert self.decision is not None
            seat = self.decision.seat
            obs = self.observe(seat)
            info["seat"] = seat
            info["decision"] = self.decision.kind
            info["legal"] = self.legal_names()
            # What this seat has seen since it last acted, as it saw it (docs/seat-log.md).
            info["events"] = self._stream(seat)
            done = False
        return obs, rewards, done, info


class MahjongAEC:
    """The multi-agent form, after PettingZoo's AEC protocol (pettingzoo not needed).

    Agents are ``"seat_0"`` … ; :attr:`agent_selection` is the seat to act;
    :meth:`last` gives its ``(observation, reward, termination, truncation, info)``;
    :meth:`step` takes its action. At the hand's end every agent is terminated
    with its settlement money as reward and must be stepped with ``None`` once
    (removing it from :attr:`agents`), as in PettingZoo.
    """

    metadata: ClassVar[dict[str, Any]] = {"name": "mjframework_v0", "is_parallelizable": False}

    def __init__(self, env: MahjongEnv) -> None:
        self.env = env
        self.possible_agents = [f"seat_{i}" for i in range(env.players)]
        self.agents: list[str] = []
        self.agent_selection = ""
        self.rewards: dict[str, float] = {}
        self._cumulative_rewards: dict[str, float] = {}
        self.terminations: dict[str, bool] = {}
        self.truncations: dict[str, bool] = {}
        self.infos: dict[str, dict[str, Any]] = {}

    def action_space_size(self, agent: str | None = None) -> int:
        return self.env.actions.n

    def observation_size(self, agent: str | None = None) -> int:
        return self.env.layout.size

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        _obs, info = self.env.reset(seed)
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self._after(info, None)

    def _seat(self, agent: str) -> int:
        return self.possible_agents.index(agent)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        return self.env.observe(self._seat(agent))

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        a = self.agent_selection
        obs = self.observe(a) if observe else None
        return obs, self._cumulative_rewards[a], self.terminations[a], self.truncations[a], self.infos[a]

    def step(self, action: int | None) -> None:
        a = self.agent_selection
        if self.terminations.get(a) or self.truncations.get(a):
            if action is not None:
                raise EnvError(f"{a} is done: step it with None")
            self.agents.remove(a)
            self._cumulative_rewards.pop(a, None)
            self.agent_selection = self.agents[0] if self.agents else ""
            return
        if action is None:
            raise EnvError(f"{a} must act")
        self._cumulative_rewards[a] = 0.0
        _obs, rewards, done, info = self.env.step(action)
        self._after(info, rewards if done else None)

    def _after(self, info: dict[str, Any], rewards: np.ndarray | None) -> None:
        if rewards is not None:
            for i, a in enumerate(self.possible_agents):
                self.rewards[a] = float(rewards[i])
                self._cumulative_rewards[a] = self._cumulative_rewards.get(a, 0.0) + float(rewards[i])
                self.terminations[a] = True
                self.infos[a] = dict(info)
            self.agent_selection = self.agents[0]
            return
        seat = info["seat"]
        self.agent_selection = self.possible_agents[seat]
        self.infos[self.agent_selection] = info

    def close(self) -> None:
        self.env.close()


def make_aec_env(ruleset: Any, seed: int | None = None, options: dict[str, Any] | None = None) -> MahjongAEC:
    """The AEC (multi-agent) form of :func:`make_env`."""
    return MahjongAEC(MahjongEnv(ruleset, seed=seed, options=options))


def make_env(ruleset: Any, seed: int | None = None, options: dict[str, Any] | None = None) -> MahjongEnv:
    """An environment for ``ruleset`` (an id, a path or a loaded ruleset)."""
    return MahjongEnv(ruleset, seed=seed, options=options)


__all__ = ["ActionSpace", "EnvError", "Layout", "MahjongAEC", "MahjongEnv", "make_aec_env", "make_env"]
