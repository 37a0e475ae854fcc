"""``mj match`` (players against each other, duplicate) and ``mj replay`` (step through a logged hand)."""

from __future__ import annotations

import json
import sys

import click

from .common import bot_timeout_seconds, parse_int


@click.command("match")
@click.argument("ruleset")
@click.option("--seats", required=True, metavar="P1,P2,…",
              help="One player per seat: built-in bots (greedy, random), the names of --bot programs, "
                   "or trained policies' .npz files (docs/agents.md).")
@click.option("--bot", "bots", multiple=True, metavar="[NAME=]COMMAND",
              help="An external program (docs/bots.md); named bot1, bot2 … in order unless NAME= is given.")
@click.option("--hands", "-n", "hands", required=True, metavar="N", help="How many hands to play.")
@click.option("--seed", "-s", "seed", default="0", show_default=True, metavar="S", help="Base seed.")
@click.option("--duplicate", is_flag=True,
              help="Play each wall once per rotation of the players round the table (N a multiple of the "
                   "number of seats).")
@click.option("--hands-per-board", "per_board", default="1", show_default=True, metavar="K",
              help="Hands per board: K > 1 plays each board as a game of K hands (the deal passing by the "
                   "rules, the ruleset's counters carried); N must be a multiple of K (× the seats with "
                   "--duplicate).")
@click.option("--bot-timeout", "bot_timeout", default="10", show_default=True, metavar="SECONDS",
              help="How long a bot may think per decision before it is made to leave.")
@click.option("--json", "as_json", is_flag=True, help="Print the standings as one JSON object.")
def match_cmd(ruleset: str, seats: str, bots: tuple[str, ...], hands: str, seed: str, duplicate: bool,
              per_board: str, bot_timeout: str, as_json: bool) -> None:
    """Players of RULESET against each other; standings with 95% confidence intervals.

    Exits 1 if an external bot left the table (timed out, crashed, answered
    wrongly), saying which and why on stderr.
    """
    from ..run.extbot import parse_bot_specs
    from ..run.match import run_match

    n = parse_int(hands, "--hands", minimum=1)
    s = parse_int(seed, "--seed")
    k = parse_int(per_board, "--hands-per-board", minimum=1)
    assert n is not None and s is not None and k is not None
    timeout = bot_timeout_seconds(bot_timeout)
    try:
        specs = parse_bot_specs(bots)
    except ValueError as e:
        raise click.UsageError(str(e)) from None
    names = [x.strip() for x in seats.split(",") if x.strip()]
    try:
        result = run_match(ruleset, names, n, seed=s, duplicate=duplicate, bots=specs, bot_timeout=timeout,
                           hands_per_board=k)
    except ValueError as e:
        raise click.UsageError(str(e)) from None
    except KeyboardInterrupt:
        click.echo("\ninterrupted", err=True)
        sys.exit(130)
    click.echo(json.dumps(result.to_dict(), ensure_ascii=False) if as_json else result.table())
    if result.left:
        for name, why in result.left.items():
            click.echo(f"error: bot {name!r} left the table: {why}", err=True)
        sys.exit(1)


@click.command("replay")
@click.argument("log", type=click.Path(dir_okay=False))
@click.option("--hand", "hand", default="0", show_default=True, metavar="N",
              help="Which hand of the log (0 = the first).")
@click.option("--seat", "seat", default=None, metavar="N",
              help="Show the table as seat N saw it (others' tiles face down). Default: everything.")
@click.option("--all", "print_all", is_flag=True, help="Print every frame without waiting for input.")
def replay_cmd(log: str, hand: str, seat: str | None, print_all: bool) -> None:
    """Step through a hand of LOG (an `mj simulate --log` file): Enter/n next, p previous, q quits."""
    from ..run.replay import Replay, read_hand, run

    h = parse_int(hand, "--hand", minimum=0)
    st = parse_int(seat, "--seat", minimum=0) if seat is not None else None
    assert h is not None
    replay = Replay(read_hand(log, h), st)  # (the log is streamed: only that hand is kept)
    if print_all:
        for frame in replay.frames:
            click.echo(frame)
            click.echo("")
        return

    def read() -> str | None:
        try:
            return input("> ")
        except EOFError:
            return None

    run(replay, read, click.echo)



@click.command("dataset")
@click.argument("ruleset")
@click.option("--out", "-o", "out", required=True, metavar="DIR",
              help="The dataset's directory (created; an interrupted run's directory is finished).")
@click.option("--hands", "-n", "hands", required=True, metavar="N", help="How many hands to play.")
@click.option("--seed", "-s", "seed", default="0", show_default=True, metavar="S", help="Base seed.")
@click.option("--bots", "-b", "bots", default="greedy", show_default=True, metavar="NAMES",
              help="One bot for every seat, or one per seat separated by commas (greedy, random).")
