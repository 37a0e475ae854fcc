"""Shared test set-up: no test writes the user's own records file."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _records_in_tmp(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``mj play`` and rooms keep every hand (mjframework.run.records): in a test, in a temporary file."""
    path = tmp_path_factory.mktemp("records") / "records.sqlite3"
    monkeypatch.setenv("MJ_RECORDS", str(path))
    return path
