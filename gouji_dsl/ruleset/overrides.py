"""One-line overrides: ``--set KEY=VALUE`` as a generated variant of a ruleset (设定覆盖).

Each override becomes a settings layer — a small ruleset file that is not on disk, named
``--set[N]`` (N: the override's place on the command line, from 1), extending the ruleset (the first)
or the layer before it — and the chain is checked and merged exactly as a variant file's
``settings:`` is (:func:`gouji_dsl.ruleset.check.check` with ``layers``). So a bad key or value gets
the same diagnostic code as in a file; its position is moved to the option: the pseudo-file
``--set[N]``, line 1, the column in the option text, which is shown as the source line with a caret.

``KEY`` is a setting's name, with dotted keys into its maps (``gouji_minimum.2=2``,
``revolution.place=3``); ``VALUE`` is read as YAML (``null``, ``3``, ``[2, B, R]``, ``last``). A
key of a map is typed as the ruleset's own map has it (``place_points.1`` is the number 1,
``gouji_minimum.2`` the rank ``"2"``). An override that nothing reads (a misspelt setting) is an
error here, not the warning a file gets: a one-line override that changes nothing is a mistake.
"""
from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from gouji_dsl.diagnostics import Code, Diagnostic, GoujiError, Severity, SourcePos
from gouji_dsl.i18n import _
from gouji_dsl.lang.types import RANK, ListOf, MapOf, Nullable, Record
from gouji_dsl.ruleset.check import check
from gouji_dsl.ruleset.graph import compile_ruleset
from gouji_dsl.ruleset.load.resolving import resolve
from gouji_dsl.ruleset.settings import settings_of
from gouji_dsl.ruleset.sources import short_path

if TYPE_CHECKING:
    from gouji_dsl.ruleset.graph import RuleGraph

__all__ = ["Override", "parse_overrides", "twice", "label", "load_graph", "load_point", "load_resolved", "layer_path", "is_layer"]

OPTION = "--set"
_PART = re.compile(r"[^.=\s]+")


def layer_path(index: int, option: str = OPTION) -> str:
    """The pseudo-file of the ``index``-th override (from 1): ``--set[1]``."""
    return f"{option}[{index}]"


_LAYER = re.compile(r"--[a-z]+\[\d+\]")


def is_layer(path: str) -> bool:
    """True for the pseudo-file of a one-line option (``--set[1]``, ``--grid[2]``), not a file."""
    return bool(_LAYER.fullmatch(path))


@dataclass(frozen=True)
class _Segment:
    """A piece of the generated layer and where it was in the option: ``line``/``col`` (1-based) in
    the layer's text, ``at`` (1-based column) in the option text, ``length`` characters."""

    line: int
    col: int
    at: int
    length: int


@dataclass(frozen=True)
class Override:
    """One ``--set KEY=VALUE``: its place ``index`` (from 1), the option ``text`` as given, the key's
    parts (the setting's name, then the keys into its maps, each with its column in ``text``) and
    the value's text (from the column ``value_at``)."""

    index: int
    text: str
    parts: tuple[tuple[str, int], ...]
    value: str
    value_at: int
    option: str = OPTION  # the option it came from (`gouji sweep`'s values are --grid's)

    @property
    def path(self) -> str:
        return layer_path(self.index, self.option)

    @property
    def key(self) -> str:
        """The dotted key as written (``gouji_minimum.2``)."""
        return ".".join(p for p, _at in self.parts)

    def layer(self, name: str, current: Any, vtype: Any = None) -> tuple[str, list[_Segment]]:
        """The layer's YAML text (``ruleset: NAME``, then ``settings:`` with the key path in block style
        and the value as written at the end of the last line) and where its pieces come from.
        ``current``: the setting's value in the ruleset (to type the keys of its maps); ``vtype``: the
        setting's type (a bare number where a card kind is expected is written as that kind's text)."""
        lines = [f"ruleset: {json.dumps(name)}", "settings:"]
        segments: list[_Segment] = []
        cur = current
        for depth, (part, at) in enumerate(self.parts):
            key: Any = part if depth == 0 else _typed_key(part, cur)
            written = part if depth == 0 and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", part) else json.dumps(key)
            indent = "  " * (depth + 1)
            shift = 1 if written.startswith('"') else 0
            segments.append(_Segment(len(lines) + 1, len(indent) + 1 + shift, at, len(part)))
            lines.append(f"{indent}{written}:")
            cur = cur.get(key) if isinstance(cur, dict) and depth > 0 else cur if depth == 0 else None
        value_col = len(lines[-1]) + 2
        lines[-1] += " "
        spans = _rank_numbers(self.value, _type_at(vtype, [p for p, _at in self.parts[1:]]))
        written_at, done = value_col, 0
        for start, end in spans + [(len(self.value), len(self.value))]:
            piece = self.value[done:start]
            segments.append(_Segment(len(lines), written_at, self.value_at + done, max(len(piece), 1)))
            lines[-1] += piece
            written_at += len(piece)
            if start < end:  # the number 2 where a card kind is expected: the kind "2"
                segments.append(_Segment(len(lines), written_at + 1, self.value_at + start, end - start))
                lines[-1] += json.dumps(self.value[start:end])
                written_at += end - start + 2
            done = end
        return "\n".join(lines) + "\n", segments


