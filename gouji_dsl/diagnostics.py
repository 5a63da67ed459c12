"""Positioned error reports: ``path:line:col: message`` with the source line, a caret and a hint.

Every user-facing failure (ruleset, scenario, record, card text) is a :class:`Diagnostic`;
functions that can fail on user input raise :class:`GoujiError` carrying one or more of them, so the
CLI and the editor can print them all and never show a traceback.
"""
from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum


@dataclass(frozen=True, slots=True)
class SourcePos:
    """Where something was written: ``path``, 1-based ``line`` and ``col`` (0 = unknown) and, for a
    span, the 1-based ``end_line`` / ``end_col`` just after it (0 = a point). The one position type of
    the project: AST nodes, rules, settings, diagnostics and explanation reasons all carry it."""

    path: str
    line: int = 0
    col: int = 0
    end_line: int = 0
    end_col: int = 0

    def __str__(self) -> str:
        if self.line <= 0:
            return self.path
        return f"{self.path}:{self.line}:{max(self.col, 1)}"

    @property
    def short(self) -> str:
        """``path:line`` (the form shown beside a rule)."""
        return self.path if self.line <= 0 else f"{self.path}:{self.line}"


class Code(StrEnum):
    """Stable diagnostic codes (codenames, like miniwdl's lint names). Tests and tools match on these,
    never on message text. Add a member for every new kind of problem; never rename one."""

    UNSPECIFIED = "Unspecified"


@dataclass(frozen=True)
class Diagnostic:
    """One problem at one place.

    ``line`` and ``col`` are 1-based; 0 means unknown. ``source_line`` is the offending line of text
    (without newline) used to draw the caret; ``hint`` is an optional suggestion shown after it.
    ``severity`` is ``"error"`` or ``"warning"``.
    """

    path: str
    line: int
    col: int
    message: str
    hint: str | None = None
    source_line: str | None = None
    severity: str = "error"
    code: str = Code.UNSPECIFIED

    @property
    def location(self) -> str:
        """``path:line:col`` (line/col omitted when unknown)."""
        if self.line <= 0:
            return self.path
        return f"{self.path}:{self.line}:{max(self.col, 1)}"

    def short(self) -> str:
        """One line: ``path:line:col: message``."""
        prefix = "warning: " if self.severity == "warning" else ""
        return f"{self.location}: {prefix}{self.message}"

    def format(self) -> str:
        """Several lines: the short form, the source line with a caret, and the hint."""
        out = [self.short()]
        if self.source_line is not None and self.line > 0:
            text = self.source_line.rstrip("\n")
            out.append(f"    {text}")
            out.append("    " + " " * max(self.col - 1, 0) + "^")
        if self.hint:
            out.append(f"    hint: {self.hint}")
        return "\n".join(out)


class GoujiError(Exception):
    """Raised for bad user input; carries every :class:`Diagnostic` found (at least one)."""

    def __init__(self, diagnostics: Sequence[Diagnostic] | Diagnostic):
        if isinstance(diagnostics, Diagnostic):
            diagnostics = [diagnostics]
        self.diagnostics: list[Diagnostic] = list(diagnostics)
        super().__init__("\n".join(d.short() for d in self.diagnostics))

    def format(self) -> str:
        """All diagnostics, each in its long form."""
        return "\n".join(d.format() for d in self.diagnostics)

    def __reduce__(self):  # picklable across worker processes
        return (GoujiError, (self.diagnostics,))


def did_you_mean(word: str, candidates: Iterable[str]) -> str | None:
    """A ``did you mean 'x'?`` hint for the closest candidate, or None when nothing is close."""
    matches = difflib.get_close_matches(word, list(candidates), n=1, cutoff=0.6)
    return f"did you mean {matches[0]!r}?" if matches else None


def line_of(text: str, line: int) -> str | None:
    """The 1-based ``line`` of ``text`` or None when out of range."""
    lines = text.splitlines()
    if 1 <= line <= len(lines):
        return lines[line - 1]
    return None


@dataclass
class DiagnosticBag:
    """Collects diagnostics while a whole file is checked, so all problems are reported at once."""

    items: list[Diagnostic] = field(default_factory=list)

    def add(self, diag: Diagnostic) -> None:
        self.items.append(diag)

    def extend(self, diags: Iterable[Diagnostic]) -> None:
        self.items.extend(diags)

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.items if d.severity == "error"]

    def raise_if_errors(self) -> None:
        if self.errors:
            raise GoujiError(sorted(self.errors, key=lambda d: (d.path, d.line, d.col)))
