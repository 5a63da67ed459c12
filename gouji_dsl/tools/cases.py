"""A position as a rule scenario: :func:`scenario_case` writes a game position as a NOTATION.md game case
(one item of a scenario file's ``cases:``), :func:`check_case` runs such a case through the scenario
runner (:mod:`gouji_dsl.tools.scenarios`), :func:`add_case_to_file` adds one to a scenario file keeping
every other line of it. (``gouji play``'s "save as a scenario" uses them.)
"""
from __future__ import annotations

import io
import json
import os
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import yaml

from gouji_dsl.atomic import atomic_write
from gouji_dsl.diagnostics import Code, Diagnostic, GoujiError
from gouji_dsl.engine.interpreter import GameState, Move
from gouji_dsl.i18n import _
from gouji_dsl.ruleset.game.cards import SUITLESS
from gouji_dsl.ruleset.graph import RuleGraph
from gouji_dsl.tools.scenarios import run_file

__all__ = ["scenario_case", "check_case", "add_case_to_file"]

SETUP_PHASES = ("setup", "declare", "choose")


def _deal_text(state: GameState, s: int, suits: bool) -> str:
    if not suits:
        return state.model.text(state.dealt[s])
    order = {k: i for i, k in enumerate(state.kinds)}
    groups: dict[str, list[str]] = {}
    for c in sorted(state.dealt_cards[s], key=lambda c: (-order.get(c.symbol, 0), c.suit)):
        groups.setdefault(c.symbol, []).append(str(c))
    jokers = "".join("".join(g) for sym, g in groups.items() if sym in SUITLESS)
    ranks = ["".join(g) for sym, g in groups.items() if sym not in SUITLESS]
    return " ".join(([jokers] if jokers else []) + ranks)


def _game_events(state: GameState) -> list[dict[str, Any]]:
    """The events since the last deal (a redeal starts over)."""
    rec = state.record
    last = max(i for i, e in enumerate(rec) if e["type"] == "deal")
    return rec[last:]


def _moves_with_phase(state: GameState) -> list[tuple[str, bool]]:
    """(move text, made before play began) for the moves since the last deal."""
    out = []
    started = False
    for e in _game_events(state):
        if e["type"] == "first_leader":
            started = True
        elif e["type"] == "move":
            out.append((e["move"], not started))
    return out


def _case_moves(state: GameState, returns: bool = True, omit: bool = False) -> list[str]:
    """The moves of the game for a case: setup answers are left out when all were the defaults
    and play has begun (the runner declines a skipped setup); return-tribute moves are kept
    unless ``returns`` is false."""
    moves = _moves_with_phase(state)
    setup = [t for t, before in moves if before and t.split()[1] != "return"]
    if state.phase not in SETUP_PHASES and (omit or all(_default_answer(t) for t in setup)):
        moves = [(t, before) for t, before in moves if not before or t.split()[1] == "return"]
    return [t for t, _ in moves if returns or t.split()[1] != "return"]


def _default_answer(text: str) -> bool:
    parts = text.split()
    return parts[1] == "pass" or (parts[1] == "choose" and parts[-1] == "head")


def scenario_case(state: GameState, name: str, *, illegal: Iterable[str] = (), max_legal: int = 40,
                  previous: GameState | None = None, indent: int = 2, verify: bool = True) -> str:
    """The position ``state`` as a NOTATION.md game case (YAML text of one item of ``cases:``).

    ``deal`` is the dealt hands, ``leader`` the seat that led first, ``moves`` every move so far,
    and ``expect`` what holds now: ``to_act`` and (up to ``max_legal`` of) the ``legal`` moves, or
    ``over``, ``places`` and ``scores`` for a finished game. ``illegal``: move lines (with seat) to
    list as illegal too (e.g. an attempt that was refused). For the second game of a match give
    ``previous`` (the first game's final state): the case then plays the first game and deals the
    second with ``next_deal`` / ``next_moves``, so tribute is replayed. For a later game of a match
    the deal is the hands as play began (after tribute), noted in a comment.

    Setup answers are left out when they were all the defaults (pass, keep the head) and the game
    is past the setup: the scenario runner declines the setup for a case that goes straight to play.

    With ``verify`` the case is run through the scenario runner (:mod:`gouji_dsl.tools.scenarios`) under
    ``state.graph``; when it does not pass as written but does with the setup answers left out (the
    runner reads a leading setup ``pass`` as "skip the setup"), that version is returned with a
    comment; when neither passes, the case is returned with a comment saying why."""
    kw: dict[str, Any] = dict(illegal=list(illegal), max_legal=max_legal, indent=indent)
    exact = _case_text(state, name, omit_setup=False, previous=previous, **kw)
    if not verify:
        return exact
    errors = check_case(state.graph, exact)
    if not errors:
        return exact
    pad = " " * indent + "  "
    notes = {
        "omit": ["setup answers left out: they do not change this position, and `gouji test`",
                 "reads a leading setup 'pass' as skipping the setup"],
        "alone": ["this game on its own: the first game of the match is not replayed (`gouji test`",
                  "reads a leading setup 'pass' as skipping the setup)"],
    }
    variants: list[tuple[str, dict[str, Any]]] = []
    if state.phase not in SETUP_PHASES:
        variants.append(("omit", dict(omit_setup=True, previous=previous)))
    if previous is not None:
        variants.append(("alone", dict(omit_setup=False, previous=None)))
        if state.phase not in SETUP_PHASES:
            variants.append(("alone", dict(omit_setup=True, previous=None)))
    for why, opts in variants:
        text = _case_text(state, name, **opts, **kw)
        if text != exact and not check_case(state.graph, text):
            head, rest = text.split("\n", 1)
            return head + "\n" + "".join(f"{pad}# {ln}\n" for ln in notes[why]) + rest
    head, rest = exact.split("\n", 1)
    note = "; ".join(e.split(": ", 1)[-1] for e in errors[:2]).replace("\n", " ")
    return f"{head}\n{pad}# gouji test does not replay this case as written: {note}\n{rest}"


