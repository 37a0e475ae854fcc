"""Finding plugins (entry points) and switching them on for a ruleset."""

from __future__ import annotations

import functools
import weakref
from collections.abc import Callable, Collection, Mapping, Sequence
from functools import lru_cache
from importlib.metadata import entry_points
from typing import Any, TypeVar

import pluggy

from ..core.errors import MJError
from . import specs as hookspecs

ENTRY_POINT_GROUP = "mjframework.plugins"

# Plugin managers whose hook calls are traced (trace_hooks): call_hook never skips them.
_traced: weakref.WeakSet[pluggy.PluginManager] = weakref.WeakSet()
# Bumped whenever tracing starts or stops anywhere: a BoundHook re-checks ``_traced`` then only.
_trace_epoch = 0

# The attribute :func:`only_for` sets on a hook implementation's function.
ONLY_FOR_ATTR = "mj_only_for"

# Plugins registered in-process (tests, embedding applications), by name.
_registered: dict[str, type] = {}


class PluginError(MJError):
    """A plugin could not be found, loaded or created, or failed in a hook.

    For a failure in a hook, ``plugin`` and ``hook`` name where (else ``None``).
    """

    def __init__(self, message: str, plugin: str | None = None, hook: str | None = None) -> None:
        super().__init__(message)
        self.plugin = plugin
        self.hook = hook


class EngineAbort(Exception):
    """The engine's own verdict, raised while a plugin's hook is running.

    A plugin that asks a player through the table control can see the
    engine abandon the hand (a player failed); that passes through the
    plugin's frame unattributed, unlike the plugin's own failures.
    """


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


def plugin_entry_point(name: str) -> Any | None:
    """The installed entry point named ``name`` (None if there is none)."""
    return _entry_point_plugins().get(name)


def registered_plugin(name: str) -> type | None:
    """The class :func:`register_plugin` made available as ``name`` (None if none)."""
    return _registered.get(name)


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
    """Call ``hook`` through pluggy (``pm.hook.<hook>(**kwargs)``).

    Plugins run in ruleset order unless they ask for ``tryfirst`` /
    ``trylast``; ``wrapper=True`` (and old-style ``hookwrapper``)
    implementations wrap the others; tracing set up with :func:`trace_hooks`
    sees every call. Whether one result or a list comes back is the hook
    spec's ``firstresult`` (``firstresult`` here only documents the caller's
    expectation and is checked against the spec). A plugin that raises is
    named: see :func:`_attribute_failures`. Plain implementations are called
    by :meth:`BoundHook.call`'s loop, as pluggy would call them (no filtering by
    :func:`only_for` here: every implementation is asked).
    """
    bound = bound_hook(pm, hook)
    caller = bound._caller
    plan = bound._current()
    spec_first = bound._first
    if spec_first is not None and spec_first != firstresult:
        raise TypeError(f"{hook} is {'' if firstresult else 'not '}called as firstresult, "
                        "unlike its hook spec")
    if not bound._impls:
        if pm in _traced or spec_first is None or bound._historic:
            return caller(**kwargs)
        # No implementation: pluggy would return exactly this, after building its call
        # machinery (the engine calls some hooks on every event). Traced managers still
        # see the call.
        return None if firstresult else []
    if plan is None or not bound._argset <= kwargs.keys():
        # Traced, no spec, historic, wrappers, or pluggy's own warning about a missing argument.
        return caller(**kwargs)
    return bound.call(*[kwargs[a] for a in bound.argnames], firstresult=firstresult)


# The kinds of one call for only_for (an event's type, a decision's option kinds), or a
# function making them (called only if some implementation declares only_for).
About = Collection[str] | Callable[[], Collection[str]] | None


F = TypeVar("F", bound=Callable[..., Any])