_BARE_NUMBER = re.compile(r"(?<=[\[,])\s*(\d+)\s*(?=[,\]])")


def _type_at(t: Any, keys: Sequence[str]) -> Any:
    """The type of the value at ``keys`` below a setting of type ``t`` (None when unknown)."""
    for k in keys:
        t = t.inner if isinstance(t, Nullable) else t
        t = t.field(k) if isinstance(t, Record) else t.value if isinstance(t, MapOf) else None
    return t.inner if isinstance(t, Nullable) else t


def _rank_numbers(value: str, t: Any) -> list[tuple[int, int]]:
    """The spans of ``value`` that are bare whole numbers where type ``t`` expects a card kind (the
    value itself, or the items of a flow list ``[3, 4]`` of card kinds): a shell eats the quotes of
    ``'3'``, and a card kind is never a number."""
    depth = 0
    while isinstance(t, ListOf):
        t, depth = t.elem.inner if isinstance(t.elem, Nullable) else t.elem, depth + 1
    if t != RANK:
        return []
    if depth == 0:
        m = re.fullmatch(r"\s*(\d+)\s*", value)
        return [m.span(1)] if m else []
    return [m.span(1) for m in _BARE_NUMBER.finditer(value)] if value.strip().startswith("[") else []


def _typed_key(part: str, mapping: Any) -> Any:
    """A dotted key's part as the map has its keys: the map's own key whose text it is, else a
    whole number where the map's keys are numbers, else the text."""
    if isinstance(mapping, dict):
        for k in mapping:
            if str(k) == part:
                return k
        if mapping and all(isinstance(k, int) and not isinstance(k, bool) for k in mapping) and re.fullmatch(r"-?\d+", part):
            return int(part)
    return part


def parse_overrides(texts: Sequence[str], option: str = OPTION) -> list[Override]:
    """Each ``KEY=VALUE`` (the ``--set`` options in order; ``option``: the option they came from,
    ``--grid`` for a sweep's ``KEY=V1,V2,...``, which its messages and hint name); :class:`GoujiError`
    with every one that is not of that shape (code ``BadOverride``, at the option)."""
    out, errors = _parse(texts, option)
    if errors:
        raise GoujiError(errors)
    return out


def _shape(option: str) -> tuple[str, str, str]:
    """(what one option is, what it is when it has more than a line, the hint) for ``--set`` / ``--grid``."""
    if option == OPTION:
        return (_("an override is KEY=VALUE"), _("an override is one line"),
                _("write --set KEY=VALUE, e.g. --set filler_rank=null or --set gouji_minimum.2=2 (dots go into a map)"))
    return (_("a grid is KEY=V1,V2,..."), _("a grid is one line"),
            _("write --grid KEY=V1,V2,..., e.g. --grid gouji_minimum.2=1,2 or --grid filler_rank=2,null (dots go into "
              "a map; commas separate the values)"))


