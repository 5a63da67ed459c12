"""What a scenario file is made of, for the scenario runner (:mod:`gouji_dsl.tools.scenarios`): the keys of a file,
a case and each kind of case, and the limits; YAML read with the position of every value and key (:class:`PosDict`,
:class:`PosList`; :func:`value_at`, :func:`key_at`, :func:`item_at` give ``(line, col)``) and values quoted as YAML
(:func:`as_yaml`); a case's error at its position with a stable code (:class:`CaseError`); reading a file without
trusting it (:func:`read_doc`) and the ruleset a file or case names (:func:`graph_for`).
"""
from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml

from gouji_dsl.diagnostics import Code, GoujiError, did_you_mean, shortened
from gouji_dsl.i18n import _
from gouji_dsl.readfile import FileTooLarge, NotRegularFile, os_reason, read_regular
from gouji_dsl.ruleset.graph import RuleGraph, compile_ruleset
from gouji_dsl.ruleset.load.finding import find_ruleset
from gouji_dsl.ruleset.load.resolving import resolve

FILE_KEYS = ("ruleset", "cases", "title", "description")
CLASSIFY_KEYS = ("valid", "rank", "count", "jokers", "gouji")
COMPARE_KEYS = ("beats",)
PACK_KEYS = ("cards", "ranks", "hand_sizes")
GAME_KEYS = ("to_act", "over", "places", "scores", "sweep", "hands", "hand_sizes", "legal", "illegal",
             "voided", "counts_shown", "explained_by", "transfers", "sees", "sees_count", "match_games",
             "deal_valid")
CASE_KEYS = ("name", "ruleset", "classify", "compare", "pack", "deal", "leader", "moves", "expect",
             "next_deal", "next_moves", "seed", "redeal_deals")
CASE_KINDS = ("classify", "compare", "pack", "deal")
MOVE_ITEM_KEYS = ("move", "expect")

MAX_SCENARIO_BYTES = 4_000_000
"""A scenario file larger than this is refused before it is parsed."""
MAX_RULESET_REF = 255
"""The longest ``ruleset:`` value (a name or a path) the runner looks up."""


# ------------------------------------------------------------------------ YAML with positions
class _PosLoader(yaml.SafeLoader):
    def construct_object(self, node: yaml.Node, deep: bool = False) -> Any:
        """PyYAML's constructors raise plain exceptions on an explicit tag whose text does not fit
        (``!!timestamp expect``, ``!!int x``, ``!!float abc``): those become a positioned YAML error."""
        try:
            return super().construct_object(node, deep=deep)
        except (ValueError, TypeError, AttributeError, OverflowError) as e:
            raise yaml.MarkedYAMLError(_("while reading a value"), node.start_mark,
                                       _("{node} cannot read {getattr!r}").format(
                                           node=node.tag.replace('tag:yaml.org,2002:', '!!'), getattr=getattr(node, 'value', ''))
                                       if isinstance(node, yaml.ScalarNode) else _("cannot read this value ({e})").format(e=e),
                                       node.start_mark) from None


class PosDict(dict):
    """A mapping from a scenario file with the positions of the mapping, its keys and values."""

    pos: tuple[int, int] = (0, 0)
    key_pos: dict[Any, tuple[int, int]]
    val_pos: dict[Any, tuple[int, int]]


class PosList(list):
    """A list from a scenario file with the position of the list and of each item."""

    pos: tuple[int, int] = (0, 0)
    item_pos: list[tuple[int, int]]


def _quoted(node: yaml.Node) -> int:
    return 1 if getattr(node, "style", None) in ("'", '"') else 0


