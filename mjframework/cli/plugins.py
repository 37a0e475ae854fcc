"""``mj plugins``: the installed plugins — where each comes from, the hooks it
implements, what it does and the options a ruleset may give it.

Plugins come from the entry-point group ``mjframework.plugins`` (installed
packages) and from :func:`mjframework.hooks.registry.register_plugin` (in-process; a
registered name shadows an entry point of the same name, as it does when a
ruleset is loaded). A plugin that fails to load is listed with its error, not
a traceback; ``--strict`` makes any error or problem exit 1.

The hooks are found on the class: pluggy's ``HookimplMarker`` marks each
``@hookimpl`` method with an attribute ``<project>_impl`` (here
``mjframework_impl``) holding its options. Each plugin is also created with
empty options (``Plugin({})``) and registered in a throwaway plugin manager,
which checks its hook signatures against the contract and lets it describe
itself (``mj_plugin_info``); a plugin that needs options is only inspected.
"""

from __future__ import annotations

import difflib
import inspect
import json
import sys
from dataclasses import asdict, dataclass, field
from typing import Any

import click
import jsonschema
import pluggy

from ..hooks import registry
from ..hooks import specs as hookspecs

IMPL_ATTR = f"{hookspecs.PROJECT}_impl"  # set by pluggy.HookimplMarker on an @hookimpl function
SPEC_ATTR = f"{hookspecs.PROJECT}_spec"  # set by pluggy.HookspecMarker on a hook specification


def hook_specs() -> dict[str, tuple[str, ...]]:
    """The contract's hooks: name → argument names, in ``hookspecs`` order."""
    out: dict[str, tuple[str, ...]] = {}
    for name, fn in vars(hookspecs).items():
        if callable(fn) and getattr(fn, SPEC_ATTR, None) is not None:
            out[name] = tuple(inspect.signature(fn).parameters)
    return out


@dataclass
class PluginReport:
    """What ``mj plugins`` knows about one plugin (also its ``--json`` object)."""

    name: str
    source: str  # "entry_point" | "registered"
    target: str  # the entry point's value, or module:qualname of a registered class
    distribution: str | None = None  # "name version" of the package declaring the entry point
    module: str | None = None
    file: str | None = None
    description: str = ""
    hooks: list[str] = field(default_factory=list)
    options_schema: dict[str, Any] | None = None
    error: str = ""  # could not be loaded: nothing else is known
    problems: list[str] = field(default_factory=list)  # loaded, but something is wrong
    shadows: str | None = None  # a registered class hiding an entry point of the same name

    @property
    def ok(self) -> bool:
        return not self.error and not self.problems

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "ok": self.ok}


# -- inspecting ------------------------------------------------------------------


def _first_line(text: str | None) -> str:
    for line in (text or "").strip().splitlines():
        if line.strip():
            return line.strip()
    return ""


