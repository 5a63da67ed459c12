"""The play screen: test-play a ruleset against bots, with every decision explained.

``PlayScreen(graph, seat=1, seed=0, bots="heuristic", record=None)``: six seats around the table
(you at the bottom, play order counter-clockwise: the next seat to your right, your opposite at
the top), the trick, your hand, a move box with live feedback, the legal actions as buttons, and
the game log. The game itself is a :class:`~editor.play.session.PlaySession`.

Any bot of the registry (:data:`gouji_dsl.bots.BOTS`) can sit at the other seats (``bots``, or
ctrl+N: a new game with a choice of opponents and teammates). A search bot thinks in its own process
(:class:`~gouji_dsl.bots.process.SearchProcess`, waited for by a worker thread: the app's keys and
drawing do not share the interpreter with the search; the same moves for the same seed); its seat
shows "thinking"; its move is applied only if the game is still where it was when it started. A new
game or record ends a search being thought about; closing the screen ends the process. shift+F3 asks any bot what it would play for you, with each
candidate's estimated value (:class:`~editor.play.dialogs.BotHintScreen`).

The screen works inside any app. ``on_open_rule(path, line)`` is called when the player asks to
see a rule (Enter on a reason); it returns True when it showed the rule (an editor at the line:
:meth:`PlayScreen.leave` closes the play screen first). Without it, or when it returns False/None,
the rule's source lines are shown in a dialog.
"""
from __future__ import annotations

import errno
import functools
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Grid, Horizontal, Vertical
from textual.screen import ModalScreen, Screen
from textual.timer import Timer
from textual.widgets import Button, Input, OptionList, Static
from textual.widgets.option_list import Option

from gouji_dsl.bots import is_outside
from gouji_dsl.bots.outside import BotFailed
from gouji_dsl.bots.process import SearchCancelled, SearchFailed, SearchProcess
from gouji_dsl.diagnostics import GoujiError, SourcePos, printable
from gouji_dsl.engine.explain import explain
from gouji_dsl.engine.interpreter import IllegalMove, Move
from gouji_dsl.engine.records import GameRecord, load_record, record_graph, save_record
from gouji_dsl.i18n import bracketed
from gouji_dsl.ruleset.game.terms import Verb
from gouji_dsl.ruleset.graph import RuleFailed, RuleGraph, load_graph
from gouji_dsl.ruleset.words import Term
from gouji_dsl.tools.cases import add_case_to_file

from ..i18n import N_, _, chinese, ngettext, spaced
from ..validation import same_file
from ..web import offer_download
from ..widgets.cjkwrap import wrap_text
from ..widgets.footer import FittingFooter
from ..widgets.keys import run_binding_now
from .dialogs import (
    AskScreen,
    BetweenGamesScreen,
    BotHintScreen,
    ExportScreen,
    LegalMovesScreen,
    NewGameScreen,
    PathScreen,
    PlayHelpScreen,
    RuleSourceScreen,
    ScoreboardScreen,
    WhyScreen,
    reason_prompt,
)
from .session import PlaySession, Typed

if TYPE_CHECKING:
    from .remote import RemoteSession
from .widgets import (
    GameLog,
    HandView,
    SeatBox,
    TrickView,
    cards_word,
    finish_text,
    flag_word,
    markers,
    move_label,
    seat_word,
    short_where,
    termed,
)

#: what a seat at a club table cannot do: the table's game is the server's (no undo, no bots here,
#: no new game, no review with open hands, the host saves the record)
TABLE_OFF = frozenset({"new_game", "undo", "redo", "run", "speed", "review", "resume", "save", "open",
                       "export", "ask_bot"})
#: what a spectator of a club table may not do either (the table answers not_seated): the move keys
WATCH_OFF = frozenset({"pass_move", "hint", "legal", "why", "table_auto", "table_start", "next_game", "autopass"})

REVIEW_MAX = 200  # legal moves listed per decision in review mode (F4 lists them all)

SPEEDS: list[tuple[str, float]] = [("instant", 0.0), ("fast", 0.1), ("normal", 0.35), ("slow", 1.0)]
SPEED_WORDS = (N_("instant"), N_("fast"), N_("normal"), N_("slow"))  # the speeds' names, translated where shown

# (verb as in legal_verbs, button label, what the button does)
ACTIONS: list[tuple[str, str, str]] = [
    ("play", N_("Play ⏎"), "submit"),
    ("burn", N_("Burn ⏎"), "submit"),
    ("discard", N_("Discard"), "type:discard "),
    ("return", N_("Return ⏎"), "submit"),
    ("pass", N_("Pass F2"), "move:pass"),
    ("yield", N_("Yield"), "move:yield"),
    ("revolt", N_("Revolt"), "move:revolt"),
    ("declare", N_("Declare"), "move:declare"),
    ("choose head", N_("Keep head"), "move:head"),
    ("choose headless", N_("Head-less"), "move:headless"),
]


def guarded(method: Callable[..., Any]) -> Callable[..., Any]:
    """A play-screen method that runs the ruleset's rules: a rule that fails there (``RuleFailed``:
    a score rule dividing by zero) goes to :meth:`PlayScreen.rule_failed` (the rule and its line
    shown, the game kept) instead of ending the app as a bug of gouji. Every entry point of the
    screen that makes, explains or lists moves is guarded."""
    @functools.wraps(method)
    def wrapper(self: PlayScreen, *args: Any, **kwargs: Any) -> Any:
        try:
            return method(self, *args, **kwargs)
        except RuleFailed as e:
            self.rule_failed(e)
            return None
    return wrapper


class MoveBox(Input):
    """The move box. Home / End with nothing typed go to the start / end of the game (replay).
    Enter, Escape and the screen's keys take effect in the order typed, also in a burst."""

    async def _on_key(self, event: events.Key) -> None:
        await run_binding_now(self, event)

    def action_home(self, select: bool = False) -> None:
        play = self.screen
        if not self.value and not select and isinstance(play, PlayScreen) and \
                (play.session.mode == "replay" or not play.session.live):
            play.action_start()
        else:
            super().action_home(select)

    def action_end(self, select: bool = False) -> None:
        if not self.value and not select and isinstance(self.screen, PlayScreen):
            self.screen.action_end()
        else:
            super().action_end(select)


def _colon() -> str:
    """A colon before what it introduces, as the language writes it (Chinese ``：``, English ``: ``)."""
    return "：" if chinese() else ": "


