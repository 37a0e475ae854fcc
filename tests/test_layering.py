"""The package's layers import only downwards (docs/architecture.md).

Every module of ``mjframework/<layer>/`` may import modules of its own layer and
of the layers below it, never above; the faces at the top (``mjframework``,
``mjframework.plugin``, ``__main__``, ``_compat``) may import anything, and no
layer imports a face. Checked from the source: every ``import`` and ``from …
import`` anywhere in a module, inside functions too (a lazy import is still an
import). Only imports under ``if TYPE_CHECKING:`` are exempt: they never run, so
they may name a higher layer's types in annotations, and nothing else.

Also: no ``_private`` name of one subpackage is imported or used
(``module._name``) from another; no circle of imports between modules at
import time (module-level imports); and ``import mjframework.cli`` loads no
command module.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "mjframework"
LAYERS = ['core', 'hooks', 'rules', 'settle', 'evaluate', 'play', 'run', 'design', 'ui', 'cli']
FACES = {"mjframework", "mjframework.plugin", "mjframework.__main__", "mjframework._compat"}


def _modules() -> dict[str, Path]:
    out = {}
    for path in sorted(PKG.rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


MODULES = _modules()


def _layer(module: str) -> str | None:
    """The layer of a module of the package (None for the faces at the top)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in LAYERS else None


def _rank(module: str) -> int:
    layer = _layer(module)
    return LAYERS.index(layer) if layer is not None else len(LAYERS)


def _is_package(module: str) -> bool:
    return MODULES[module].name == "__init__.py"


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for inner in node.body:
                out.update(id(n) for n in ast.walk(inner))
    return out


def _function_nodes(tree: ast.AST) -> set[int]:
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            for inner in ast.iter_child_nodes(node):
                out.update(id(n) for n in ast.walk(inner))
    return out


class Import:
    def __init__(self, target: str, names: tuple[str, ...], line: int, lazy: bool) -> None:
        self.target, self.names, self.line, self.lazy = target, names, line, lazy


def _imports(module: str) -> tuple[list[Import], dict[str, str], ast.AST]:
    """Runtime imports of ``module`` (targets inside the package) and the names bound to modules."""
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    skip, lazy = _type_checking_nodes(tree), _function_nodes(tree)
    package = module if _is_package(module) else module.rpartition(".")[0]
    out: list[Import] = []
    bound: dict[str, str] = {}
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name.split(".")[0] == "mjframework":
                    out.append(Import(a.name, (), node.lineno, id(node) in lazy))
                    if a.asname:
                        bound[a.asname] = a.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            if source.split(".")[0] != "mjframework":
                continue
            names = tuple(a.name for a in node.names)
            out.append(Import(source, names, node.lineno, id(node) in lazy))
            for a in node.names:
                sub = f"{source}.{a.name}"
                if sub in MODULES:
                    out.append(Import(sub, (), node.lineno, id(node) in lazy))
                    bound[a.asname or a.name] = sub
    return out, bound, tree


def _subpackage(module: str) -> str:
    return ".".join(module.split(".")[:2]) if _layer(module) else "mjframework"


def test_layers_are_known() -> None:
    found = {p.name for p in PKG.iterdir() if (p / "__init__.py").exists()}
    assert found == set(LAYERS), "a subpackage of mjframework/ that is not a layer (or a missing one)"
    stray = [m for m in MODULES if _layer(m) is None and m not in FACES]
    assert stray == [], "modules outside the layers: put each in a layer"


@pytest.mark.parametrize("module", sorted(m for m in MODULES if _layer(m)))
def test_imports_only_downwards(module: str) -> None:
    imports, _, _ = _imports(module)
    up = [f"line {i.line}: {i.target} ({_layer(i.target) or 'a face'})"
          for i in imports if i.target in MODULES and _rank(i.target) > _rank(module)]
    assert up == [], f"{module} ({_layer(module)}) imports a higher layer"


@pytest.mark.parametrize("module", sorted(MODULES))
def test_no_private_names_across_subpackages(module: str) -> None:
    imports, bound, tree = _imports(module)
    mine = _subpackage(module)
    bad = [f"line {i.line}: from {i.target} import {n}" for i in imports for n in i.names
           if n.startswith("_") and not n.startswith("__") and i.target in MODULES
           and _subpackage(i.target) != mine]
    bad += [f"line {i.line}: {i.target}" for i in imports
            if any(p.startswith("_") and not p.startswith("__") for p in i.target.split(".")[1:])
            and i.target in MODULES and _subpackage(i.target) != mine and i.target not in FACES]
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in bound
                and node.attr.startswith("_") and not node.attr.startswith("__")
                and _subpackage(bound[node.value.id]) != mine):
            bad.append(f"line {node.lineno}: {node.value.id}.{node.attr}")
    assert bad == [], f"{module} uses private names of another subpackage"


def test_no_import_circles() -> None:
    """No circle among module-level (import-time) imports; lazy ones may point back, never up."""
    graph: dict[str, set[str]] = {}
    for module in MODULES:
        imports, _, _ = _imports(module)
        graph[module] = {i.target for i in imports if not i.lazy and i.target in MODULES
                         and i.target != module and not module.startswith(i.target + ".")}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    circles: list[list[str]] = []

    def visit(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                circles.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    assert circles == []


def test_importing_the_cli_loads_no_command_module() -> None:
    code = ("import sys, mjframework.cli as c\n"
            "mods = {t.partition(':')[0] for t in c.LAZY_COMMANDS.values()} - {'mjframework.cli'}\n"
            "print(sorted(m for m in mods if m in sys.modules))\n"
            "print(sorted(m for m in sys.modules if m.startswith('mjframework.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=ROOT).stdout.splitlines()
    assert out[0] == "[]", out
    loaded = eval(out[1])
    assert not any(_rank(m) < _rank("mjframework.cli.x") and _layer(m) in ("run", "design", "ui", "play")
                   for m in loaded), loaded


def test_every_subpackage_ships() -> None:
    setup = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["tool"]["setuptools"]
    packages = set(setup.get("packages", []))
    assert {f"mjframework.{layer}" for layer in LAYERS} <= packages