def _parse(texts: Sequence[str], option: str = OPTION) -> tuple[list[Override], list[Diagnostic]]:
    out, errors = [], []
    shape, one_line, hint = _shape(option)

    def bad(i: int, text: str, col: int, message: str) -> Diagnostic:
        return Diagnostic(layer_path(i, option), 1, col, message, hint, text, Severity.ERROR, Code.BAD_OVERRIDE)

    for i, text in enumerate(texts, start=1):
        if "\n" in text or "\r" in text:
            errors.append(bad(i, text.replace("\n", " ").replace("\r", " "), 1, one_line))
            continue
        key, eq, value = text.partition("=")
        if not eq:
            errors.append(bad(i, text, 1, _("{shape}: no '=' in {text}").format(shape=shape, text=json.dumps(text))))
            continue
        parts: list[tuple[str, int]] = []
        col = 1
        for piece in key.split("."):
            if not _PART.fullmatch(piece):
                errors.append(bad(i, text, col, _("an empty or spaced part in the key {key}").format(key=json.dumps(key))))
                break
            parts.append((piece, col))
            col += len(piece) + 1
        else:
            out.append(Override(i, text, tuple(parts), value, len(key) + 2, option))
    return out, errors + twice(out)


def twice(overrides: Sequence[Override]) -> list[Diagnostic]:
    """An error at each override of a key an earlier override already set (the first would be
    silently replaced), naming both options; and at each whole value that sets again what an earlier
    dotted key set (``revolution.place=3`` then ``revolution={..., place: 4}``: the map is merged in
    order, so the later value would silently discard the earlier option). A later dotted key into an
    earlier whole value (``revolution={...}`` then ``revolution.place=3``) changes one entry of it: no
    error. The values of one option (a ``--grid``'s, sharing its path) are not compared with each
    other; one error per option."""
    first: dict[str, Override] = {}
    out: list[Diagnostic] = []
    flagged: set[str] = set()
    for ov in overrides:
        if ov.path in flagged:
            continue
        before = first.setdefault(ov.key, ov)
        if before.path != ov.path:
            flagged.add(ov.path)
            out.append(Diagnostic(ov.path, 1, 1, _("{key} is set twice: by {first} and by {second}").format(
                key=ov.key, first=f"{before.option} {before.text}", second=f"{ov.option} {ov.text}"),
                _("set each setting once"), ov.text, Severity.ERROR, Code.BAD_OVERRIDE))
            continue
        earlier = next((e for e in first.values() if e.path != ov.path and _discards(ov, e)), None)
        if earlier is not None:
            flagged.add(ov.path)
            out.append(Diagnostic(ov.path, 1, ov.value_at, _(
                "{later} sets {key} again, discarding {first}: the options are applied in order").format(
                later=f"{ov.option} {ov.text}", key=earlier.key, first=f"{earlier.option} {earlier.text}"),
                _("leave {key} out of the whole value, or give {key} after it").format(key=earlier.key),
                ov.text, Severity.ERROR, Code.BAD_OVERRIDE))
    return out


def _discards(later: Override, earlier: Override) -> bool:
    """True when ``later``'s whole value (a key above ``earlier``'s dotted key) sets ``earlier``'s key
    again: the value, read as YAML, has the rest of the key (a value that is no map replaces all of it).
    A value that cannot be read is left to the check (its own error)."""
    import yaml
    names = [p for p, _at in earlier.parts]
    above = [p for p, _at in later.parts]
    if len(above) >= len(names) or names[:len(above)] != above:
        return False
    try:
        value = yaml.safe_load(later.value)
    except yaml.YAMLError:
        return False
    for part in names[len(above):]:
        if not isinstance(value, dict):
            return True
        keys = [k for k in value if str(k) == part]
        if not keys:
            return False
        value = value[keys[0]]
    return True


def label(name: str, texts: Sequence[str]) -> str:
    """The name a ruleset with overrides is shown under: ``online --set filler_rank=null``."""
    return " ".join([name] + [f"{OPTION} {t}" for t in texts])


def _move(d: Diagnostic, overrides: dict[str, tuple[Override, list[_Segment]]]) -> Diagnostic:
    """``d`` moved from a generated layer to its option (line 1, the column in the option text)."""
    got = overrides.get(d.path)
    if got is None:
        return d
    ov, segments = got
    col = _col_of(segments, d.line, d.col) if d.line > 0 else 1
    end = _col_of(segments, d.end_line, d.end_col) if d.end_line > 0 and d.end_col > 0 else 0
    return replace(d, line=1, col=col, end_line=1 if end else 0, end_col=end if end > col else 0, source_line=ov.text)


