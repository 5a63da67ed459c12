"""Widgets of the play screen: seats around the table, the trick, your hand, the game log."""
from __future__ import annotations

import re
from typing import Any

from rich.cells import cell_len
from rich.console import Console
from rich.style import Style
from rich.text import Text
from textual import events
from textual.app import RenderResult
from textual.binding import Binding
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import Static, Tree
from textual.widgets.tree import TreeNode

from gouji_dsl.diagnostics import SourcePos
from gouji_dsl.engine.explain import explain
from gouji_dsl.engine.interpreter import GameState, choice_words, parse_move
from gouji_dsl.i18n import Language, bracketed
from gouji_dsl.ruleset.event_words import (
    NO_WORDS,
    event_label,
    event_text,
    place_text,
    seat_word,
    term_word,
    termed,
)
from gouji_dsl.ruleset.words import GameWords, Term

from ..i18n import N_, _, chinese, ngettext, spaced
from .session import PlaySession, ordinal, summarize


def role(state: GameState, me: int | None, seat: int) -> str:
    if me is None:  # (a spectator: nobody's partner)
        return _("team {team}").format(team=state.team(seat))
    if seat == me:
        return _("you")
    if seat == state.opposite(me):
        return _("opposite")
    return _("partner") if state.team(seat) == state.team(me) else _("opponent")


VERB_WORDS = {"play": N_("play"), "pass": N_("pass"), "burn": N_("burn"), "yield": N_("yield"), "revolt": N_("revolt"),
              "declare": N_("declare"), "choose": N_("choose"), "discard": N_("discard"), "return": N_("return")}
"""The verbs of moves as the log and the seats show them when the ruleset names them not (what you
type stays the notation: NOTATION.md)."""

#: the verbs whose move the ruleset names (``words.terms``): in Chinese the log says the ruleset's word
VERB_TERMS = {"pass": Term.PASS, "burn": Term.BURN, "yield": Term.YIELD, "revolt": Term.REVOLUTION,
              "declare": Term.DECLARED, "return": Term.RETURN_TRIBUTE}


def verb_word(verb: str, words: GameWords = NO_WORDS) -> str:
    """A move's verb in the active language: in English the notation's verb (``burn``), in Chinese
    the ruleset's word for it (``烧牌``), else the app's own (gettext)."""
    if chinese() and verb in VERB_TERMS and (named := words.term(VERB_TERMS[verb])):
        return named
    return _(VERB_WORDS[verb]) if verb in VERB_WORDS else verb


def flag_word(session: PlaySession, name: str) -> str:
    """A ruleset's marker (flag) as shown: the ruleset's word for it (``words.terms``: ``point opened
    (开点)``, in Chinese ``开点``), else the Chinese term of the rule that sets it (mined from its
    sentence) after its name, else its name; in Chinese the term alone, or ``标记 name`` (the
    ruleset's identifier, as rule ids are shown: never an English fragment read as a word)."""
    named = session.words.term(name)
    if named:
        return named
    term = session.flag_term(name)
    if chinese():
        return term or _("marker {name}").format(name=name)
    return name.replace("_", " ") + (f" ({term})" if term else "")


def cards_word(n: int) -> str:
    """``5 cards`` (5张)."""
    return ngettext("{n} card", "{n} cards", n).format(n=n)


# ------------------------------------------------------------------------------ seats


def out_text(place: int, words: GameWords = NO_WORDS) -> str:
    """``out third out (三科)``: a seat gone out, at ``place``; in Chinese with the ruleset's word for
    going out (``走科 三科（第三名）``)."""
    return termed(words, _("out ({term}) {place}"), _("out {place}"), {"term": Term.PLACE}, english_terms=False,
                  place=place_text(place, words))


def finish_text(state: GameState, seat: int, words: GameWords = NO_WORDS) -> str:
    """A placed seat's place: ``out ...`` (走科) when it went out (no card left), else the place alone
    (a seat stuck with cards at the end, or placed by a revolution or a failed burn, did not go out)."""
    place = state.places[seat]
    return out_text(place, words) if state.hand_size(seat) == 0 else place_text(place, words)


def short_place(place: int, words: GameWords = NO_WORDS) -> str:
    """``5th 二落`` (the place's Chinese word; in Chinese the word alone), for narrow panels."""
    word = words.place(place, Language.ZH)
    return word if chinese() else f"{ordinal(place)} {word}"


