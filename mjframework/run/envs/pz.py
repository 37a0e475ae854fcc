"""PettingZoo's two forms of the environment: AEC (one seat at a time) and Parallel.

::

    from mjframework.run.envs.pz import MahjongAECEnv, MahjongParallelEnv
    env = MahjongAECEnv("RULESET-ID")
    env.reset(seed=1)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        action = None if terminated or truncated else env.action_space(agent).sample(obs["action_mask"])
        env.step(action)

Agents are ``"seat_0"`` … ``"seat_{n-1}"``. Every agent has the same spaces for every
ruleset (:mod:`.encoding`): ``Dict(observation=Box(562,), action_mask=Box(451,, int8))`` and
``Discrete(451)``. One episode is one hand. At its end every agent is terminated with its
settlement money as reward and is stepped with ``None`` once (removing it from ``agents``,
``rewards``, ``infos`` …), as PettingZoo does; :meth:`MahjongAECEnv.last` after that still
answers (the last agent's final state) rather than raising.

In the Parallel form every live agent gets an observation each step, and the seats of the
pending *decision set* act together: the claims on a discard (every seat that may claim),
an exchange (every seat, a tile a step), a declaration at the deal (every seat) — each
seat with its own mask — else the one seat to act. Seats not deciding have a zero mask and
their actions are ignored; :attr:`MahjongParallelEnv.agents_to_act` lists the deciding
agents, and each deciding agent's info holds its own ``seat`` and ``decision`` only (who else
may claim a discard is not told). A set is one
:meth:`MahjongParallelEnv.step` (``MahjongEnv.step_set``; the hand is the one the AEC form
plays seat by seat). Needs ``pettingzoo`` (the ``env`` extra).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np

try:
    from gymnasium import spaces
    from pettingzoo import AECEnv, ParallelEnv
except ImportError as e:  # pragma: no cover - in the env extra
    raise ImportError("mjframework.run.envs.pz needs pettingzoo: pip install 'mjframework[env]'") from e

from ..env import MahjongEnv
from .encoding import ACTION_N, LAYOUT

RENDER_MODES = ["ansi", "human"]
RENDER_FPS = 4  # "human" prints the table once a step; the figure only answers Gymnasium's checker


def rendered(render_mode: str | None, text: Callable[[], str]) -> str | None:
    """``render()`` of the standard forms: ``ansi`` returns the table's text, ``human`` prints it,
    no mode warns (as PettingZoo's and Gymnasium's own envs do) and returns None."""
    if render_mode is None:
        import warnings

        warnings.warn("render() without a render_mode: pass render_mode='ansi' or 'human'", stacklevel=3)
        return None
    shown = text()
    if render_mode == "human":
        print(shown)
        return None
    return shown


def observation_space() -> spaces.Dict:
    """The observation space of every agent of every ruleset (a new object each call)."""
    low, high = LAYOUT.bounds()
    return spaces.Dict({
        "observation": spaces.Box(low, high, dtype=np.float32),
        "action_mask": spaces.Box(0, 1, shape=(ACTION_N,), dtype=np.int8),
    })


def action_space() -> spaces.Discrete:
    return spaces.Discrete(ACTION_N)


def standard_options(options: dict[str, Any] | None) -> dict[str, Any]:
    """The core's options with the standard forms' default for an illegal action: ``terminate``
    (the standards' own tests sample unmasked actions; see :class:`~mjframework.run.env.MahjongEnv`)."""
    return {"illegal": "terminate", **(options or {})}


def _check_render_mode(mode: str | None) -> str | None:
    if mode is not None and mode not in RENDER_MODES:
        raise ValueError(f"render_mode {mode!r}: one of {', '.join(RENDER_MODES)} or None")
    return mode


class _Seats:
    """What the AEC and Parallel forms share: the core env, one agent per seat, the fixed spaces,
    render and close."""

    def _sit(self, ruleset: Any, seed: int | None, options: dict[str, Any] | None,
             render_mode: str | None) -> None:
        self.env = MahjongEnv(ruleset, seed=seed, options=standard_options(options))
        self.render_mode = _check_render_mode(render_mode)
        self.possible_agents = [f"seat_{i}" for i in range(self.env.players)]
        self.agents: list[str] = []
        self._obs_spaces = {a: observation_space() for a in self.possible_agents}
        self._act_spaces = {a: action_space() for a in self.possible_agents}

    def observation_space(self, agent: str) -> spaces.Dict:
        return self._obs_spaces[agent]

    def action_space(self, agent: str) -> spaces.Discrete:
        return self._act_spaces[agent]

    def render(self) -> str | None:
        return rendered(self.render_mode, self.env.render)

    def close(self) -> None:
        self.env.close()


class MahjongAECEnv(_Seats, AECEnv):
    """PettingZoo's AEC environment over :class:`~mjframework.run.env.MahjongEnv`.

    ``ruleset``, ``seed`` and ``options`` as :func:`~mjframework.run.env.make_env`;
    ``render_mode``: ``"ansi"`` (:meth:`render` returns the text) or ``"human"`` (prints it).
    """

    # Not parallelizable by PettingZoo's aec_to_parallel (a turn-based game): use MahjongParallelEnv.
    metadata: ClassVar[dict[str, Any]] = {"name": "mjframework_aec_v1", "is_parallelizable": False,
                                          "render_modes": RENDER_MODES,
                                          "render_fps": RENDER_FPS}

    def __init__(self, ruleset: Any, seed: int | None = None, options: dict[str, Any] | None = None,
                 render_mode: str | None = None) -> None:
        super().__init__()
        self._sit(ruleset, seed, options, render_mode)
        self.agent_selection = self.possible_agents[0]
        self.rewards: dict[str, float] = {}
        self._cumulative_rewards: dict[str, float] = {}
        self.terminations: dict[str, bool] = {}
        self.truncations: dict[str, bool] = {}
        self.infos: dict[str, dict[str, Any]] = {}
        self._final: tuple[Any, ...] | None = None

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        _obs, info = self.env.reset(seed)
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self._final = None
        self._after(info, None)

    def _seat(self, agent: str) -> int:
        return self.possible_agents.index(agent)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        return self.env.observe(self._seat(agent))

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        a = self.agent_selection
        if a not in self._cumulative_rewards:  # every agent removed: the last one's final state
            if self._final is None:
                raise RuntimeError("reset() the environment first")
            obs, reward, info = self._final
            return (obs if observe else None), reward, True, False, info
        return super().last(observe)

    def step(self, action: Any) -> None:
        a = self.agent_selection
        if a not in self.terminations:
            raise RuntimeError("the hand is over and every agent removed: reset() the environment")
        if self.terminations[a] or self.truncations[a]:
            if not self.agents[1:]:  # the last agent leaves: keep what last() answers afterwards
                self._final = (self.observe(a), self._cumulative_rewards[a], dict(self.infos[a]))
            self._was_dead_step(action)
            return
        self._cumulative_rewards[a] = 0.0
        _obs, rewards, done, _trunc, info = self.env._step(action, False)  # each agent observes in last()
        self._after(info, rewards if done else None)
        if self.render_mode == "human":
            self.render()

    def _after(self, info: dict[str, Any], rewards: np.ndarray | None) -> None:
        if rewards is not None:
            for i, a in enumerate(self.possible_agents):
                self.rewards[a] = float(rewards[i])
                self.terminations[a] = True
                self.infos[a] = dict(info)
            self._accumulate_rewards()
            self.agent_selection = self.agents[0]
            return
        for a in self.agents:
            self.rewards[a] = 0.0
        self.agent_selection = self.possible_agents[info["seat"]]
        self.infos[self.agent_selection] = info



class MahjongParallelEnv(_Seats, ParallelEnv):
    """PettingZoo's Parallel environment: every live agent observes each step; the seats of the
    pending decision set (one, or several deciding at once) move together."""

    metadata: ClassVar[dict[str, Any]] = {"name": "mjframework_parallel_v1", "render_modes": RENDER_MODES,
                                          "render_fps": RENDER_FPS}

    def __init__(self, ruleset: Any, seed: int | None = None, options: dict[str, Any] | None = None,
                 render_mode: str | None = None) -> None:
        self._sit(ruleset, seed, options, render_mode)
        self.env.sets = True

    @property
    def agent_to_act(self) -> str | None:
        """The first agent of the pending decision set (see :attr:`agents_to_act`)."""
        seat = self.env.agent_to_act
        return None if seat is None else self.possible_agents[seat]

    @property
    def agents_to_act(self) -> list[str]:
        """The agents deciding in the next :meth:`step` (the pending decision set)."""
        return [self.possible_agents[s] for s in self.env.pending_seats]

    def reset(self, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
        _obs, info = self.env.reset(seed)
        self.agents = list(self.possible_agents)
        return self._observations(), {a: self._info(i, info) for i, a in enumerate(self.agents)}

    def _observations(self) -> dict[str, Any]:
        return {a: self.env.observe(i) for i, a in enumerate(self.possible_agents) if a in self.agents}

    def _info(self, seat: int, info: dict[str, Any]) -> dict[str, Any]:
        """What ``seat`` is told: at the end, the hand's result; a deciding seat, its own
        decision (``seat``, ``decision``, its own ``events``), never who else decides at once;
        while one other seat acts, that seat (a turn is seen by all), else nothing."""
        if info.get("seat") is None:
            return dict(info)
        own = info.get("set", {}).get(seat)
        if own is not None:
            return dict(own)
        return {"seat": info["seat"]} if len(info.get("seats", ())) == 1 else {}

    def step(self, actions: dict[str, Any]) -> tuple[dict[str, Any], dict[str, float], dict[str, bool],
                                                     dict[str, bool], dict[str, Any]]:
        """Every agent of the pending decision set (:attr:`agents_to_act`) acts; its entry of
        ``actions`` must be there, the others' are ignored."""
        if not self.agents:
            raise RuntimeError("the hand is over: reset() the environment")
        acting = self.agents_to_act
        missing = [a for a in acting if a not in actions]
        if missing:
            raise KeyError(f"{', '.join(acting)} act together: actions must hold {', '.join(missing)}")
        _obs, rewards, done, trunc, info = self.env._step_set(  # every agent observed below
            {self.possible_agents.index(a): actions[a] for a in acting}, False)
        obs = self._observations()
        rew = {a: float(rewards[i]) for i, a in enumerate(self.possible_agents) if a in self.agents}
        term = dict.fromkeys(self.agents, done)
        truncs = dict.fromkeys(self.agents, trunc)
        infos = {a: self._info(i, info) for i, a in enumerate(self.possible_agents) if a in self.agents}
        if done:
            self.agents = []
        if self.render_mode == "human":
            self.render()
        return obs, rew, term, truncs, infos



def aec_env(ruleset: Any, **kw: Any) -> MahjongAECEnv:
    return MahjongAECEnv(ruleset, **kw)


def parallel_env(ruleset: Any, **kw: Any) -> MahjongParallelEnv:
    return MahjongParallelEnv(ruleset, **kw)


__all__ = ["MahjongAECEnv", "MahjongParallelEnv", "action_space", "aec_env", "observation_space",
           "parallel_env"]
