"""gouji-dsl: a rules-as-data engine for Gouji (够级), the six-player partnership climbing game.

The public API, one step of the pipeline each (imported lazily: ``import gouji_dsl`` is cheap)::

    import gouji_dsl as gj

    ruleset = gj.load("online")              # a bundled name or a .yaml path; extends resolved
    graph = gj.compile(ruleset)              # every expression checked and compiled: a RuleGraph
    state = gj.new_game(graph, seed=1)       # a dealt game (GameState)
    moves = gj.legal_moves(state)            # the moves the seat to act may make
    state = gj.apply(state, moves[0])        # a new state (the old one is unchanged)
    why = gj.explain(state, move)            # which rules allowed or forbade a move, and where
    outcome = state.outcome                  # an Outcome once the game is over (places, scores, ...)

    result = gj.check("my-variant.yaml")     # every problem of every file (gouji validate)

Bad input raises :class:`GoujiError` carrying :class:`Diagnostic` s (``path:line:col``, a hint and a
stable :class:`Code`); positions are :class:`SourcePos`.
"""
from __future__ import annotations

import importlib
import os
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

_EXPORTS: dict[str, tuple[str, str]] = {
    # pipeline
    "load": ("gouji_dsl.ruleset.load.resolving", "resolve"),
    "load_text": ("gouji_dsl.ruleset.load.resolving", "resolve_text"),
    "compile": ("gouji_dsl.ruleset.graph", "compile_ruleset"),
    "new_game": ("gouji_dsl.engine.interpreter", "new_game"),
    "legal_moves": ("gouji_dsl.engine.interpreter", "legal_moves"),
    "apply": ("gouji_dsl.engine.interpreter", "apply"),
    "explain": ("gouji_dsl.engine.explain", "explain"),
    "parse_move": ("gouji_dsl.engine.interpreter", "parse_move"),
    # values
    "Outcome": ("gouji_dsl.engine.outcome", "Outcome"),
    "ResolvedRuleset": ("gouji_dsl.ruleset.spec", "ResolvedRuleset"),
    "RuleGraph": ("gouji_dsl.ruleset.graph", "RuleGraph"),
    "GameState": ("gouji_dsl.engine.interpreter", "GameState"),
    "Move": ("gouji_dsl.engine.interpreter", "Move"),
    "Explanation": ("gouji_dsl.engine.explain", "Explanation"),
    "CheckResult": ("gouji_dsl.ruleset.check", "CheckResult"),
    # diagnostics
    "GoujiError": ("gouji_dsl.diagnostics", "GoujiError"),
    "Diagnostic": ("gouji_dsl.diagnostics", "Diagnostic"),
    "SourcePos": ("gouji_dsl.diagnostics", "SourcePos"),
    "Code": ("gouji_dsl.diagnostics", "Code"),
    "Severity": ("gouji_dsl.diagnostics", "Severity"),
}

__all__ = [
    "__version__",
    "load", "load_text", "compile", "check", "new_game", "legal_moves", "apply", "explain", "parse_move",
    "Outcome", "ResolvedRuleset", "RuleGraph", "GameState", "Move", "Explanation", "CheckResult",
    "GoujiError", "Diagnostic", "SourcePos", "Code", "Severity",
]
assert set(__all__) == {"__version__", "check", *_EXPORTS}


def check(name_or_path: str | os.PathLike[str], **options: Any) -> CheckResult:
    """Check a ruleset as ``gouji validate`` does: every problem of every file of its ``extends``
    chain (:func:`gouji_dsl.ruleset.check.check`, whose ``options`` it takes: ``text``, ``search``,
    ``strict``...). With ``strict=True`` the lint's last stage plays sample deals
    (:data:`gouji_dsl.engine.bounds.PLAYED`, on the engine floor, so a check without ``strict``
    imports no engine module)."""
    stages = importlib.import_module("gouji_dsl.ruleset.check")
    if options.get("strict") and "played" not in options:
        options["played"] = tuple(importlib.import_module("gouji_dsl.engine.bounds").PLAYED.values())
    result: CheckResult = stages.check(name_or_path, **options)
    return result


def __getattr__(name: str) -> Any:
    """Import a public name on first use (PEP 562)."""
    try:
        module, attr = _EXPORTS[name]
    except KeyError:
        raise AttributeError(f"module 'gouji_dsl' has no attribute {name!r}") from None
    value = getattr(importlib.import_module(module), attr)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))


if TYPE_CHECKING:  # for type checkers and IDEs: the same names, imported eagerly
    from gouji_dsl.diagnostics import Code, Diagnostic, GoujiError, Severity, SourcePos
    from gouji_dsl.engine.explain import Explanation, explain
    from gouji_dsl.engine.interpreter import GameState, Move, apply, legal_moves, new_game, parse_move
    from gouji_dsl.engine.outcome import Outcome
    from gouji_dsl.ruleset.check import CheckResult
    from gouji_dsl.ruleset.graph import RuleGraph
    from gouji_dsl.ruleset.graph import compile_ruleset as compile
    from gouji_dsl.ruleset.load.resolving import resolve as load
    from gouji_dsl.ruleset.load.resolving import resolve_text as load_text
    from gouji_dsl.ruleset.spec import ResolvedRuleset
