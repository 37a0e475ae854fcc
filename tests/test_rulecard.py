"""``mj doc``: rule cards, and the engine-found example of every pattern re-scored through ``mj score``.

The example hands are checked from the rendered card itself: each pattern's
``check:`` command is run through ``mj score --json`` and must score exactly
what the card states.
"""

from __future__ import annotations

import json
import os
import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from mjframework.cli import main
from mjframework.rules.loader import load_ruleset

RULESETS = ["changsha", "yongzhou-huandiao", "yongzhou-wangba", "hongzhong", "guangdong-tuidaohu",
            "taiwan-16"]


def mj(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


_CARDS: dict[tuple[str, str], str] = {}


def card(ruleset: str, fmt: str = "md") -> str:
    key = (ruleset, fmt)
    if key not in _CARDS:
        r = mj("doc", ruleset, "--format", fmt)
        assert r.exit_code == 0, (r.output, r.exception)
        _CARDS[key] = r.stdout
    return _CARDS[key]


def pattern_sections(md: str) -> dict[str, str]:
    """Pattern name → its section of the Markdown card."""
    body = md.split("## Patterns", 1)[1].split("## Worked settlement", 1)[0]
    out = {}
    for chunk in body.split("\n### ")[1:]:
        name = chunk.split(" — ", 1)[0].strip()
        out[name] = chunk
    return out


@pytest.mark.parametrize("ruleset", RULESETS)
def test_markdown_card(ruleset: str) -> None:
    rs = load_ruleset(ruleset)
    md = card(ruleset)
    assert md.startswith(f"# {rs.name}")
    for section in ("## Tiles", "## Wildcard", "## Claims", "## Win", "## Wall, break, deal", "## Dealer",
                    "## Scoring", "## Plugins", "## Patterns", "## Worked settlement"):
        assert section in md, section
    assert set(pattern_sections(md)) == {p.name for p in rs.patterns}
    for name in rs.plugins:
        assert f"| {name} |" in md
    # Markdown uses compact codes and Chinese names, never emoji glyphs.
    assert "`" in md and any(suit in md for suit in ("万", "筒", "索"))
    assert not any(0x1F000 <= ord(c) <= 0x1F02B for c in md)
    settlement = md.split("## Worked settlement", 1)[1]
    assert "pays" in settlement and "Net:" in settlement


@pytest.mark.parametrize("ruleset", RULESETS)
def test_html_card(ruleset: str) -> None:
    rs = load_ruleset(ruleset)
    page = card(ruleset, "html")
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    assert "<style>" in page
    # Self-contained: no external assets of any kind.
    assert not re.search(r"<(link|script|img)\b|\bsrc=|\bhref=|url\(|https?://", page)
    assert any(0x1F000 <= ord(c) <= 0x1F02B for c in page), "tiles are emoji glyphs"
    for p in rs.patterns:  # (multiplying patterns show their factor)
        value = f"×{p.points}" if rs.scoring.combine == "product" else f"{p.points} points"
        assert f"<h3>{p.name} — {value}</h3>" in page


EXACT: dict[str, tuple[int, int, list[str]]] = {}


@pytest.mark.parametrize("ruleset", RULESETS)
def test_examples_rescore_through_mj_score(ruleset: str) -> None:
    sections = pattern_sections(card(ruleset))
    exact, lacking = 0, []
    for name, text in sections.items():
        status = re.search(r"- example: (.*)", text).group(1)
        m = re.search(r"check: `mj score (.*)`", text)
        if m is None:
            assert "NO EXAMPLE FOUND" in status, (name, status)
            lacking.append(name)
            continue
        args = shlex.split(m.group(1))
        assert args[0] == ruleset
        r = mj("score", *args, "--json")
        assert r.exit_code == 0, (name, args, r.output)
        got = json.loads(r.stdout)
        assert got["win"], (name, args, got)
        names = [p["name"] for p in got["patterns"]]
        if status.startswith("scores exactly"):
            stated = re.fullmatch(r"scores exactly (.+) \((\d+) points\)", status)
            assert stated and stated.group(1) == name, status
            assert names == [name], (name, args, names)
            assert got["points"] == int(stated.group(2)), (name, got["points"], status)
            exact += 1
        elif status.startswith("scores ") and "as a bonus on the base win" in status:
            stated = re.fullmatch(r"scores (.+) as a bonus on the base win (.+) \((\d+) points in all\)",
                                  status)
            assert stated and stated.group(1) == name, status
            assert sorted(names) == sorted([name, stated.group(2)]), (name, args, names)
            assert got["points"] == int(stated.group(3))
            exact += 1
        elif status.startswith("the ruleset's example scores"):  # (the designer's own `example:`)
            stated = re.fullmatch(r"the ruleset's example scores (.+) \((\d+) points\)", status)
            assert stated and name in stated.group(1).split(" + "), status
            assert names == stated.group(1).split(" + "), (name, args, names)
            assert got["points"] == int(stated.group(2))
            exact += 1
        else:
            stated = re.search(r"smallest pattern set found is (.+) \((\d+) points\)", status)
            assert stated, status
            assert names == stated.group(1).split(" + ") and name in names, (name, names, status)
            assert got["points"] == int(stated.group(2))
            lacking.append(name)
    EXACT[ruleset] = (exact, len(sections), lacking)
    print(f"\n{ruleset}: {exact}/{len(sections)} patterns with an exact example"
          + (f"; lacking: {', '.join(lacking)}" if lacking else ""))
    # The card flags every pattern without an exact example.
    md = card(ruleset)
    if lacking:
        assert "No exact example found for: " + ", ".join(lacking) in md
    # The goal: every pattern has an exact example.
    assert not lacking, f"{ruleset}: no exact example for {lacking}"


@pytest.mark.parametrize("ruleset", RULESETS)
def test_worked_settlement_matches_mj_score(ruleset: str) -> None:
    md = card(ruleset)
    part = md.split("## Worked settlement", 1)[1]
    cmd = re.search(r"`mj score (.*?)`", part).group(1)
    got = json.loads(mj("score", *shlex.split(cmd), "--json").stdout)
    net = re.search(r"Net: (.*)", part).group(1)
    amounts = [int(x) for x in re.findall(r"seat \d ([+-]\d+)", net)]
    assert amounts == got["payments"]


def test_output_file_is_written_atomically(tmp_path: Path) -> None:
    out = tmp_path / "sub" / "card.html"
    r = mj("doc", "yongzhou-huandiao", "--format", "html", "-o", str(out))
    assert r.exit_code == 0, r.output
    assert r.stdout == ""
    assert out.read_text("utf-8") == card("yongzhou-huandiao", "html")
    assert sorted(p.name for p in out.parent.iterdir()) == ["card.html"]  # no temporary left


def test_failed_write_keeps_the_old_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "card.md"
    out.write_text("old", "utf-8")

    def boom(*_a: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", boom)
    r = mj("doc", "changsha", "-o", str(out))
    assert r.exit_code != 0
    assert out.read_text("utf-8") == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["card.md"]


def test_unknown_ruleset(tmp_path: Path) -> None:
    out = tmp_path / "x.md"
    r = mj("doc", "no-such-ruleset", "-o", str(out))
    assert r.exit_code == 1
    assert isinstance(r.exception, SystemExit)
    assert "no-such-ruleset" in r.stderr and "Traceback" not in r.output
    assert not out.exists()


def test_bad_format() -> None:
    r = mj("doc", "changsha", "--format", "pdf")
    assert r.exit_code == 1  # a bad value is a user error (the README's exit-code table); 2 is usage
    assert "'pdf' is not one of" in r.output


def test_patterns_without_examples_are_flagged() -> None:
    """With a search budget of one candidate, most patterns have no (exact) example: the card says so."""
    from mjframework.design.rulecard import build_card, render_html, render_markdown

    c = build_card(load_ruleset("yongzhou-wangba"), seed=7, budget=1)
    missing = c.missing()
    assert missing and c.exact == len(c.patterns) - len(missing)
    md = render_markdown(c)
    assert "No exact example found for: " + ", ".join(missing) in md
    assert "NO EXAMPLE FOUND" in md or "NO EXACT EXAMPLE" in md
    assert "NO EXAMPLE FOUND" in render_html(c) or "NO EXACT EXAMPLE" in render_html(c)


def test_the_tile_set_line_counts_flowers_beside_the_set_s_name() -> None:
    """国标: "standard-136: 144 tiles" contradicted itself; the flowers are named."""
    from mjframework.design.rulecard import build_card, render
    from mjframework.rules.loader import load_ruleset

    rs = load_ruleset("mcr")
    assert rs.tileset.flowers == 8
    card = render(build_card(rs, seed=0, budget=1), "md")
    line = next(x for x in card.splitlines() if x.startswith("| set"))
    assert line == "| set | standard-136 and 8 flowers: 144 tiles, 34 kinds × 4 copies + 8 flowers |"
