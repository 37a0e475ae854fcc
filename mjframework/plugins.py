"""Finding plugins (entry points) and switching them on for a ruleset."""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from importlib.metadata import entry_points
from typing import Any

import pluggy

from . import hookspecs
from .errors import MJError

ENTRY_POINT_GROUP = "mjframework.plugins"

# Plugins registered in-process (tests, embedding applications), by name.
_registered: dict[str, type] = {}


class PluginError(MJError):
    """A plugin could not be found, loaded or created, or failed in a hook (``plugin`` names it)."""

    def __init__(self, message: str, plugin: str | None = None) -> None:
        super().__init__(message)
        self.plugin = plugin


class HandDeadline(Exception):
    """Raised (from a timer signal) when a hand runs past its deadline; a plugin running
    at that moment is named as having timed out. An ``Exception`` so that the guards that
    turn a failing plugin or player into an abandoned hand catch it."""


def register_plugin(name: str, plugin_class: type) -> None:
    """Make a plugin class available under ``name`` without an entry point."""
    _registered[name] = plugin_class


def unregister_plugin(name: str) -> None:
    _registered.pop(name, None)


@lru_cache(maxsize=1)
def _entry_point_plugins() -> dict[str, Any]:
    return {ep.name: ep for ep in entry_points(group=ENTRY_POINT_GROUP)}


def available_plugins() -> dict[str, type]:
    """Every installed plugin class that loads, by name (see ``mj plugins`` for broken ones)."""
    out: dict[str, type] = {}
    for name in _entry_point_plugins():
        try:
            out[name] = load_plugin_class(name)
        except PluginError:
            continue
    out.update(_registered)
    return out


def plugin_names() -> list[str]:
    return sorted(set(_entry_point_plugins()) | set(_registered))


def load_plugin_class(name: str) -> type:
    if name in _registered:
        return _registered[name]
    ep = _entry_point_plugins().get(name)
    if ep is None:
        known = ", ".join(plugin_names()) or "none"
        raise PluginError(f"no plugin named {name!r} is installed (installed: {known})")
    try:
        obj = ep.load()
    except Exception as e:  # a broken third-party plugin must not crash validation
        raise PluginError(f"plugin {name!r} ({ep.value}) failed to load: {e}") from e
    # An entry point may name a module exposing `Plugin`, or the class itself.
    cls = getattr(obj, "Plugin", obj)
    if not isinstance(cls, type):
        raise PluginError(f"plugin {name!r} ({ep.value}) has no `Plugin` class")
    return cls


def call_hook(pm: pluggy.PluginManager, hook: str, *, firstresult: bool = False, **kwargs: Any) -> Any:
    """Call ``hook`` on each plugin in ruleset order, naming the plugin if one fails.

    Pluggy would propagate a plugin's exception bare; here it becomes a
    :class:`PluginError` saying which plugin failed in which hook, which the
    CLI prints and the game turns into an abandoned hand.
    """
    results = []
    for impl in reversed(getattr(pm.hook, hook).get_hookimpls()):
        try:
            r = impl.function(**{a: kwargs[a] for a in impl.argnames})
        except MJError:
            raise
        except HandDeadline as e:
            raise PluginError(f"plugin {impl.plugin_name!r} timed out in {hook} ({e})",
                              impl.plugin_name) from e
        except Exception as e:
            raise PluginError(f"plugin {impl.plugin_name!r} failed in {hook}: "
                              f"{type(e).__name__}: {e}", impl.plugin_name) from e
        if r is not None:
            if firstresult:
                return r
            results.append(r)
    return None if firstresult else results


def options_schema(name: str) -> dict[str, Any]:
    return getattr(load_plugin_class(name), "options_schema", {"type": "object"})


def make_plugin_manager(plugins: Mapping[str, Mapping[str, Any]]) -> pluggy.PluginManager:
    """A plugin manager with the ruleset's plugins, created with their options.

    Registration order is the ruleset's order; pluggy calls later-registered
    implementations first, so we register in reverse to call in ruleset order.
    """
    pm = pluggy.PluginManager(hookspecs.PROJECT)
    pm.add_hookspecs(hookspecs)
    for name, options in reversed(list(plugins.items())):
        cls = load_plugin_class(name)
        try:
            instance = cls(dict(options or {}))
        except Exception as e:
            raise PluginError(f"plugin {name!r} could not start with options {options!r}: {e}") from e
        pm.register(instance, name=name)
    return pm