class SeatBox(Static):
    """One seat: name, team, card count (as the ruleset lets you see it), place, markers. With
    ``open_hands`` (review mode) every hand is shown; ``thinking``: its search bot is thinking.
    When the box is too small for all of it, the hand comes before the markers, and a hand that
    does not fit ends with ``… +N`` (the cards not shown), never cut off silently."""

    _parts: tuple[Text, tuple[str, str] | None, Text] | None = None
    _untitled: Text | None = None  # the head without the team (narrow screens: the title says teammate / opponent / opposite)

    def render(self) -> RenderResult:
        region = self.content_region
        if self._parts is None or region.width <= 0 or region.height <= 0:
            return super().render()
        return self._fit(region.width, region.height)

    def _fit(self, width: int, height: int) -> Text:
        """The box's text in ``width`` x ``height`` cells (0: no limit)."""
        assert self._parts is not None
        head, hand, foot = self._parts
        out = head.copy()
        if not width or not height:
            if hand is not None:
                out.append("\n" + hand[0], style=hand[1])
            out.append("\n")
            out.append_text(foot)
            return out
        console = self.app.console

        def rows(t: Text) -> int:
            return len(t.wrap(console, width)) if t.plain else 0

        if self._untitled is not None and self.screen.has_class("-narrow"):
            head, out = self._untitled, self._untitled.copy()  # (80 columns: rows are few, the title names the side)
        room = height - rows(head)
        if hand is not None:
            groups = hand[0].split()
            wrapped: list[list[str]] = [[]]
            for g in groups:
                line = wrapped[-1]
                if line and len(" ".join(line + [g])) > width:
                    wrapped.append([g])
                else:
                    line.append(g)
            if len(wrapped) > room > 0:
                kept = wrapped[:room]
                hidden = [g for line in wrapped[room:] for g in line]
                while True:
                    n = sum(1 for g in hidden for ch in g if not ch.islower())  # suits are lower-case letters
                    more = f"… +{n}"
                    if not kept[-1] or len(" ".join(kept[-1] + [more])) <= width:
                        break
                    hidden.insert(0, kept[-1].pop())
                kept[-1].append(more)
                wrapped = kept
            text = "\n".join(" ".join(line) for line in wrapped)
            out.append("\n" + text, style=hand[1])
            room -= len(wrapped)
        if foot.plain and rows(foot) <= room:
            out.append("\n")
            out.append_text(foot)
        return out

    def show(self, session: PlaySession, seat: int, *, open_hands: bool = False, thinking: bool = False) -> None:
        st = session.state
        me = session.viewer
        view = st.view(session.seat)  # (a spectator's view is the public one, whatever the seat)
        info = view["others"].get(str(seat), {})
        who = role(st, me, seat)
        self.border_title = _("Seat {seat} · {who}").format(seat=seat, who=who)
        self.border_subtitle = session.seat_caption(seat)
        lines = Text()
        mate = me is not None and st.team(seat) == st.team(me)
        lines.append(_("team {team}").format(team=st.team(seat)), style="bold" if mate else "")
        team_end = len(lines)
        if seat in st.places:
            p = st.places[seat]
            lines.append(" · " + finish_text(st, seat, session.words), style="bold green" if p <= 3 else "bold red")
        elif seat == me or open_hands:
            n = st.hand_size(seat)
            lines.append(" · " + cards_word(n), style="bold yellow" if n <= 5 else "")
        elif "count" in info:
            n = info["count"]
            lines.append(" · " + cards_word(n), style="bold yellow" if n <= 5 else "")
        else:
            rule = session.count_rule()
            lines.append(" · " + _("? cards") + ((" " if not chinese() else "") + bracketed(rule[0]) if rule else ""), style="dim")
        last = last_move_text(session, seat)
        if last is not None:
            lines.append("\n")
            lines.append_text(last)
        hand: tuple[str, str] | None = None
        if open_hands and seat != me:
            hand = (st.hand_text(seat) or _("(no cards)"), "cyan")
        elif "hand" in info:
            hand = (info["hand"], "dim")
        marks = markers(session, seat)
        foot = Text()
        if st.to_act == seat and not st.over:
            foot.append("▶ " + (_("thinking…") if thinking else _("to act")) + " ", style="bold reverse")
            foot.append(" ")
        foot.append(" · ".join(marks), style="italic")
        self._parts = (lines, hand, foot)
        untitled = lines[team_end:]
        self._untitled = untitled[3:] if me is not None and untitled.plain.startswith(" · ") else None
        self.update(self._fit(0, 0))
        self.set_class(st.to_act == seat and not st.over, "-to-act")
        self.set_class(not st.is_active(seat), "-out")
        self.set_class(mate, "-mate")


def last_move_text(session: PlaySession, seat: int) -> Text | None:
    """What ``seat`` did last in this game, shown at its seat as the Gouji apps do (the trick's list in
    the middle is gone once the trick is won): ``▸ KKKK``, ``▸ pass``, ``▸ burn BB JJJJ`` — bold in
    the trick on the table; before it, the cards it played last, dim (``▸ earlier: KK``). None
    before the seat's first play of the game."""
    st = session.state
    earlier = False
    prefix = f"{seat} "
    for e in reversed(st.record):
        typ = e["type"]
        if typ in ("trick_won", "first_leader"):
            earlier = True
        elif typ == "deal":
            return None
        elif typ == "move" and e["move"].startswith(prefix):
            _seat, verb, *rest = e["move"].split(None, 2)
            if earlier and verb not in ("play", "burn"):
                continue  # before this trick: the cards it played last, not its passes
            what = rest[0] if rest and verb == "play" else f"{verb_word(verb, session.words)} {rest[0] if rest else ''}".strip()
            if st.phase != "play" and verb in ("pass", "revolt", "declare", "choose"):
                return None  # a setup answer: the log says it
            t = Text("▸ ", style="dim" if earlier else "bold")
            if earlier:
                t.append(spaced(_("earlier:")), style="dim")
            t.append(what, style="dim" if earlier else ("red" if verb == "burn" else "bold" if verb == "play" else "italic"))
            return t
    return None


