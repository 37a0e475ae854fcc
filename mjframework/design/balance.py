"""Pattern balance: how often each pattern comes up and how many points it brings.

A balance run plays hands exactly as :mod:`mjframework.run.simulate` does (same
seeds, same games, same chunks of games), locally — in-process or on a
process pool — on a Dask cluster (``distributed.Client(address)``) or on Ray
(``ray.init(address)``: ``ray://HOST:PORT``, or ``ray`` / ``auto`` for a local Ray). Every
chunk's result depends only on (spec, games), and chunks are merged in game
order, so the numbers are identical whatever runs them.

For each pattern the report gives its frequency (per hand, per win), the
points paid on the wins (and opening declarations) that carry it, that sum's
share of all points paid to winners, and the points per occurrence. A win
with several patterns counts its whole payout for each of them, so the
shares add up to more than 100 % when patterns combine.

Ctrl-C during a run keeps what has finished: :func:`run_balance` returns a
result marked ``partial`` (the chunks merged so far, in game order).
"""

from __future__ import annotations

import base64
import html
import io
import json
import logging
import shutil
import socket
import subprocess
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from ..core.errors import MJError
from ..core.fileio import write_atomic
from ..run.runner import ProcessPool, run_alone, run_windowed, usable_workers
from ..run.simulate import (
    SimSpec,
    Stats,
    abandoned_game,
    game_chunks,
    load_cached,
    options_key,
    parse_bots,
    play_game,
    shared_with_workers,
)


class BalanceError(MJError):
    """Bad balance input (hands, workers, cluster address …)."""


# -- playing chunks -----------------------------------------------------------------


class _PaidTap:
    """A stand-in for the log file of :func:`play_game` that adds up the points paid to winners.

    It mirrors :class:`~mjframework.run.simulate.StatsSink`: a ``win`` or ``opening_win`` is
    paid by the next ``settlement``; the winner's share of it is what the patterns earned.
    """

    def __init__(self) -> None:
        self.paid = 0
        self._seat: int | None = None

    def write(self, line: str) -> int:
        if line.startswith(('{"type":"win"', '{"type":"opening_win"')):
            self._seat = json.loads(line)["seat"]
        elif line.startswith('{"type":"settlement"'):
            if self._seat is not None:
                self.paid += json.loads(line)["payments"][self._seat]
                self._seat = None
        elif line.startswith('{"type":"hand_end"'):
            self._seat = None
        return len(line)


@dataclass
class ChunkResult:
    games: list[int]
    stats: Stats
    paid: int  # points paid to winners (one count per win, whatever its patterns)


def balance_chunk(spec: SimSpec, games: Sequence[int]) -> ChunkResult:
    """Play ``games`` in order (the unit of work of every runner; picklable, importable)."""
    rs, _ = load_cached(spec.ruleset, spec.options, spec.preset)
    stats = Stats(rs.players)
    tap = _PaidTap()
    for g in games:
        play_game(spec, g, stats, tap)  # type: ignore[arg-type]
    return ChunkResult(list(games), stats, tap.paid)


# -- results ---------------------------------------------------------------------------


@dataclass
class PatternRow:
    index: int  # 1-based, in the order of the report (most frequent first)
    name: str
    count: int
    per_hand: float
    per_win: float
    points: int  # points paid on the wins carrying it
    share: float  # points / all points paid to winners
    per_occurrence: float


