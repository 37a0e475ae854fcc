"""Compiled pattern requirements (``mjframework.evaluate.patterns``): tile filters as kind
sets agree with the filters, and compiled forms are dropped with their ruleset."""

from __future__ import annotations

import copy
import gc

from mjframework.core.tiles import HONOR_BASE, NUM_KINDS
from mjframework.evaluate import patterns as P
from mjframework.rules.loader import load_ruleset


def _filters(rs):
    for p in rs.patterns:
        for f in (p.all_tiles, p.no_tiles, p.pair, p.every_group, p.any_group):
            if f is not None:
                yield f
        if p.groups is not None and p.groups.holding is not None:
            yield p.groups.holding


def test_allowed_kinds_agree_with_filters() -> None:
    winds = [None, {"seat": HONOR_BASE, "prevalent": HONOR_BASE + 1}, {"seat": HONOR_BASE + 2,
                                                                      "prevalent": HONOR_BASE + 2}]
    seen = 0
    for rid in ("mcr", "changsha", "yongzhou-wangba"):
        for f in _filters(load_ruleset(rid)):
            for w in winds:
                assert P.allowed_kinds(f, w) == {t for t in range(NUM_KINDS) if f.match(t, w)}
                seen += 1
    assert seen > 30


def test_compiled_forms_go_with_their_ruleset() -> None:
    base = load_ruleset("mcr")
    for p in base.patterns:
        P.compiled(p)
    before = len(P._COMPILED)
    copied = copy.deepcopy(base)
    for p in copied.patterns:
        P.compiled(p)
    assert len(P._COMPILED) == before + len(copied.patterns)
    del copied, p
    gc.collect()
    assert len(P._COMPILED) == before