def check_case(graph: RuleGraph, case_text: str) -> list[str]:
    """Run one case (YAML text of a ``cases:`` item) under ``graph``; the runner's errors."""
    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / "case.yaml"
        p.write_text(f"ruleset: {json.dumps(graph.name)}\ncases:\n{case_text}", encoding="utf-8")
        results = run_file(p, {graph.name: graph})
    return [e.replace(str(p), "<case>") for r in results for e in r.errors]


def _case_text(state: GameState, name: str, *, omit_setup: bool, illegal: list[str], max_legal: int,
               previous: GameState | None, indent: int) -> str:
    first_leader = next((e for e in _game_events(state) if e["type"] == "first_leader"), None)
    w = _CaseWriter(" " * indent, first_leader["seat"] if first_leader else None, omit_setup)
    w.lines.append(f"{w.pad}- name: {json.dumps(name, ensure_ascii=False)}")
    if previous is not None and state.prev is not None and state.game_number == previous.game_number + 1 == 2:
        w.first_games_of_a_match(previous, state)
    elif state.prev is not None:
        w.later_game_of_a_match(state)
    else:
        w.one_game(state)
    w.expect(state, illegal, max_legal)
    return "\n".join(w.lines) + "\n"


class _CaseWriter:
    """The lines of one game case as :func:`scenario_case` writes it (``pad``: the indent of its ``- name:``)."""

    def __init__(self, pad: str, leader: int | None, omit_setup: bool):
        self.pad, self.body, self.leader, self.omit_setup = pad, pad + "  ", leader, omit_setup
        self.lines: list[str] = []

    def deal_block(self, key: str, st: GameState, hands: dict[int, str] | None = None) -> None:
        self.lines.append(f"{self.body}{key}:")
        for s in st.seat_list:
            t = hands[s] if hands is not None else _deal_text(st, s, suits=self.leader is None)
            self.lines.append(f"{self.body}  {s}: {json.dumps(t)}")

    def move_block(self, key: str, st: GameState, returns: bool = True) -> None:
        moves = _case_moves(st, returns, self.omit_setup)
        self.lines.append(f"{self.body}{key}:" + ("" if moves else " []"))
        for t in moves:
            self.lines.append(f"{self.body}  - {t}")

    def first_games_of_a_match(self, previous: GameState, state: GameState) -> None:
        """Games 1 and 2 of a match: the first dealt and played, then ``next_deal`` and ``next_moves`` (tribute replayed)."""
        body, lines = self.body, self.lines
        lines.append(f"{body}# ruleset {state.graph.name}, games 1-2 of a match (tribute replayed)")
        if previous.seed is not None:
            lines.append(f"{body}seed: {json.dumps(previous.seed)}")
        lead1 = next((e for e in _game_events(previous) if e["type"] == "first_leader"), None)
        self.deal_block("deal", previous, {s: previous.model.text(previous.dealt[s]) for s in previous.seat_list})
        if lead1:
            lines.append(f"{body}leader: {lead1['seat']}")
        self.move_block("moves", previous)
        # the next deal keeps its suits: the first-lead rule of the next game reads them
        lines.append(f"{body}next_deal:")
        for s in state.seat_list:
            lines.append(f"{body}  {s}: {json.dumps(_deal_text(state, s, suits=True))}")
        self.move_block("next_moves", state)

    def later_game_of_a_match(self, state: GameState) -> None:
        """A later game of a match: dealt as play began (tribute and return tribute not replayed)."""
        body, lines = self.body, self.lines
        lines.append(f"{body}# game {state.game_number} of a match: the deal is the hands as play began (after tribute);")
        lines.append(f"{body}# tribute and return tribute are not replayed")
        hands = _hands_at_play(state)
        lines.append(f"{body}deal:")
        for s in state.seat_list:
            lines.append(f"{body}  {s}: {json.dumps(state.model.text(hands[s]))}")
        if self.leader:
            lines.append(f"{body}leader: {self.leader}")
        self.move_block("moves", state, returns=False)

    def one_game(self, state: GameState) -> None:
        if self.leader is None:
            self.lines.append(f"{self.body}# still in the setup: the deal keeps its suits so the first-lead rule decides")
        self.deal_block("deal", state)
        if self.leader:
            self.lines.append(f"{self.body}leader: {self.leader}")
        self.move_block("moves", state)

    def expect(self, state: GameState, illegal: list[str], max_legal: int) -> None:
        """``expect:``: the places and scores of a game over, else who is to act, the legal moves (at most ``max_legal``
        listed), the ``illegal`` ones and the hand sizes."""
        lines = self.lines
        lines.append(f"{self.body}expect:")
        ex = self.body + "  "
        if state.over:
            lines.append(f"{ex}over: true")
            lines.append(f"{ex}places: {{{', '.join(f'{s}: {p}' for s, p in sorted(state.places.items()))}}}")
            lines.append(f"{ex}scores: {{{', '.join(f'{s}: {v}' for s, v in sorted(state.scores.items()))}}}")
            return
        lines.append(f"{ex}to_act: {state.to_act}")
        legal = state.legal_moves()
        texts = [m.text(state.model) for m in _legal_sample(state, legal, max_legal)]
        if len(texts) < len(legal):
            lines.append(f"{ex}# {len(legal)} legal moves; {len(texts)} listed")
        lines.append(f"{ex}legal:")
        for t in texts:
            lines.append(f"{ex}  - {t}")
        bad = [t for t in illegal if t]
        if bad:
            lines.append(f"{ex}illegal:")
            for t in bad:
                lines.append(f"{ex}  - {t}")
        lines.append(f"{ex}hand_sizes: {{{', '.join(f'{s}: {state.hand_size(s)}' for s in state.seat_list)}}}")