@dataclass
class BalanceResult:
    ruleset_id: str
    ruleset_name: str
    spec: SimSpec
    stats: Stats
    paid: int
    seconds: float
    runner: str
    partial: bool = False
    hands_done: int = 0
    rows: list[PatternRow] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.hands_done = self.stats.hands
        rs = load_cached(self.spec.ruleset, self.spec.options, self.spec.preset)[0]
        self.rows = pattern_rows(self.stats, self.paid, [p.name for p in rs.patterns])

    def numbers(self) -> dict[str, Any]:
        """What the simulation found (no timing, no runner): equal for equal seeds."""
        s = self.stats
        return {"hands": s.hands, "games": s.games, "won": s.won, "winners": s.winners,
                "openings": s.openings, "drawn": s.drawn, "abandoned": s.abandoned, "paid": self.paid,
                "net_by_seat": list(s.net_by_seat),
                "patterns": {r.name: [r.count, r.points] for r in self.rows}}

    def to_dict(self) -> dict[str, Any]:
        """The report as JSON (``mj balance --json``): the numbers, the pattern rows, how it ran."""
        return {"ruleset": self.ruleset_id, "name": self.ruleset_name, "seed": self.spec.seed,
                "hands_asked": self.spec.hands, "bots": list(self.spec.bots),
                "hands_per_game": self.spec.hands_per_game, "preset": self.spec.preset,
                "options": load_cached(self.spec.ruleset, self.spec.options, self.spec.preset)[0].options,
                "runner": self.runner, "seconds": round(self.seconds, 3), "partial": self.partial,
                **self.numbers(),
                "rows": [{"index": r.index, "name": r.name, "count": r.count,
                          "per_hand": round(r.per_hand, 6),
                          "per_win": round(r.per_win, 6), "points": r.points, "share": round(r.share, 6),
                          "per_occurrence": round(r.per_occurrence, 3)} for r in self.rows]}

    def table(self) -> str:
        s = self.stats
        head = (f"{self.ruleset_name} ({self.ruleset_id}) — {s.hands} of {self.spec.hands} hands, "
                f"seed {self.spec.seed}, {self.runner}, {self.seconds:.2f} s"
                + (" — PARTIAL (interrupted)" if self.partial else ""))
        lines = [head, f"wins {s.winners}, opening declarations {s.openings}, points paid to winners "
                       f"{self.paid}", ""]
        if not self.rows:
            return "\n".join([*lines, "no pattern came up"])
        lines.append("  #  pattern             count  per hand  per win   points   share  per occ.")
        for r in self.rows:
            pad = max(20 - _width(r.name), 1)
            lines.append(f"{r.index:3d}  {r.name}{' ' * pad}{r.count:5d}  {100 * r.per_hand:7.1f}%"
                         f"  {100 * r.per_win:6.1f}%  {r.points:7d}  {100 * r.share:5.1f}%  "
                         f"{r.per_occurrence:8.1f}")
        return "\n".join(lines)


def pattern_rows(stats: Stats, paid: int, declared: Sequence[str] = ()) -> list[PatternRow]:
    """A row per pattern that came up (most frequent first), then one per ``declared`` pattern
    that never did (count 0, in declaration order): a pattern the run never saw is a finding."""
    hands = max(stats.hands, 1)
    wins = max(stats.winners, 1)  # as `mj simulate` counts per win
    items = sorted(stats.patterns.items(), key=lambda kv: (-kv[1][0], kv[0]))
    items += [(name, [0, 0]) for name in dict.fromkeys(declared) if name not in stats.patterns]
    return [PatternRow(i, name, c, c / hands, c / wins, pts, pts / paid if paid else 0.0,
                       pts / c if c else 0.0)
            for i, (name, (c, pts)) in enumerate(items, 1)]


def _width(text: str) -> int:
    return sum(2 if ord(c) > 0x2E80 else 1 for c in text)


# -- running ---------------------------------------------------------------------------


