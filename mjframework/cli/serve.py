"""``mj serve``: the local web playground (standard library only); with ``--rooms``, also the
browser table and rooms (the optional ``web`` extra: Starlette + uvicorn)."""

from __future__ import annotations

from typing import Any

import click

from .common import option_flags, parse_sets


@click.command()
@click.option("--port", "-p", type=click.IntRange(0, 65535), default=8000, show_default=True,
              help="Port to listen on (0 picks a free one).")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to bind; the default answers this machine only.")
@click.option("--quiet", "-q", is_flag=True, help="Don't log each request.")
@click.option("--rooms", is_flag=True,
              help="Also play in the browser (/play) and open rooms for several people, on Starlette + "
                   "uvicorn (the 'web' extra: pip install 'mjframework[web]').")
@click.option("--records", "records", type=click.Path(dir_okay=False), metavar="FILE.sqlite3",
              help="With --rooms: keep each hand in this records file. Default: $MJ_RECORDS, else "
                   "records.sqlite3 in the user's data folder.")
@click.option("--no-records", "no_records", is_flag=True, help="With --rooms: keep no record of the hands.")
@click.option("--bot-pause", "bot_pause", type=click.FloatRange(0, 5), default=0.4, show_default=True,
              metavar="SECONDS", help="With --rooms: how long a bot seems to think before its discard.")
@click.option("--bot", "bots", multiple=True, metavar="NAME=FILE.npz",
              help="With --rooms: a trained policy (docs/agents.md) the play form offers for the bots' "
                   "seats, by NAME; repeatable. The files are read here, never named by a request.")
@option_flags
def serve(port: int, host: str, quiet: bool, sets: tuple[str, ...], preset: str | None, rooms: bool = False,
          records: str | None = None, no_records: bool = False, bot_pause: float = 0.4,
          bots: tuple[str, ...] = ()) -> None:
    """Serve a web playground: score hands, edit and check a ruleset, read its rule card.

    --set / --preset choose the house-rule options the page starts with (for each
    ruleset that declares them); the page lets the player change them.

    With --rooms the same server also lets you play a hand against bots in the browser
    (http://localhost:8000/play) and open rooms where up to four people play a ruleset
    together from their browsers, each with an invite link (docs/play-online.md).
    """
    from ..ui.serve import is_loopback, make_server

    if not is_loopback(host):
        click.echo(f"warning: --host {host} makes the playground reachable from other machines; "
                   "anyone who can reach it can use it (it is meant for this machine: the default "
                   "127.0.0.1 is safer)", err=True)
    if bots and not rooms:
        raise click.UsageError("--bot seats a trained policy at the browser table: it needs --rooms")
    if rooms:
        _serve_rooms(host, port, quiet, parse_sets(sets), preset, records, no_records, bot_pause,
                     _load_policies(bots))
        return
    try:
        server = make_server(host, port, quiet=quiet, options=parse_sets(sets), preset=preset)
    except OSError as e:
        raise click.ClickException(f"cannot listen on {host}:{port}: {e.strerror or e}") from None
    h, p = str(server.server_address[0]), server.server_address[1]
    shown = f"[{h}]" if ":" in str(h) else h
    click.echo(f"mj playground on http://{shown}:{p}/  (Ctrl-C stops)", err=True)
    from ..core.procs import sigterm_raises

    try:
        with sigterm_raises():  # SIGTERM stops it like Ctrl-C: the workers are stopped too
            server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


def _load_policies(specs: tuple[str, ...]) -> dict[str, Any]:
    """``NAME=FILE.npz`` → the loaded policies by name (a bad spec or file: a usage error, at once)."""
    out: dict[str, Any] = {}
    for spec in specs:
        name, sep, path = spec.partition("=")
        if not sep or not name.isidentifier() or name == "greedy" or not path.endswith(".npz"):
            raise click.UsageError(f"--bot {spec}: NAME=FILE.npz (NAME a word other than greedy)")
        if name in out:
            raise click.UsageError(f"--bot: two policies named {name}")
        try:
            from ..run.envs.policy import MLPPolicy
        except ImportError as e:
            raise click.UsageError(f"--bot {spec}: a trained policy needs numpy "
                                   f"(pip install 'mjframework[env]'): {e}") from None
        from ..core.errors import MJError

        try:
            out[name] = MLPPolicy.load(path)
        except MJError as e:
            raise click.UsageError(f"--bot {spec}: {e}") from None
    return out


def _serve_rooms(host: str, port: int, quiet: bool, options: dict[str, Any], preset: str | None,
                 records: str | None, no_records: bool, bot_pause: float,
                 policies: dict[str, Any] | None = None) -> None:
    import socket

    try:
        from ..ui import webapp
    except ImportError as e:
        raise click.ClickException(f"--rooms needs the 'web' extra ({e.name} is missing): "
                                   "pip install 'mjframework[web]'") from None
    from ..run.records import RecordStore
    from ..ui.serve import check_start_options

    check_start_options(options, preset)
    store = None if no_records else RecordStore(records)
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
    except OSError as e:
        sock.close()
        raise click.ClickException(f"cannot listen on {host}:{port}: {e.strerror or e}") from None
    h, p = str(sock.getsockname()[0]), sock.getsockname()[1]
    shown = f"[{h}]" if ":" in h else h
    click.echo(f"mj playground on http://{shown}:{p}/  play: http://{shown}:{p}/play  (Ctrl-C stops)"
               + (f"\nrecords: {store.path}" if store is not None else ""), err=True)
    try:
        webapp.serve(sock, host, quiet=quiet, options=options, preset=preset, store=store,
                     bot_pause=bot_pause, policies=policies)
    finally:
        sock.close()
        if store is not None:
            store.close()
