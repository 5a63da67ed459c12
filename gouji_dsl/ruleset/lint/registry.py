"""The lint's registry and runner: the base class of a finding (:class:`Finding`), the decorator that
registers one by name (:func:`a_finding`, into :data:`FINDINGS`), what every finding reads
(:class:`Context`) and :func:`lint`, which runs them all. The findings themselves are in the modules
beside this one, by theme (see the package's doc, :mod:`gouji_dsl.ruleset.lint`).

A finding is a small class, the way miniwdl's ``WDL/Lint.py`` writes its linters: a subclass of
:class:`Finding` with a docstring saying what it finds, its stable ``code`` (and ``severity``), and a
:meth:`Finding.run` that yields ``(position, message, hint)`` for each problem; ``@a_finding``
registers it under its name (the class name in snake case: ``RuleNeverFires`` is
``rule_never_fires``).
"""
from __future__ import annotations

import functools
import inspect
import re
from collections.abc import Callable, Collection, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar, cast, overload

from gouji_dsl.diagnostics import Code, Diagnostic, Severity, SourcePos
from gouji_dsl.ruleset.analysis import Analysis, analyse
from gouji_dsl.ruleset.load.checking import load_text
from gouji_dsl.ruleset.load.reading import RawRuleset
from gouji_dsl.ruleset.load.resolving import resolve
from gouji_dsl.ruleset.spec import ResolvedRuleset, SettingSpec

if TYPE_CHECKING:  # pragma: no cover
    from gouji_dsl.ruleset.graph import RuleGraph, RuleNode

__all__ = ["Found", "Finding", "FINDINGS", "a_finding", "finding", "Context", "lint", "quick_warnings",
           "own_raw", "parent_ruleset"]

Found = Iterator["tuple[SourcePos, str, str | None] | Diagnostic"]
"""What a finding yields: ``(position, message, hint)`` for each problem (a ready
:class:`Diagnostic` is passed on as it is)."""


class Finding:
    """One lint finding (the base class of each, as miniwdl's ``Linter``). A subclass says what it
    finds in its docstring, sets its stable ``code`` (a :class:`~gouji_dsl.diagnostics.Code`) and,
    when the game cannot end or go on, ``severity = Severity.ERROR``, and yields its problems
    (:data:`Found`) from :meth:`run`. Registered with :func:`a_finding` under its :attr:`name`."""

    code: ClassVar[Code]
    severity: ClassVar[Severity] = Severity.WARNING
    name: ClassVar[str] = ""
    """The name it is registered by (set by :func:`a_finding`: the class name in snake case)."""

    def run(self, c: Context) -> Found:
        """Each problem found in ``c``: ``(position, message, hint)`` or a ready diagnostic."""
        raise NotImplementedError

    @property
    def doc(self) -> str:
        """What it finds (the class's docstring)."""
        return inspect.getdoc(type(self)) or ""


FINDINGS: dict[str, Finding] = {}
"""Every finding by name, in the order :func:`lint` runs them (the order their modules are imported,
then the order they are written)."""

F = TypeVar("F", bound=type[Finding])


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


@overload
def a_finding(cls: F, /) -> F: ...
@overload
def a_finding(*, into: dict[str, Finding]) -> Callable[[F], F]: ...
def a_finding(cls: F | None = None, /, *, into: dict[str, Finding] | None = None) -> F | Callable[[F], F]:
    """Register the decorated :class:`Finding` subclass by its name (the class name in snake case) in
    :data:`FINDINGS`, or with ``into`` in the registry of a floor above that passes its findings to
    :func:`lint` (``also``), such as :data:`gouji_dsl.engine.bounds.PLAYED` (findings that play deals).
    A name registered twice, a class without its own docstring or without a ``code`` is refused."""
    def register(cls: F) -> F:
        registry = FINDINGS if into is None else into
        name = cls.__dict__.get("name") or _snake(cls.__name__)
        if name in registry or name in FINDINGS or not cls.__dict__.get("__doc__") or not isinstance(getattr(cls, "code", None), Code):
            raise ValueError(f"finding {name!r}: registered twice, or without a docstring saying what it finds or a code")
        cls.name = name
        registry[name] = cls()
        return cls
    return register if cls is None else register(cls)


def finding(code: Code, severity: Severity = Severity.WARNING, *, into: dict[str, Finding] | None = None
            ) -> Callable[[Callable[[Context], Found]], Callable[[Context], Found]]:
    """Register one function as a finding of ``code`` and ``severity``, named as the function and
    documented by its docstring: the form of the findings of a floor above written before the classes
    (:data:`gouji_dsl.engine.bounds.PLAYED`). A new finding is a class (:func:`a_finding`)."""
    def register(run: Callable[[Context], Found]) -> Callable[[Context], Found]:
        cls = type(run.__name__, (Finding,), {"__doc__": run.__doc__, "__module__": run.__module__, "name": run.__name__,
                                              "code": code, "severity": severity, "run": lambda self, c: run(c)})
        (a_finding if into is None else a_finding(into=into))(cast("type[Finding]", cls))
        return run
    return register


