"""``python -m mjframework.cli``: the same as ``mj``."""

from . import main

main()