def _col_of(segments: list[_Segment], line: int, col: int) -> int:
    """The column in the option text of ``line``:``col`` of its generated layer. A column past the
    end of a piece, before the next piece of its line (the empty value after ``yield_to:``, where YAML
    puts the null of ``yield_to=``), is that next piece's."""
    for i in range(len(segments) - 1, -1, -1):
        s = segments[i]
        if s.line == line and col >= s.col:
            after = segments[i + 1] if i + 1 < len(segments) else None
            if col > s.col + s.length and after is not None and after.line == line:
                return after.at
            return s.at + min(col - s.col, s.length)
    on_line = [s for s in segments if s.line == line]
    return on_line[0].at if on_line else 1


def _layers(ruleset: str, overrides: list[Override], search: Sequence[str]) -> list[tuple[str, str, list[_Segment]]]:
    """The generated layers, each key of a map typed as the ruleset's value of the setting has it."""
    base = resolve(ruleset, search=search)
    try:
        types = {n: info.type for n, info in settings_of(base).items()}
    except GoujiError:  # (the ruleset's own errors are reported by the check)
        types = {}
    out = []
    for ov in overrides:
        setting = base.settings.get(ov.parts[0][0])
        text, segments = ov.layer(base.name, setting.value if setting is not None else None, types.get(ov.parts[0][0]))
        out.append((ov.path, text, segments))
    return out


def load_graph(ruleset: str, texts: Sequence[str], search: Sequence[str] = ()) -> RuleGraph:
    """RULESET with the overrides ``texts`` (``KEY=VALUE`` each), checked as ``gouji validate`` checks a
    variant file, compiled, and named :func:`label`. Raises :class:`GoujiError` with every problem,
    those of an override at the option (see the module's doc)."""
    overrides, bad = _parse(texts)
    # an option set twice (or discarding an earlier one) is reported alone: the check goes on without
    # it, so what it would have changed does not add errors of its own (`--set seats=6 --set seats=4`)
    flagged = {d.path for d in bad}
    overrides = [ov for ov in overrides if ov.path not in flagged]
    return _load(ruleset, overrides, bad, " ".join(f"{OPTION} {t}" for t in texts), search)


def load_point(ruleset: str, overrides: Sequence[Override], shown: str, search: Sequence[str] = ()) -> RuleGraph:
    """RULESET with ``overrides`` already parsed (a point of ``gouji sweep``'s grid), named
    ``RULESET SHOWN``; as :func:`load_graph`."""
    return _load(ruleset, list(overrides), [], shown, search)


def _place(path: str) -> tuple[bool, int]:
    """Where the problems at ``path`` come in order: a file's first, then ``--set[1]``, ``--set[2]`` …,
    then ``--grid[1]`` … (the options as numbered)."""
    m = re.fullmatch(r"--([a-z]+)\[(\d+)\]", path)
    return (m.group(1) != OPTION[2:], int(m.group(2))) if m else (False, 0)


def _load(ruleset: str, overrides: list[Override], bad: list[Diagnostic], shown: str,
          search: Sequence[str]) -> RuleGraph:
    layers = _layers(ruleset, overrides, search)
    where = {path: (ov, segments) for ov, (path, _text, segments) in zip(overrides, layers)}
    result = check(ruleset, search=search, layers=[(path, text) for path, text, _s in layers])
    outside = [d for d in result.errors if d.path not in where]
    if outside and overrides:
        outside = _blame(ruleset, overrides, layers, outside, search)
    problems = bad + [_move(d, where) for d in result.errors if d.path in where] + outside
    # a setting nothing reads: a warning in a file, an error for an override (it would change nothing)
    problems += [_hook_hint(replace(_move(d, where), severity=Severity.ERROR), ruleset, search)
                 for d in result.warnings if d.path in where]
    option = overrides[0].option if overrides else OPTION
    problems.sort(key=lambda d: (_place(d.path), d.path, d.line, d.col))
    if problems or result.chain.resolved is None:
        raise GoujiError(problems or [Diagnostic(layer_path(1, option), 1, 1, _("cannot apply the overrides"),
                                                 code=Code.BAD_OVERRIDE)])
    resolved = result.chain.resolved
    settings = {name: _at_option(spec, where) for name, spec in resolved.settings.items()}
    resolved = replace(resolved, name=f"{resolved.name} {shown}".rstrip(), settings=settings)
    return compile_ruleset(resolved, overlay={path: text for path, text, _s in layers})


