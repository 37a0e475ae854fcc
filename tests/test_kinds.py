"""The kind vocabularies are StrEnums: each member is its serialized string, and the kong
kinds' three spellings map onto one canonical member."""

from __future__ import annotations

import json

import pytest

from mjframework.core.hand import KONG_PAYMENT_KEY, parse_meld
from mjframework.core.kinds import (
    CLAIMED_MELDS,
    GROUP_KIND_NAMES,
    KONG_MELDS,
    KONG_PAYMENT_KEYS,
    EventType,
    GroupKind,
    KongKind,
    MeldKind,
    kong_meld,
)
from mjframework.rules.loader import load_ruleset
from mjframework.rules.model import CLAIMED_MELDS as MODEL_CLAIMED
from mjframework.rules.model import GROUP_KINDS


def test_a_member_is_its_string() -> None:
    assert MeldKind.ADDED_KONG == "added-kong" and f"{MeldKind.ADDED_KONG}" == "added-kong"
    assert json.dumps({"kind": KongKind.CONCEALED}) == '{"kind": "concealed"}'
    table: dict[str, int] = {MeldKind.PUNG: 1}
    assert table["pung"] == 1 and "kong" in KONG_MELDS
    assert EventType("draw") is EventType.DRAW and GroupKind("seq") is GroupKind.SEQUENCE


@pytest.mark.parametrize(("spellings", "member"), [
    (("added-kong", "added_kong", "added"), MeldKind.ADDED_KONG),
    (("concealed-kong", "concealed_kong", "concealed"), MeldKind.CONCEALED_KONG),
    (("kong", "claimed"), MeldKind.KONG),
])
def test_every_spelling_of_a_kong_kind_reads_as_one_member(spellings: tuple[str, ...],
                                                           member: MeldKind) -> None:
    for s in spellings:
        assert kong_meld(s) is member
    assert member.is_kong and kong_meld(member.payment_key) is member
    assert kong_meld(member.event_kind) is member


def test_unknown_kong_kind_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="unknown kong kind 'pung'"):
        kong_meld("pung")


def test_the_tables_agree() -> None:
    assert set(KONG_PAYMENT_KEY.values()) == KONG_PAYMENT_KEYS == {"kong", "added_kong", "concealed_kong"}
    assert set(CLAIMED_MELDS) == MODEL_CLAIMED and MeldKind.CONCEALED_KONG not in CLAIMED_MELDS
    assert not MeldKind.PUNG.is_kong
    assert {k: tuple(v) for k, v in GROUP_KIND_NAMES.items()} == GROUP_KINDS
    assert parse_meld("added-kong 5s").kind == MeldKind.ADDED_KONG


@pytest.mark.parametrize("ruleset", ["changsha", "yongzhou-huandiao", "sichuan-xuezhan", "mcr"])
def test_rulesets_name_kongs_by_their_payment_keys(ruleset: str) -> None:
    """``scoring.kongs`` (YAML) is keyed by the payment spelling of the kong kinds."""
    rs = load_ruleset(ruleset)
    assert set(rs.scoring.kongs) <= KONG_PAYMENT_KEYS
