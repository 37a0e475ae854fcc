"""``mj balance`` and :mod:`mjframework.design.balance`: report files, equal results whatever runs the games,
partial reports on Ctrl-C, bad input."""

from __future__ import annotations

import base64
import html
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from mjframework.cli import main
from mjframework.design import balance as bal
from mjframework.design.balance import BalanceError, run_balance

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def local() -> bal.BalanceResult:
    return run_balance("changsha", 40, seed=7, workers=1)


def test_report_files(tmp_path: Path) -> None:
    res = CliRunner().invoke(main, ["balance", "changsha", "--hands", "40", "--seed", "7",
                                    "-o", str(tmp_path / "out")])
    assert res.exit_code == 0, res.output
    png = (tmp_path / "out" / "balance.png").read_bytes()
    page = (tmp_path / "out" / "balance.html").read_text(encoding="utf-8")
    assert png.startswith(PNG_MAGIC) and b"IEND" in png[-16:]
    # the PNG is embedded in the page, which needs nothing else
    m = re.search(r'src="data:image/png;base64,([A-Za-z0-9+/=]+)"', page)
    assert m and base64.b64decode(m.group(1)) == png
    assert "<script" not in page and "http" not in page.replace("http-equiv", "")
    direct = run_balance("changsha", 40, seed=7)
    assert direct.rows, "40 changsha hands should show some pattern"
    for row in direct.rows:
        assert html.escape(row.name) in page
        assert row.name in res.output
    assert "PARTIAL" not in page


def test_numbers(local: bal.BalanceResult) -> None:
    s = local.stats
    assert s.hands == 40 and not local.partial
    assert local.paid > 0
    for r in local.rows:
        count, points = s.patterns.get(r.name, (0, 0))  # (a pattern that never came up: 0)
        assert (r.count, r.points) == (count, points)
        assert r.per_hand == pytest.approx(count / 40)
        assert r.per_win == pytest.approx(count / s.winners)
        assert r.share == pytest.approx(points / local.paid)
        assert r.per_occurrence == pytest.approx(points / count if count else 0.0)
    assert sum(r.points for r in local.rows) >= local.paid  # a win's payout counts for each pattern


def test_same_numbers_with_two_workers(local: bal.BalanceResult) -> None:
    two = run_balance("changsha", 40, seed=7, workers=2)
    assert two.numbers() == local.numbers()


def test_same_numbers_on_an_in_process_dask_cluster(local: bal.BalanceResult) -> None:
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(processes=False, n_workers=2, threads_per_worker=1,
                                  dashboard_address=None) as cluster:
        on_dask = run_balance("changsha", 40, seed=7, cluster=cluster.scheduler_address)
        assert on_dask.numbers() == local.numbers()
        assert on_dask.runner.startswith("dask")
        with distributed.Client(cluster, set_as_default=False) as client:  # a client given as is
            assert run_balance("changsha", 40, seed=7, cluster=client).numbers() == local.numbers()
            assert client.status == "running"  # not ours to close


def test_same_numbers_on_a_local_ray() -> None:
    ray = pytest.importorskip("ray")
    if ray.is_initialized():  # pragma: no cover - someone else's Ray
        pytest.skip("Ray is already initialised in this process")
    ray.init(address="local", num_cpus=2, include_dashboard=False, ignore_reinit_error=True,
             log_to_driver=False)  # a new local Ray, even if one runs on this machine
    try:
        on_ray = run_balance("changsha", 24, seed=7, cluster="ray")  # the Ray this process is on
        assert on_ray.runner.startswith("ray")
        assert on_ray.numbers() == run_balance("changsha", 24, seed=7).numbers()
        assert ray.is_initialized()  # not ours to shut down
    finally:
        ray.shutdown()