class _Lines:
    """Source lines of the files a ruleset's findings point into (each file read and split once)."""

    def __init__(self, resolved: Any):
        self.resolved = resolved
        self.cache: dict[str, list[str] | None] = {resolved.path: (resolved.text or "").splitlines()}

    def line(self, path: str, n: int) -> str | None:
        if path not in self.cache:
            try:
                self.cache[path] = Path(path).read_text(encoding="utf-8").splitlines()
            except OSError:
                self.cache[path] = None
        lines = self.cache[path]
        return lines[n - 1] if lines is not None and 1 <= n <= len(lines) else None


class Context:
    """What every finding reads: ``graph``, ``resolved`` (its ruleset), ``own_path`` (the file
    checked), ``an`` (the :class:`~gouji_dsl.ruleset.analysis.Analysis`), ``nodes`` (every rule),
    ``own`` (the rules this file writes), ``by_id``; :attr:`parent` and :attr:`switched` are
    computed when a finding first asks."""

    def __init__(self, graph: RuleGraph):
        self.graph = graph
        self.resolved: ResolvedRuleset = graph.resolved
        self.own_path: str = self.resolved.path
        self.lines = _Lines(self.resolved)
        self.an = analyse(graph)
        self.nodes: list[RuleNode] = list(graph.nodes)
        self.own = [n for n in self.nodes if not n.inherited]
        self.by_id = {n.id: n for n in self.nodes}

    @functools.cached_property
    def parent(self) -> ResolvedRuleset | None:
        """The resolved parent ruleset (None: none, or it cannot be resolved again)."""
        return parent_ruleset(self.resolved)

    @functools.cached_property
    def switched(self) -> Analysis:
        """The analysis with this file's own settings unknown: a rule dead here but live there is
        switched off by this file's own setting."""
        own_settings = frozenset(name for name, s in self.resolved.settings.items() if not s.inherited)
        return analyse(self.graph, own_settings) if own_settings else self.an

    def live(self, hook: str) -> list[RuleNode]:
        """The rules on ``hook`` that can fire, in graph order."""
        return [n for n in self.nodes if n.hook == hook and n.id not in self.an.dead]

    def own_settings(self) -> Iterator[tuple[str, SettingSpec]]:
        """The settings this file writes, by name."""
        return ((name, s) for name, s in self.resolved.settings.items() if not s.inherited)

    def diagnostic(self, f: Finding, at: SourcePos, message: str, hint: str | None) -> Diagnostic:
        return Diagnostic.at(at, message, hint=hint, source_line=self.lines.line(at.path, at.line),
                             severity=f.severity, code=f.code)


def lint(graph: RuleGraph, *, codes: Collection[Code] | None = None, also: Iterable[Finding] = ()) -> list[Diagnostic]:
    """Every lint finding of a compiled ruleset's own file (see the module doc), sorted by position
    (this file's first); ``codes``: only the findings of those codes; ``also``: findings of a floor
    above run after the registered ones (:data:`gouji_dsl.engine.bounds.PLAYED`, which play deals).

    Severity ``"warning"``, or ``"error"`` when the game can never end or no play is ever allowed;
    ``gouji validate --strict`` fails on either."""
    c = Context(graph)
    out: list[Diagnostic] = []
    for f in (*FINDINGS.values(), *also):
        if codes is None or f.code in codes:
            out.extend(d if isinstance(d, Diagnostic) else c.diagnostic(f, *d) for d in f.run(c))
    uniq: dict[tuple[Any, ...], Diagnostic] = {}
    for d in out:
        uniq.setdefault((d.path, d.line, d.col, d.message), d)
    return sorted(uniq.values(), key=lambda d: (d.path != c.own_path, d.path, d.line, d.col, d.message))


_QUICK = (Code.UNREAD_SETTING, Code.SETTING_HAS_NO_EFFECT, Code.STALE_WORD)


def quick_warnings(graph: RuleGraph) -> list[Diagnostic]:
    """The findings worth showing even without ``--strict``: a setting (or key) nothing reads is
    most likely a misspelt name (``sweep_multipler``); a setting another setting disables does
    nothing. Runs only the findings of those codes. Never raises: a lint problem yields nothing."""
    try:
        return [d for d in lint(graph, codes=_QUICK) if d.code in _QUICK]
    except Exception:
        return []


@functools.lru_cache(maxsize=64)
def own_raw(path: str, text: str) -> RawRuleset | None:
    """The ruleset's own file as parsed (None when it cannot be read again)."""
    try:
        return load_text(text, path) if text else None
    except Exception:
        return None


def parent_ruleset(resolved: ResolvedRuleset) -> ResolvedRuleset | None:
    """The resolved parent ruleset, or None."""
    if len(resolved.chain) < 2:
        return None
    try:
        return resolve(resolved.chain[1])
    except Exception:
        return None