def _mapping(loader: yaml.SafeLoader, node: yaml.MappingNode) -> PosDict:
    d = PosDict()
    d.pos = (node.start_mark.line + 1, node.start_mark.column + 1)
    d.key_pos, d.val_pos = {}, {}
    for k_node, v_node in node.value:
        k = loader.construct_object(k_node, deep=True)
        try:
            hash(k)
        except TypeError:
            raise yaml.MarkedYAMLError(_("while reading a mapping"), node.start_mark,
                                       _("a key must be a plain value"), k_node.start_mark) from None
        if k in d:
            raise yaml.MarkedYAMLError(_("while reading a mapping"), node.start_mark,
                                       _("duplicate key {k!r}").format(k=k), k_node.start_mark)
        d[k] = loader.construct_object(v_node, deep=True)
        d.key_pos[k] = (k_node.start_mark.line + 1, k_node.start_mark.column + 1)
        d.val_pos[k] = (v_node.start_mark.line + 1, v_node.start_mark.column + 1 + _quoted(v_node))
    return d


def _sequence(loader: yaml.SafeLoader, node: yaml.SequenceNode) -> PosList:
    out = PosList(loader.construct_object(n, deep=True) for n in node.value)
    out.pos = (node.start_mark.line + 1, node.start_mark.column + 1)
    out.item_pos = [(n.start_mark.line + 1, n.start_mark.column + 1 + _quoted(n)) for n in node.value]
    return out


_PosLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping)
_PosLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, _sequence)


class CaseError(Exception):
    """A problem that ends a case (or a file): its position, message, code and hint."""

    def __init__(self, pos: tuple[int, int], msg: str, code: str = Code.SCENARIO_VALUE, hint: str | None = None):
        super().__init__(msg)
        self.line, self.col = pos
        self.msg, self.code, self.hint = msg, code, hint

    def text(self, disp: str) -> str:
        return f"{disp}:{self.line}:{self.col}: {self.msg}" + (_(" (hint: {hint})").format(hint=self.hint) if self.hint else "")


class PackError(CaseError):
    """A deal the ruleset's pack cannot hold (``expect: {deal_valid: false}`` expects it)."""


def value_at(d: Any, key: Any) -> tuple[int, int]:
    """Where the value of ``key`` of a mapping from the file was written ((0, 0) when unknown)."""
    if isinstance(d, PosDict):
        return d.val_pos.get(key, d.pos)
    return (0, 0)


def key_at(d: Any, key: Any) -> tuple[int, int]:
    if isinstance(d, PosDict):
        return d.key_pos.get(key, d.pos)
    return (0, 0)


def item_at(items: Any, i: int) -> tuple[int, int]:
    if isinstance(items, PosList) and i < len(items.item_pos):
        return items.item_pos[i]
    return (0, 0)


def as_yaml(v: Any) -> str:
    """A value as YAML spells it (true, false, none), for messages (long values cut short)."""
    if isinstance(v, bool):
        text = "true" if v else "false"
    elif v is None:
        text = "none"
    elif isinstance(v, dict):
        text = "{" + ", ".join(f"{k}: {as_yaml(x)}" for k, x in v.items()) + "}"
    elif isinstance(v, list):
        text = "[" + ", ".join(as_yaml(x) for x in v) + "]"
    elif isinstance(v, str):
        text = repr(v)
    else:
        text = str(v)
    return shortened(text)


def unknown_key(where: tuple[int, int], what: str, key: Any, known: Sequence[str], detail: str = "") -> CaseError:
    guess = did_you_mean(str(key), known)
    hint = (f"{guess} " if guess else "") + _("{what} keys{detail}: {join}").format(what=what, detail=detail, join=', '.join(known))
    said = detail.strip()
    if said and not said.startswith(("(", "（")):
        said = f" ({said})"
    # (the known keys are in the hint, once)
    return CaseError(where, _("unknown {what} key {yaml}").format(what=what, yaml=as_yaml(key)) + said, Code.SCENARIO_KEY, hint)