def _identity(d: Diagnostic) -> tuple[Any, ...]:
    return (d.path, d.line, d.col, str(d.code), d.message)


def _blame(ruleset: str, overrides: list[Override], layers: list[tuple[str, str, list[_Segment]]],
           found: list[Diagnostic], search: Sequence[str]) -> list[Diagnostic]:
    """The errors ``found`` in the ruleset's own files: those the ruleset does not have without the
    overrides are their consequence (``--set seats=4``: place_points' keys 5 and 6 are no places),
    each moved to the option after which it first appears (the layers checked one more at a time),
    saying where in the file it is; the ruleset's own errors stay where they are."""
    own = {_identity(d) for d in check(ruleset, search=search).errors}
    caused = [d for d in found if _identity(d) not in own]
    culprit: dict[tuple[Any, ...], Override] = {}
    for k in range(1, len(overrides)):
        if len(culprit) == len(caused):
            break
        seen = {_identity(d) for d in check(ruleset, search=search, layers=[(p, t) for p, t, _s in layers[:k]]).errors}
        for d in caused:
            if _identity(d) in seen:
                culprit.setdefault(_identity(d), overrides[k - 1])
    return [d for d in found if _identity(d) in own] + [
        _consequence(d, culprit.get(_identity(d), overrides[-1])) for d in caused]


def _consequence(d: Diagnostic, ov: Override) -> Diagnostic:
    """``d`` (in a ruleset's file) at the option ``ov`` that caused it, at its value."""
    return replace(d, path=ov.path, line=1, col=ov.value_at, end_line=0, end_col=0, source_line=ov.text,
                   message=_("with {option}, {where}: {message}").format(
                       option=f"{ov.option} {ov.text}", where=_where(d), message=d.message),
                   hint=d.hint or _("the ruleset's own text does not hold with this value: change that too "
                                    "(another {option}) or choose another value").format(option=ov.option))


def _where(d: Diagnostic) -> str:
    """``d``'s place as every citation shows a file (``<bundled>/base.yaml:93:37``, not a path into
    site-packages)."""
    return ":".join([short_path(d.path)] + [str(n) for n in (d.line, d.col) if n > 0])


def _hook_hint(d: Diagnostic, ruleset: str, search: Sequence[str]) -> Diagnostic:
    """An unread override named as a hook (``burn_failure``): say that rules answer it, not a setting."""
    if d.code != Code.UNREAD_SETTING or not d.source_line:
        return d
    name = d.source_line.partition("=")[0].split(".")[0]
    try:
        rules = compile_ruleset(resolve(ruleset, search=search)).by_hook.get(name)
    except GoujiError:
        return d
    if not rules:
        return d
    ids = ", ".join(r.node.id for r in rules)
    return replace(d, hint=_("{name} is a hook, not a setting: the rules answering it ({ids}) are changed in a variant "
                             "file (a rule with the same id replaces it). To sweep it, a variant declares a setting and "
                             "answers {name} with it (value: settings.NAME); then --grid NAME=V1,V2 on that variant "
                             "(README: Sweeping a hook; examples/variants/burn-failure-setting.yaml)").format(name=name, ids=ids))


def _at_option(spec: Any, where: dict[str, tuple[Override, list[_Segment]]]) -> Any:
    """A setting an override set, its position moved to the option (``--set[N]:1:COL`` of the value)."""
    got = where.get(spec.origin.path)
    if got is None:
        return spec
    ov = got[0]

    def moved(pos: SourcePos) -> SourcePos:
        at = where.get(pos.path)
        return pos if at is None else SourcePos(pos.path, 1, _col_of(at[1], pos.line, pos.col) if pos.line > 0 else 1)

    return replace(spec, origin=SourcePos(ov.path, 1, ov.value_at),
                   name_origin=SourcePos(ov.path, 1, 1) if spec.name_origin is not None else None,
                   key_origins={k: moved(p) for k, p in spec.key_origins.items()},
                   positions={k: moved(p) for k, p in spec.positions.items()},
                   key_positions={k: moved(p) for k, p in spec.key_positions.items()})


def load_resolved(ruleset: str, texts: Sequence[str], search: Sequence[str] = ()) -> Any:
    """:func:`load_graph`'s resolved ruleset (``gouji show``)."""
    return load_graph(ruleset, texts, search).resolved
