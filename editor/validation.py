"""Check a ruleset buffer or file the way ``gouji validate`` does, without ever raising.

The editor runs these in thread workers (they take tens of milliseconds), so they only use the
library's public API and return plain results: every :class:`~gouji_dsl.diagnostics.Diagnostic`
found, plus the resolved ruleset and the compiled rule graph when those stages succeeded.
"""
from __future__ import annotations

import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from gouji_dsl.diagnostics import Code, Diagnostic
from gouji_dsl.ruleset.graph import RuleGraph
from gouji_dsl.ruleset.spec import ResolvedRuleset


@dataclass(frozen=True)
class Validation:
    """The outcome of checking one ruleset (its whole ``extends`` chain).

    ``resolved`` is set when loading and inheritance succeeded, ``graph`` when every expression
    compiled too; ``diagnostics`` lists every problem (possibly in a parent file)."""

    path: str
    diagnostics: tuple[Diagnostic, ...] = ()
    resolved: ResolvedRuleset | None = None
    graph: RuleGraph | None = None
    seconds: float = 0.0
    text: str | None = field(default=None, repr=False)

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == "error"]

    @property
    def warnings(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity != "error"]

    @property
    def ok(self) -> bool:
        return self.graph is not None and not self.errors

    def in_file(self, path: str | os.PathLike[str]) -> list[Diagnostic]:
        """The diagnostics located in ``path``."""
        return [d for d in self.diagnostics if same_file(d.path, path)]


def same_file(a: str | os.PathLike[str], b: str | os.PathLike[str]) -> bool:
    """True when two paths name the same file (normalised; the file need not exist)."""
    return os.path.normcase(os.path.abspath(a)) == os.path.normcase(os.path.abspath(b))


def _internal(path: str, e: BaseException) -> Diagnostic:
    return Diagnostic(path, 0, 0, f"internal error while checking: {type(e).__name__}: {e}",
                      hint="this is a bug in gouji; please report it with the file", code=Code.INTERNAL_ERROR)


def _validate(path: str, text: str | None, search: Sequence[str | os.PathLike[str]]) -> Validation:
    from gouji_dsl.ruleset.check import check

    start = time.perf_counter()
    try:
        result = check(path, text=text, search=search)
    except Exception as e:
        return Validation(path, (_internal(path, e),), None, None, time.perf_counter() - start, text)
    resolved = result.chain.resolved if not result.chain.errors else None
    return Validation(path, tuple(result.diagnostics), resolved, result.graph, time.perf_counter() - start, text)


def validate_text(text: str, path: str | os.PathLike[str], *,
                  search: Sequence[str | os.PathLike[str]] = ()) -> Validation:
    """Check the unsaved ``text`` as if it were the file ``path`` (parents are read from disk):
    every problem of every file of its chain (:func:`gouji_dsl.ruleset.check.check`)."""
    return _validate(os.fspath(path), text, search)


def validate_file(path: str | os.PathLike[str], *,
                  search: Sequence[str | os.PathLike[str]] = ()) -> Validation:
    """Check the file ``path`` as saved."""
    return _validate(os.fspath(path), None, search)