def run_balance(ruleset: str, hands: int, *, seed: int = 0, bots: str | Sequence[str] = "greedy",
                hands_per_game: int = 8, workers: int = 1, cluster: Any = None,
                connect_timeout: float = 10.0,
                progress: Callable[[int], None] | None = None, options: dict[str, Any] | None = None,
                preset: str | None = None) -> BalanceResult:
    """Play ``hands`` hands and collect pattern statistics.

    ``workers == 1`` plays in this process; ``workers > 1`` uses a process pool;
    ``cluster`` (a Dask scheduler address, or a ``distributed.Client``) runs the same
    chunks on Dask; ``cluster`` ``"ray://HOST:PORT"`` (Ray Client), ``"ray"`` (the Ray
    this process is connected to, else a new local one) or ``"auto"`` (a running local
    Ray, as ``ray start --head`` leaves) runs them as Ray tasks. A KeyboardInterrupt stops
    the run: the result holds the chunks finished so far (in game order) and ``partial`` is set.
    """
    if not isinstance(hands, int) or hands <= 0:
        raise BalanceError(f"the number of hands must be positive, got {hands}")
    if hands_per_game <= 0:
        raise BalanceError(f"hands per game must be positive, got {hands_per_game}")
    if workers <= 0:
        raise BalanceError(f"workers must be positive, got {workers}")
    rs, _ = load_cached(ruleset, options, preset)  # MJError for an unknown ruleset or a bad option
    names = parse_bots(bots if isinstance(bots, str) else ",".join(bots), rs.players)
    spec = SimSpec(ruleset, hands, seed, names, hands_per_game, options=options_key(options), preset=preset)
    if cluster is None:
        workers = usable_workers(workers, hands)
    stats = Stats(rs.players)
    total = {"paid": 0}
    start = time.perf_counter()

    def merge(r: ChunkResult) -> None:
        stats.merge(r.stats)
        total["paid"] += r.paid
        if progress:
            progress(r.stats.hands)

    def merged(games: list[int], r: ChunkResult) -> None:
        merge(r)

    stopped = False
    if _is_ray(cluster):
        ray, owned = _ray_connect(cluster.strip(), connect_timeout)
        runner = "ray (local)" if cluster.strip() == "ray" else f"ray cluster {cluster.strip()}"
        try:
            remote = ray.remote(balance_chunk)
            ncpus = max(int(ray.cluster_resources().get("CPU", 0)), 1)
            stopped = run_windowed(game_chunks(spec.games, ncpus),
                                   lambda g: _RayFuture(ray, remote.remote(spec, g)), ncpus * 3, merged,
                                   on_interrupt="stop")
        finally:
            if owned:
                ray.shutdown()
    elif cluster is not None:
        client, owned = _dask_client(cluster, connect_timeout)
        runner = f"dask cluster {_address(client)}"
        try:
            nthreads = sum(client.nthreads().values()) or workers
            stopped = run_windowed(game_chunks(spec.games, max(nthreads, 1)),
                                   lambda g: client.submit(balance_chunk, spec, g, pure=False),
                                   max(nthreads, 1) * 3, merged, on_interrupt="stop")
        finally:
            if owned:
                client.close()
    elif workers == 1:
        runner = "1 process"
        try:
            for g in range(spec.games):  # one game at a time: Ctrl-C loses at most one game
                merge(balance_chunk(spec, [g]))
        except KeyboardInterrupt:
            stopped = True
    else:
        runner = f"{workers} worker processes"
        with shared_with_workers(spec):
            pool = ProcessPool(partial(balance_chunk, spec), workers, partial(_replay, spec, rs.players))
            try:
                stopped = run_windowed(game_chunks(spec.games, workers), pool.submit, workers * 3, merged,
                                       on_interrupt="harvest")
            finally:
                pool.kill()  # after a harvest, nothing is left to wait for; a hung hand is killed
    seconds = time.perf_counter() - start
    stopped = stopped or stats.hands < hands
    return BalanceResult(rs.id, rs.name, spec, stats, total["paid"], seconds, runner, stopped)


def _replay(spec: SimSpec, players: int, games: list[int]) -> ChunkResult:
    """A chunk whose worker died, replayed game by game, each in a fresh process; a game that
    kills its process again counts as abandoned hands (``worker process died``), as in
    ``mj simulate``."""
    stats, paid = Stats(players), 0
    for g in games:
        r = run_alone(partial(balance_chunk, spec), [g])
        if r is None:
            stats.merge(abandoned_game(spec, g, players, "worker process died", None))
        else:
            stats.merge(r.stats)
            paid += r.paid
    return ChunkResult(list(games), stats, paid)


class _RayFuture:
    """What :func:`~mjframework.run.runner.run_windowed` needs of a future, for a Ray ``ObjectRef``."""

    def __init__(self, ray: Any, ref: Any) -> None:
        self._ray, self._ref, self._cancelled = ray, ref, False

    def result(self, timeout: float | None = None) -> Any:
        return self._ray.get(self._ref, timeout=timeout)

    def cancel(self) -> bool:
        try:
            self._ray.cancel(self._ref)
        except Exception:  # pragma: no cover - already finished, or the connection is gone
            return False
        self._cancelled = True
        return True

    def cancelled(self) -> bool:
        return self._cancelled


def _is_ray(cluster: Any) -> bool:
    return isinstance(cluster, str) and (cluster.strip().startswith("ray://")
                                         or cluster.strip() in ("ray", "auto"))