def markers(session: PlaySession, seat: int) -> list[str]:
    """Markers for a seat: passed, head-less, burning, revolution, the ruleset's flags (with their
    Chinese terms, taken from the rules that set them)."""
    st = session.state
    out = []
    if seat in st.passed:
        out.append(_("passed"))
    words = session.words
    if st.burner == seat:
        out.append(term_word(words, Term.BURN, N_("burning")))
    if seat in st.revolted:
        out.append(term_word(words, Term.REVOLUTION, N_("revolution")))
    if seat in st.failed and seat not in st.revolted:
        out.append(_("failed"))
    if st.phase == "play" and st.is_active(seat) and session.headless(seat):
        out.append(term_word(words, Term.HEADLESS, N_("head-less")))
    for name, seats in sorted(st.flags.items()):
        if seat in seats:
            out.append(flag_word(session, name))
    return out


# ------------------------------------------------------------------------------ trick
class TrickView(Static):
    """The trick on the table: every answer so far (in columns when it is long), the events between
    them in words, the play to beat (a gouji play says who may answer it), who is asked now; at the
    end of a game, the places, the scores and the match so far."""

    def show(self, session: PlaySession, *, log_shown: bool = True) -> None:
        st = session.state
        if st.over:
            self.border_title = (_("Game {n} of {length} · over") if session.length > 1 else _("Game {n} · over")).format(
                n=st.game_number, length=session.length)
            self.update(game_over_text(session, self.content_region.width or self.size.width or 80))
            return
        if st.phase == "play":
            scramble = " · " + term_word(session.words, Term.SCRAMBLE, N_("four-way scramble")) if session.scramble() else ""
            self.border_title = _("Trick {n}").format(n=st.trick_no) + scramble
        else:
            self.border_title = _({"setup": N_("Setup"), "declare": N_("Setup"), "choose": N_("Setup"), "ask": N_("Setup"),
                                   "return": N_("Return tribute")}.get(st.phase, st.phase))
        if st.phase != "play":
            self.update(self._setup_text(session, log_shown))
            return
        self.update(self._trick_text(session))

    def _setup_text(self, session: PlaySession, log_shown: bool) -> Text:
        st = session.state
        me = session.viewer
        t = Text()
        t.append(asked_text(session) + "\n", style="bold")
        moved = [e for e in st.record if e["type"] == "transfer"]
        if moved:
            t.append(ngettext("{n} transfer before play", "{n} transfers before play", len(moved)).format(n=len(moved))
                     + ("" if chinese() else " ") + bracketed(_("see the log") if log_shown else _("ctrl+l shows the log"))
                     + "\n", style="italic cyan")
        for e in st.record:
            if e["type"] in ("revolution", "redeal"):
                t.append(f"{event_label(e, me, session.words)}\n", style="italic cyan")
        for m in [e["move"] for e in st.record if e["type"] == "move"][-6:]:
            t.append_text(move_label(m, me, session.words))
            t.append("\n")
        return t

    def _trick_text(self, session: PlaySession) -> Text:
        st = session.state
        me = session.viewer
        lines: list[Text] = []
        last_won = _last(st.record, "trick_won")
        entries = trick_entries(session)
        if not any(kind == "move" for kind, _line in entries) and last_won:
            lines.append(Text(_("last trick: {what}").format(what=event_text(last_won, me, session.words)), style="dim"))
        for kind, item in entries:
            if kind == "move":
                lines.append(item)
            else:
                lines.append(Text("  » " + item.plain, style="italic cyan"))
        note: Text | None = None
        if st.top is not None and st.top.play.gouji:
            follow, burn = session.who_may_answer()
            note = Text("  " + spaced(_("{gouji}:").format(gouji=term_word(session.words, Term.GOUJI, N_("gouji play")))),
                        style="bold magenta")
            names = _(", ").join(_seat_name(st, me, x) for x in follow) or _("nobody")
            note.append(_("answer: {names}").format(names=names), style="magenta")
            if burn:
                names = _(", ").join(_seat_name(st, me, x) for x in burn)
                note.append(" · " + _("{burn}: {names}").format(burn=term_word(session.words, Term.BURN, N_("burn")), names=names),
                            style="magenta")
        asked = Text(asked_text(session), style="bold")
        width = max(self.content_region.width or self.size.width or 30, 20)
        # who may answer a gouji play is never cut to a column's width: it gets whole lines below
        note_rows = len(note.wrap(self.app.console, width)) if note is not None else 0
        room = max((self.content_region.height or self.size.height or 8) - 1 - note_rows, 2)
        body = _columns(lines, width, room, self.app.console)
        if note is not None:
            body.append_text(note)
            body.append("\n")
        body.append_text(asked)
        return body


def _seat_name(st: GameState, me: int | None, seat: int) -> str:
    if me is None:
        return _("seat {seat}").format(seat=seat)
    return _("you") if seat == me else _("seat {seat} ({role})").format(seat=seat, role=role(st, me, seat))


