"""The records file (mjframework.run.records) and `mj records`: every hand people play is kept."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from mjframework.cli import main
from mjframework.run.records import (
    SCHEMA_VERSION,
    HandRecorder,
    RecordsError,
    RecordStore,
    Seat,
    default_path,
    ruleset_hash,
)
from mjframework.run.replay import Replay, read_hands
from mjframework.run.simulate import load_cached, make_bots, play_hands

ROOT = Path(__file__).resolve().parents[1]


def _play(store: RecordStore, ruleset: str, hands: int, seed: int, seats: list[Seat]) -> list[int]:
    rs, ev = load_cached(ruleset)
    session = store.start_session(rs, kind="play", seed=seed)
    rec = HandRecorder(store, session, lambda: seats)
    for _ in play_hands(rs, lambda h: make_bots(("greedy",) * rs.players, seed, 0, h), seed=seed, hands=hands,
                        emit=rec, evaluator=ev):
        pass
    return rec.kept


def test_default_path_follows_the_platform_and_the_environment() -> None:
    assert default_path({"MJ_RECORDS": "/x/r.db", "HOME": "/h"}, "linux") == Path("/x/r.db")
    assert default_path({"XDG_DATA_HOME": "/d", "HOME": "/h"}, "linux") == \
        Path("/d/mjframework/records.sqlite3")
    assert default_path({"HOME": "/h"}, "linux") == Path("/h/.local/share/mjframework/records.sqlite3")
    assert default_path({"HOME": "/h"}, "darwin") == \
        Path("/h/Library/Application Support/mjframework/records.sqlite3")
    assert default_path({"HOME": "/h", "LOCALAPPDATA": "/l"}, "win32") == \
        Path("/l/mjframework/records.sqlite3")


def test_a_new_file_is_at_the_current_schema_and_a_newer_one_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "r.sqlite3"
    with RecordStore(path) as store:
        assert store.version == SCHEMA_VERSION >= 1
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    db.close()
    with pytest.raises(RecordsError, match="newer mjframework"):
        RecordStore(path)
    junk = tmp_path / "junk.sqlite3"
    junk.write_bytes(b"this is not sqlite at all" * 100)
    with pytest.raises(RecordsError, match="not a records file"):
        RecordStore(junk)


def test_hands_are_kept_with_seats_logs_and_settlement_and_replay(tmp_path: Path) -> None:
    with RecordStore(tmp_path / "r.sqlite3") as store:
        ids = _play(store, "changsha", 3, 11, [Seat("ann", "human"), Seat("greedy"), Seat("bob", "human"),
                                                Seat("greedy")])
        _play(store, "sichuan-xuezhan", 1, 5, [Seat("greedy")] * 4)
        assert len(ids) == 3
        rows = store.hands(ruleset="changsha")
        assert [r.id for r in rows] == sorted(ids, reverse=True)
        assert {r.ruleset_id for r in store.hands()} == {"changsha", "sichuan-xuezhan"}
        assert [r.id for r in store.hands(player="bob")] == sorted(ids, reverse=True)
        assert store.hands(player="nobody") == []
        assert store.hands(since="2999-01-01") == []
        assert len(store.hands(until="2999-01-01")) == 4
        rs, _ = load_cached("changsha")
        assert rows[0].ruleset_hash == ruleset_hash(rs)
        assert store.ruleset_data(rows[0].ruleset_hash)["id"] == "changsha"
        for r in rows:
            log = store.log(r.id)
            assert log[0]["type"] == "hand_start" and log[-1]["type"] == "hand_end"
            paid = [0] * 4
            for e in log:
                if e["type"] == "settlement":
                    paid = [a + b for a, b in zip(paid, e["payments"], strict=True)]
            assert r.deltas == paid and sum(paid) == 0
            # each seat's own log: its own tiles, never another's concealed ones
            for seat in range(4):
                start = next(e for e in store.log(r.id, seat) if e["type"] == "start_kyoku")
                for other, tehai in enumerate(start["tehais"]):
                    assert (set(tehai) == {"?"}) == (other != seat)
        with pytest.raises(RecordsError, match="no hand 999"):
            store.log(999)
        with pytest.raises(RecordsError, match="no seat 7"):
            store.log(ids[0], 7)
        # the export is an engine log `mj replay` reads, showing the same final table
        out = tmp_path / "h.jsonl"
        out.write_text("".join(json.dumps(e) + "\n" for e in store.log(ids[0])), "utf-8")
        hands = read_hands(out)
        assert len(hands) == 1 and hands[0] == store.log(ids[0])
        assert Replay(hands[0]).frames[-1]


KILLED = textwrap.dedent("""
    import sys, time
    from mjframework.run.records import HandRecorder, RecordStore, Seat
    from mjframework.run.simulate import load_cached, make_bots, play_hands
    store = RecordStore(sys.argv[1])
    rs, ev = load_cached("changsha")
    session = store.start_session(rs, kind="room", room="killme", seed=3)
    rec = HandRecorder(store, session, lambda: [Seat("greedy")] * 4,
                       on_hand=lambda i: print(i, flush=True))
    for _ in play_hands(rs, lambda h: make_bots(("greedy",) * 4, 3, 0, h), seed=3, hands=10**6,
                        emit=rec, evaluator=ev):
        pass