def test_interrupted_run_writes_a_partial_report(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = bal.balance_chunk
    calls: list[Any] = []

    def chunk_then_ctrl_c(spec: Any, games: Any) -> bal.ChunkResult:
        calls.append(games)
        if len(calls) > 1:
            raise KeyboardInterrupt
        return real(spec, games)

    monkeypatch.setattr(bal, "balance_chunk", chunk_then_ctrl_c)
    res = CliRunner().invoke(main, ["balance", "changsha", "--hands", "40", "--seed", "7",
                                    "-o", str(tmp_path)])
    assert res.exit_code == 130, res.output
    assert "partial" in res.output.lower()
    page = (tmp_path / "balance.html").read_text(encoding="utf-8")
    assert "PARTIAL" in page and "8 of 40 hands" in page  # the first chunk: one game of 8 hands
    assert (tmp_path / "balance.png").read_bytes().startswith(PNG_MAGIC)


@pytest.mark.parametrize(("args", "message"), [
    (["nope", "--hands", "5"], "no ruleset 'nope'"),
    (["changsha", "--hands", "0"], "--hands must be at least 1"),
    (["changsha", "--hands", "-3"], "--hands must be at least 1"),
    (["changsha", "--hands", "many"], "--hands must be an integer"),
    (["changsha"], "--hands N"),
    (["changsha", "--hands", "5", "--workers", "0"], "--workers must be at least 1"),
    (["changsha", "--hands", "5", "--cluster", "ray://127.0.0.1:9", "--connect-timeout", "1"],
     "cannot reach the Ray cluster"),
    (["changsha", "--hands", "5", "--cluster", "ray://nohostport"], "ray://HOST:PORT"),
    (["changsha", "--hands", "5", "--cluster", "tcp://127.0.0.1:9", "--connect-timeout", "1"],
     "cannot reach the Dask scheduler"),
])
def test_bad_input(tmp_path: Path, args: list[str], message: str) -> None:
    res = CliRunner().invoke(main, ["balance", *args, "-o", str(tmp_path / "out")])
    assert res.exit_code == 1, res.output
    assert message in res.output
    assert not (tmp_path / "out").exists()


def test_bad_input_api() -> None:
    with pytest.raises(BalanceError, match="positive"):
        run_balance("changsha", 0)
    with pytest.raises(BalanceError, match=r"cannot reach the Ray cluster at ray://127\.0\.0\.1:9"):
        run_balance("changsha", 5, cluster="ray://127.0.0.1:9", connect_timeout=1)


@pytest.mark.parametrize("runner", ["pool", "dask"])
def test_interrupt_keeps_the_finished_chunks_in_game_order(runner: str) -> None:
    """Ctrl-C (here: raised from the progress callback, in the parent, after the first merge)."""
    fired: list[int] = []

    def ctrl_c_once(n: int) -> None:
        if not fired:
            fired.append(n)
            raise KeyboardInterrupt

    if runner == "pool":
        res = run_balance("changsha", 80, seed=7, workers=2, progress=ctrl_c_once)
    else:
        distributed = pytest.importorskip("distributed")
        with distributed.LocalCluster(processes=False, n_workers=1, threads_per_worker=1,
                                      dashboard_address=None) as cluster:
            res = run_balance("changsha", 80, seed=7, cluster=cluster.scheduler_address,
                              progress=ctrl_c_once)
    assert res.partial and fired
    assert 8 <= res.stats.hands <= 80 and res.stats.hands % 8 == 0  # whole games, a prefix of them
    prefix = run_balance("changsha", res.stats.hands, seed=7)
    assert res.numbers() == prefix.numbers()


def test_patterns_that_never_came_up_are_listed_with_zero(local: bal.BalanceResult) -> None:
    from mjframework.rules.loader import load_ruleset

    declared = [p.name for p in load_ruleset("changsha").patterns]
    names = [r.name for r in local.rows]
    assert set(declared) <= set(names)
    zeros = [r for r in local.rows if r.count == 0]
    assert zeros and all(r.points == 0 and r.per_hand == 0 for r in zeros)
    assert names.index(zeros[0].name) == len(local.rows) - len(zeros)  # after those that came up
    assert all(f"{r.name}" in local.table() for r in zeros)
    assert local.to_dict()["patterns"][zeros[0].name] == [0, 0]