def only_for(*kinds: str) -> Callable[[F], F]:
    """Declare when a hook implementation can answer, so the engine skips the other calls.

    On ``mj_announce``: the event types it may say something about (``@only_for("discard",
    "win")``: it is not called for a ``draw``). On ``mj_extra_options``: the option kinds a
    decision must offer for it to add anything (``@only_for("kong")``: called only for turn
    and claim decisions offering a kong). The engine calls these hooks on every event and
    every decision; a plugin that reacts to a few of them need not pay for the rest. It is
    a promise: for any other call the implementation would return ``None``. (Calls made
    through pluggy itself — ``call_hook``, traced plugin managers — still reach it.)
    Put it below ``@hookimpl``.
    """
    wanted = frozenset(kinds)

    def mark(fn: F) -> F:
        setattr(fn, ONLY_FOR_ATTR, wanted)
        return fn

    return mark


# One plain implementation as a BoundHook calls it: the implementation (its ``function``
# is read at each call, as pluggy does), the positions of its arguments among the spec's,
# and its only_for kinds (None: every call).
DirectImpl = tuple[Any, tuple[int, ...], frozenset[str] | None]


class BoundHook:
    """One hook of one plugin manager, ready for the engine's many calls (a hand calls
    ``mj_extra_options`` at every decision and ``mj_announce`` at every event), and the
    one place that runs hook implementations outside pluggy (:func:`call_hook` uses it).

    Its plan — the plain implementations in pluggy's order, with their argument
    positions and :func:`only_for` kinds — is worked out again only when the
    implementations change or tracing starts or stops (compared at each call). A traced
    manager, a hook without a spec, a historic hook, or a wrapper among the
    implementations goes through pluggy instead (:meth:`direct` is then None).
    """

    __slots__ = ("_argset", "_caller", "_epoch", "_first", "_historic", "_impls", "_plan",
                 "argnames", "name", "pm")

    def __init__(self, pm: pluggy.PluginManager | None, hook: str) -> None:
        self.pm = pm
        self.name = hook
        self._caller: Any = getattr(pm.hook, hook) if pm is not None else None
        spec = getattr(self._caller, "spec", None)
        self.argnames: tuple[str, ...] = tuple(spec.argnames) if spec is not None else ()
        self._argset = frozenset(self.argnames)
        # The spec's firstresult (None: no spec) and historic flags.
        self._first: bool | None = None if spec is None else bool(spec.opts.get("firstresult"))
        self._historic = spec is not None and bool(spec.opts.get("historic"))
        self._impls: list[Any] | None = None
        self._epoch = -1
        self._plan: tuple[DirectImpl, ...] | None = ()

    def _current(self) -> tuple[DirectImpl, ...] | None:
        caller = self._caller
        if caller is None:
            return ()
        impls = caller.get_hookimpls()
        if impls != self._impls or self._epoch != _trace_epoch:
            self._impls, self._epoch = impls, _trace_epoch
            self._plan = self._make(caller, impls)
        return self._plan

    def direct(self) -> tuple[DirectImpl, ...] | None:
        """The implementations called directly (``()``: none), or None: through pluggy."""
        return self._current()

    def _make(self, caller: Any, impls: list[Any]) -> tuple[DirectImpl, ...] | None:
        if self.pm in _traced or self._first is None or self._historic:
            return None
        if any(i.wrapper or i.hookwrapper for i in impls):
            return None
        pos = {a: i for i, a in enumerate(self.argnames)}
        if any(a not in pos for i in impls for a in i.argnames):
            return None  # pluggy's own error for an argument the spec lacks
        return tuple((i, tuple(pos[a] for a in i.argnames), getattr(i.function, ONLY_FOR_ATTR, None))
                     for i in reversed(impls))

    @property
    def live(self) -> bool:
        """Would a call do anything (an implementation, or tracing that reports it)?"""
        return self._current() is None or bool(self._impls)

    def spoken_about(self) -> frozenset[str] | None:
        """The kinds the implementations' :func:`only_for` name together, or None (any
        kind) when one names none or the calls go through pluggy (traced, wrapped)."""
        plan = self._current()
        if plan is None:
            return None
        spoken: set[str] = set()
        for _impl, _pick, only in plan:
            if only is None:
                return None
            spoken.update(only)
        return frozenset(spoken)

    def call(self, *args: Any, about: About = None, firstresult: bool = False) -> Any:
        """Call the implementations with the spec's arguments in order: the one loop over
        plain implementations, as pluggy's ``_multicall`` runs them — last registered first,
        ``None`` answers dropped — without its wrapper machinery (the engine calls hooks on
        every event and decision). The non-None answers as a list, or with ``firstresult``
        the first (else None).

        ``about``: the kinds of this call (an event's type, a decision's option kinds, or a
        function making them, called only if needed): an implementation whose
        :func:`only_for` names none of them is skipped (None: every implementation is
        called). Through pluggy (:meth:`direct` is None) every implementation is called.
        """
        plan = self._current()
        if plan is None:
            return call_hook(self.pm, self.name, firstresult=firstresult,  # type: ignore[arg-type]
                             **dict(zip(self.argnames, args, strict=True)))
        results = []
        for impl, pick, only in plan:
            if only is not None and about is not None:
                if callable(about):
                    about = about()
                if only.isdisjoint(about):
                    continue
            # (``impl.function`` read at each call: _attribute_failures wraps it in place)
            res = impl.function(*[args[i] for i in pick])
            if res is not None:
                if firstresult:
                    return res
                results.append(res)
        return None if firstresult else results


