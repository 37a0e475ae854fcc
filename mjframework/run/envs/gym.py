"""A single-agent Gymnasium environment: one seat learns, the others are played by a bot.

::

    import gymnasium
    from mjframework.run.envs.gym import MahjongGymEnv
    env = MahjongGymEnv("RULESET-ID", opponent="greedy")
    obs, info = env.reset(seed=1)
    terminated = truncated = False
    while not (terminated or truncated):
        action = env.action_space.sample(obs["action_mask"])
        obs, reward, terminated, truncated, info = env.step(action)

One episode is one hand. The agent sits at ``seat`` (default 0; ``"rotate"``: seat
``hand_seed % players``, so it plays every seat in turn). Between its decisions the other
seats' decisions are answered by the ``opponent`` bot (``greedy`` or ``random``, seeded
from the hand's seed: the same seed gives the same hand; or the path of a trained
policy's ``.npz``, :mod:`.policy`, for self-play). The reward is the agent's
settlement money at the hand's end, 0 before. The spaces are those of every ruleset
(:mod:`.encoding`); the mask is in the observation (``obs["action_mask"]``), and also in
``info["action_mask"]`` for libraries that read it there.

An action whose mask entry is 0 ends the episode with ``illegal_reward`` (Gymnasium's
``check_env`` steps with unmasked random actions; ``options={"illegal": "raise"}`` raises
instead). Importing this module registers :data:`ENV_ID` with Gymnasium
(``gymnasium.make("mjframework/Mahjong-v1", ruleset="RULESET-ID")``). Needs ``gymnasium``
(the ``env`` extra).
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np

try:
    import gymnasium
except ImportError as e:  # pragma: no cover - in the env extra
    raise ImportError("mjframework.run.envs.gym needs gymnasium: pip install 'mjframework[env]'") from e

from ...play.actions import EnvError
from ...play.bots import BOTS
from ..env import MahjongEnv
from .pz import RENDER_FPS, RENDER_MODES, action_space, observation_space, rendered, standard_options


class MahjongGymEnv(gymnasium.Env):
    """One seat of a ruleset against ``opponent`` bots (see the module doc)."""

    # Gymnasium declares it an instance attribute and reads it from the class (gymnasium.make).
    metadata = {"render_modes": RENDER_MODES, "render_fps": RENDER_FPS}  # noqa: RUF012


    def __init__(self, ruleset: Any, seat: int | str = 0, opponent: str = "greedy", seed: int | None = None,
                 options: dict[str, Any] | None = None, render_mode: str | None = None) -> None:
        self.env = MahjongEnv(ruleset, seed=seed, options=standard_options(options))
        n = self.env.players
        if seat != "rotate" and (isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n):
            raise EnvError(f"seat: 0–{n - 1} or 'rotate', got {seat!r}")
        self._policy: Any = None
        if opponent.endswith(".npz"):  # a trained policy plays the other seats (self-play)
            from .policy import MLPPolicy, PolicyBot

            self._policy = PolicyBot(MLPPolicy.load(opponent))
        elif opponent not in BOTS:
            raise EnvError(f"opponent {opponent!r}: one of {', '.join(sorted(BOTS))} or a policy's .npz")
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode {render_mode!r}: one of {', '.join(RENDER_MODES)} or None")
        self.render_mode = render_mode
        self.seat_rule = seat
        self.opponent = opponent
        self.seat = 0 if seat == "rotate" else int(seat)
        self.observation_space = observation_space()
        self.action_space = action_space()
        self._bots: list[Any] = []

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        hand_seed = self.env.hand_seed(seed)  # checks the seed (EnvError) before Gymnasium does
        super().reset(seed=seed)
        n = self.env.players
        if self.seat_rule == "rotate":
            self.seat = hand_seed % n
        self.env._episode -= 1  # reset() below draws the same hand seed again
        self.env.reset(hand_seed)
        if self._policy is not None:
            self._policy.attach(self.env.table.game if self.env.table is not None else None)
            self._bots = [self._policy] * n
        else:
            self._bots = [BOTS[self.opponent](random.Random(f"{hand_seed}/bot/{s}")) for s in range(n)]
        info = self._advance()
        return self._obs(), info

    def step(self, action: Any) -> tuple[dict[str, np.ndarray], float, bool, bool, dict[str, Any]]:
        if self.env.done or self.env.decision is None:
            raise EnvError("the hand is over: reset() the environment")
        _obs, rewards, terminated, _trunc, info = self.env._step(action, False)  # observed at the end
        if terminated:  # an illegal action ended the hand
            return self._obs(), float(rewards[self.seat]), True, False, self._info(info)
        info = self._advance()
        reward = 0.0
        if self.env.done:
            assert self.env.result is not None
            reward = float(self.env.result.payments[self.seat])
        if self.render_mode == "human":
            self.render()
        return self._obs(), reward, self.env.done, False, info

    def _advance(self) -> dict[str, Any]:
        """Let the bots answer every decision that isn't the agent's."""
        env = self.env
        while env.decision is not None and env.decision.seat != self.seat:
            d = env.decision
            assert env.table is not None
            env.act(self._bots[d.seat].decide(env.table.view(d.seat), d))
        if env.result is not None:
            r = env.result
            return self._info({"seat": None, "result": r.result, "winners": list(r.winners),
                               "payments": list(r.payments), "error": r.error})
        assert env.decision is not None
        return self._info({"seat": self.seat, "decision": env.decision.kind})

    def _obs(self) -> dict[str, np.ndarray]:
        return self.env.observe(self.seat)

    def _info(self, info: dict[str, Any]) -> dict[str, Any]:
        info["action_mask"] = self.env.action_mask(self.seat)
        return info

    def action_masks(self) -> np.ndarray:
        """The agent's mask as booleans (the method sb3-contrib's MaskablePPO calls)."""
        return self.env.action_mask(self.seat).astype(bool)

    def render(self) -> str | None:
        return rendered(self.render_mode, lambda: self.env.render(self.seat))

    def close(self) -> None:
        self.env.close()


#: ``gymnasium.make(ENV_ID, ruleset="RULESET-ID", …)`` once this module is imported.
ENV_ID = "mjframework/Mahjong-v1"
if ENV_ID not in gymnasium.registry:
    gymnasium.register(id=ENV_ID, entry_point="mjframework.run.envs.gym:MahjongGymEnv",
                       disable_env_checker=True)

__all__ = ["ENV_ID", "MahjongGymEnv"]