def marked_hooks(cls: type) -> dict[str, tuple[str, ...]]:
    """Hook name → argument names of every ``@hookimpl`` method of ``cls`` (as pluggy finds them)."""
    out: dict[str, tuple[str, ...]] = {}
    for attr in dir(cls):
        if attr.startswith("__"):
            continue
        try:
            obj = inspect.getattr_static(cls, attr)
        except AttributeError:
            continue
        fn = obj.__func__ if isinstance(obj, staticmethod | classmethod) else obj
        if not inspect.isroutine(fn):
            continue
        opts = getattr(fn, IMPL_ATTR, None)
        if not isinstance(opts, dict):
            continue
        try:
            params = [p.name for p in inspect.signature(fn).parameters.values()
                      if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
        except (TypeError, ValueError):
            params = []
        if params and not isinstance(obj, staticmethod):
            params = params[1:]  # self (or cls)
        out[opts.get("specname") or attr] = tuple(params)
    return out


def _signature_problems(hooks: dict[str, tuple[str, ...]], specs: dict[str, tuple[str, ...]]) -> list[str]:
    problems = []
    for hook, names in hooks.items():
        if hook not in specs:
            close = difflib.get_close_matches(hook, list(specs), n=1)
            hint = f" (did you mean {close[0]}?)" if close else ""
            problems.append(f"{hook}: not a hook of the contract{hint}; it would never be called")
            continue
        unknown = [n for n in names if n not in specs[hook]]
        if unknown:
            problems.append(f"{hook}: argument(s) {', '.join(unknown)} not in the hook's "
                            f"({', '.join(specs[hook])})")
    return problems


def _check_schema(schema: Any) -> str:
    if not isinstance(schema, dict):
        return f"options_schema must be a mapping (a JSON Schema), not {type(schema).__name__}"
    try:
        jsonschema.Draft202012Validator.check_schema(schema)
    except jsonschema.SchemaError as e:
        where = "/".join(map(str, e.absolute_path)) or "(top)"
        return f"options_schema is not a valid JSON Schema at {where}: {e.message}"
    return ""


def _try_instance(name: str, cls: type, schema: dict[str, Any] | None, report: PluginReport) -> None:
    """Create the plugin with empty options and register it in a throwaway manager."""
    try:
        instance = cls({})
    except Exception as e:  # a plugin may need options; only wrong if it claims not to
        if schema is not None and jsonschema.Draft202012Validator(schema).is_valid({}):
            report.problems.append(f"its options schema accepts {{}} but {cls.__name__}({{}}) "
                                   f"raised {type(e).__name__}: {e}")
        return
    pm = pluggy.PluginManager(hookspecs.PROJECT)
    pm.add_hookspecs(hookspecs)
    try:
        pm.register(instance, name=name)
    except (pluggy.PluginValidationError, ValueError) as e:
        if not report.problems:  # our own signature check usually says it better
            report.problems.append(str(e))
        return
    try:
        infos = pm.hook.mj_plugin_info()
    except Exception as e:
        report.problems.append(f"mj_plugin_info raised {type(e).__name__}: {e}")
        return
    for info in infos:
        if isinstance(info, dict) and info.get("description"):
            report.description = _first_line(str(info["description"]))
            break


def inspect_plugin(name: str) -> PluginReport:
    """Everything ``mj plugins`` shows about ``name``; never raises for a broken plugin."""
    ep = registry.plugin_entry_point(name)
    registered = registry.registered_plugin(name)
    if registered is not None:
        report = PluginReport(name, "registered",
                              f"{registered.__module__}:{registered.__qualname__}")
        if ep is not None:
            report.shadows = ep.value
    elif ep is not None:
        report = PluginReport(name, "entry_point", ep.value, module=ep.module)
        dist = getattr(ep, "dist", None)
        if dist is not None:
            report.distribution = f"{dist.name} {dist.version}"
    else:
        known = ", ".join(registry.plugin_names()) or "none"
        raise registry.PluginError(f"no plugin named {name!r} is installed (installed: {known})")
    try:
        cls = registry.load_plugin_class(name)
    except registry.PluginError as e:
        report.error = str(e)
        return report
    except (Exception, SystemExit) as e:  # a plugin module exiting on import must not end `mj`
        report.error = f"plugin {name!r} failed to load: {type(e).__name__}: {e}"
        return report
    if not isinstance(cls, type):
        report.error = (f"plugin {name!r}: {report.target} is neither a class nor a module "
                        f"with a `Plugin` class")
        return report
    report.module = cls.__module__
    if report.source == "registered":
        report.target = f"{cls.__module__}:{cls.__qualname__}"
    try:
        report.file = inspect.getsourcefile(cls)
    except TypeError:
        report.file = None
    module_doc = getattr(sys.modules.get(cls.__module__), "__doc__", None)
    report.description = _first_line(cls.__doc__) or _first_line(module_doc)
    hooks = marked_hooks(cls)
    report.hooks = sorted(hooks)
    if not hooks:
        report.problems.append("no @hookimpl methods (mark hooks with mjframework.hooks.specs.hookimpl)")
    report.problems.extend(_signature_problems(hooks, hook_specs()))
    raw_schema = getattr(cls, "options_schema", None)
    schema: dict[str, Any] | None = None
    if raw_schema is None:
        report.problems.append("no options_schema: any options are accepted unchecked")
    else:
        err = _check_schema(raw_schema)
        if err:
            report.problems.append(err)
        else:
            schema = raw_schema
        report.options_schema = raw_schema if isinstance(raw_schema, dict) else None
    _try_instance(name, cls, schema, report)
    return report


# -- describing options ------------------------------------------------------------

_TYPE_WORDS = {"integer": "integer", "number": "number", "string": "string", "boolean": "true/false",
               "object": "mapping", "array": "list", "null": "null"}


def describe_option(schema: Any) -> str:
    """A short phrase for one option's schema: ``integer 0–8``, ``list of string``, ``one of: a, b``."""
    if not isinstance(schema, dict):
        return "any"
    if "enum" in schema:
        return "one of: " + ", ".join(json.dumps(v, ensure_ascii=False) for v in schema["enum"])
    if "const" in schema:
        return f"always {json.dumps(schema['const'], ensure_ascii=False)}"
    t = schema.get("type")
    if isinstance(t, list):
        words = " or ".join(_TYPE_WORDS.get(x, str(x)) for x in t)
    elif t is None:
        alts = schema.get("anyOf") or schema.get("oneOf")
        words = " or ".join(describe_option(a) for a in alts) if alts else "any"
    else:
        words = _TYPE_WORDS.get(t, str(t))
    lo, hi = schema.get("minimum"), schema.get("maximum")
    if lo is not None and hi is not None:
        words += f" {lo}–{hi}"
    elif lo is not None:
        words += f" ≥ {lo}"
    elif hi is not None:
        words += f" ≤ {hi}"
    if t == "array" and isinstance(schema.get("items"), dict):
        words += f" of {describe_option(schema['items'])}"
    if t == "object" and isinstance(schema.get("properties"), dict) and schema["properties"]:
        words += " {" + ", ".join(schema["properties"]) + "}"
    if "default" in schema:
        words += f", default {json.dumps(schema['default'], ensure_ascii=False)}"
    return words


def option_lines(schema: dict[str, Any] | None) -> list[str]:
    """One line per option: ``name[*]: type — description`` (``*``: required)."""
    if schema is None:
        return ["(no schema)"]
    props = schema.get("properties") or {}
    required = set(schema.get("required") or ())
    lines = []
    for key, sub in props.items():
        line = f"{key}{'*' if key in required else ''}: {describe_option(sub)}"
        desc = _first_line(sub.get("description")) if isinstance(sub, dict) else ""
        lines.append(line + (f" — {desc}" if desc else ""))
    if not props:
        lines.append("none" if schema.get("additionalProperties") is False else "any (not described)")
    elif schema.get("additionalProperties") is not False:
        lines.append("(other keys are accepted too)")
    return lines


# -- the command -----------------------------------------------------------------------


def _origin(r: PluginReport) -> str:
    if r.source == "registered":
        text = f"registered in-process: {r.target}"
        return text + (f" (hides the entry point {r.shadows})" if r.shadows else "")
    text = "entry point" + (f" of {r.distribution}" if r.distribution else "") + f": {r.target}"
    return text


def _show(r: PluginReport, full_schema: bool) -> None:
    if r.error:
        click.echo(f"{r.name} — FAILED TO LOAD")
        click.echo(f"  from     {_origin(r)}")
        click.echo(f"  error    {r.error}")
        return
    click.echo(f"{r.name} — {r.description}" if r.description else r.name)
    click.echo(f"  from     {_origin(r)}")
    if r.file:
        click.echo(f"  file     {r.file}")
    click.echo(f"  hooks    {', '.join(r.hooks) or '(none)'}")
    if full_schema and r.options_schema is not None:
        text = json.dumps(r.options_schema, indent=2, ensure_ascii=False)
        click.echo("  options  " + text.replace("\n", "\n           "))
    else:
        for i, line in enumerate(option_lines(r.options_schema)):
            click.echo(f"  {'options' if i == 0 else '':8} {line}")
    for p in r.problems:
        click.echo(f"  problem  {p}")


@click.command("plugins")
@click.argument("names", nargs=-1)
@click.option("--json", "as_json", is_flag=True, help="One JSON object per plugin.")
@click.option("--schema", "full_schema", is_flag=True, help="Print each options schema in full.")
@click.option("--strict", is_flag=True,
              help="Exit 1 if a plugin fails to load or has a problem (CI for plugin packages).")
def plugins_cmd(names: tuple[str, ...], as_json: bool, full_schema: bool, strict: bool) -> None:
    """List the installed plugins (or only NAMES): origin, hooks, description and options.

    A plugin that fails to load is listed with its error; the exit status is 0
    unless --strict.
    """
    wanted = list(names) or registry.plugin_names()
    reports = [inspect_plugin(n) for n in wanted]
    for i, r in enumerate(reports):
        if as_json:
            click.echo(json.dumps(r.to_dict(), ensure_ascii=False))
            continue
        if i:
            click.echo()
        _show(r, full_schema)
    if not reports and not as_json:
        click.echo(f"no plugins installed (entry-point group {registry.ENTRY_POINT_GROUP})")
    broken = [r for r in reports if r.error]
    flawed = [r for r in reports if r.problems and not r.error]
    if (broken or flawed) and not as_json:
        parts = [f"{len(broken)} failed to load"] if broken else []
        parts += [f"{len(flawed)} with problems"] if flawed else []
        click.echo(f"\n{len(reports)} plugin(s): {', '.join(parts)}", err=True)
    if strict and (broken or flawed):
        sys.exit(1)