_bound: weakref.WeakKeyDictionary[pluggy.PluginManager, dict[str, BoundHook]] = weakref.WeakKeyDictionary()


def bound_hook(pm: pluggy.PluginManager | None, hook: str) -> BoundHook:
    """The :class:`BoundHook` of ``pm``'s ``hook``, one per manager and hook (a manager
    serves every hand of its ruleset; the bound hook re-checks its plan at each call)."""
    if pm is None:
        return BoundHook(None, hook)
    hooks = _bound.get(pm)
    if hooks is None:
        hooks = _bound[pm] = {}
    got = hooks.get(hook)
    if got is None:
        got = hooks[hook] = BoundHook(pm, hook)
    return got


def hook_is_live(pm: pluggy.PluginManager | None, hook: str) -> bool:
    """Would calling ``hook`` do anything (an implementation, or tracing that reports it)?"""
    return pm is not None and (bool(getattr(pm.hook, hook).get_hookimpls()) or pm in _traced)


def trace_epoch() -> int:
    """A number that changes whenever tracing starts or stops on any manager: a caller that
    decided :func:`hook_is_live` once (per evaluator, per table) decides again when it moves."""
    return _trace_epoch


def _attribute_failures(pm: pluggy.PluginManager, plugin: object, name: str) -> None:
    """Make every hook implementation of ``plugin`` name itself when it fails.

    Pluggy propagates a plugin's exception bare, so the engine could not say
    which plugin broke. Each implementation's function is wrapped once, at
    registration: an exception raised *by this plugin* (an :class:`MJError`
    too) becomes a :class:`PluginError` naming the plugin and the hook. A
    ``PluginError`` raised further in (by another plugin) passes unchanged,
    and a wrapper implementation's generator is wrapped so that failures after
    its ``yield`` are named as well. ``BaseException`` s that are not
    ``Exception`` (the engine's own control flow) pass untouched.
    """
    for caller in pm.get_hookcallers(plugin) or ():
        for impl in caller.get_hookimpls():
            if impl.plugin is plugin:
                # pluggy marks ``function`` Final; wrapped in place, a failure gets its plugin's name
                impl.function = _named(  # type: ignore[misc]
                    impl.function, name, caller.name, impl.wrapper or impl.hookwrapper)


def _named(fn: Any, plugin: str, hook: str, is_wrapper: bool) -> Any:
    def failure(e: Exception) -> PluginError:
        if isinstance(e, HandDeadline):
            return PluginError(f"plugin {plugin!r} timed out in {hook} ({e})", plugin, hook)
        return PluginError(f"plugin {plugin!r} failed in {hook}: {type(e).__name__}: {e}", plugin, hook)

    if is_wrapper:
        @functools.wraps(fn)
        def wrapper(*args: Any) -> Any:
            try:
                return (yield from fn(*args))
            except (PluginError, EngineAbort):
                raise
            except Exception as e:
                raise failure(e) from e
        return wrapper

    @functools.wraps(fn)
    def call(*args: Any) -> Any:
        try:
            return fn(*args)
        except (PluginError, EngineAbort):
            raise
        except Exception as e:
            raise failure(e) from e
    return call