""")


def test_nothing_is_lost_when_the_server_is_killed_between_hands(tmp_path: Path) -> None:
    """A process keeping hands is SIGKILLed; every hand it reported is in the file, whole."""
    path = tmp_path / "r.sqlite3"
    proc = subprocess.Popen([sys.executable, "-c", KILLED, str(path)], stdout=subprocess.PIPE, text=True,
                            cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.stdout is not None
    reported = [int(proc.stdout.readline()) for _ in range(3)]
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    db.close()
    with RecordStore(path) as store:
        rows = store.hands(room="killme", limit=10**6)
        kept = {r.id for r in rows}
        assert set(reported) <= kept
        for r in rows:  # a hand is whole or absent
            log = store.log(r.id)
            assert log[0]["type"] == "hand_start" and log[-1]["type"] == "hand_end"
            assert len(store.log(r.id, 0)) > 0


def test_mj_play_keeps_its_hands_and_mj_records_lists_and_exports_them(tmp_path: Path) -> None:
    path = tmp_path / "r.sqlite3"
    runner = CliRunner()
    r = runner.invoke(main, ["play", "changsha", "--seed", "4", "--plain", "--records", str(path)],
                      input="1\n" * 200)
    assert r.exit_code == 0, r.output
    r = runner.invoke(main, ["records", "list", "--records", str(path), "--json"])
    assert r.exit_code == 0, r.output
    rows = [json.loads(line) for line in r.output.splitlines()]
    assert len(rows) == 1 and rows[0]["ruleset"] == "changsha" and rows[0]["kind"] == "play"
    assert [s["kind"] for s in rows[0]["seats"]] == ["human", "bot", "bot", "bot"]
    r = runner.invoke(main, ["records", "list", "--records", str(path), "--ruleset", "mcr"])
    assert r.exit_code == 0 and "no hands" in r.output
    r = runner.invoke(main, ["records", "list", "--records", str(path), "--since", "yesterday"])
    assert r.exit_code == 1 and "--since must be a date" in r.output
    out = tmp_path / "h.jsonl"
    r = runner.invoke(main, ["records", "export", str(rows[0]["id"]), "--records", str(path), "-o", str(out)])
    assert r.exit_code == 0, r.output
    r = runner.invoke(main, ["replay", str(out), "--all"])
    assert r.exit_code == 0 and "hand ends" in r.output
    r = runner.invoke(main, ["records", "export", "77", "--records", str(path)])
    assert r.exit_code == 1 and "no hand 77" in r.output and "Traceback" not in r.output
    # --no-records keeps nothing
    r = runner.invoke(main, ["play", "changsha", "--seed", "4", "--plain", "--records", str(path),
                             "--no-records"], input="1\n" * 200)
    assert r.exit_code == 0
    with RecordStore(path) as store:
        assert len(store.hands()) == 1


def test_mj_play_uses_the_environment_variable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "env.sqlite3"
    monkeypatch.setenv("MJ_RECORDS", str(path))
    r = CliRunner().invoke(main, ["play", "mcr", "--seed", "9", "--plain"], input="1\n" * 300)
    assert r.exit_code == 0, r.output
    with RecordStore(path) as store:
        assert [h.ruleset_id for h in store.hands()] == ["mcr"]


def test_mj_play_plays_on_when_the_records_file_cannot_be_opened(tmp_path: Path) -> None:
    bad = tmp_path / "not-a-db.sqlite3"
    bad.write_bytes(b"garbage " * 200)
    r = CliRunner().invoke(main, ["play", "changsha", "--seed", "4", "--plain", "--records", str(bad)],
                           input="1\n" * 200)
    assert r.exit_code == 0, r.output
    assert "not a records file" in r.output and "the hands are not kept" in r.output


def test_mj_serve_rooms_without_the_web_extra_says_what_to_install(tmp_path: Path) -> None:
    script = ("import sys; sys.modules['starlette'] = None; from mjframework.cli import main; "
              "main(['serve', '--rooms', '--port', '0', '--no-records'])")
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=120,
                       env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert r.returncode == 1 and "pip install 'mjframework[web]'" in r.stderr and "Traceback" not in r.stderr