class PlayScreen(Screen[None]):
    """Test-play ``graph`` from ``seat`` against ``bots`` (see the module docstring)."""

    CSS_PATH = "play.tcss"
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (112, "-wide")]
    #: below this many columns × rows the table, hand and move box cannot all show: a notice instead
    MIN_SIZE = (60, 18)
    #: the footer's keys left out first where the footer is too narrow (FittingFooter): ^s, ^b and ^p stay
    FOOTER_SPARE = ("ask_bot", "redo")
    AUTO_FOCUS = "#move"

    BINDINGS = [
        Binding("f1", "help", N_("Help"), tooltip=N_("Keys and how to type moves")),
        Binding("f2", "pass_move", N_("Pass"), tooltip=N_("Pass (when it is legal)")),
        Binding("f3", "hint", N_("Hint"), tooltip=N_("What the heuristic bot would play (put in the move box)")),
        Binding("shift+f3", "ask_bot", N_("Ask bot"),
                tooltip=N_("What a search bot (ISMCTS, PIMC) or any bot would play, with each move's estimated value")),
        # F15: xterm's terminfo name of shift+F3 (kf15). Its ESC [1;2R reaches Textual 8.2.8 as a cursor
        # position report, never as a key: editor/terminal_keys.py turns that back into shift+f3
        Binding("f15", "ask_bot", N_("Ask bot"), show=False,
                tooltip=N_("shift+F3 as some terminals send it")),
        Binding("ctrl+n", "new_game", N_("New game"), show=False,
                tooltip=N_("A new game: choose the opponents' and teammates' bots, your seat and the seed")),
        Binding("f4", "legal", N_("Moves"), tooltip=N_("Your legal moves, grouped")),
        Binding("f5", "why", N_("Why"), tooltip=N_("Every rule that decides the move in the box (or the last refused one)")),
        Binding("ctrl+z", "undo", N_("Undo"), tooltip=N_("Back to before your last move")),
        Binding("ctrl+y", "redo", N_("Redo"), tooltip=N_("Forward to your next move")),
        Binding("f6", "run('trick')", N_("Trick"), show=False, tooltip=N_("Play on to the end of the trick (your seat plays the hint)")),
        Binding("f7", "run('game')", N_("Game"), show=False, tooltip=N_("Play on to the end of the game (your seat plays the hint)")),
        Binding("f8", "speed", N_("Speed"), show=False, tooltip=N_("Bot speed: instant, fast, normal, slow")),
        Binding("f9", "autopass", N_("Auto-pass"), show=False, tooltip=N_("Pass for you when pass is your only move")),
        Binding("f10", "next_game", N_("Next game"), show=False, tooltip=N_("Deal the next game (tribute between games of a match)")),
        Binding("f12", "review", N_("Review"), show=False,
                tooltip=N_("Review: open hands; every decision with its legal moves and the rules that decided them")),
        Binding("left", "review_step(-1)", N_("Decision back"), show=False, tooltip=N_("Review: one decision back")),
        Binding("right", "review_step(1)", N_("Decision forward"), show=False, tooltip=N_("Review: one decision forward")),
        Binding("f11", "scoreboard", N_("Scoreboard"), show=False, tooltip=N_("The match so far: places, sweeps, tribute, team totals")),
        Binding("ctrl+r", "resume", N_("Resume"), show=False, tooltip=N_("Play on from the position shown (drops what came after)")),
        Binding("ctrl+s", "save", N_("Save"), tooltip=N_("Save the game record (JSON)")),
        Binding("ctrl+o", "open", N_("Open"), show=False, tooltip=N_("Open a game record and replay it step by step")),
        Binding("ctrl+t", "export", N_("Case"), show=False, tooltip=N_("Export the position as a scenario case (NOTATION.md)")),
        Binding("ctrl+l", "log", N_("Log"), show=False, tooltip=N_("Show / focus the game log (Enter on a move: the rules that fired)")),
        Binding("up", "back", N_("Back"), show=False, tooltip=N_("One move back")),
        Binding("down", "forward", N_("Forward"), show=False, tooltip=N_("One move forward")),
        Binding("pageup", "trick(-1)", N_("Previous trick"), show=False, tooltip=N_("Back to the start of this (or the last) trick")),
        Binding("pagedown", "trick(1)", N_("Next trick"), show=False, tooltip=N_("Forward to the start of the next trick")),
        Binding("ctrl+home", "start", N_("Start"), show=False, tooltip=N_("Go to the start of the record (Home too, when the move box is empty)")),
        Binding("ctrl+end", "end", N_("End"), show=False, tooltip=N_("Go to the end of the record (End too, when the move box is empty)")),
        Binding("escape", "clear", N_("Clear"), show=False, tooltip=N_("Clear the move box")),
        Binding("ctrl+b", "close", N_("Close"), tooltip=N_("Leave the game: back to the screen you came from (or quit)")),
        Binding("ctrl+g", "table_start", N_("Start"), show=False,
                tooltip=N_("At a club table: start now (bots take the free seats)")),
        Binding("f12", "table_auto", N_("托管"), show=False,
                tooltip=N_("At a club table: let a bot play your seat (托管), or take it back")),
    ]

    def __init__(self, graph: RuleGraph | str, seat: int = 1, seed: Any = 0, bots: str | dict[int, str] = "heuristic",
                 record: GameRecord | str | os.PathLike[str] | None = None, *, hands: dict[int, Any] | None = None,
                 leader: int | None = None, speed: str = "normal", autopass: bool = True,
                 on_open_rule: Callable[[str, int], bool | None] | None = None, show_steps: bool = True,
                 review: bool = False, source: PlaySession | None = None,
                 name: str | None = None, id: str | None = None, classes: str | None = None):
        super().__init__(name=name, id=id, classes=classes)
        if source is not None:  # a game source of its own (a seat at a club table: editor.play.remote)
            graph = source.graph
        elif not isinstance(graph, RuleGraph):
            graph = load_graph(graph)
        self.graph = graph
        self.session = source if source is not None else PlaySession(graph, seat=seat, seed=seed, bots=bots, hands=hands,
                                                                     leader=leader)
        self.initial_record = record
        self.speed_index = next((i for i, (n, _delay) in enumerate(SPEEDS) if n == speed), 2)
        self.autopass = autopass
        self.on_open_rule = on_open_rule
        self.show_steps = show_steps
        self._timer: Timer | None = None
        self._typed: Typed | None = None
        self._why: list = []
        self._why_text = ""  # the refused move the why box explains
        self._syncing = False
        self.open_hands = review  # review mode shows every hand
        self.review = review
        self._review_moves: list[Move] = []
        self._finals_shown: set[tuple[int, int]] = set()
        self._thinking: Any = None  # the state a search bot is thinking about (in a worker thread)
        self._search: SearchProcess | None = None  # where search bots think (their own process, issue 22.27)
        self._search_graph: RuleGraph | None = None
        self._search_in_app = ""  # why the search runs in the app's own process instead (it could not start)
        self._run: tuple[str, int, int, int] | None = None  # F6/F7 with search bots: (until, trick, game, moves)
        self._review_from: tuple[PlaySession, int, int, Any] | None = None  # where review began
        self._failed_at: Any = None  # the state at which a ruleset's rule failed (bots wait there)
        self.rule_failure: RuleFailed | None = None  # the last such failure
        self._bot_failed_at: Any = None  # the state at which a bot failed (the game stops there)
        self.bot_failure: tuple[int, str] | None = None  # that bot's seat and what went wrong
        self.table_seq = -2  # at a club table: the state (its seq) the screen shows (-2: not mounted yet)

    def action_close(self) -> None:
        """Back to the screen this one was opened from; in the standalone play app, quit. A game or
        match still being played is not dropped without a question (:meth:`confirm_leave`)."""
        def close() -> None:
            if self.session.remote:  # leaving a club table: the seat goes to its bot (托管) until the link is back
                link = self.table.link
                if link is not None:
                    link.send({"type": "bye"})
                    link.close()
                self.app.exit()
            elif getattr(self.app, "STANDALONE_PLAY", False) or len(self.app.screen_stack) <= 1:
                self.app.exit()
            elif self.app.screen is self:
                self.app.pop_screen()
        self.confirm_leave(N_("Closing"), close)

    def confirm_leave(self, doing: str, then: Callable[[], None]) -> None:
        """Before the game shown is dropped (``doing``: what drops it, "Close", "Open a record"): when
        a game or match is still being played and not saved (:attr:`PlaySession.unfinished`), ask —
        save the record first, leave anyway, or stay — as the editor asks about unsaved text. ``then()``
        runs when it is fine to go on."""
        s = self.session
        if not s.unfinished:
            then()
            return
        st = s.entries[-1].state
        if s.length > 1:
            what = (_("Game {n} of {length} is over, but the match is not") if st.over else
                    _("Game {n} of {length} is not finished")).format(n=st.game_number, length=s.length)
        else:
            what = _("The game is over, but the match is not") if st.over else _("The game is not finished")

        def answer(choice: str | None) -> None:
            if choice == "save":
                self.action_save(then)
            elif choice == "leave":
                then()
        self.app.push_screen(AskScreen(
            _("Leave the game?"), _("{what}: {doing} drops it.").format(what=what, doing=_(doing).lower()),
            [("save", _("Save the record first"), "s"), ("leave", _("Leave without saving"), "l"),
             ("stay", _("Stay"), "c")], default="stay",
            detail=_("Save: the record (JSON) keeps every move; ctrl+o replays it and ctrl+r plays on from any point.")),
            answer)

    # ------------------------------------------------------------------ layout
    def compose(self) -> ComposeResult:
        yield Static("", id="status")
        yield Static("", id="too-small")
        with Horizontal(id="body"):
            with Vertical(id="main"):
                with Grid(id="table"):
                    for rel in (4, 3, 2, 5):
                        yield SeatBox(id=f"seat-{rel}", classes="seat")
                    yield TrickView(id="trick")
                    yield SeatBox(id="seat-1", classes="seat")
                yield Static("", id="notes")
                yield Static("", id="you")
                yield HandView(id="hand")
                yield MoveBox(placeholder=_("a move: RR TTT · pass · yield · burn BB JJJJ (Enter plays, F1 help)"),
                              id="move")
                yield Static("", id="feedback")
                with Horizontal(id="actions"):
                    for verb, label, _what in ACTIONS:
                        b = Button(_(label), id=f"act-{verb.replace(' ', '-')}", compact=True, classes="act")
                        b.can_focus = False  # keys: type the move or use the F-keys; the mouse clicks
                        yield b
                yield OptionList(id="why")
                yield OptionList(id="review")
            yield GameLog(id="log")
        yield FittingFooter()

    def on_mount(self) -> None:
        log = self.query_one(GameLog)
        log.rebuild(self.session)
        if self.initial_record is not None:
            rec = self.initial_record
            try:
                if not isinstance(rec, GameRecord):
                    rec = load_record(rec)
                self._load(rec)
            except GoujiError as e:
                self.notify(e.format(), title=_("Cannot replay the record"), severity="error", timeout=15)
        if self.review:
            self.set_class(True, "-review")
        self.refresh_all()
        if self.review:
            self.query_one("#review", OptionList).focus()
        if self.session.remote:
            self.table_seq = -1
            if self.table.watching:  # no hand, no move box, no move keys: the table from nobody's side
                self.set_class(True, "-watching")
                self.query_one("#move", Input).disabled = True
                self.query_one(HandView).can_focus = False
                self.query_one(GameLog).focus()
            self.table_update("opened")
        elif self.show_steps and self.session.mode == "play" and self._has_steps() and not self.review:
            self.app.push_screen(BetweenGamesScreen(self.session), lambda _result: self._schedule())
        else:
            self._schedule()

    # ------------------------------------------------------------------ refresh
    @property
    def speed(self) -> tuple[str, float]:
        return SPEEDS[self.speed_index]

    @guarded
    def refresh_all(self) -> None:
        s = self.session
        self._refresh_seats()
        self._refresh_trick()
        self._refresh_notes()
        self.query_one("#you", Static).update(self._you_text())
        value = self.query_one("#move", Input).value
        # what is typed is read again against the position now shown (a turn error goes stale)
        self._typed = s.interpret(value) if value.strip() else None
        self._refresh_hand()
        self._refresh_status()
        self._refresh_actions()
        self._refresh_feedback()
        log = self.query_one(GameLog)
        log.sync()
        if self.review:
            self._refresh_review()
        self._check_match_over()

    def _you_text(self) -> Text:
        """The line about your seat under the table (a spectator's: that he sees no hand)."""
        s = self.session
        st = s.state
        me = s.seat
        you = Text()
        if s.remote and self.table.watching:  # seat 1 sits at the bottom, told as any other seat is
            you.append(_("Watching table {code}: a spectator sees no hand").format(code=self.table.address.code),
                       style="bold")
            you.append(" · " + _("seat {seat}").format(seat=me) + f" ({s.seat_caption(me)}) · " + _("team {team}").format(
                team=st.team(me)))
            if me in st.places:
                you.append(" · " + finish_text(st, me, s.words))
            elif "count" in st.view(me)["others"].get(str(me), {}):
                you.append(" · " + cards_word(st.hand_size(me)))
            marks = markers(s, me)
            if marks:
                you.append(" · " + " ".join(marks), style="italic")
            if st.to_act == me and not st.over:
                you.append("  ▶ " + _("to act"), style="bold reverse")
            return you
        you.append(_("Seat {seat} · you · team {team}").format(seat=me, team=st.team(me)), style="bold")
        if me in st.places:
            you.append(" · " + finish_text(st, me, s.words))
        you.append(" · " + cards_word(st.hand_size(me)))
        marks = markers(s, me)
        if marks:
            you.append(" · " + " ".join(marks), style="italic")
        if s.your_turn:
            you.append("  ▶ " + _("your turn"), style="bold reverse")
        return you

    def _refresh_seats(self) -> None:
        s = self.session
        st = s.state
        me = s.seat
        for rel in range(1, st.n_seats):
            seat = (me - 1 + rel) % st.n_seats + 1
            try:
                self.query_one(f"#seat-{rel}", SeatBox).show(s, seat, open_hands=self.open_hands,
                                                             thinking=self._thinking is st and st.to_act == seat)
            except Exception:
                pass

    def _check_match_over(self) -> None:
        """When the last game of a match ends in play, show the final scoreboard (once)."""
        s = self.session
        top = self.app.screen
        if isinstance(top, ScoreboardScreen) and top.final and top.session is s and not s.state.over:
            top.dismiss(None)  # (the next match was dealt under the last one's final scoreboard: it is stale)
        if s.mode != "play" or not s.live or not s.match_over:
            return
        key = (id(s), s.cursor)
        if key in self._finals_shown:
            return
        self._finals_shown.add(key)
        if not isinstance(self.app.screen, ModalScreen):
            self.app.push_screen(ScoreboardScreen(s, final=True))

    # ------------------------------------------------------------------ review
    @guarded
    def action_review(self) -> None:
        """Review mode on / off: every hand open, and under the table the decision at this point: the
        seat to act, its legal moves (the one made marked ▶), Enter on one: the rules that decide it."""
        self.set_review(not self.review)

    def set_review(self, on: bool) -> None:
        """Review on / off. Leaving review goes back to where play was when review began (stepping
        back through the decisions does not rewind the game), unless the timeline changed meanwhile
        (ctrl+r played on from an earlier point: play goes on from there)."""
        s = self.session
        if on and not self.review:
            self._review_from = (s, s.cursor, len(s.entries), s.entries[-1].state)
        elif not on and self.review and self._review_from is not None:
            session, cursor, n, last = self._review_from
            self._review_from = None
            if session is s and len(s.entries) == n and s.entries[-1].state is last and s.cursor != cursor:
                s.goto(cursor)
                self._hide_why()
                self.notify(_("Back to where play was (the end of the game).") if s.state.over else
                            _("Back to where play was (move {n}).").format(n=cursor), timeout=3)
        self.review = on
        self.open_hands = on
        self.set_class(on, "-review")
        if on:
            if self._timer is not None:
                self._timer.stop()
                self._timer = None
            if self.session.mode == "play" and self.session.live:
                self.notify(_("Review: every hand is open. ←/→ step through the decisions, ↑/↓ the moves, "
                              "Enter the rules; F12 back to play."), title=_("Review"), timeout=6)
        self.refresh_all()
        if on:
            self.query_one("#review", OptionList).focus()
        else:
            self.query_one("#move", Input).focus()
            self._schedule()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "review_step":
            return self.review  # ←/→ step through decisions only in review mode
        if self.session.remote:  # a seat at a club table: the server plays the bots, keeps the record
            t = self.table
            if action == "save":  # the match's record, once the table has it (GET /t/CODE/record)
                return t.record_link is not None
            return action not in TABLE_OFF and not (t.watching and action in WATCH_OFF)
        return action not in ("table_start", "table_auto")

    @guarded
    def action_review_step(self, delta: int) -> None:
        if delta < 0:
            self.action_back()
        else:
            self.action_forward()
        self.query_one("#review", OptionList).focus()

    def _review_decision(self) -> int | None:
        """The number of the decision being reviewed, as the log numbers its move (the move made at
        it is entry ``cursor + 1``), or None when nobody is to act (the game is over)."""
        s = self.session
        if s.state.over or s.state.to_act is None:
            return None
        return s.cursor + 1

    def _review_count(self, k: int) -> str:
        """``4/17`` for decision 4 of the 17 made, ``14 (the next)`` for the one still to make (at the
        end of a live game: not "14/13")."""
        n = len(self.session.entries) - 1
        return f"{k}/{n}" if k <= n else _("{k} (the next)").format(k=k)

    def _refresh_review(self) -> None:
        s = self.session
        st = s.state
        ol = self.query_one("#review", OptionList)
        ol.clear_options()
        nxt = s.entries[s.cursor + 1] if s.cursor + 1 < len(s.entries) else None
        made = nxt.move if nxt is not None and nxt.move else None
        n = len(s.entries) - 1
        k = self._review_decision()
        if k is None:
            ol.border_title = _("After decision {k}/{n}: the game is over").format(k=s.cursor, n=n)
            self._review_moves = []
            return
        who = seat_word(st.to_act, s.seat) if st.to_act is not None else "—"
        moves = list(s.legal())
        made_move = next((m for m in moves if made and m.text(s.model) == made), None)
        ol.border_title = (_("Decision {k}: {who} to {what}").format(k=self._review_count(k), who=who, what=st.capacity or st.phase)
                           + " · " + ngettext("{n} legal move", "{n} legal moves", len(moves)).format(n=len(moves))
                           + (" · " + _("made: {move}").format(move=move_label(made, s.seat, s.words).plain) if made else " · " + _("not made yet")))
        ordered = ([made_move] if made_move is not None else []) + [m for m in moves if m is not made_move]
        shown = ordered[:REVIEW_MAX]
        self._review_moves = shown
        options = []
        for i, m in enumerate(shown):
            label = Text("▶ " if m is made_move else "  ", style="bold")
            label.append(move_label(m.text(s.model), s.seat, s.words))  # "seat 3 KK" as the log says it, not "3 play KK"
            if m.cards is not None:
                p = s.model.classify(m.cards)
                if p.gouji:
                    label.append("  " + _("gouji"), style="magenta")
            if m is made_move:
                exp = explain(st, m)
                deciding = [r for r in exp.reasons if r.verdict != "note"][:2]
                if deciding:
                    label.append("  " + " · ".join(r.rule_id for r in deciding), style="dim")
            options.append(Option(label, id=f"rv-{i}"))
        if len(ordered) > len(shown):
            options.append(Option(Text("  " + _("… {n} more legal moves (F4 lists them all)").format(n=len(ordered) - len(shown)), style="dim"),
                                  disabled=True))
        ol.add_options(options)
        ol.highlighted = 0 if shown else None

    @on(OptionList.OptionSelected, "#review")
    @guarded
    def _review_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        i = int((event.option.id or "rv-0")[3:])
        mv = self._review_moves[i]
        st = self.session.state
        self.app.push_screen(WhyScreen(explain(st, mv), self.open_rule,
                                       _("Why this move is legal here (decision {k})").format(k=self._review_decision())))

    def action_scoreboard(self) -> None:
        self.app.push_screen(ScoreboardScreen(self.session))

    @property
    def log_shown(self) -> bool:
        """Whether the game log is on screen (narrow terminals show it on ctrl+l only)."""
        return not self.has_class("-narrow") or self.has_class("-show-log")

    def _refresh_trick(self) -> None:
        self.query_one(TrickView).show(self.session, log_shown=self.log_shown)

    def _refresh_notes(self) -> None:
        """What the table does not say by itself: hidden counts, and the terms of the markers shown."""
        s = self.session
        st = s.state
        me = s.seat
        notes = Text()
        hidden = not self.open_hands and any(
            "count" not in info and int(seat) not in st.places for seat, info in st.view(me)["others"].items())
        rule = s.count_rule()
        if hidden and rule is not None:
            notes.append(_("? cards") + ("：" if chinese() else " "), style="bold")
            notes.append(f"{rule[1]}  ", style="dim")
        seen: set[str] = set()
        for seat in st.seat_list:
            for name in sorted(n for n, seats in st.flags.items() if seat in seats):
                if name in seen:
                    continue
                seen.add(name)
                node = s.flag_rule(name)
                if node is not None and node.says:
                    notes.append(flag_word(s, name) + " ", style="bold")
                    notes.append(f"{node.sentence()}  ", style="dim")
        box = self.query_one("#notes", Static)
        width = box.content_size.width
        if chinese() and width > 4:  # broken as Chinese is (between characters), not at the one space
            notes = Text("\n").join(wrap_text(notes, width))
        box.update(notes)

    def on_resize(self) -> None:
        w, h = self.size
        small = w < self.MIN_SIZE[0] or h < self.MIN_SIZE[1]
        self.set_class(small, "-too-small")
        if small:
            self.query_one("#too-small", Static).update(
                _("The terminal is {w}×{h}: the table needs at least {mw}×{mh}.").format(w=w, h=h, mw=self.MIN_SIZE[0], mh=self.MIN_SIZE[1])
                + "\n" + _("Make the window larger to play on (the game waits as it is); ctrl+q quits."))
        elif self.focused is None and self.is_current:
            self.query_one("#move").focus()  # back from too small: typing goes to the move box again
        self.call_after_refresh(self._refresh_trick)
        self.call_after_refresh(self._refresh_notes)

    def _refresh_status(self) -> None:
        s = self.session
        st = s.state
        t = Text()
        t.append(f" {self.graph.name}", style="bold")
        t.append(" · " + (_("game {n} of {length}").format(n=st.game_number, length=s.length) if s.length > 1
                          else _("game {n}").format(n=st.game_number)))
        t.append(" · " + _("seed {seed}").format(seed=s.seed))
        if self.review:
            k = self._review_decision()
            t.append(" · " + (_("review: decision {k}, hands open").format(k=self._review_count(k)) if k
                              else _("review: game over, hands open")), style="bold cyan")
            t.append("  " + _("←→ decisions · ↑↓ moves · enter the rules · F12 leave"), style="dim")
        elif s.remote:
            t.append(" · " + self.table.status_text(), style="bold" if self.table.connection != "connected" else "")
        elif s.mode == "replay":
            t.append(" · " + _("replay {k}/{n}").format(k=s.cursor, n=len(s.entries) - 1), style="bold magenta")
            t.append("  " + _("↑↓ step · ctrl+z/y your moves · ctrl+r take over"), style="dim")
        elif not s.live:
            t.append(" · " + _("viewing {k}/{n}").format(k=s.cursor, n=len(s.entries) - 1), style="bold yellow")
            t.append("  " + _("ctrl+y redo · ctrl+r play on from here · or make a move"), style="dim")
        else:
            t.append(" · " + _("you: seat {seat} · speed {speed}").format(seat=s.seat, speed=_(self.speed[0])))
            t.append(" · " + (_("auto-pass on") if self.autopass else _("auto-pass off")))
            if self._thinking is not None and self._thinking is st and st.to_act is not None:
                t.append(" · " + _("seat {seat} ({bot}) is thinking…").format(seat=st.to_act, bot=s.bot_names.get(st.to_act, '')),
                         style="bold")
        self.query_one("#status", Static).update(t)

    def _refresh_hand(self) -> None:
        s = self.session
        hv = self.query_one(HandView)
        typed = self._typed
        sel = typed.move.cards if typed and typed.move and typed.move.cards is not None else None
        hv.set_hand(s.state.hands[s.seat], s.model.kinds, sel)
        hv.border_title = _("Your hand ({n})").format(n=s.state.hand_size(s.seat))

    def _refresh_actions(self) -> None:
        s = self.session
        verbs = s.legal_verbs() if s.your_turn and (s.live or s.mode == "play") else set()
        for verb, _label, _what in ACTIONS:
            b = self.query_one(f"#act-{verb.replace(' ', '-')}", Button)
            b.display = verb in verbs

    def _stopped_at(self, state: Any) -> bool:
        """A rule or a bot failed at ``state``: nothing moves by itself there."""
        return state is self._failed_at or state is self._bot_failed_at

    @staticmethod
    def _bot_failed_feedback(t: Text, seat: int, error: str) -> None:
        """(F9) a bot failed at the position shown: the game stopped there, why, and what to do."""
        t.append("✗ " + _("The bot of seat {seat} failed: the game has stopped.").format(seat=seat) + " ", style="bold red")
        t.append(printable(error.strip().splitlines()[0] if error.strip() else ""), style="red")
        t.append("  " + _("ctrl+n new game · ctrl+z undo · ctrl+s save the record · ctrl+b leave"), style="dim")

    def _refresh_feedback(self) -> None:
        s = self.session
        fb = self.query_one("#feedback", Static)
        value = self.query_one("#move", Input).value
        t = Text()
        typed = self._typed if self._typed is not None and self._typed.text == value else None
        if not value.strip():
            st = s.state
            failed = self.rule_failure if self._failed_at is st else None
            if self.bot_failure is not None and self._bot_failed_at is st:
                self._bot_failed_feedback(t, *self.bot_failure)
            elif failed is not None:
                t.append("✗ ", style="bold red")
                t.append(_("rule {rule!r} failed here").format(rule=failed.rule_id), style="bold red")
                t.append(f" ({short_where(failed.pos)}): {failed.reason}", style="red")
                t.append("  " + _("ctrl+z undo · ctrl+s save the record"), style="dim")
            elif st.over:
                t.append((_("Game {n} of {length} is over.") if s.length > 1 else _("Game {n} is over.")).format(
                    n=st.game_number, length=s.length) + " ", style="bold")
                keys = s.over_keys()  # (at a club table: only the keys that do something there)
                t.append(keys + _(".") if keys is not None else
                         _("F10 deals {next} · F11 scoreboard · ctrl+s saves the record.").format(next=s.next_game_label()),
                         style="dim")
            elif s.your_turn:
                t.append(spaced(_("Your turn:")), style="bold")
                t.append(self._turn_hint(), style="dim")
                t.append("  " + _("(F3 hint · F4 list)"), style="dim")
            elif self.review:
                t.append(_("Review: ←/→ one decision back/forward, ↑/↓ its legal moves, Enter the rules."), style="dim")
            elif s.mode == "replay" or not s.live:
                t.append(_("Looking back: ↑/↓ step, ctrl+r plays on from here."), style="dim")
            elif st.to_act is None:  # (a club table before its start, or between two states)
                t.append(_("Waiting for the table…"), style="dim")
            else:
                t.append(_("Seat {seat} is thinking…").format(seat=st.to_act), style="dim")
        elif typed is not None:
            if typed.error:
                t.append("✗ ", style="bold red")
                t.append(typed.error, style="red")
            else:
                if typed.play is not None and not typed.play.valid:
                    t.append("✗ ", style="bold red")
                    t.append(s.describe_play(typed.play) + _("."), style="red")
                    # the rule that refuses the shape, as the F5 dialog names it
                    forb = typed.forbidding if typed.explanation is not None else []
                    if forb:
                        t.append(f" {forb[0].rule_id}", style="bold red")
                        if forb[0].pos is not None:
                            t.append(f" {short_where(forb[0].pos)}", style="dim")
                elif typed.play is not None:
                    t.append(f"{typed.play.text}{_colon()}{s.describe_play(typed.play)}{_('.')} ", style="")
                if typed.explanation is not None and (typed.play is None or typed.play.valid):
                    if typed.legal and typed.explanation.warnings:  # legal, but it will fail (a bluff is a move)
                        w = typed.explanation.warnings[0]
                        t.append("✓ " + _("legal"), style="bold yellow")
                        t.append(" — " + _("but {fact}").format(fact=w.fact.split(':', 1)[0]), style="bold yellow")
                        for r in w.reasons[:1]:  # (the rule and its place first: the sentence may be cut at 80x24)
                            t.append(f"{_colon()}{r.rule_id}", style="bold yellow")
                            if r.pos is not None:
                                t.append(bracketed(short_where(r.pos), after=True), style="dim")
                        t.append(" — " + _("Enter plays it all the same, F5 why") if typed.your_turn else "", style="yellow")
                        for r in w.reasons[:1]:
                            t.append(f" — {r.text}", style="yellow")
                    elif typed.legal and typed.explanation.undecided:  # no claim either way
                        t.append("✓ " + _("legal"), style="bold green")
                        t.append(f" — {typed.explanation.undecided}", style="yellow")
                        t.append(" — " + _("Enter to play, F5 why") if typed.your_turn else "", style="green")
                    elif typed.legal:
                        t.append("✓ " + _("legal"), style="bold green")
                        beats = next((r for r in typed.explanation.reasons if r.rule_id == "setting.comparison"), None)
                        if beats is not None:
                            t.append(f" — {beats.text.rstrip('.')}", style="green")
                        t.append(" — " + _("Enter to play") if typed.your_turn else "", style="green")
                    else:
                        forb = typed.forbidding
                        t.append("✗ ", style="bold red")
                        if forb:
                            r = forb[0]
                            t.append(r.rule_id, style="bold red")
                            t.append(f"{_colon()}{r.text}", style="red")
                            if r.pos is not None:
                                t.append(bracketed(short_where(r.pos), after=True), style="dim")
                        else:
                            t.append(_("illegal"), style="red")
        fb.update(t)

    def _turn_hint(self) -> str:
        """What your turn asks, in a few words: lead, burn, answer, or the setup question."""
        s = self.session
        st = s.state
        n = sum(1 for m in s.legal() if m.cards is not None)
        if st.capacity == "lead" and st.phase == "play":
            return ngettext("lead your one play", "lead any of your {n} plays", n).format(n=n)
        if st.capacity == "burn" and st.top is not None:
            if n == 0:
                return _("seat {seat}'s {cards} is a gouji play: nothing you hold burns it: pass").format(
                    seat=st.top.seat, cards=st.top.play.text)
            return ngettext("seat {seat}'s {cards} is a gouji play: burn it with your one play (type the cards), or pass",
                            "seat {seat}'s {cards} is a gouji play: burn it with one of {n} plays (type the cards), or pass",
                            n).format(seat=st.top.seat, cards=st.top.play.text, n=n)
        if st.capacity == "follow" and st.top is not None:
            if n == 0:
                return _("nothing you hold beats {cards}: pass").format(cards=st.top.play.text)
            return ngettext("{n} play beats {cards}", "{n} plays beat {cards}", n).format(n=n, cards=st.top.play.text)
        return self._setup_question()

    def _setup_question(self) -> str:
        """What the setup / between-game question is, with the rule that asks it."""
        s = self.session
        st = s.state
        me = s.seat
        words = s.words
        if st.phase == "return":
            _receiver, giver, n = st.return_queue[0]
            return termed(words, ngettext("return {n} card to seat {giver} ({return_tribute}): type the cards",
                                          "return {n} cards to seat {giver} ({return_tribute}): type the cards", n),
                          ngettext("return {n} card to seat {giver}: type the cards",
                                   "return {n} cards to seat {giver}: type the cards", n),
                          {"return_tribute": Term.RETURN_TRIBUTE}, n=n, giver=giver)
        if st.phase == "ask":  # a choice of the ruleset's own: the offer rule that asks it says what it is
            word = st.ask_queue[0][1]
            mv = Move(me, Verb.CHOOSE, None, word)
            why = next((r for r in s.judge(mv).reasons if r.verdict == "allowed" and r.rule is not None), None)
            return _("{word}? type choose {word} or pass").format(word=word) + (f" — {why.rule_id}: {why.text}" if why else "")
        if st.phase == "setup":
            verb, text = "revolt", termed(words, _("declare revolution ({revolution})? type revolt or pass"),
                                          _("declare revolution? type revolt or pass"), {"revolution": Term.REVOLUTION})
        elif st.phase == "declare":
            verb, text = "declare", termed(words, _("declare the point ({declared})? type declare or pass"),
                                           _("declare the point? type declare or pass"), {"declared": Term.DECLARED})
        elif st.phase == "choose":
            verb, text = "choose", termed(words, _("type head (keep a head: {keep_head}) or headless ({headless})"),
                                          _("type head (keep a head) or headless (go head-less)"),
                                          {"keep_head": Term.KEEP_HEAD, "headless": Term.HEADLESS})
        else:
            return " / ".join(sorted(s.legal_verbs()))
        mv = Move(me, Verb(verb), None, "head" if verb == "choose" else "")
        why = next((r for r in s.judge(mv).reasons if r.verdict == "allowed" and r.rule is not None), None)
        return text + (f" — {why.rule_id}: {why.text}" if why else "")

    # ------------------------------------------------------------------ typing
    @on(Input.Changed, "#move")
    @guarded
    def _typed_changed(self, event: Input.Changed) -> None:
        self._typed = self.session.interpret(event.value) if event.value.strip() else None
        if self._why and event.value.strip() != self._why_text:
            self._hide_why()  # the box explained another move (issue 15: stale after F3)
        if not self._syncing:
            self._refresh_hand()
        self._refresh_feedback()

    @on(Input.Submitted, "#move")
    @guarded
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.submit(event.value)

    @on(HandView.Selected)
    @guarded
    def _hand_selected(self, event: HandView.Selected) -> None:
        s = self.session
        inp = self.query_one("#move", Input)
        cards = s.model.text(event.counts)
        words = inp.value.split()
        verb = words[0] if words and words[0].lower() in ("play", "burn", "discard", "return") else ""
        self._syncing = True
        inp.value = (f"{verb} {cards}" if verb else cards) if cards else ""
        inp.cursor_position = len(inp.value)
        self._syncing = False

    @on(HandView.TypedKey)
    def _hand_typed(self, event: HandView.TypedKey) -> None:
        inp = self.query_one("#move", Input)
        inp.focus()
        if event.character:
            inp.insert_text_at_cursor(event.character)

    @on(HandView.Submitted)
    @guarded
    def _hand_submitted(self) -> None:
        self.submit(self.query_one("#move", Input).value)

    @guarded
    def submit(self, text: str) -> bool:
        """Play what was typed. Returns True when a move was made."""
        s = self.session
        if not text.strip():
            if s.your_turn and s.only_pass():
                return self._make(Move(s.seat, Verb.PASS))
            self.app.bell()
            return False
        typed = s.interpret(text)
        self._typed = typed
        if typed.error or typed.move is None:
            self._refresh_feedback()
            self.app.bell()
            return False
        if s.state.over:
            self.notify(_("The game is over: F10 deals the next game."))
            return False
        if not typed.legal:
            s.last_illegal = typed.move.text(s.model)
            self._show_why(typed)
            self._refresh_feedback()
            self.app.bell()
            if s.remote and s.your_turn:  # the table's own rules for the refusal, in the box when they come
                self._ask_table_why(text, box=True)
            return False
        return self._make(typed.move, consumed=text)

    @guarded
    def _make(self, move: Move, by: str = "you", consumed: str | None = None) -> bool:
        s = self.session
        try:
            s.apply(move, by)
        except IllegalMove as e:
            self.notify(str(e), severity="error")
            return False
        self._clear_input(consumed)
        self._hide_why()
        self.refresh_all()
        self._after_move()
        return True

    def _clear_input(self, consumed: str | None = None) -> None:
        """Empty the move box; after a move, only the text that made it (``consumed``): keys typed
        after Enter in a burst stay for the next move."""
        inp = self.query_one("#move", Input)
        self._typed = None
        rest = inp.value[len(consumed):].lstrip() if consumed and inp.value.startswith(consumed) else ""
        inp.value = rest
        inp.cursor_position = len(rest)

    def _show_why(self, typed: Typed) -> None:
        ol = self.query_one("#why", OptionList)
        ol.clear_options()
        exp = typed.explanation
        if exp is None:
            return
        reasons = [r for r in exp.reasons if r.verdict == "forbade"] + [r for r in exp.reasons if r.verdict != "forbade"]
        self._why = reasons
        self._why_text = typed.text.strip()
        ol.border_title = _("Why {move} is refused (Tab here, Enter opens a rule)").format(move=exp.move)
        ol.add_options([Option(reason_prompt(r), id=f"why-{i}") for i, r in enumerate(reasons)])
        ol.highlighted = 0 if reasons else None
        ol.add_class("-shown")

    def _hide_why(self) -> None:
        ol = self.query_one("#why", OptionList)
        ol.clear_options()
        ol.remove_class("-shown")
        self._why = []
        self._why_text = ""

    @on(OptionList.OptionSelected, "#why")
    def _why_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        i = int((event.option.id or "why-0")[4:])
        r = self._why[i]
        if r.pos is not None:
            self.open_rule(r.pos)
        else:
            self.notify(_("{rule} is one of the interpreter's own checks: no source line.").format(rule=r.rule_id))

    def open_rule(self, pos: SourcePos) -> None:
        """Show the rule written at ``pos`` (in the editor when the app wired ``on_open_rule``)."""
        if pos.line <= 0:
            return
        if self.on_open_rule is not None and self.on_open_rule(pos.path, pos.line):
            return
        self.app.push_screen(RuleSourceScreen(pos.path, pos.line))

    def leave(self) -> None:
        """Close this screen and the dialogs opened over it (for an ``on_open_rule`` that shows the
        rule elsewhere)."""
        if self not in self.app.screen_stack:
            return
        while self.app.screen is not self:
            self.app.pop_screen()
        self.app.pop_screen()

    @on(Button.Pressed, ".act")
    @guarded
    def _action_button(self, event: Button.Pressed) -> None:
        event.stop()
        verb = (event.button.id or "").removeprefix("act-").replace("-", " ")
        what = next(a for v, _label, a in ACTIONS if v == verb)
        if what == "submit":
            self.submit(self.query_one("#move", Input).value)
        elif what.startswith("type:"):
            inp = self.query_one("#move", Input)
            inp.value = what[5:]
            inp.cursor_position = len(inp.value)
            inp.focus()
        else:
            self.submit(what[5:])

    # ------------------------------------------------------------------ bots
    def _after_move(self) -> None:
        self._schedule()

    @guarded
    def _schedule(self) -> None:
        """Let bots (and auto-pass) move: all at once at instant speed (and while F6/F7 play on), else
        one per tick. A search bot thinks in a worker thread (:meth:`_think`)."""
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        s = self.session
        if s.remote:
            self._table_autopass()
            return
        if s.mode != "play" or not s.live or s.state.over or self.review:
            if self._run is not None:
                self._end_run()
            return
        if self._thinking is not None or self._stopped_at(s.state):
            return  # a rule or a bot failed here: nothing moves by itself until the game is elsewhere
        delay = 0.0 if self._run is not None else self.speed[1]
        if delay <= 0:
            moved = False
            for _step in range(10000):
                step = self._auto_step()
                if step != "moved":
                    break
                moved = True
            if moved or step == "ended":
                self.refresh_all()
            if step == "ended":
                self._schedule()
            return
        if s.bots_to_move or (s.your_turn and self.autopass and s.only_pass()):
            self._timer = self.set_timer(delay, self._tick)

    def _auto_step(self) -> str:
        """One move nobody types: a bot's, auto-pass, or the hint for you while F6/F7 play on.
        Returns ``moved``, ``thinking`` (a search bot started in a worker), ``ended`` (the F6/F7
        run is over), ``stopped`` (a bot failed: :meth:`_bot_failed`) or ``idle``."""
        s = self.session
        if self._run is not None:
            until, trick, game, _moves = self._run
            if s.state.over or s.game_index != game or (until == "trick" and s.state.trick_no != trick):
                self._end_run()
                return "ended"
        if s.bots_to_move:
            if s.bot_searches() and len(s.legal()) > 1:
                self._think()
                return "thinking"
            state = s.state
            try:  # (a bot from outside with one move to make is asked here, on the UI thread)
                s.step_bot()
            except BotFailed as e:
                self._bot_failed(s, state, e.format())
                return "stopped"
        elif s.your_turn and self._run is not None:
            mv = s.hint()
            if mv is None:
                self._end_run()
                return "ended"
            s.apply(mv, "auto")
        elif s.your_turn and self.autopass and s.only_pass():
            s.apply(Move(s.seat, Verb.PASS), "auto")
        else:
            return "idle"
        self._count_run_move()
        return "moved"

    def _count_run_move(self) -> None:
        if self._run is not None:
            until, trick, game, n = self._run
            self._run = (until, trick, game, n + 1)

    def _end_run(self) -> None:
        if self._run is None:
            return
        until, _trick, _game, n = self._run
        self._run = None
        self.notify((ngettext("{n} move played to the end of the trick", "{n} moves played to the end of the trick", n)
                     if until == "trick" else ngettext("{n} move played to the end of the game",
                                                       "{n} moves played to the end of the game", n)).format(n=n), timeout=3)

    def _think(self) -> None:
        """Ask the search bot to act for its move in a worker thread; :meth:`_thought` applies it."""
        if self._thinking is not None:
            return
        req = self.session.bot_request()
        if req is None:
            return
        state, moves, bot = req
        session = self.session
        self._thinking = state
        self._refresh_status()
        self._refresh_seats()
        assert state.to_act is not None  # (a bot is asked only when a seat is to act)
        spec = session.bot_names[state.to_act]
        # (a bot from outside answers in its own process or code: asked from the worker thread itself)
        search = None if is_outside(spec) else self._search_process(session.graph)

        def work() -> None:
            move: Move | None = None
            error: str | None = None
            try:
                move = bot.choose(state, moves) if search is None else self._choose_apart(search, spec, bot, state, moves)
            except SearchCancelled:
                return  # the game moved on or the screen closed: nobody waits for the answer
            except SearchFailed as e:
                error = str(e)
            except GoujiError as e:
                error = e.format()
            except Exception as e:  # a bot's failure is reported on screen, never a traceback
                error = f"{type(e).__name__}: {e}"
            try:
                self.app.call_from_thread(self._thought, session, state, move, error)
            except RuntimeError:  # the app has closed meanwhile
                pass

        self.run_worker(work, thread=True, group="bot-think", exit_on_error=False)

    def _search_process(self, graph: RuleGraph) -> SearchProcess | None:
        """The process search bots think in, for ``graph`` (None: they think in a thread of the app,
        because the process could not start; the screen said why once)."""
        if self._search_in_app:
            return None
        if self._search is None or self._search_graph is not graph:
            self._cancel_search(close=True)
            self._search, self._search_graph = SearchProcess(graph), graph
        return self._search

    def _choose_apart(self, search: SearchProcess, spec: str, bot: Any, state: Any, moves: Any) -> Move:
        """(worker thread) The search bot's move, thought in its own process; in this thread when
        the process cannot start (the app's keys and drawing then share the interpreter with it)."""
        try:
            return search.choose(spec, bot, state, moves)
        except OSError as e:
            self._search_in_app = f"{type(e).__name__}: {e}"
            try:
                self.app.call_from_thread(self.notify, _("The search bots think inside the app (slower keys and "
                                                         "drawing meanwhile): their process could not start: {error}").format(
                                              error=self._search_in_app),
                                          severity="warning", timeout=10)
            except RuntimeError:
                pass
            return bot.choose(state, moves)  # type: ignore[no-any-return]

    def _cancel_search(self, close: bool = False) -> None:
        """End the search being thought about (its answer would be dropped); ``close``: for good."""
        search = self._search
        if search is not None:
            if close:
                self._search = None
                search.close()
            else:
                search.cancel()

    def interrupted_note(self) -> str | None:
        """(SIGTERM: :meth:`editor.terminal_keys.XtermKeysApp.interrupted_notes`) what closing cost:
        nothing is asked (a closed session has nobody to answer), the unsaved game is said."""
        return _("the game being played was not saved") if self.session.unfinished else None

    def on_unmount(self) -> None:
        self._cancel_search(close=True)  # no search process outlives the screen

    @guarded
    def _thought(self, session: PlaySession, state: Any, move: Move | None, error: str | None) -> None:
        if self._thinking is state:
            self._thinking = None
        if not self.is_attached:  # the play screen was closed while the bot thought
            return
        if error is not None:
            self._bot_failed(session, state, error)
            return
        if session is self.session and session.state is state and session.bots_to_move and move is not None:
            try:
                session.apply(move, "bot")
            except RuleFailed as e:
                self.rule_failed(e)
                return
            self._count_run_move()
            self.refresh_all()
        else:  # the game moved on meanwhile (undo, a jump, a new game): the answer is dropped
            self._refresh_status()
            self._refresh_seats()
        self._schedule()

    def _bot_failed(self, session: PlaySession, state: Any, error: str) -> None:
        """The bot to act at ``state`` failed (a bot from outside: an illegal answer, a time-out, an
        exit, a plug-in's exception), whether asked in a worker (:meth:`_thought`) or on the UI thread
        (:meth:`_auto_step`): said in a notification and under the hand; the game stops there (nothing
        moves by itself at that position; undo, a new game or leaving go on)."""
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        self._run = None
        self.notify(error, title=_("The bot of seat {seat} failed").format(seat=state.to_act), severity="error", timeout=15)
        if session is self.session and session.state is state:
            self._bot_failed_at, self.bot_failure = state, (state.to_act or 0, error)
        self._refresh_status()
        self._refresh_seats()
        self._refresh_feedback()

    @property
    def thinking(self) -> bool:
        """A search bot is thinking (in a worker thread)."""
        return self._thinking is not None

    def rule_failed(self, error: RuleFailed) -> bool:
        """A ruleset's rule failed while the game ran (a move, a bot's turn, the end of the game):
        the game stays where it was before (every move works on a copy), nothing moves by itself
        there any more, and a dialog names the rule, its file:line and why (the interpreter's own
        text), with the rule's source one key away. Returns True (handled)."""
        if not self.is_attached:
            return False
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        self._run = None
        self._thinking = None
        again = self._failed_at is self.session.state and isinstance(self.app.screen, AskScreen)
        self._failed_at = self.session.state
        self.rule_failure = error
        try:
            PlayScreen.refresh_all.__wrapped__(self)  # type: ignore[attr-defined]
        except RuleFailed:
            pass  # the position itself cannot be shown in full: the dialog says why
        if again:
            return True  # its dialog is open already
        self.app.push_screen(AskScreen(
            _("A rule of the ruleset failed"), Text(error.format()),
            [("rule", _("Show the rule"), "r"), ("ok", _("Keep playing"), "k")],
            detail=_("The game is kept as it was before: undo (ctrl+z), save the record (ctrl+s), or fix the rule "
                     "and play again. gouji simulate reports the same rule at the same line.")),
            lambda choice: self.open_rule(error.pos) if choice == "rule" else None)
        return True

    @guarded
    def _tick(self) -> None:
        self._timer = None
        s = self.session
        if (s.mode != "play" or not s.live or s.state.over or self._thinking is not None
                or self._stopped_at(s.state)):
            return
        if self._auto_step() == "moved":
            self.refresh_all()
            self._schedule()

    # ------------------------------------------------------------------ actions
    def action_help(self) -> None:
        at_table = None if not self.session.remote else ("watch" if self.table.watching else "seat")
        self.app.push_screen(PlayHelpScreen(at_table))

    @guarded
    def action_pass_move(self) -> None:
        s = self.session
        if not s.your_turn:
            self.notify(_("It is not your turn."))
            return
        self.submit("pass")

    @guarded
    def action_hint(self) -> None:
        s = self.session
        if not s.your_turn:
            self.notify(_("It is not your turn: the hint is for your moves."))
            return
        if s.remote:
            self.run_worker(self._table_hint(), group="table-ask", exclusive=True)
            return
        mv = s.hint()
        if mv is None:
            return
        text = mv.text(s.model).split(None, 1)[1]
        if mv.verb == s.default_verb() and mv.cards is not None:
            text = s.model.text(mv.cards)
        elif mv.verb == "choose":
            text = mv.arg
        inp = self.query_one("#move", Input)
        inp.value = text
        inp.cursor_position = len(text)
        inp.focus()

    @guarded
    def action_ask_bot(self, bot: str = "ismcts") -> None:
        """shift+F3: ask a bot (default ISMCTS) what it would play for you, with estimated values."""
        s = self.session
        if s.state.over or s.state.to_act is None:
            self.notify(_("The game is over: there is no move to ask about."))
            return
        if not s.your_turn:
            self.notify(_("It is not your turn: the hint is for your moves."))
            return

        def chosen(word: str | None) -> None:
            if word:
                inp = self.query_one("#move", Input)
                inp.value = word
                inp.cursor_position = len(word)
                inp.focus()
        self.app.push_screen(BotHintScreen(s, bot), chosen)

    def action_new_game(self) -> None:
        """ctrl+N: a new game with the bots, seat and seed chosen in a dialog."""
        def chosen(choice: dict[str, Any] | None) -> None:
            if choice is not None:
                self.new_game(choice["bots"], seat=choice["seat"], seed=choice["seed"])
        self.app.push_screen(NewGameScreen(self.session), chosen)

    def new_game(self, bots: str | dict[int, str], *, seat: int | None = None, seed: Any = None) -> None:
        """Start a new game (a new match) of this ruleset: ``bots`` as :class:`PlaySession` takes them,
        ``seat`` and ``seed`` (default: yours, and the next seed). Raises ValueError for a bad bot."""
        old = self.session
        s = PlaySession(self.graph, seat=old.seat if seat is None else seat,
                        seed=(old.seed + 1 if isinstance(old.seed, int) else f"{old.seed}+1") if seed is None else seed,
                        bots=bots)
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        self._thinking = None  # a bot still thinking about the old game: its answer is dropped
        self._cancel_search()
        self._run = None
        self._finals_shown = set()
        self.session = s
        self._clear_input()
        self._hide_why()
        self.query_one(GameLog).rebuild(s)
        self.refresh_all()
        names = sorted(set(s.bot_names.values()))
        self.notify(_("New game, seed {seed}: you at seat {seat} against {bots}.").format(seed=s.seed, seat=s.seat, bots=", ".join(names)),
                    timeout=4)
        if self.show_steps and self._has_steps():
            self.app.push_screen(BetweenGamesScreen(s), lambda _result: self._schedule())
        else:
            self._schedule()

    @guarded
    def action_legal(self) -> None:
        s = self.session
        if s.state.over or s.state.to_act is None:
            self.notify(_("The game is over."))
            return
        if not s.your_turn:
            self.notify(_("It is seat {seat}'s turn, not yours.").format(seat=s.state.to_act))
            return

        def chosen(word: str | None) -> None:
            if word:
                inp = self.query_one("#move", Input)
                inp.value = word
                inp.cursor_position = len(word)
                inp.focus()
        self.app.push_screen(LegalMovesScreen(s), chosen)

    @guarded
    def action_why(self) -> None:
        s = self.session
        value = self.query_one("#move", Input).value
        if s.remote:
            self._ask_table_why(value.strip() or s.last_illegal or "")
            return
        typed = s.interpret(value) if value.strip() else (s.interpret(s.last_illegal) if s.last_illegal else None)
        if typed is None and s.cursor > 0 and s.entry.move:
            before = s.entries[s.cursor - 1].state
            from gouji_dsl.engine.interpreter import choice_words, parse_move
            mv = parse_move(s.entry.move, s.model, s.graph.n_seats, words=choice_words(s.graph))
            self.app.push_screen(WhyScreen(explain(before, mv), self.open_rule, _("Why the last move was allowed")))
            return
        if typed is None or typed.explanation is None:
            self.notify(_("Type a move first: F5 explains it.") if typed is None else (typed.error or _("The game is over.")))
            return
        self.app.push_screen(WhyScreen(typed.explanation, self.open_rule))

    @guarded
    def action_undo(self) -> None:
        if self.session.undo():
            self._after_jump()
        else:
            self.app.bell()

    @guarded
    def action_redo(self) -> None:
        if self.session.redo():
            self._after_jump()
        else:
            self.app.bell()

    @guarded
    def action_back(self) -> None:
        if self.session.back():
            self._after_jump()

    @guarded
    def action_forward(self) -> None:
        if self.session.forward():
            self._after_jump()

    @guarded
    def action_trick(self, direction: int) -> None:
        if self.session.jump_trick(direction):
            self._after_jump()

    @guarded
    def action_start(self) -> None:
        self.session.goto(0)
        self._after_jump()

    @guarded
    def action_end(self) -> None:
        self.session.goto(len(self.session.entries) - 1)
        self._after_jump()

    def _after_jump(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        self._clear_input()
        self._hide_why()
        self.refresh_all()
        if self.session.live and self.session.mode == "play":
            self._schedule()

    @on(GameLog.Step)
    async def _log_step(self, event: GameLog.Step) -> None:
        event.stop()
        await self.run_action(event.action)

    @on(GameLog.OpenRule)
    def _log_rule(self, event: GameLog.OpenRule) -> None:
        self.open_rule(event.pos)

    @on(GameLog.Goto)
    def _goto(self, event: GameLog.Goto) -> None:
        self.session.goto(event.index)
        self._after_jump()

    @guarded
    def action_resume(self) -> None:
        s = self.session
        s.resume_here()
        self.query_one(GameLog).sync()
        self.notify(_("Playing on from here."))
        self._after_jump()

    @guarded
    def action_run(self, until: str) -> None:
        s = self.session
        if s.state.over:
            self.notify(_("The game is over: F10 deals the next game."))
            return
        if not s.live or s.mode != "play":
            s.resume_here()
        if any(s.bot_searches(x) for x in s.bot_names):  # search bots think in a worker: play on move by move
            if self._run is None:
                self._run = (until, s.state.trick_no, s.game_index, 0)
            self._after_jump()
            return
        n = s.run(until)
        self._after_jump()
        self.notify((ngettext("{n} move played to the end of the trick", "{n} moves played to the end of the trick", n)
                     if until == "trick" else ngettext("{n} move played to the end of the game",
                                                       "{n} moves played to the end of the game", n)).format(n=n), timeout=3)

    def action_speed(self) -> None:
        self.speed_index = (self.speed_index + 1) % len(SPEEDS)
        self._refresh_status()
        self.notify(_("Bot speed: {speed}").format(speed=_(self.speed[0])), timeout=2)
        self._schedule()

    def action_autopass(self) -> None:
        self.autopass = not self.autopass
        self._refresh_status()
        self.notify(_("Auto-pass on") if self.autopass else _("Auto-pass off"), timeout=2)
        self._schedule()

    @guarded
    def action_next_game(self) -> None:
        s = self.session
        if s.remote:
            if not s.state.over:
                self.notify(_("The game is not over: F10 says you are ready for the next one after it."))
            elif self.table.match_done:  # the next match on the same seats (the table's `start`)
                self._table_send({"type": "start"}, _("Asked the table for a new match."))
            else:
                self._table_send({"type": "next"}, _("Ready for the next game: it is dealt when every player is."))
            return
        if not s.state.over:
            self.notify(_("Finish this game first (F7 plays it to the end)."))
            return
        if not s.live:
            s.resume_here()
        label = s.next_game_label()
        s.next_game()
        self.notify(_("Dealt {game}.").format(game=label), timeout=3)
        self._clear_input()
        self._hide_why()
        self.refresh_all()
        if self.show_steps:
            self.app.push_screen(BetweenGamesScreen(s), lambda _result: self._schedule())
        else:
            self._schedule()

    def _has_steps(self) -> bool:
        return any(e["type"] in ("transfer", "revolution", "redeal") for e in self.session.state.record)

    @guarded
    def action_clear(self) -> None:
        self._clear_input()
        self._hide_why()
        self._refresh_feedback()
        self._refresh_hand()
        self.query_one("#move", Input).focus()

    def action_log(self) -> None:
        """Narrow: show the log in place of the table, or back. Wide: focus the log, or back to the
        move box when it has focus (Escape in the log goes back too)."""
        log = self.query_one(GameLog)
        if self.has_class("-narrow"):
            self.toggle_class("-show-log")
            self._refresh_trick()
            if self.has_class("-show-log"):
                log.focus()
            else:
                self.query_one("#move", Input).focus()
        elif log.has_focus:
            self.query_one("#move", Input).focus()
        else:
            log.focus()

    @on(GameLog.Leave)
    def _leave_log(self, event: GameLog.Leave) -> None:
        """Escape or a typed card in the log: back to the move box (the card goes in)."""
        event.stop()
        if self.has_class("-narrow") and self.has_class("-show-log"):
            self.remove_class("-show-log")
            self._refresh_trick()
        inp = self.query_one("#move", Input)
        inp.focus()
        if event.character:
            inp.insert_text_at_cursor(event.character)

    # ------------------------------------------------------------------ a seat at a club table
    @property
    def table(self) -> RemoteSession:
        """The game source when this screen is a seat at a club table (else an AssertionError)."""
        from .remote import RemoteSession
        assert isinstance(self.session, RemoteSession)
        return self.session

    def table_update(self, kind: str, note: str | None = None, error: dict[str, Any] | None = None) -> None:
        """(editor.play.join) The table sent ``kind`` (already taken in by the session): show it.
        ``note``: what to say of it; ``error``: a request the server refused (shown as a refused move)."""
        if not self.is_attached or self.table_seq == -2:  # (not mounted yet: on_mount shows the session as it is then)
            if note:  # (the screen is being opened: it shows the session as it is when mounted)
                self.app.notify(note, timeout=8)
            return
        if error is not None:
            self._table_refused(error)
        if note:
            self.notify(note, title=_("Table {code}").format(code=self.table.address.code), timeout=8)
        self.refresh_all()
        self.table_seq = self.table.seq
        self._schedule()

    def _table_autopass(self) -> None:
        """At a club table nothing moves here but auto-pass: the pass sent when it is your only move
        (not while a bot plays your seat, 托管: the table's bot answers then)."""
        t = self.table
        seat = t.seats.get(t.seat)
        if t.your_turn and self.autopass and t.only_pass() and t.pending is None and not (seat and seat.auto):
            t.apply(Move(t.seat, Verb.PASS), "auto")

    def _table_refused(self, error: dict[str, Any]) -> None:
        """The server refused a move (illegal, out of turn, stale ...): said as a refused move is,
        with the table's rules in the why box when it sent them; nothing changed at the table."""
        from .remote import explanation_of
        s = self.session
        line = self.table.pending or s.last_illegal or ""
        self.table.pending = None
        why = error.get("why")
        if isinstance(why, dict):
            exp = explanation_of(why)
            self.table.answers[exp.move or line] = exp
            self._show_why(Typed(self.query_one("#move", Input).value or line, explanation=exp))
        s.last_illegal = line or None
        self.notify(str(error.get("message") or error.get("code")), title=_("The table refused: {code}").format(
            code=error.get("code")), severity="error", timeout=8)
        self.app.bell()

    def _table_send(self, msg: dict[str, Any], said: str | None = None) -> None:
        link = self.table.link
        if link is None or not link.send(msg):
            self.notify(_("Not connected to the table: this waits until the connection is back."), severity="warning")
        elif said:
            self.notify(said, timeout=4)

    def action_table_auto(self) -> None:
        """F12 at a club table: a bot plays your seat (托管) until F12 again (or a move of yours)."""
        t = self.table
        seat = t.seats.get(t.seat)
        on = not (seat is not None and seat.auto)
        self._table_send({"type": "auto", "on": on},
                         _("Asked the table to let a bot play your seat (托管).") if on else _("Asked for your seat back."))

    def action_table_start(self) -> None:
        """ctrl+g at a club table: start now (bots take every free seat)."""
        self._table_send({"type": "start"}, _("Asked the table to start."))

    def _ask_table_why(self, text: str, box: bool = False) -> None:
        """F5 at a club table: the server says which rules allow or forbid the move (from this
        seat's view); ``box``: in the why box under the move (a refused move), else in the dialog."""
        s = self.session
        if not text.strip():
            self.notify(_("Type a move first: F5 explains it."))
            return
        typed = s.interpret(text)
        if typed.error or typed.move is None:
            self.notify(typed.error or _("Type a move first: F5 explains it."))
            return
        self.run_worker(self._table_why(text, typed.move.text(s.model), box), group="table-ask", exclusive=True)

    async def _table_why(self, text: str, line: str, box: bool) -> None:
        from .remote import TableError, explanation_of
        try:
            answer = await self.table.ask("why", move=line)
        except TableError as e:
            self.notify(str(e), title=_("The table did not explain: {code}").format(code=e.code), severity="error")
            return
        exp = explanation_of(answer)
        self.table.answers[line] = exp
        if not self.is_attached:
            return
        if box:
            value = self.query_one("#move", Input).value
            if value.strip() in (text.strip(), ""):
                self._show_why(Typed(text, explanation=exp))
                self._typed = self.session.interpret(value) if value.strip() else None  # (the table's rule now)
                self._refresh_feedback()
        else:
            self.app.push_screen(WhyScreen(exp, self.open_rule))

    def _hint_is_stale(self, answer: dict[str, Any], asked_at: int) -> bool:
        """The table's hint is for a position this screen no longer shows: found on another state
        (its ``seq``) than the one shown now, or a move was sent (or the state changed) meanwhile."""
        t = self.table
        seq = answer.get("seq", asked_at)
        return seq != t.seq or t.seq != asked_at or t.pending is not None or not t.your_turn

    async def _table_hint(self) -> None:
        from gouji_dsl.engine.interpreter import choice_words, parse_move

        from .remote import TableError
        s = self.session
        asked_at = self.table.seq
        try:
            answer = await self.table.ask("hint")
        except TableError as e:
            self.notify(str(e), title=_("The table gave no hint: {code}").format(code=e.code), severity="error")
            return
        if not self.is_attached or self._hint_is_stale(answer, asked_at):
            return  # (the table moved on while it was asked, e.g. an auto-pass went first: a hint for a gone position)
        if not answer.get("move"):
            self.notify(_("It is not your turn: the hint is for your moves."))
            return
        try:
            mv = parse_move(str(answer["move"]), s.model, s.graph.n_seats, words=choice_words(s.graph))
        except GoujiError as e:
            self.notify(e.diagnostics[0].message, severity="error")
            return
        word = s.move_word(mv)
        inp = self.query_one("#move", Input)
        inp.value = word
        inp.cursor_position = len(word)
        inp.focus()

    async def _save_table_record(self, then: Callable[[], None] | None = None) -> None:
        """ctrl+s at a club table, once the match is over: the match's record as the table keeps it
        (``GET /t/CODE/record``: every deal and move, ``gouji replay --check`` verifies it), saved
        where you say (and sent to the browser in a tab of ``gouji serve``)."""
        from gouji_dsl.engine.records import parse_record

        from .remote import TableError
        t = self.table
        try:
            text = await t.fetch_record()
            rec = parse_record(text, f"{t.address.server}/t/{t.address.code}/record")
        except TableError as e:
            self.notify(str(e), title=_("The table sent no record: {code}").format(code=e.code), severity="error")
            return
        except GoujiError as e:
            self.notify(e.format(), title=_("The table's record does not read"), severity="error", timeout=15)
            return
        if not self.is_attached:
            return
        warned: list[str] = []

        def accept(path: str) -> str:
            if os.path.lexists(path) and path not in warned:
                warned.append(path)
                raise OSError(errno.EEXIST, "this file exists (another record?): Enter again replaces it, "
                                            "or give another name")
            save_record(path, rec)
            return path

        def saved(path: str | None) -> None:
            if path:
                if then is not None:
                    self.call_after_refresh(then)
                sent = offer_download(self.app, path, "application/json")
                self.notify((_("Saved the record to {path} and sent it to the browser.") if sent else
                             _("Saved the record to {path}.")).format(path=path), title=_("Saved"))
        self.app.push_screen(PathScreen(_("Save the match's record"), f"table-{t.address.code}-{t.match_number}.json",
                                        accept, N_("Save"),
                                        _("The match as the table recorded it (JSON): the ruleset, the seed, every deal and "
                                          "move; gouji replay --check verifies it.")), saved)

    # ------------------------------------------------------------------ files
    def _default_record_path(self) -> str:
        """The record's own file once saved; else ``game-RULESET-SEED.json``, with the match's number
        after the first (F10 after a game or match deals a new record with the same seed)."""
        s = self.session
        match = s.game_index // s.length
        return s.record_path or f"game-{self.graph.name}-{s.seed}{f'-{match + 1}' if match else ''}.json"

    def action_save(self, then: Callable[[], None] | None = None) -> None:
        """ctrl+s: save the record (a path asked); ``then()`` once it is saved. A file that exists and
        is not this record's own is replaced only when Enter is pressed on it a second time."""
        s = self.session
        if s.remote:
            self.run_worker(self._save_table_record(then), group="table-record", exclusive=True)
            return
        warned: list[str] = []

        def accept(path: str) -> str:
            own = s.record_path is not None and same_file(path, s.record_path)
            if os.path.lexists(path) and not own and path not in warned:
                warned.append(path)
                raise OSError(errno.EEXIST, "this file exists (another record?): Enter again replaces it, "
                                            "or give another name")
            save_record(path, s.record())
            return path

        def saved(path: str | None) -> None:
            if path:
                s.record_path = path
                s.mark_saved()
                if then is not None:
                    self.call_after_refresh(then)
                sent = offer_download(self.app, path, "application/json")
                self.notify((_("Saved the record to {path} and sent it to the browser.") if sent else
                             _("Saved the record to {path}.")).format(path=path), title=_("Saved"))
        self.app.push_screen(PathScreen(_("Save the game record"), self._default_record_path(), accept, N_("Save"),
                                        _("The record (JSON): the ruleset, the seed, the bots and every event.")), saved)

    def action_open(self) -> None:
        """ctrl+o: replay a record (asks first when a game being played would be dropped)."""
        self.confirm_leave(N_("Opening a record"), self._ask_open)

    def _ask_open(self) -> None:
        def accept(path: str) -> GameRecord:
            rec = load_record(path)
            self._load(rec)
            return rec

        def opened(rec: GameRecord | None) -> None:
            if rec is not None:
                self.notify(_("Replaying {path}: ↓ steps forward, ↑ back, ctrl+r takes over.").format(path=rec.path), title=_("Replay"))
                self.refresh_all()
        self.app.push_screen(PathScreen(_("Open a game record to replay"), self._default_record_path(), accept, N_("Open")),
                             opened)

    def _load(self, rec: GameRecord) -> None:
        """Replay ``rec`` (under this screen's ruleset when the names match, else the record's)."""
        graph = self.graph
        if rec.ruleset != graph.name:
            graph = record_graph(rec)
        s = PlaySession(graph, seat=self.session.seat, seed=rec.seed, bots=self.session.bot_names or "heuristic")
        s.load(rec)
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        self.graph = graph
        self.session = s
        self._thinking = None
        self._cancel_search()
        self._run = None
        self._clear_input()
        self._hide_why()
        self.query_one(GameLog).rebuild(s)
        self.refresh_all()

    def load_record(self, record: GameRecord | str | os.PathLike[str]) -> None:
        """Replay a record (a :class:`GameRecord` or a file). Raises GoujiError."""
        self._load(record if isinstance(record, GameRecord) else load_record(record))

    @guarded
    def action_export(self) -> None:
        s = self.session
        n = s.cursor
        name = f"{self.graph.name} seed {s.seed}: game {s.state.game_number}, " + \
            ("the end" if s.state.over else f"move {n}, seat {s.state.to_act} to act")
        try:
            text = s.scenario(name)
        except GoujiError as e:
            self.notify(e.format(), severity="error", title=_("Cannot export"))
            return
        default = Path("tests") / "scenarios" / f"{self.graph.name}.yaml"
        path = str(default) if default.exists() else f"{self.graph.name}-cases.yaml"

        def add(p: str, case_text: str) -> str:
            add_case_to_file(p, self.graph.name, case_text)
            sent = offer_download(self.app, p, "application/yaml")
            return (_("Added the case to {path} (run it with: gouji test {path}), and sent the file to the browser.") if sent
                    else _("Added the case to {path} (run it with: gouji test {path}).")).format(path=p)
        self.app.push_screen(ExportScreen(text, name, path, add))


__all__ = ["PlayScreen", "SPEEDS"]
