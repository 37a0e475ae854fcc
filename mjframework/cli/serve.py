"""``mj serve``: the local web playground (standard library only)."""

from __future__ import annotations

import click

from .common import option_flags, parse_sets


@click.command()
@click.option("--port", "-p", type=click.IntRange(0, 65535), default=8000, show_default=True,
              help="Port to listen on (0 picks a free one).")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to bind; the default answers this machine only.")
@click.option("--quiet", "-q", is_flag=True, help="Don't log each request.")
@option_flags
def serve(port: int, host: str, quiet: bool, sets: tuple[str, ...], preset: str | None) -> None:
    """Serve a web playground: score hands, edit and check a ruleset, read its rule card.

    --set / --preset choose the house-rule options the page starts with (for each
    ruleset that declares them); the page lets the player change them.
    """
    from ..ui.serve import is_loopback, make_server

    if not is_loopback(host):
        click.echo(f"warning: --host {host} makes the playground reachable from other machines; "
                   "anyone who can reach it can use it (it is meant for this machine: the default "
                   "127.0.0.1 is safer)", err=True)
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
