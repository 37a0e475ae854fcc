"""Learning-agent environments in the researchers' standards (docs/agents.md).

- :mod:`.encoding` — the fixed observation and action encodings, the same size for every
  ruleset (numpy only);
- :mod:`.pz` — PettingZoo's AEC and Parallel environments (needs ``pettingzoo``);
- :mod:`.gym` — a single-agent Gymnasium environment, the other seats played by a bot
  (needs ``gymnasium``);
- :mod:`.vector` — N tables stepped together with batched observations and masks;
- :mod:`.dataset` — per-seat decision records from simulated hands as ``.npz`` shards;
- :mod:`.workers` — the vector env's tables over several processes (pipes);
- :mod:`.policy` — a small numpy policy trained on the greedy bot's decisions;
- :mod:`.ppo` — a PPO agent in PyTorch (the ``train`` extra), exported to the numpy policy.

This package imports nothing itself: each module needs only what it names.
"""