def _legal_sample(state: GameState, legal: Sequence[Move], k: int) -> list[Move]:
    if len(legal) <= k:
        return list(legal)
    others = [m for m in legal if m.cards is None]
    cards = [m for m in legal if m.cards is not None]
    model = state.model

    def key(m: Move) -> tuple[int, Any, Any, int]:
        p = model.classify(m.cards or ())
        return (len(p.jokers), p.filler, p.rank, p.count)

    cards.sort(key=key)
    return cards[:max(k - len(others), 0)] + others


def _hands_at_play(state: GameState) -> dict[int, tuple[int, ...]]:
    """Dealt hands plus every transfer before the first move (tribute, buying)."""
    hands = {s: list(state.dealt[s]) for s in state.seat_list}
    for e in _game_events(state):
        if e["type"] == "move":
            break
        if e["type"] == "transfer":
            v = state.model.parse(e["cards"])
            for i, c in enumerate(v):
                hands[e["giver"]][i] -= c
                hands[e["receiver"]][i] += c
    return {s: tuple(h) for s, h in hands.items()}


def _yaml_error(path: Path, e: Exception) -> GoujiError:
    mark = getattr(e, "problem_mark", None) or getattr(e, "context_mark", None)
    line, col = (mark.line + 1, mark.column + 1) if mark is not None else (0, 0)
    return GoujiError(Diagnostic(str(path), line, col, _("not valid YAML: {getattr}").format(getattr=getattr(e, 'problem', None) or e),
                                 code=Code.SCENARIO_FILE))


def _reindent(case_text: str, dash_col: int) -> list[str]:
    """``case_text``'s lines moved so that its ``- `` starts at column ``dash_col``."""
    lines = case_text.rstrip("\n").split("\n")
    first = next(ln for ln in lines if ln.strip())
    shift = dash_col - (len(first) - len(first.lstrip(" ")))
    if shift >= 0:
        return [(" " * shift + ln) if ln.strip() else ln for ln in lines]
    return [ln[-shift:] if ln[:-shift].strip() == "" else ln for ln in lines]


def _read_text(p: Path) -> str:
    try:
        return p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise GoujiError(Diagnostic(str(p), 0, 0, _("cannot read: {e}").format(e=e), code=Code.SCENARIO_FILE)) from None


