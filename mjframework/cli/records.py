"""``mj records``: the hands people played (``mj play``, rooms), kept in the records file."""

from __future__ import annotations

import json
import re
from pathlib import Path

import click

from ..core.errors import MJError
from ..run.records import RecordStore
from .common import parse_int

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2})?Z?)?$")

records_option = click.option(
    "--records", "records", type=click.Path(dir_okay=False, path_type=Path), metavar="FILE.sqlite3",
    help="The records file. Default: $MJ_RECORDS, else records.sqlite3 in the user's data folder "
         "($XDG_DATA_HOME/mjframework/).")


def _date(value: str | None, what: str) -> str | None:
    if value is None:
        return None
    v = value.strip()
    if not _DATE.match(v):
        raise MJError(f"{what} must be a date (2026-12-01) or a UTC time (2026-12-01T18:30), got {value!r}")
    return v.replace(" ", "T")


def _open(records: Path | None) -> RecordStore:

    return RecordStore(records)


@click.group("records")
def records_cmd() -> None:
    """The hands played by people (`mj play`, rooms of `mj serve --rooms`): list, filter, export.

    Every such hand is kept when it ends, in one SQLite file (see --records).
    """


@records_cmd.command("list")
@records_option
@click.option("--ruleset", "ruleset", metavar="ID", help="Only hands of this ruleset id.")
@click.option("--since", "since", metavar="DATE", help="Only hands played on or after DATE (UTC).")
@click.option("--until", "until", metavar="DATE", help="Only hands played on or before DATE (UTC).")
@click.option("--player", "player", metavar="NAME", help="Only hands where NAME sat at a seat.")
@click.option("--room", "room", metavar="ROOM", help="Only hands of this room.")
@click.option("--limit", "limit", default="50", show_default=True, metavar="N", help="At most N hands.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per hand.")
def list_cmd(records: Path | None, ruleset: str | None, since: str | None, until: str | None,
             player: str | None, room: str | None, limit: str, as_json: bool) -> None:
    """List the hands kept, newest first."""
    n = parse_int(limit, "--limit", minimum=0)
    assert n is not None
    with _open(records) as store:
        rows = store.hands(ruleset=ruleset, since=_date(since, "--since"), until=_date(until, "--until"),
                           player=player, room=room, limit=n)
        if not as_json and not rows:
            filtered = any((ruleset, since, until, player, room))
            click.echo(f"no hands kept in {store.path}" + (" match" if filtered else ""), err=True)
    for r in rows:
        if as_json:
            click.echo(json.dumps(r.to_dict(), ensure_ascii=False))
            continue
        where = f"room {r.room}" if r.room else r.session_kind
        seats = ", ".join(f"{p}{'' if k == 'human' else ' (bot)'} {d:+d}"
                          for p, k, d in zip(r.players, r.kinds, r.deltas, strict=False))
        click.echo(f"{r.id:>5}  {r.played}  {r.ruleset_id:<18} {where:<12} hand {r.hand_no} seed {r.seed}"
                   f"  {r.result or '?':<9} {seats}")


@records_cmd.command("export")
@records_option
@click.argument("hand_id", metavar="HAND")
@click.option("-o", "--output", "output", type=click.Path(dir_okay=False, path_type=Path, allow_dash=True),
              default="-", show_default=True, help="Write to this file (`-`: standard output).")
@click.option("--seat", "seat", metavar="N",
              help="That seat's own log (docs/seat-log.md) instead of the engine log.")
def export_cmd(records: Path | None, hand_id: str, output: Path, seat: str | None) -> None:
    """Write hand HAND (an id from `mj records list`) as an engine log: `mj replay` reads it."""
    from ..core.fileio import write_atomic
    from ..run.records import write_jsonl

    h = parse_int(hand_id, "HAND", minimum=1)
    s = parse_int(seat, "--seat", minimum=0) if seat is not None else None
    assert h is not None
    with _open(records) as store:
        text = write_jsonl(store.log(h, s))
    if str(output) == "-":
        click.echo(text, nl=False)
    else:
        write_atomic(output, text)
        click.echo(f"wrote {output}", err=True)


@records_cmd.command("path")
@records_option
def path_cmd(records: Path | None) -> None:
    """Print where the records file is."""
    from ..run.records import default_path

    click.echo(str(records if records is not None else default_path()))