def trace_hooks(pm: pluggy.PluginManager, write: Callable[[str], Any]) -> Callable[[], None]:
    """Report every hook call of ``pm`` (hook, plugins, arguments, result) to ``write``.

    Built on pluggy's ``add_hookcall_monitoring``; returns the function that
    stops tracing. ``mj --trace-hooks`` switches it on for every plugin manager.
    """
    def before(hook_name: str, impls: Sequence[Any], kwargs: Mapping[str, Any]) -> None:
        names = ", ".join(i.plugin_name for i in reversed(impls))
        args = ", ".join(f"{k}={_short(v)}" for k, v in kwargs.items())
        write(f"hook {hook_name}({args}) -> [{names}]")

    def after(outcome: Any, hook_name: str, impls: Sequence[Any], kwargs: Mapping[str, Any]) -> None:
        exc = outcome.exception
        write(f"hook {hook_name} " + (f"raised {type(exc).__name__}: {exc}" if exc is not None
                                      else f"returned {_short(outcome.get_result())}"))

    global _trace_epoch
    undo = pm.add_hookcall_monitoring(before, after)
    _traced.add(pm)
    _trace_epoch += 1

    def stop() -> None:
        global _trace_epoch
        _traced.discard(pm)
        _trace_epoch += 1
        undo()

    return stop


def _short(value: Any, limit: int = 80) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


# Set by ``mj --trace-hooks``: every plugin manager made afterwards traces its calls.
_trace_writer: Callable[[str], Any] | None = None


def set_hook_tracing(write: Callable[[str], Any] | None) -> None:
    """Trace the hook calls of every plugin manager made from now on (``None`` stops it)."""
    global _trace_writer
    _trace_writer = write


def options_schema(name: str) -> dict[str, Any]:
    return getattr(load_plugin_class(name), "options_schema", {"type": "object"})


class PluginManager(pluggy.PluginManager):
    """pluggy's manager, counting the plugins that come and go (:attr:`generation`).

    A caller that decides once which hooks have an implementation (the evaluator's
    :meth:`~mjframework.evaluate.scoring.Evaluator.hook_live`) decides again when the count
    moves, so a plugin registered after the first win is still asked."""

    generation: int = 0

    def register(self, plugin: Any, name: str | None = None) -> str | None:
        got = super().register(plugin, name)
        self.generation += 1
        return got

    def unregister(self, plugin: Any | None = None, name: str | None = None) -> Any | None:
        got = super().unregister(plugin, name)
        self.generation += 1
        return got


def hooks_epoch(pm: pluggy.PluginManager | None) -> tuple[int, int]:
    """A pair that moves whenever what calling ``pm``'s hooks does may have changed: tracing
    started or stopped on any manager (:func:`trace_epoch`), or a plugin registered or
    unregistered on ``pm`` (its :attr:`PluginManager.generation`; a pluggy manager made
    elsewhere is not counted). A caller that decided :func:`hook_is_live` once decides again
    when it moves."""
    return _trace_epoch, getattr(pm, "generation", 0)


def make_plugin_manager(plugins: Mapping[str, Mapping[str, Any]]) -> pluggy.PluginManager:
    """A plugin manager with the ruleset's plugins, created with their options.

    Registration order is the ruleset's order; pluggy calls later-registered
    implementations first, so we register in reverse to call in ruleset order.
    """
    pm = PluginManager(hookspecs.PROJECT)
    pm.add_hookspecs(hookspecs)
    for name, options in reversed(list(plugins.items())):
        cls = load_plugin_class(name)
        try:
            instance = cls(dict(options or {}))
        except Exception as e:
            raise PluginError(f"plugin {name!r} could not start with options {options!r}: {e}") from e
        pm.register(instance, name=name)
        _attribute_failures(pm, instance, name)
    if _trace_writer is not None:
        trace_hooks(pm, _trace_writer)
    return pm