# ------------------------------------------------------------------------ reading a file
def read_doc(p: Path, disp: str) -> Any:
    """The parsed YAML of a scenario file, or :class:`CaseError` (never another exception)."""
    try:  # /dev/zero was read to the end of memory (5 GB in 8 s), a FIFO waited
        data = read_regular(p, MAX_SCENARIO_BYTES)
    except NotRegularFile as e:
        raise CaseError((0, 0), _("cannot read: {kind}").format(kind=e.kind), Code.SCENARIO_FILE, _("give the path of a .yaml file")) from None
    except FileTooLarge as e:
        raise CaseError((0, 0), _("the file is {strerror}: a scenario file may have at most {max_scenario_bytes:,}").format(
            strerror=e.strerror, max_scenario_bytes=MAX_SCENARIO_BYTES),
                         Code.SCENARIO_FILE, _("split the cases over several files")) from None
    except OSError as e:
        raise CaseError((0, 0), _("cannot read: {e}").format(e=os_reason(e)), Code.SCENARIO_FILE) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        col = e.start - (data.rfind(b"\n", 0, e.start) + 1) + 1
        raise CaseError((line, col), _("not UTF-8 text: byte 0x{data:02x} cannot be read").format(data=data[e.start]),
                         Code.SCENARIO_FILE, _("save the file as UTF-8")) from None
    try:
        return yaml.load(text, Loader=_PosLoader)  # a SafeLoader subclass
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        where = (mark.line + 1, mark.column + 1) if mark else (0, 0)
        raise CaseError(where, _("YAML error: {e}").format(e=e.problem or e.context), Code.SCENARIO_FILE) from None
    except yaml.YAMLError as e:
        raise CaseError((0, 0), _("YAML error: {e}").format(e=e), Code.SCENARIO_FILE) from None
    except RecursionError:
        raise CaseError((0, 0), _("the YAML is nested too deeply"), Code.SCENARIO_FILE) from None
    except ValueError as e:  # e.g. an integer with thousands of digits
        raise CaseError((0, 0), _("a value cannot be read: {e}").format(e=e), Code.SCENARIO_FILE) from None


def graph_for(ref: Any, where: tuple[int, int], path: Path, cache: dict[str, RuleGraph],
               search: Sequence[str | os.PathLike[str]]) -> RuleGraph:
    """The compiled ruleset a scenario names (see :func:`gouji_dsl.ruleset.load.finding.find_ruleset`)."""
    if not isinstance(ref, str) or not ref.strip():
        raise CaseError(where, _("ruleset must be a bundled ruleset's name or a .yaml path, got {yaml}").format(yaml=as_yaml(ref)),
                         Code.SCENARIO_VALUE, _("e.g. 'ruleset: online' or 'ruleset: house.yaml'"))
    if ref in cache:  # a graph the caller gave for this name (tools.cases.check_case)
        return cache[ref]
    memo = f"{path.parent}::{ref}"
    if memo in cache:
        return cache[memo]
    if len(ref) > MAX_RULESET_REF:
        raise CaseError(where, _("ruleset: a name or path of {n} characters (at most {max_ruleset_ref})").format(
            n=len(ref), max_ruleset_ref=MAX_RULESET_REF),
                         Code.SCENARIO_RULESET, _("name a bundled ruleset or a .yaml file beside the scenario"))
    try:
        found = find_ruleset(ref, referrer=path, search=search)
        if _is_scenario_file(found):
            # tests/scenarios/online.yaml (the scenarios of online) beside this file is not the ruleset
            found = find_ruleset(ref, referrer=found, search=search)
        key = str(found)
        if key not in cache:
            cache[key] = compile_ruleset(resolve(key, search=search))
        cache[memo] = cache[key]
        return cache[key]
    except GoujiError as e:
        d = e.diagnostics[0]
        msgs = "; ".join(x.short() if x.line > 0 else x.message for x in e.diagnostics[:3])
        raise CaseError(where, _("ruleset {ref!r} does not load: {msgs}").format(ref=ref, msgs=msgs), Code.SCENARIO_RULESET, d.hint) from None
    except (OSError, ValueError) as e:
        raise CaseError(where, _("ruleset {ref!r} does not load: {e}").format(ref=ref, e=e), Code.SCENARIO_RULESET) from None


_CASES_LINE = re.compile(r"^cases\s*:", re.MULTILINE)


def _is_scenario_file(path: Path) -> bool:
    """A file with a top-level ``cases:`` key: scenarios, not a ruleset."""
    try:
        data = read_regular(path, MAX_SCENARIO_BYTES)  # a FIFO would wait for a writer: not a scenario file
    except OSError:
        return False
    return _CASES_LINE.search(data.decode("utf-8", errors="replace")) is not None
