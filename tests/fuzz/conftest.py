"""Hypothesis settings for the fuzzing suite: derandomized (the same inputs on every CI run, so
a failure reproduces), no per-example deadline (the machine is shared), and example counts
that keep the whole suite within a few minutes. ``MJ_FUZZ_SCALE=10`` fuzzes ten times longer."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from hypothesis import HealthCheck, settings

sys.path.insert(0, str(Path(__file__).resolve().parent))

SCALE = max(1, int(os.environ.get("MJ_FUZZ_SCALE", "1") or 1))

settings.register_profile(
    "mj-fuzz", derandomize=True, deadline=None, database=None, print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much,
                           HealthCheck.function_scoped_fixture],
)


def examples(n: int) -> settings:
    return settings(settings.get_profile("mj-fuzz"), max_examples=n * SCALE)