def _refuse_another_ruleset(p: Path, data: Any, ruleset: str) -> None:
    """A scenario file (read round-trip: ``data``) whose ``ruleset:`` is not ``ruleset`` (by name or file stem) is refused."""
    if str(data.get("ruleset")) != ruleset and Path(str(data.get("ruleset"))).stem != ruleset:
        ln = data.lc.key("ruleset")[0] + 1 if "ruleset" in data else 1
        raise GoujiError(Diagnostic(str(p), ln, 1, _("this scenario file is for ruleset {data!r}, not {ruleset!r}").format(
            data=data.get('ruleset'), ruleset=ruleset),
                                    code=Code.SCENARIO_RULESET))


def _end_of_list(lines: list[str], key_line: int, block_end: int) -> int:
    """Where a block ``cases:`` list (its key on ``key_line``; the next top-level key on ``block_end``) ends: blank
    lines and column-0 comments just before the next key belong to it."""
    at = block_end
    while at > key_line + 1 and (not lines[at - 1].strip() or lines[at - 1].startswith("#")):
        at -= 1
    return at


def add_case_to_file(path: str | os.PathLike[str], ruleset: str, case_text: str) -> Path:
    """Add ``case_text`` (one ``cases:`` item, from :func:`scenario_case`) to the end of the
    ``cases:`` list of the scenario file ``path``, creating the file (``ruleset: NAME`` /
    ``cases:``) when it does not exist. The file is read with ruamel.yaml's round-trip loader to
    find where its list ends and how it is indented, and the case is inserted there: every other
    line — comments, keys after ``cases:``, formatting — stays as it was. The result is checked to
    read back with the case added before it is written (atomically). Raises :class:`GoujiError` when
    the file is not YAML, has no ``cases:`` list or is for another ruleset."""
    from ruamel.yaml import YAML
    from ruamel.yaml.comments import CommentedMap, CommentedSeq
    from ruamel.yaml.error import YAMLError as RuamelError
    p = Path(path)
    if not p.exists():
        text = f"ruleset: {ruleset}\ncases:\n" + "\n".join(_reindent(case_text, 2)) + "\n"
        p.absolute().parent.mkdir(parents=True, exist_ok=True)
        atomic_write(p, text)
        return p
    old = _read_text(p)
    rt = YAML(typ="rt")
    try:
        data = rt.load(old)
        case = rt.load(case_text)
    except RuamelError as e:
        raise _yaml_error(p, e) from None
    if not isinstance(data, CommentedMap) or "cases" not in data:
        raise GoujiError(Diagnostic(str(p), 1, 1, _("not a scenario file: it has no 'cases:' list"), code=Code.SCENARIO_KEY))
    _refuse_another_ruleset(p, data, ruleset)
    cases = data["cases"]
    if cases is not None and not isinstance(cases, CommentedSeq):
        ln, col = data.lc.value("cases")
        raise GoujiError(Diagnostic(str(p), ln + 1, col + 1, _("'cases:' is not a list"), code=Code.SCENARIO_VALUE))
    n_before = len(cases or [])
    lines = old.split("\n")
    if old.endswith("\n"):
        lines.pop()
    key_line, key_col = data.lc.key("cases")
    keys = list(data)
    later = [data.lc.key(k)[0] for k in keys[keys.index("cases") + 1:]]
    block_end = min(later) if later else len(lines)   # the line the next top-level key is on (0-based)
    if cases is None or not cases or cases.fa.flow_style():
        if cases:  # a non-empty flow list `cases: [...]`: round-trip the whole file (comments kept)
            cases.append(case[0] if isinstance(case, list) and case else case)
            cases.fa.set_block_style()
            out = io.StringIO()
            rt.dump(data, out)
            text = out.getvalue()
        else:  # `cases:` or `cases: []`: the key line becomes `cases:` and the case follows it
            head = lines[key_line][:key_col] + "cases:"
            comment = lines[key_line].split("#", 1)[1] if "#" in lines[key_line].split("cases", 1)[1] else None
            new_lines = [head + (f"  #{comment}" if comment else "")] + _reindent(case_text, key_col + 2)
            text = "\n".join(lines[:key_line] + new_lines + lines[key_line + 1:]) + "\n"
    else:
        at = _end_of_list(lines, key_line, block_end)
        new_lines = _reindent(case_text, cases.lc.col)
        text = "\n".join(lines[:at] + new_lines + lines[at:]) + "\n"
    try:
        again = yaml.safe_load(text)
    except yaml.YAMLError as e:  # pragma: no cover - the insertion keeps the file's structure
        raise _yaml_error(p, e) from None
    if not isinstance(again, dict) or len(again.get("cases") or []) != n_before + 1:  # pragma: no cover
        raise GoujiError(Diagnostic(str(p), key_line + 1, key_col + 1, _("could not add the case to this file: add it by hand"),
                                    code=Code.SCENARIO_FILE))
    atomic_write(p, text)
    return p
