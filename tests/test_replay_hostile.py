"""`mj replay` on doctored logs and at its prompt: a located error or a replay, never a
traceback; the log is streamed (memory bounded by one hand, docs/limits.md)."""

from __future__ import annotations

import json
import os
import random
import tracemalloc
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mjframework.cli import main
from mjframework.run.replay import MAX_LINE, Replay, ReplayError, read_hand, run
from mjframework.run.simulate import simulate


@pytest.fixture(scope="module")
def log_lines(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """A real log: 4 hands of changsha and 3 of sichuan-xuezhan (exchanges, plays on after a win)."""
    folder = tmp_path_factory.mktemp("logs")
    lines: list[str] = []
    for rid, n in (("changsha", 4), ("sichuan-xuezhan", 3)):
        simulate(rid, n, seed=5, log=folder / f"{rid}.jsonl")
        lines += (folder / f"{rid}.jsonl").read_text("utf-8").splitlines()
    return lines


JSON_VALUES = st.one_of(
    st.none(), st.booleans(), st.integers(), st.integers(min_value=10**15, max_value=10**80),
    st.floats(allow_nan=False), st.text(max_size=6), st.sampled_from(["5m", "八万", "zz", "", "中"]),
    st.lists(st.integers(min_value=-2, max_value=6), max_size=5), st.lists(st.text(max_size=3), max_size=4),
    st.just({"payer": 9, "amount": "x"}), st.just([{"seat": 0, "to": 7, "tiles": ["1m"]}]),
)


TYPES = ["deal", "draw", "discard", "claim", "kong", "exchange", "wildcard", "settlement", "reveal", "win",
         "hand_end", "hand_start", "zzz"]


@st.composite
def doctored(draw: st.DrawFn, lines: list[str]) -> bytes:
    out = list(lines)
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.integers(0, len(out) - 1))
        how = draw(st.sampled_from(["value", "drop_key", "add_key", "retype", "garbage", "truncate_line",
                                    "huge_number"]))
        try:
            e = json.loads(out[i])
        except ValueError:
            continue
        if not isinstance(e, dict) or not e:  # (a line an earlier step made garbage)
            continue
        keys = [k for k in e if k != "type"] or ["type"]
        if how == "value":
            e[draw(st.sampled_from(keys))] = draw(JSON_VALUES)
        elif how == "drop_key":
            e.pop(draw(st.sampled_from(sorted(e))), None)
        elif how == "add_key":
            e[draw(st.text(max_size=5))] = draw(JSON_VALUES)
        elif how == "retype":
            e["type"] = draw(st.sampled_from(TYPES))
        if how == "garbage":
            out[i] = draw(st.sampled_from(["{", "[]", "null", "\"x\"", '{"type": 3}', "\xff"]))
        elif how == "truncate_line":
            out[i] = out[i][: draw(st.integers(0, len(out[i])))]
        elif how == "huge_number":
            out[i] = out[i].replace("0", "9" * draw(st.sampled_from([20, 5000])), 1)
        else:
            out[i] = json.dumps(e, ensure_ascii=False)
    data = ("\n".join(out) + "\n").encode("utf-8", "surrogatepass")
    if draw(st.booleans()):
        data = data[: draw(st.integers(0, len(data)))]  # a log cut short
    return data


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_doctored_logs_replay_or_fail_with_a_located_error(
        tmp_path_factory: pytest.TempPathFactory, log_lines: list[str], data: st.DataObject) -> None:
    path = tmp_path_factory.mktemp("d") / "log.jsonl"
    path.write_bytes(data.draw(doctored(log_lines)))
    hand = data.draw(st.integers(0, 7))
    seat = data.draw(st.sampled_from([None, 0, 2, 3]))
    try:
        replay = Replay(read_hand(path, hand), seat)
    except ReplayError as e:
        assert str(e).startswith((f"{path}:", f"{path}: no hand", "--hand", "--seat")), e
        return
    assert replay.frames
    answers = iter(["p", "3", "n", "999", "q"])
    run(replay, lambda: next(answers, None), lambda s: None)


def test_the_cli_says_where_the_log_is_wrong(tmp_path: Path, log_lines: list[str]) -> None:
    bad = list(log_lines)
    i = next(k for k, line in enumerate(bad) if '"type":"discard"' in line)
    e = json.loads(bad[i])
    e["seat"] = [1]
    bad[i] = json.dumps(e)
    path = tmp_path / "log.jsonl"
    path.write_text("\n".join(bad) + "\n", "utf-8")
    r = CliRunner().invoke(main, ["replay", str(path), "--all"])
    assert r.exit_code == 1 and isinstance(r.exception, SystemExit)
    assert f"{path}:{i + 1}: discard: seat: expected an integer, got a list" in r.output


@settings(max_examples=200, deadline=None)
@given(typed=st.lists(st.one_of(st.text(max_size=12), st.sampled_from(["²", "٣", "9" * 5000, "-1", "0", "+2",
                                                                      "1e3", " 2 "])), max_size=6))
def test_the_prompt_takes_anything(typed: list[str]) -> None:
    replay = _REPLAY
    said: list[str] = []
    answers = iter(typed)
    run(replay, lambda: next(answers, None), said.append)
    assert all(len(s) < 5000 for s in said)


def _one_hand() -> Replay:
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        simulate("changsha", 1, seed=2, log=Path(d) / "l.jsonl")
        return Replay(read_hand(Path(d) / "l.jsonl", 0))


_REPLAY = _one_hand()


def test_a_large_log_is_streamed(tmp_path: Path, log_lines: list[str]) -> None:
    """~8 MB of hands: reading the last one keeps one hand (tracemalloc peak, not time)."""
    first_hand = log_lines[1:log_lines.index(next(x for x in log_lines if '"type":"hand_end"' in x)) + 1]
    path = tmp_path / "big.jsonl"
    size = 0
    copies = 0
    with open(path, "w", encoding="utf-8") as f:
        f.write(log_lines[0] + "\n")
        block = "\n".join(first_hand) + "\n"
        while size < 8_000_000:
            f.write(block)
            size += len(block)
            copies += 1
    tracemalloc.start()
    try:
        replay = Replay(read_hand(path, copies - 1))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert replay.frames
    assert peak < 40 * len(block) + 2 * MAX_LINE, (peak, len(block))  # one hand and its frames, not 8 MB
    with pytest.raises(ReplayError, match=f"the log has {copies} hands"):
        read_hand(path, copies)


def test_endless_or_binary_input_is_bounded() -> None:
    if os.path.exists("/dev/zero"):
        with pytest.raises(ReplayError, match="a line longer than"):
            read_hand("/dev/zero", 0)
        r = CliRunner().invoke(main, ["replay", "/dev/zero"])
        assert r.exit_code == 1 and "a line longer than" in r.output


def test_random_bytes(tmp_path: Path) -> None:
    rng = random.Random(3)
    path = tmp_path / "noise.jsonl"
    for _ in range(20):
        path.write_bytes(bytes(rng.randrange(256) for _ in range(rng.randrange(1, 3000))))
        with pytest.raises(ReplayError):
            read_hand(path, 0)