def _ray_connect(address: str, timeout: float) -> tuple[Any, bool]:
    """``ray`` connected to ``address``, and whether this call connected it (then it shuts it down)."""
    try:
        import ray
    except ImportError:
        raise BalanceError(f"--cluster {address} needs Ray: pip install 'ray[client]'") from None
    if address == "ray" and ray.is_initialized():
        return ray, False  # the caller's Ray: not ours to shut down
    if ray.is_initialized():
        raise BalanceError(f"--cluster {address}: this process is already connected to Ray "
                           "(use --cluster ray to run on that one)")
    if address.startswith("ray://"):
        host, _, port = address[len("ray://"):].rpartition(":")
        if not host or not port.isdigit():
            raise BalanceError(f"--cluster {address}: give a Ray Client address, ray://HOST:PORT")
        try:  # Ray Client itself keeps trying for 30 s or more: fail fast on a closed port
            socket.create_connection((host.strip("[]"), int(port)), timeout=timeout).close()
        except OSError as e:
            raise BalanceError(f"cannot reach the Ray cluster at {address}: "
                               f"{type(e).__name__}: {e}") from None
    local: dict[str, Any] = {} if address.startswith("ray://") else {"include_dashboard": False}
    try:
        ray.init(address=None if address == "ray" else address, log_to_driver=False,
                 logging_level=logging.WARNING, **local)
    except Exception as e:  # ConnectionError, ValueError (e.g. Ray Client not installed) …
        hint = (" (a cluster with token authentication also needs RAY_AUTH_MODE=token here)"
                if address.startswith("ray://") and isinstance(e, ConnectionError) else "")
        raise BalanceError(f"cannot reach the Ray cluster at {address}: "
                           f"{type(e).__name__}: {e}{hint}") from None
    return ray, True


def _address(client: Any) -> str:
    try:
        return str(client.scheduler.address)
    except Exception:  # pragma: no cover - defensive
        return "?"


def _dask_client(cluster: Any, timeout: float) -> tuple[Any, bool]:
    """A ``distributed.Client`` for ``cluster`` (an address, or a client given as is)."""
    if not isinstance(cluster, str):
        return cluster, False
    address = cluster.strip()
    if not address:
        raise BalanceError("--cluster: give a Dask scheduler address (tcp://HOST:PORT) "
                           "or a Ray one (ray://HOST:PORT, ray, auto)")
    try:
        from distributed import Client
    except ImportError:
        raise BalanceError("--cluster needs Dask: pip install 'mjframework[balance]'") from None
    try:
        return Client(address, timeout=f"{timeout}s", set_as_default=False), True
    except Exception as e:  # OSError / TimeoutError / ValueError for a bad address
        raise BalanceError(f"cannot reach the Dask scheduler at {address}: "
                           f"{type(e).__name__}: {e}") from None


# -- the report --------------------------------------------------------------------------

CJK_FAMILIES = ("Noto Sans CJK", "Noto Serif CJK", "Source Han", "WenQuanYi", "SimHei", "Microsoft YaHei",
                "PingFang", "Hiragino", "AR PL", "Droid Sans Fallback", "Sarasa", "Heiti", "SimSun")


def find_font(text: str) -> str | None:
    """A font file covering every character of ``text`` (``None`` if none is found)."""
    import matplotlib.font_manager as fm
    from matplotlib.ft2font import FT2Font

    chars = {c for c in text if ord(c) > 0x7F}
    if not chars:
        return None
    candidates: list[str] = []
    if shutil.which("fc-list"):
        try:
            out = subprocess.run(["fc-list", ":lang=zh", "file"], capture_output=True, text=True,
                                 timeout=10, check=False).stdout
            candidates += [ln.split(":")[0].strip() for ln in out.splitlines() if ln.strip()]
        except (OSError, subprocess.SubprocessError):
            pass
    candidates += [f.fname for f in fm.fontManager.ttflist if any(k in f.name for k in CJK_FAMILIES)]
    for path in dict.fromkeys(candidates):
        try:
            font = FT2Font(path)
            if all(font.get_char_index(ord(c)) for c in chars):
                return path
        except Exception:
            continue
    return None