@click.option("--shard-hands", "shard_hands", default="100", show_default=True, metavar="H",
              help="Hands per .npz shard.")
@click.option("--workers", "-j", "workers", default="1", show_default=True, metavar="K",
              help="Processes playing shards at once (the files are the same for any K).")
def dataset_cmd(ruleset: str, out: str, hands: str, seed: str, bots: str, shard_hands: str,
                workers: str) -> None:
    """Per-seat decision records (observation, mask, action, final reward) of RULESET's hands
    played by bots, as compressed NumPy shards (docs/agents.md). Running it again skips
    finished shards."""
    from ..run.envs.dataset import write_dataset

    n = parse_int(hands, "--hands", minimum=1)
    s = parse_int(seed, "--seed", minimum=0)
    h = parse_int(shard_hands, "--shard-hands", minimum=1)
    k = parse_int(workers, "--workers", minimum=1)
    assert n is not None and s is not None and h is not None and k is not None
    names = [x.strip() for x in bots.split(",") if x.strip()]
    try:
        if sys.stderr.isatty():
            with click.progressbar(length=n, label="hands", file=sys.stderr, show_pos=True,
                                   show_eta=True) as bar:
                done = write_dataset(ruleset, out, n, seed=s, bots=names, shard_hands=h, workers=k,
                                     progress=bar.update)
        else:
            done = write_dataset(ruleset, out, n, seed=s, bots=names, shard_hands=h, workers=k)
    except KeyboardInterrupt:
        click.echo("\ninterrupted: finished shards are kept; run the same command again to go on", err=True)
        sys.exit(130)
    click.echo(f"{out}: {done['shards']} shards ({done['written']} written, "
               f"{done['skipped']} already there), {done['rows']} decisions written")


@click.command("train")
@click.argument("ruleset")
@click.option("--out", "-o", "out", required=True, metavar="FILE.npz",
              help="The policy to write (numpy; mj match / mj play --bot seat it); its checkpoint is "
                   "FILE.pt beside it.")
@click.option("--init", "init", type=click.Path(dir_okay=False), metavar="FILE.npz",
              help="Start the actor from a supervised policy (python -m mjframework.run.envs.policy).")
@click.option("--opponents", default="greedy,random", show_default=True, metavar="NAMES",
              help="The bots at the other seats, cycled over the tables (greedy, random, a policy's .npz).")
@click.option("--updates", "-u", default=50, show_default=True, type=click.IntRange(1),
              help="PPO updates in all (a resumed run goes on up to this many).")
@click.option("--envs", default=16, show_default=True, type=click.IntRange(1), help="Tables played at once.")
@click.option("--steps", default=64, show_default=True, type=click.IntRange(1),
              help="The agent's decisions per table per update.")
@click.option("--lr", default=3e-4, show_default=True, type=click.FloatRange(0, 1, min_open=True),
              help="Adam's learning rate (1e-4 from a supervised --init).")
@click.option("--hidden", default=256, show_default=True, type=click.IntRange(1),
              help="Hidden units of the actor (the --init policy's width).")
@click.option("--seed", "-s", default=0, show_default=True, type=click.IntRange(0), help="Seed.")
@click.option("--threads", default=1, show_default=True, type=click.IntRange(1), help="PyTorch's threads.")
@click.option("--fresh", is_flag=True, help="Ignore an existing checkpoint and start over.")
def train_cmd(ruleset: str, out: str, init: str | None, opponents: str, updates: int, envs: int, steps: int,
              lr: float, hidden: int, seed: int, threads: int, fresh: bool) -> None:
    """Train a PPO agent on one seat of RULESET against bots (the optional 'train' extra: PyTorch);
    resumable: the same command again goes on. Every setting: python -m mjframework.run.envs.ppo
    --help (docs/agents.md)."""
    if not out.endswith(".npz"):
        raise click.UsageError("--out: a .npz path (the policy file)")
    try:
        from ..run.envs import ppo
    except ImportError as e:
        raise click.ClickException(f"mj train needs PyTorch (the train extra): pip install "
                                   f"'mjframework[train]' ({e})") from None
    try:
        summary = ppo.train(ruleset, out, fresh=fresh, log=lambda s: click.echo(s, err=True), init=init,
                            opponents=opponents, updates=updates, envs=envs, steps=steps, lr=lr,
                            hidden=hidden, seed=seed, threads=threads)
    except KeyboardInterrupt:
        click.echo("\ninterrupted: the checkpoint is saved; run the same command again to go on", err=True)
        sys.exit(130)
    click.echo(ppo.summary_line(out, summary))
