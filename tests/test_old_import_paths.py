"""The flat import paths of 0.2 keep working for one release (mjframework/_compat.py)."""

from __future__ import annotations

import importlib
import subprocess
import sys
import warnings

import pytest

from mjframework._compat import MOVED


@pytest.mark.parametrize("old", sorted(MOVED))
def test_an_old_path_is_the_new_module_with_a_warning(old: str) -> None:
    new = MOVED[old]
    try:
        module = importlib.import_module(new)
    except ImportError as e:  # an optional extra (textual, numpy, …) missing here
        pytest.skip(str(e))
    sys.modules.pop(old, None)
    with pytest.warns(DeprecationWarning, match=new.replace(".", r"\.")):
        alias = importlib.import_module(old)
    assert alias is module
    assert module.__name__ == new and module.__spec__.name == new
    assert sys.modules[old] is module


def test_old_style_imports_in_code() -> None:
    code = ("import warnings\n"
            "warnings.simplefilter('error', DeprecationWarning)\n"
            "import mjframework\n"
            "from mjframework.core.tiles import parse_tile\n"  # the new paths: no warning
            "warnings.simplefilter('always', DeprecationWarning)\n"
            "with warnings.catch_warnings(record=True) as w:\n"
            "    from mjframework.tiles import parse_tile as old\n"
            "    from mjframework import simulate\n"
            "assert old is parse_tile\n"
            "import mjframework.run.simulate as new\n"
            "assert simulate is new\n"
            "print(len(w), w[0].filename, w[0].category.__name__)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    count, filename, category = out.split()
    assert count == "2" and filename == "<string>" and category == "DeprecationWarning"


def test_new_paths_do_not_warn() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        for new in MOVED.values():
            try:
                importlib.import_module(new)
            except ImportError as e:
                if "mjframework" in str(e):
                    raise