def render_png(result: BalanceResult) -> tuple[bytes, bool]:
    """The bar chart (PNG bytes) and whether pattern names were drawn (else: indices)."""
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt
    from matplotlib.font_manager import FontProperties

    rows = [r for r in result.rows if r.count]  # (the chart: what came up; the table lists all)
    font_path = find_font("".join(r.name for r in rows))
    needs_font = any(ord(c) > 0x7F for r in rows for c in r.name)
    use_names = not needs_font or font_path is not None
    prop = FontProperties(fname=font_path) if font_path else None
    labels = [r.name if use_names else f"P{r.index}" for r in rows]

    fig, ax = plt.subplots(figsize=(max(6.0, 0.7 * len(rows) + 2), 4.5), dpi=100)
    try:
        xs = list(range(len(rows)))
        w = 0.4
        ax.bar([x - w / 2 for x in xs], [100 * r.per_hand for r in rows], w, label="frequency (% of hands)")
        ax.bar([x + w / 2 for x in xs], [100 * r.share for r in rows], w,
               label="share of points paid (%)")
        ax.set_xticks(xs)
        many = len(rows) > 6
        ax.set_xticklabels(labels, rotation=45 if many else 0, ha="right" if many else "center",
                           fontproperties=prop)
        ax.set_ylabel("%")
        title = f"{result.ruleset_id}: {result.stats.hands} hands, seed {result.spec.seed}"
        ax.set_title(title + (" (partial)" if result.partial else ""))
        ax.legend()
        if not rows:
            ax.text(0.5, 0.5, "no pattern came up", ha="center", va="center", transform=ax.transAxes)
        fig.tight_layout()
        buf = io.BytesIO()
        fig.savefig(buf, format="png")
    finally:
        plt.close(fig)
    return buf.getvalue(), use_names


def render_html(result: BalanceResult, png: bytes, names_in_chart: bool) -> str:
    e = html.escape
    s = result.stats
    b64 = base64.b64encode(png).decode("ascii")
    rows = "\n".join(
        f"<tr><td>{r.index}</td><td>{'' if names_in_chart else f'P{r.index}'}</td><td>{e(r.name)}</td>"
        f"<td>{r.count}</td><td>{100 * r.per_hand:.2f}%</td><td>{100 * r.per_win:.2f}%</td>"
        f"<td>{r.points}</td><td>{100 * r.share:.2f}%</td><td>{r.per_occurrence:.1f}</td></tr>"
        for r in result.rows)
    note = ("" if names_in_chart else
            "<p>No CJK font was found on this machine: the chart labels patterns P1, P2 …; "
            "the table gives their names.</p>")
    partial = (f'<p class="partial">PARTIAL: interrupted after {s.hands} of {result.spec.hands} hands.</p>'
               if result.partial else "")
    return f"""<!DOCTYPE html>
<html lang="zh"><head><meta charset="utf-8">
<title>Balance: {e(result.ruleset_name)} ({e(result.ruleset_id)})</title>
<style>
body {{ font-family: sans-serif; margin: 2em; }}
table {{ border-collapse: collapse; }}
td, th {{ border: 1px solid #999; padding: 0.2em 0.6em; text-align: right; }}
td:nth-child(3) {{ text-align: left; }}
.partial {{ color: #b00; font-weight: bold; }}
</style></head><body>
<h1>Pattern balance: {e(result.ruleset_name)} ({e(result.ruleset_id)})</h1>
{partial}
<p>{s.hands} hands in {s.games} games, seed {result.spec.seed}, bots {e(','.join(result.spec.bots))};
{s.winners} wins, {s.openings} opening declarations, {result.paid} points paid to winners
({e(result.runner)}, {result.seconds:.2f} s).</p>
<p>A win with several patterns counts its whole payout for each of them:
shares can add up to more than 100%.</p>
<img alt="frequency vs share of points per pattern" src="data:image/png;base64,{b64}">
{note}
<table>
<tr><th>#</th><th>label</th><th>pattern</th><th>count</th><th>per hand</th><th>per win</th>
<th>points paid</th><th>share of points</th><th>points per occurrence</th></tr>
{rows}
</table>
</body></html>
"""


def write_report(result: BalanceResult, out_dir: str | Path) -> tuple[Path, Path]:
    """Write ``balance.png`` and ``balance.html`` into ``out_dir``; return their paths."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise BalanceError("the balance report needs matplotlib: "
                           "pip install 'mjframework[balance]'") from None
    d = Path(out_dir)
    if d.exists() and not d.is_dir():
        raise BalanceError(f"-o {d}: not a directory")
    png, names_in_chart = render_png(result)
    png_path, html_path = d / "balance.png", d / "balance.html"
    write_atomic(png_path, png)
    write_atomic(html_path, render_html(result, png, names_in_chart).encode("utf-8"))
    return png_path, html_path


__all__ = ["BalanceError", "BalanceResult", "ChunkResult", "PatternRow", "balance_chunk", "find_font",
           "pattern_rows", "render_html", "render_png", "run_balance", "write_report"]