def trick_entries(session: PlaySession) -> list[tuple[str, Text]]:
    """The trick so far as labelled lines: ("move", line) and ("event", line), in order; the play to
    beat is marked ◆."""
    st = session.state
    me = session.viewer
    out: list[tuple[str, Text]] = []
    # the timeline entries since the trick began: moves, engine events, flags set, the scramble starting
    start = session.cursor
    while start > 0 and session.entries[start].move is not None and session.entries[start - 1].move is not None \
            and session.entries[start - 1].state.trick_no == st.trick_no:
        start -= 1
    for i in range(start, session.cursor + 1):
        e = session.entries[i]
        if e.move is None or (i > 0 and session.entries[i - 1].state.trick_no != e.state.trick_no):
            continue  # a game start, or the move that ended the last trick
        for ev in session.new_events(i):
            typ = ev["type"]
            if typ == "move":
                seat, verb, *rest = ev["move"].split(None, 2)
                cards = rest[0] if rest else ""
                top = st.top is not None and verb in ("play", "burn") and int(seat) == st.top.seat \
                    and cards == st.top.play.text
                label = Text("◆ " if top else "  ", style="bold")
                label.append_text(move_label(ev["move"], me, session.words))
                if verb == "yield" and not chinese() and (term := session.words.term(Term.YIELD, Language.ZH)):
                    label.append(f" ({term})", style="italic")
                if top:
                    label.stylize("bold")
                out.append(("move", label))
            elif typ in _TRICK_EVENTS:
                out.append(("event", Text(event_label(ev, me, session.words))))
        for name, seat, on in session.flag_changes(i):
            word = flag_word(session, name)
            out.append(("event", Text((_("{who}: {word}") if on else _("{who}: {word} over")).format(
                who=seat_word(seat, me), word=word))))
        if session.scramble_started(i):
            out.append(("event", Text(_("{scramble} starts: anyone may answer anyone").format(
                scramble=term_word(session.words, Term.SCRAMBLE, N_("four-way scramble"))))))
    return out


def _seat_pattern() -> re.Pattern[str]:
    """``seat 3 `` as :func:`move_label` writes it in the active language (the seat number a group)."""
    return re.compile(re.escape(_("seat {seat}")).replace(re.escape("{seat}"), r"(\d+)") + " ")


def compact_line(line: Text) -> Text:
    """A trick line in fewer cells, for a narrow column: ``  seat 3 KK`` → ``  3: KK``,
    ``  you    66`` → ``  you: 66`` (the styles of the rest kept)."""
    out = line
    you = _("you")
    for pattern, short, style in ((_seat_pattern(), None, ""), (re.compile(re.escape(you) + " {2,}"), you + ": ", "bold")):
        m = pattern.search(out.plain)
        if m is None:
            continue
        piece = out[:m.start()]
        piece.append(short if short is not None else m.group(1) + ": ", style=style)
        piece.append_text(out[m.end():])
        out = piece
    return out


