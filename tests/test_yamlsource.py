"""The located YAML values behave as the plain lists and mappings they are."""

from __future__ import annotations

from mjframework.rules.loader import load_ruleset
from mjframework.rules.yamlsource import SourceList, SourceMap, file_path, load_yaml_text

TEXT = """\
plugins:
  p:
    seats: [east, south, west]
    rows:
      - [1, 2, 3]
      - [4, 5]
    items:
      - {name: a}
      - {name: b}
"""


def test_list_methods_are_not_hidden() -> None:
    """`.index(x)` and `.count(x)` on a list read from YAML are the list's (a plugin's options,
    at any depth): a location attribute once named `index` made them uncallable."""
    data = load_yaml_text(TEXT, "t.yaml")
    opts = data["plugins"]["p"]
    assert isinstance(opts["seats"], SourceList)
    assert opts["seats"].index("south") == 1
    assert opts["seats"].count("west") == 1
    row = opts["rows"][1]
    assert isinstance(row, SourceList) and row.file_index == 1  # a nested list knows its place
    assert row.index(5) == 1
    assert opts["rows"].index([4, 5]) == 1
    assert isinstance(opts["items"][1], SourceMap) and opts["items"][1].file_index == 1


def test_locations_still_work() -> None:
    data = load_yaml_text(TEXT, "t.yaml")
    seats = data["plugins"]["p"]["seats"]
    assert seats.location is not None and seats.location.line == 3
    assert [loc.line for loc in data["plugins"]["p"]["items"].locations] == [8, 9]
    assert file_path(data, ("plugins", "p", "items", 1, "name")) == ("plugins", "p", "items", 1, "name")


def test_loaded_ruleset_lists_have_list_methods() -> None:
    rs = load_ruleset("changsha")
    patterns = rs.data["patterns"]
    assert patterns.index(patterns[2]) == 2