def _columns(lines: list[Text], width: int, room: int, console: Console | None = None) -> Text:
    """``lines`` one per row, or in two or three columns when they do not fit in ``room`` rows (the
    earliest first, top to bottom); the most recent lines are kept when even that is too little.
    In columns a line is shortened (:func:`compact_line`) and, if still too long for its column,
    wrapped onto the next rows of that column — never cut (``33…`` hid the cards played)."""
    out = Text()
    if len(lines) <= room:
        for ln in lines:
            out.append_text(ln)
            out.append("\n")
        return out
    ncols = 2 if len(lines) <= 2 * room or width < 48 else 3
    colw = max(width // ncols - 1, 8)
    cons = console or Console(width=colw, color_system=None)

    def cell(t: Text) -> list[Text]:
        if t.cell_len > colw:
            t = compact_line(t)
        if t.cell_len <= colw:
            return [t]
        return list(t.wrap(cons, colw, overflow="fold"))

    cells = [cell(ln) for ln in lines]

    def pack(items: list[list[Text]]) -> list[list[Text]] | None:
        cols: list[list[Text]] = [[]]
        for c in items:
            if len(cols[-1]) + len(c) > room:
                if len(cols) == ncols:
                    return None
                cols.append([])
            cols[-1].extend(c)
        return cols

    packed: list[list[Text]] | None = None
    for first in range(len(cells)):
        items = cells[first:]
        if first:
            items = [[Text(f"… {first} earlier", style="dim")]] + items
        packed = pack(items)
        if packed is not None:
            break
    if packed is None:  # pragma: no cover - one cell taller than the column: the last lines only
        packed = [[ln for c in cells for ln in c][-room:]]
    rows = max(len(c) for c in packed)
    for r in range(rows):
        for ci, col in enumerate(packed):
            if ci == len(packed) - 1 and r >= len(col):
                break
            piece = col[r].copy() if r < len(col) else Text()
            piece.truncate(colw, overflow="fold", pad=ci < len(packed) - 1)
            out.append_text(piece)
            if ci < len(packed) - 1:
                out.append(" ")
        out.append("\n")
    return out


def game_over_text(session: PlaySession, width: int = 80) -> Text:
    """The end-of-game panel: places (one line each, never wrapped: shorter when the panel is
    narrow), team scores, the sweep, the match so far and what F10 does next."""
    st = session.state
    me = session.viewer
    t = Text()
    wide = width >= 52
    names = max(cell_len(seat_word(seat, me)) for seat in st.seat_list)  # (N 号座位: a seat's name is 8 cells wide)
    for seat, place in sorted(st.places.items(), key=lambda kv: kv[1]):
        style = "bold" if me is not None and st.team(seat) == st.team(me) else ""
        line = Text(no_wrap=True, overflow="ellipsis")
        if wide:
            line.append(pad(place_text(place, session.words), 22), style="green" if place <= 3 else "red")
            line.append(pad(_seat_name(st, me, seat), 20), style=style)
            line.append(_("team {team}").format(team=st.team(seat)) + f"  {st.scores.get(seat, 0):+}", style=style)
        else:
            line.append(short_place(place, session.words) + " ", style="green" if place <= 3 else "red")
            line.append(pad(seat_word(seat, me), names + 1), style=style)
            line.append(_("T{team}").format(team=st.team(seat)) + f" {st.scores.get(seat, 0):+}", style=style)
        line.truncate(max(width, 10), overflow="ellipsis")
        t.append_text(line)
        t.append("\n")
    g = summarize(st)
    mine = st.team(me) if me is not None else None
    for i, (team, v) in enumerate(sorted(g.team_scores.items())):
        name = (_("team {team}") if wide else _("T{team}")).format(team=team)
        t.append(("   " if wide else "  ") if i else "")
        t.append(f"{name}{_(' (you)') if team == mine else ''} {v:+}", style="bold green" if v > 0 else
                 ("bold red" if v < 0 else "bold"))
    t.append("\n")
    sweep_rule = session.definition_says("sweep")
    sweep = term_word(session.words, Term.SWEEP, N_("sweep"))
    if g.sweep:
        t.append(_("{term}: {says}").format(term=sweep, says=sweep_rule) if sweep_rule else sweep, style="bold")
    else:
        t.append(_("no {what}").format(what=sweep), style="dim")
    t.append("\n")
    if session.length > 1:
        totals = session.match_totals()
        t.append(spaced(_("match {n}/{length}:").format(n=st.game_number, length=session.length)), style="bold")
        t.append("  ".join((_("team {team}") if wide else _("T{team}")).format(team=team) + f" {v:+}"
                           for team, v in sorted(totals.items())) + "\n")
    nxt = session.next_game_label()
    keys = session.over_keys()  # (at a club table: only the keys that do something there)
    t.append(keys if keys is not None else _("F10 deals {next} · F11 the scoreboard · ctrl+s saves the record").format(
        next=nxt), style="dim")
    return t


_TRICK_EVENTS = ("burn", "counter_burn", "burn_undone", "burn_success", "burn_failed", "place", "transfer",
                 "revolution", "redeal", "no_lead", "retire")


def _last(record: list[dict[str, Any]], typ: str) -> dict[str, Any] | None:
    for e in reversed(record):
        if e["type"] == typ:
            return e
    return None


def asked_text(session: PlaySession) -> str:
    st = session.state
    s = st.to_act
    if s is None:
        return ""
    who = seat_word(s, session.viewer)
    words = session.words
    if st.phase == "setup":
        return "▶ " + termed(words, _("{who}: revolt ({revolution}) or pass?"), _("{who}: revolt or pass?"),
                             {"revolution": Term.REVOLUTION}, who=who)
    if st.phase == "declare":
        return "▶ " + termed(words, _("{who}: declare the point ({declared}) or pass?"), _("{who}: declare the point or pass?"),
                             {"declared": Term.DECLARED}, who=who)
    if st.phase == "choose":
        return "▶ " + termed(words, _("{who}: keep a head ({keep_head}) or go head-less ({headless})?"),
                             _("{who}: keep a head or go head-less?"),
                             {"keep_head": Term.KEEP_HEAD, "headless": Term.HEADLESS}, who=who)
    if st.phase == "ask":  # a choice of the ruleset's own (settings.choices)
        word = st.ask_queue[0][1]
        return "▶ " + _("{who}: choose {word}, or pass?").format(who=who, word=word)
    if st.phase == "return":
        _receiver, giver, n = st.return_queue[0]
        return "▶ " + termed(words, ngettext("{who}: return {n} card to seat {giver} ({return_tribute})",
                                             "{who}: return {n} cards to seat {giver} ({return_tribute})", n),
                             ngettext("{who}: return {n} card to seat {giver}", "{who}: return {n} cards to seat {giver}", n),
                             {"return_tribute": Term.RETURN_TRIBUTE}, n=n, who=who, giver=giver)
    if st.capacity == "lead":
        burning = " " + termed(words, _("({burn}: every lead carries a joker)"), _("(burning: every lead carries a joker)"),
                               {"burn": Term.BURN}) if st.burner == s else ""
        return "▶ " + _("{who} to lead").format(who=who) + burning
    top = st.top
    if top is None:
        return f"▶ {who}"
    if st.capacity == "burn":
        return "▶ " + termed(words, _("{who}: burn {cards} ({burn}), or pass?"), _("{who}: burn {cards}, or pass?"),
                             {"burn": Term.BURN}, who=who, cards=top.play.text)
    return "▶ " + _("{who} to answer {cards}").format(who=who, cards=top.play.text)


#: what a pass in a setup phase declines (the log says it: a bare "pass" before the first lead reads
#: like a pass on a play): a phase → (the ruleset's term, the words without one)
SETUP_PASSES: dict[str, tuple[Term | None, str]] = {"setup": (Term.REVOLUTION, N_("revolution")),
                                                     "declare": (Term.DECLARED, N_("point declared"))}


def declined_text(phase: str, words: GameWords = NO_WORDS) -> str:
    """What a pass in ``phase`` declines: ``no revolution (革命)`` (in Chinese ``不革命``), ``declined``."""
    term, fallback = SETUP_PASSES.get(phase, (None, ""))
    if term is None:
        return _("declined")
    return _("no {what}").format(what=term_word(words, term, fallback))


def pad(text: str, width: int) -> str:
    """``text`` padded with spaces to ``width`` terminal cells (a Chinese character takes two)."""
    return text + " " * max(width - cell_len(text), 0)


def move_label(move: str, me: int | None, words: GameWords = NO_WORDS) -> Text:
    """``3 play KK`` as ``seat 3  KK`` (you in bold); other verbs spelt out."""
    seat, verb, *rest = move.split(None, 2)
    t = Text()
    mine = int(seat) == me
    t.append(pad(_("you"), cell_len(_("seat {seat}").format(seat=seat)) + 1) if mine else _("seat {seat}").format(seat=seat) + " ",
             style="bold" if mine else "")
    arg = rest[0] if rest else ""
    if verb == "play":
        t.append(arg, style="bold" if mine else "")
    else:
        t.append(f"{verb_word(verb, words)} {arg}".strip(), style="red" if verb == "burn" else ("dim" if verb == "pass" else "italic"))
    return t


# ------------------------------------------------------------------------------ hand
class HandView(Widget, can_focus=True):
    """Your hand grouped by rank (strongest first). The cards in the move box are highlighted.

    Keys (when focused): ←/→ choose a group, ↑/+ add a card of it, ↓/- take one back,
    space the whole group / none, Enter plays, Escape clears; a click adds a card of a group
    (right click takes one back)."""

    BINDINGS = [
        Binding("left", "cursor(-1)", N_("Left"), show=False),
        Binding("right", "cursor(1)", N_("Right"), show=False),
        Binding("up,plus,equals_sign", "more(1)", N_("Add card"), show=False),
        Binding("down,minus", "more(-1)", N_("Take back"), show=False),
        Binding("space", "whole", N_("Group"), show=False),
        Binding("enter", "submit", N_("Play"), show=False),
        Binding("escape", "clear", N_("Clear"), show=False),
    ]

    class Selected(Message):
        """The player changed the selection with keys or the mouse."""

        def __init__(self, counts: tuple[int, ...]):
            super().__init__()
            self.counts = counts

    class Submitted(Message):
        pass

    class TypedKey(Message):
        """A key for the move box typed while the hand has focus (the screen forwards it)."""

        def __init__(self, character: str | None):
            super().__init__()
            self.character = character

    cursor = reactive(0)

    def __init__(self, **kw: Any):
        super().__init__(**kw)
        self.hand: tuple[int, ...] = ()
        self.kinds: tuple[str, ...] = ()
        self.selected: tuple[int, ...] = ()
        self._regions: list[tuple[int, int, int, int]] = []  # (line, x0, x1, kind index)

    def set_hand(self, hand: list[int] | tuple[int, ...], kinds: tuple[str, ...], selected: tuple[int, ...] | None) -> None:
        self.hand = tuple(hand)
        self.kinds = kinds
        self.selected = tuple(selected) if selected and len(selected) == len(hand) else tuple([0] * len(hand))
        groups = self.groups
        if groups and self.cursor >= len(groups):
            self.cursor = len(groups) - 1
        self.refresh(layout=True)

    @property
    def groups(self) -> list[int]:
        """Kind indexes held, strongest first."""
        return [i for i in range(len(self.hand) - 1, -1, -1) if self.hand[i]]

    def render(self) -> Text:
        width = max(self.size.width, 20)
        t = Text(no_wrap=True, overflow="crop")
        self._regions = []
        groups = self.groups
        if not groups:
            t.append(_("(no cards)"), style="dim")
            return t
        x, line = 0, 0
        for n, i in enumerate(groups):
            cnt = self.hand[i]
            sel = min(self.selected[i], cnt) if self.selected else 0
            body = self.kinds[i] * cnt if cnt <= 6 else f"{self.kinds[i] * 3}…×{cnt}"
            w = len(body)
            if x and x + w > width:
                t.append("\n")
                x, line = 0, line + 1
            cursor = self.has_focus and n == self.cursor
            base = "underline" if cursor else ""
            if cnt <= 6:
                t.append(self.kinds[i] * sel, style=f"bold reverse {base}".strip())
                t.append(self.kinds[i] * (cnt - sel), style=base or None)
            else:
                t.append(body, style=(f"bold reverse {base}" if sel == cnt else base) or None)
                if 0 < sel < cnt:
                    t.append(f"({sel})", style="bold")
                    w += len(f"({sel})")
            self._regions.append((line, x, x + w, i))
            x += w
            if n < len(groups) - 1:
                t.append("  ")
                x += 2
        return t

    def get_content_height(self, container, viewport, width: int) -> int:  # type: ignore[override]
        self.render()
        return max((r[0] for r in self._regions), default=0) + 1

    def _change(self, i: int, delta: int | None) -> None:
        sel = list(self.selected or [0] * len(self.hand))
        if delta is None:
            sel[i] = 0 if sel[i] == self.hand[i] else self.hand[i]
        else:
            sel[i] = max(0, min(self.hand[i], sel[i] + delta))
        self.selected = tuple(sel)
        self.refresh()
        self.post_message(self.Selected(self.selected))

    def action_cursor(self, d: int) -> None:
        if self.groups:
            self.cursor = (self.cursor + d) % len(self.groups)
            self.refresh()

    def action_more(self, d: int) -> None:
        if self.groups:
            self._change(self.groups[self.cursor], d)

    def action_whole(self) -> None:
        if self.groups:
            self._change(self.groups[self.cursor], None)

    def action_submit(self) -> None:
        self.post_message(self.Submitted())

    def on_key(self, event: events.Key) -> None:
        ch = event.character
        if ch and ch.isprintable() and ch not in " +-=" and event.key not in ("space",):
            event.stop()
            event.prevent_default()
            self.post_message(self.TypedKey(ch))

    def action_clear(self) -> None:
        self.selected = tuple([0] * len(self.hand))
        self.refresh()
        self.post_message(self.Selected(self.selected))
        self.post_message(self.TypedKey(None))

    def on_click(self, event: events.Click) -> None:
        at = event.get_content_offset(self)
        if at is None:
            return
        for line, x0, x1, i in self._regions:
            if at.y == line and x0 <= at.x < x1:
                self.cursor = self.groups.index(i)
                self._change(i, -1 if event.button == 3 else 1)
                return

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()


# ------------------------------------------------------------------------------ log
def now_mark() -> str:
    """The mark of the log's line shown now: ``  ◀ now``."""
    return "  ◀ " + _("now")


class GameLog(Tree[Any]):
    """Every move and what followed from it. Enter on a move shows the rules that decided it
    (explain() on the position before the move); ``g`` goes to that point of the game."""

    BINDINGS = [
        Binding("g", "goto", N_("Go here"), tooltip=N_("Show the game as it was before this move")),
        # the screen's replay keys (a tree would scroll the page instead)
        Binding("pageup", "step('trick(-1)')", N_("Previous trick"), show=False),
        Binding("pagedown", "step('trick(1)')", N_("Next trick"), show=False),
        Binding("home,ctrl+home", "step('start')", N_("Start"), show=False),
        Binding("end,ctrl+end", "step('end')", N_("End"), show=False),
    ]
    ICON_NODE = "+ "
    ICON_NODE_EXPANDED = "- "

    class Goto(Message):
        def __init__(self, index: int):
            super().__init__()
            self.index = index

    class Step(Message):
        """A replay key pressed in the log: ``action`` is the screen's action to run."""

        def __init__(self, action: str):
            super().__init__()
            self.action = action

    class OpenRule(Message):
        def __init__(self, pos: SourcePos):
            super().__init__()
            self.pos = pos

    class Leave(Message):
        """Escape, or a character for the move box, typed in the log."""

        def __init__(self, character: str | None = None):
            super().__init__()
            self.character = character

    def on_key(self, event: events.Key) -> None:
        ch = event.character
        if event.key == "escape" or (ch and ch.isprintable() and ch not in " g" and event.key not in self._own_keys()):
            event.stop()
            event.prevent_default()
            self.post_message(self.Leave(None if event.key == "escape" else ch))

    def _own_keys(self) -> set[str]:
        return {k for b in self.BINDINGS if isinstance(b, Binding) for k in b.key.split(",")} | {"enter", "space"}

    def __init__(self, **kw: Any):
        super().__init__("game", **kw)
        self.show_root = False
        self.guide_depth = 2
        self.session: PlaySession | None = None
        self._n_shown = 0
        self._entry_nodes: dict[int, TreeNode] = {}
        self._game_nodes: dict[int, TreeNode] = {}
        self._labels: dict[int, Text] = {}
        self._tails: dict[int, TreeNode] = {}  # the last line an entry added (its node, or its last event)
        self._marked: int | None = None

    def rebuild(self, session: PlaySession) -> None:
        self.session = session
        self.clear()
        self._n_shown = 0
        self._entry_nodes = {}
        self._game_nodes = {}
        self._labels = {}
        self._tails = {}
        self._marked = None
        self.sync()

    def sync(self) -> None:
        """Add entries not shown yet (rebuild if the timeline was cut)."""
        s = self.session
        if s is None:
            return
        if self._n_shown > len(s.entries):
            self.rebuild(s)
            return
        for i in range(self._n_shown, len(s.entries)):
            self._add(i)
        self._n_shown = len(s.entries)
        self.mark(s.cursor)

    def _add(self, i: int) -> None:
        s = self.session
        assert s is not None
        e = s.entries[i]
        me = s.viewer
        if e.move is None:
            st = e.state
            label = Text(_("Game {n}").format(n=st.game_number), style="bold")
            if st.prev is not None:
                label.append(" " + _("(match)"), style="dim")
            node = self.root.add(label, data=("game", i), expand=True)
            self._game_nodes[e.game_index] = node
            self._entry_nodes[i] = node
            self._labels[i] = label
            self._tails[i] = node
            for ev in s.new_events(i):
                if ev["type"] in ("deal", "transfer", "revolution", "first_leader", "redeal", "place", "retire"):
                    self._tails[i] = node.add_leaf(Text(event_text(ev, me, s.words), style="cyan"), data=("event", i))
            return
        parent = self._game_nodes.get(e.game_index) or self.root
        label = Text()
        label.append(f"{i:>3} ", style="dim")
        label.append_text(move_label(e.move or "", me, s.words))
        before = s.entries[i - 1].state if i > 0 else None
        if before is not None and e.move and e.move.split()[1:2] == ["pass"] and before.phase in ("setup", "declare", "ask"):
            label.append(" " + _("— {what}").format(what=declined_text(before.phase, s.words)), style="dim")  # what was declined
        if e.by in ("auto",):
            label.append(" " + _("(auto)"), style="dim italic")
        node = parent.add(label, data=("move", i), allow_expand=True)
        self._entry_nodes[i] = node
        self._labels[i] = label
        self._tails[i] = node
        for ev in s.new_events(i)[1:]:
            if ev["type"] in ("move", "discard"):
                continue
            style = "cyan" if ev["type"] != "game_over" else "bold cyan"
            self._tails[i] = parent.add_leaf(Text("     " + event_text(ev, me, s.words, team_of=s.state.team), style=style),
                                             data=("event", i))

    def mark(self, index: int) -> None:
        """Show where the game is: a marker on the entry and the tree's cursor on it."""
        if self._marked is not None and self._marked in self._entry_nodes and self._marked != index:
            self._entry_nodes[self._marked].set_label(self._labels[self._marked])
        node = self._entry_nodes.get(index)
        self._marked = index
        if node is None:
            return
        label = self._labels[index].copy()
        label.append(now_mark(), style="bold reverse")
        node.set_label(label)
        self._tree_lines  # noqa: B018 - lay out the lines: a node just added has none before
        if self.cursor_node is not node:
            self.move_cursor(node, animate=False)
        # what followed the move too (who went out, the game over line), then the move itself
        tail = self._tails.get(index, node)
        self._show(tail, node)
        self.call_after_refresh(self._show, tail, node)

    def _show(self, tail: TreeNode, node: TreeNode) -> None:
        if tail is not node:
            self.scroll_to_node(tail, animate=False)
        self.scroll_to_node(node, animate=False)

    def _room(self, node: TreeNode) -> int:
        """Cells left for ``node``'s label on its line (the log's width less the guides)."""
        depth = 0
        parent = node.parent
        while parent is not None:
            depth += 1
            parent = parent.parent
        return self.scrollable_content_region.width - max(depth - 1, 0) * self.guide_depth

    def render_label(self, node: TreeNode, base_style: Style, style: Style) -> Text:
        """The label, cut with "…" when it does not fit (the "◀ now" marker is kept)."""
        text = super().render_label(node, base_style, style)
        room = self._room(node)
        if room < 8 or text.cell_len <= room:
            return text
        tail = None
        now = now_mark()
        if node.data and node.data[0] in ("move", "game") and node.data[1] == self._marked \
                and text.plain.endswith(now):
            tail = text[len(text) - len(now):]
            text = text[:len(text) - len(now)]
            room -= tail.cell_len
        text.truncate(max(room, 4), overflow="ellipsis")
        if tail is not None:
            text.append_text(tail)
        return text

    def get_label_width(self, node: TreeNode) -> int:
        """Labels are cut to the log's width: no sideways scrolling."""
        return min(super().get_label_width(node), max(self._room(node), 8))

    def on_tree_node_selected(self, event: Tree.NodeSelected) -> None:
        data = event.node.data
        if data and data[0] == "rule" and data[1]:
            event.stop()
            self.post_message(self.OpenRule(data[1]))

    def on_tree_node_expanded(self, event: Tree.NodeExpanded) -> None:
        node = event.node
        data = node.data
        if not data or data[0] != "move" or node.children or self.session is None:
            return
        i = data[1]
        s = self.session
        if s.remote:  # a club table's move: the server judged it (its rules are asked with F5 on a typed move)
            node.add_leaf(Text(_("the table's server judged this move"), style="dim"))
            return
        before = s.entries[i - 1].state
        mv = parse_move(s.entries[i].move or "", before.model, before.n_seats, words=choice_words(before.graph))
        exp = explain(before, mv)
        if not exp.reasons:
            node.add_leaf(Text(_("no rule had to be asked: the interpreter's own checks allowed it"), style="dim"))
        for r in exp.reasons:
            mark = {"allowed": "✓", "forbade": "✗", "answered": "=", "granted": "✓"}.get(r.verdict, "·")
            line = Text(f"{mark} ", style="green" if r.verdict != "forbade" else "red")
            line.append(r.rule_id, style="bold")
            line.append(f"  {r.text}")
            if r.pos is not None:
                line.append(f"  {short_where(r.pos)}", style="dim")
            node.add_leaf(line, data=("rule", r.pos))

    def action_step(self, action: str) -> None:
        self.post_message(self.Step(action))

    def action_goto(self) -> None:
        node = self.cursor_node
        if node is not None and node.data and node.data[0] in ("move", "game", "event"):
            i = node.data[1]
            if node.data[0] == "move":
                i -= 1
            self.post_message(self.Goto(i))


def short_where(pos: SourcePos | None) -> str:
    """A rule's position shown short: ``/long/path/rules/base.yaml`` line 208 → ``base.yaml:208``."""
    if pos is None:
        return ""
    name = pos.path.replace("\\", "/").rsplit("/", 1)[-1]
    return f"{name}:{pos.line}" if pos.line > 0 else name


__all__ = ["SeatBox", "TrickView", "HandView", "GameLog", "event_text", "event_label", "markers", "role", "short_where",
           "game_over_text", "place_text", "trick_entries"]
