"""Modal screens of the play screen: a question (:class:`AskScreen`), legal moves, why, a rule's source, file paths, scenario
export, between games, help, asking a bot (hint with estimated values), a new game (bots, seat, seed)."""
from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.markup import escape
from rich.syntax import Syntax
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, DataTable, Footer, Input, Label, OptionList, Select, Static, TextArea
from textual.widgets.option_list import Option

from gouji_dsl import resources
from gouji_dsl.bots import BOTS, parse_bot_spec
from gouji_dsl.bots.search import Analysis
from gouji_dsl.diagnostics import GoujiError, SourcePos
from gouji_dsl.engine.explain import Because, Explanation
from gouji_dsl.engine.interpreter import Move
from gouji_dsl.ruleset.graph import Reason
from gouji_dsl.tools.exits import seed_problem, seed_value, shown, shown_markup

from ..i18n import N_, _, ngettext
from ..widgets.cjkwrap import HelpStatic
from ..workspace import display_path
from .session import GameSummary, PlaySession, card_word
from .widgets import event_text, short_where, verb_word


def reason_prompt(r: Reason) -> Text:
    mark = {"allowed": "✓", "forbade": "✗", "answered": "=", "granted": "✓"}.get(r.verdict, "·")
    t = Text(f"{mark} ", style="bold red" if r.verdict == "forbade" else "green")
    t.append(r.rule_id, style="bold")
    t.append(f"  {r.text}")
    if r.pos is not None:
        t.append(f"  {short_where(r.pos)}", style="dim")
    return t


def because_prompt(b: Because) -> Text:
    """One fact of an explanation's chain and the rules and settings that decided it."""
    t = Text("∵ ", style="cyan")
    t.append(b.fact)
    for r in b.reasons:
        t.append(f"  {r.rule_id}", style="bold")
        if r.pos is not None:
            t.append(f" {short_where(r.pos)}", style="dim")
    return t


def warning_prompt(b: Because) -> Text:
    """What a legal move leads to (a burn that cannot succeed) and the rules that will decide it."""
    t = Text("⚠ ", style="bold yellow")
    t.append(b.fact.split(":", 1)[0], style="bold yellow")
    for r in b.reasons:
        t.append(f"  {r.rule_id}", style="bold")
        t.append(f"  {r.text}")
        if r.pos is not None:
            t.append(f"  {short_where(r.pos)}", style="dim")
    return t


def rule_file_label(path: str | os.PathLike[str]) -> str:
    """A ruleset file as people name it: ``bundled: base.yaml`` for the rulesets that come with gouji
    (never a site-packages path), else the path relative to the current folder (or ``~/…``)."""
    p = Path(path)
    try:
        if p.resolve().parent == resources.rules_dir().resolve():
            return f"bundled: {p.name}"
    except (OSError, FileNotFoundError):
        pass
    return display_path(p)


# ------------------------------------------------------------------------------ questions
class AskScreen(ModalScreen["str | None"]):
    """A question with a few answers, each picked by its letter (``(key, label, letter)``) or by
    its button; Escape dismisses with None. ``message`` is shown as it is (no markup)."""

    BINDINGS = [Binding("escape", "dismiss(None)", N_("Cancel"))]

    def __init__(self, title: str, message: str | Text, answers: list[tuple[str, str, str]], *,
                 detail: str | Text = "", default: str | None = None):
        super().__init__(classes="play-dialog-screen")
        self.title_text = title
        self.message = message if isinstance(message, Text) else Text(message)
        self.answers = answers
        self.detail = detail if isinstance(detail, Text) else Text(detail)
        self.default = default or answers[0][0]

    def compose(self) -> ComposeResult:
        with Vertical(classes="play-dialog wide ask") as box:
            box.border_title = self.title_text
            yield Static(self.message, classes="ask-message")
            if self.detail.plain:
                yield Static(self.detail, classes="play-dialog-detail")
            with Horizontal(classes="ask-buttons"):
                for key, label, _letter in self.answers:
                    yield Button(label, id=f"ask-{key}", compact=True,
                                 variant="primary" if key == self.default else "default")
            keys = Text()
            for _key, label, letter in self.answers:
                keys.append(letter, style="bold")
                keys.append(f" {label.lower()}  ")
            keys.append("esc", style="bold")
            keys.append(" " + _("cancel"))
            yield Label(keys, classes="play-dialog-keys")

    def on_mount(self) -> None:
        self.query_one(f"#ask-{self.default}", Button).focus()

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss((event.button.id or "").removeprefix("ask-") or None)

    def on_key(self, event: Any) -> None:
        for key, _label, letter in self.answers:
            if event.character and event.character.lower() == letter:
                event.stop()
                self.dismiss(key)
                return


# ------------------------------------------------------------------------------ legal moves
class LegalMovesScreen(ModalScreen[str | None]):
    """Your legal moves, grouped by rank (plays) and by kind (other moves). Enter puts the
    chosen one in the move box."""

    BINDINGS = [Binding("escape", "dismiss(None)", N_("Close"))]

    def __init__(self, session: PlaySession):
        super().__init__(classes="play-dialog-screen")
        self.session = session

    def compose(self) -> ComposeResult:
        s = self.session
        model = s.model
        moves = s.legal()
        options: list[Option | None] = []
        plays = [m for m in moves if m.cards is not None]
        others = [m for m in moves if m.cards is None]
        if others:
            options.append(Option(Text(_("Other moves"), style="bold underline"), disabled=True))
            for m in others:
                options.append(Option(_move_word(m), id=_move_word(m)))
        groups: dict[int, list[tuple[Move, Any]]] = {}
        for m in plays:
            p = model.classify(m.cards)
            groups.setdefault(p.rank, []).append((m, p))
        for rank in sorted(groups, reverse=True):
            items = sorted(groups[rank], key=lambda mp: (len(mp[1].jokers), mp[1].filler, mp[1].count))
            verb = items[0][0].verb
            options.append(None)
            options.append(Option(Text(f"{card_word(model.kinds[rank], self.session.words)}  (" + (ngettext("{n} play", "{n} plays", len(items))
                                       if verb == "play" else ngettext("{n} burn", "{n} burns", len(items)) if verb == "burn"
                                       else f"{len(items)} {verb}").format(n=len(items)) + ")",
                                       style="bold underline"), disabled=True))
            for m, p in items:
                label = Text(f"  {model.text(m.cards)}")
                tags = []
                if p.gouji:
                    tags.append(_("gouji"))
                if p.count == s.state.hand_size(m.seat):
                    tags.append(_("goes out"))
                if tags:
                    label.append("  " + _(", ").join(tags), style="dim italic")
                word = model.text(m.cards) if verb == s.default_verb() else f"{verb} {model.text(m.cards)}"
                options.append(Option(label, id=word))
        with Vertical(classes="play-dialog") as box:
            box.border_title = _("Your legal moves ({n})").format(n=len(moves))
            if not moves:
                yield Static(_("You have no move now."))
            yield OptionList(*options, id="legal-list")
            yield Label(_("[b]enter[/b] put it in the move box  [b]esc[/b] close"), classes="play-dialog-keys")

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option.id)


def _move_word(m: Move) -> str:
    if m.verb == "choose":
        return m.arg
    return m.verb


# ------------------------------------------------------------------------------ why
class WhyScreen(ModalScreen[None]):
    """Every rule that took part in deciding a move (allowed, forbade, answered). Enter on a rule
    opens its source."""

    BINDINGS = [Binding("escape", "dismiss(None)", N_("Close"))]

    def __init__(self, explanation: Explanation, open_rule: Callable[[SourcePos], None], title: str = ""):
        super().__init__(classes="play-dialog-screen")
        self.explanation = explanation
        self.open_rule = open_rule
        self.title_text = title

    def compose(self) -> ComposeResult:
        exp = self.explanation
        with Vertical(classes="play-dialog") as box:
            box.border_title = self.title_text or _("Why")
            seat, _sep, rest = exp.move.partition(" ")  # NOTATION.md's "SEAT MOVE": say which is the seat
            verb, _sep, cards = rest.partition(" ")    # and the verb in the active language (play: the cards alone)
            said_move = (cards if verb == "play" and cards else f"{verb_word(verb)} {cards}".strip())
            head = Text((_("seat {seat}").format(seat=seat) + f" {said_move}" if seat.isdigit() and rest else exp.move) + _(": "),
                        style="bold")
            head.append(_("legal") if exp.legal else _("illegal"), style="bold green" if exp.legal else "bold red")
            for w in exp.warnings:  # what the move leads to, said before it is made (a burn that cannot succeed)
                head.append(" — " + _("but {fact}").format(fact=w.fact), style="bold yellow")
            if exp.undecided:  # the look-ahead ran out: no claim either way
                head.append(f" — {exp.undecided}", style="yellow")
            yield Static(head)
            reasons = sorted(exp.reasons, key=lambda r: r.verdict != "forbade")
            # the rules asked about this move (the one that refused first), then the chain of facts
            # (how the table counts, who is asked, flags, tribute ...) with the rules and settings
            # that decided each
            entries: list[tuple[Text, tuple[Reason, ...]]] = [(warning_prompt(w), w.reasons) for w in exp.warnings]
            entries += [(reason_prompt(r), (r,)) for r in reasons]
            entries += [(because_prompt(b), b.reasons) for b in exp.chain]
            if entries:
                yield OptionList(*[Option(t, id=f"r{i}") for i, (t, _r) in enumerate(entries)], id="why-list")
            else:
                yield Static(_("No rule of the ruleset was asked: only the interpreter's own checks."), classes="dim")
            self._entries = entries
            yield Label(_("[b]enter[/b] open the rule  [b]esc[/b] close"), classes="play-dialog-keys")

    def on_mount(self) -> None:
        # Tab or Enter right away works on the first rule (issue 15: nothing happened)
        for ol in self.query("#why-list").results(OptionList):
            ol.highlighted = 0
            ol.focus()

    @on(OptionList.OptionSelected)
    def _open(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        cited = self._entries[int((event.option.id or "r0")[1:])][1]
        pos = next((r.pos for r in cited if r.pos is not None), None)
        if pos is not None:
            self.open_rule(pos)
        elif cited:
            self.notify(_("{rule} is one of the interpreter's own checks: it has no source line.").format(rule=cited[0].rule_id))
        else:
            self.notify(_("This fact is the state of the game: no rule decided it."))


class RuleSourceScreen(ModalScreen[None]):
    """A rule's place in its ruleset file, with the lines around it."""

    BINDINGS = [Binding("escape,enter,q", "dismiss(None)", N_("Close"))]

    def __init__(self, path: str, line: int):
        super().__init__(classes="play-dialog-screen")
        self.path = path
        self.line = line

    def compose(self) -> ComposeResult:
        with Vertical(classes="play-dialog wide") as box:
            box.border_title = f"{shown_markup(rule_file_label(self.path))}:{self.line}"
            try:
                text = Path(self.path).read_text(encoding="utf-8")
                start = max(1, self.line - 3)
                end = self.line + 14
                syn = Syntax(text, "yaml", line_numbers=True, line_range=(start, end),
                             highlight_lines={self.line}, word_wrap=True, theme="ansi_dark")
                with VerticalScroll():
                    yield Static(syn)
            except OSError as e:
                yield Static(Text(shown(_("cannot read {path}: {error}").format(path=self.path, error=e.strerror or e))))
            yield Label(_("[b]esc[/b] close"), classes="play-dialog-keys")


# ------------------------------------------------------------------------------ paths
class PathScreen(ModalScreen[Any]):
    """Asks for a file path. ``accept(path)`` returns the result to dismiss with, or raises
    GoujiError / OSError: the message is shown and the dialog stays open."""

    BINDINGS = [Binding("escape", "dismiss(None)", N_("Cancel"))]

    def __init__(self, title: str, default: str, accept: Callable[[str], Any], action: str = "OK",
                 detail: str = ""):
        super().__init__(classes="play-dialog-screen")
        self.title_text = title
        self.default = default
        self.accept = accept
        self.action = action
        self.detail = detail

    def compose(self) -> ComposeResult:
        with Vertical(classes="play-dialog") as box:
            box.border_title = self.title_text
            if self.detail:
                yield Static(self.detail, classes="play-dialog-detail")
            yield Input(shown(self.default), id="path-input", placeholder=_("file path"))  # control characters escaped
            yield Static("", id="path-error")
            yield Label(f"[b]enter[/b] {_(self.action).lower()}  [b]esc[/b] " + _("cancel"), classes="play-dialog-keys")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    @on(Input.Submitted)
    def _submit(self, event: Input.Submitted) -> None:
        event.stop()
        # the default is shown with its control characters escaped: taken as it is, it is the path itself
        value = self.default if event.value == shown(self.default) else event.value
        path = os.path.expanduser(value.strip())
        err = self.query_one("#path-error", Static)
        if not path:
            err.update(Text(_("give a file path"), style="red"))
            return
        try:
            result = self.accept(path)
        except GoujiError as e:
            err.update(Text(e.format(), style="red"))
            return
        except OSError as e:
            err.update(Text(shown(f"{path}: {e.strerror or e}"), style="red"))
            return
        self.dismiss(result)


class ExportScreen(ModalScreen[None]):
    """The position as a scenario case: edit its name, add it to a scenario file or copy it."""

    BINDINGS = [
        Binding("escape", "dismiss(None)", N_("Close")),
        Binding("ctrl+k", "copy", N_("Copy"), tooltip=N_("Copy the case to the clipboard")),
    ]

    def __init__(self, case_text: str, name: str, default_path: str, add: Callable[[str, str], str]):
        super().__init__(classes="play-dialog-screen")
        self.case_text = case_text
        self.name_default = name
        self.default_path = default_path
        self.add = add

    def compose(self) -> ComposeResult:
        with Vertical(classes="play-dialog wide") as box:
            box.border_title = _("Export the position as a scenario case")
            with Horizontal(classes="play-field"):
                yield Label(_("Name "), classes="play-field-label")
                yield Input(self.name_default, id="case-name")
            with Horizontal(classes="play-field"):
                yield Label(_("File "), classes="play-field-label")
                yield Input(self.default_path, id="case-path")
            yield TextArea(self.case_text, language="yaml", read_only=True, id="case-text", soft_wrap=False)
            yield Static("", id="case-status")
            yield Label(_("[b]enter[/b] add to the file  [b]ctrl+k[/b] copy  [b]esc[/b] close"), classes="play-dialog-keys")

    def on_mount(self) -> None:
        self.query_one("#case-path", Input).focus()

    def _text(self) -> str:
        name = self.query_one("#case-name", Input).value.strip() or self.name_default
        import json
        head, rest = self.case_text.split("\n", 1)
        indent = head[:len(head) - len(head.lstrip())]
        return f"{indent}- name: {json.dumps(name, ensure_ascii=False)}\n{rest}"

    @on(Input.Changed, "#case-name")
    def _renamed(self) -> None:
        self.query_one("#case-text", TextArea).load_text(self._text())

    @on(Input.Submitted)
    def _submit(self, event: Input.Submitted) -> None:
        event.stop()
        path = os.path.expanduser(self.query_one("#case-path", Input).value.strip())
        status = self.query_one("#case-status", Static)
        try:
            msg = self.add(path, self._text())
        except GoujiError as e:
            status.update(Text(e.format(), style="red"))
            return
        except OSError as e:
            status.update(Text(f"{path}: {e.strerror or e}", style="red"))
            return
        self.notify(msg, title=_("Scenario case"))
        self.dismiss(None)

    def action_copy(self) -> None:
        self.app.copy_to_clipboard(self._text())
        self.query_one("#case-status", Static).update(_("Copied to the clipboard."))


# ------------------------------------------------------------------------------ between games
def tribute_text(session: PlaySession, game: GameSummary) -> Text:
    """The tribute paid before a game, per team, the teams by number (the column's heading says
    they are teams): ``2→1 3`` (team 2 gave team 1 three cards)."""
    st = session.state
    flows: dict[tuple[int, int], int] = {}
    for e in game.tribute:
        try:
            n = sum(session.model.parse(e["cards"])) if e.get("cards") is not None else int(e.get("count") or 0)
        except GoujiError:
            n = len(e["cards"].split())
        key = (st.team(e["giver"]), st.team(e["receiver"]))
        flows[key] = flows.get(key, 0) + n
    if not flows:
        return Text("—", style="dim")
    return Text(_(", ").join(f"{a}→{b} {n}" if a != b else _("{team} inside {n}").format(team=a, n=n)
                             for (a, b), n in sorted(flows.items())))


def scoreboard_table(table: DataTable, session: PlaySession, compact: bool = False) -> None:
    """Fill ``table`` with the match so far: a row per game (places, sweep, tribute paid before it,
    the teams' scores) and the running team totals after each game. ``compact`` (a terminal under
    110 columns): shorter headings and the totals in one column, so that the table fits in 80."""
    s = session
    st = s.state
    me = s.viewer
    games = s.match_summary()
    teams = sorted({st.team(x) for x in st.seat_list})
    mine = st.team(me) if me is not None else None
    table.clear(columns=True)
    table.add_column(_("game"))
    n = len(st.seat_list)
    table.add_column(_("places (seats)") if compact else
                     _("places: {first} → {last} (seats)").format(first=s.words.place(1), last=s.words.place(n)))
    table.add_column(_("sweep"))
    table.add_column(_("tribute (teams)") if compact else _("tribute before (teams)"))
    team_name = _("T{team}") if compact else _("team {team}")
    for t in teams:
        table.add_column(team_name.format(team=t) + (_(" (you)") if t == mine else ""))
    if compact:
        table.add_column(_("totals"))
    else:
        for t in teams:
            table.add_column(_("total {team}").format(team=t))
    totals = dict.fromkeys(teams, 0)
    for g in games:
        table.add_row(*_scoreboard_row(s, g, teams, totals, compact))


def _scoreboard_row(s: PlaySession, g: GameSummary, teams: list[int], totals: dict[int, int], compact: bool) -> list:
    """One game's row of :func:`scoreboard_table` (``totals`` updated with its scores)."""
    st, me = s.state, s.viewer
    mine = st.team(me) if me is not None else None
    places = Text()
    for i, seat in enumerate(g.order()):
        if i:
            places.append(" ")
        places.append(_("you") if seat == me else str(seat), style="bold green" if st.team(seat) == mine else
                      ("red" if mine is not None else ""))
    shown = (Text(_("voided"), style="yellow") if g.voided else places) if g.over else Text(_("playing"), style="dim")
    row: list = [f"{g.number}" + ("" if g.over else " …"), shown,
                 Text(_("sweep"), style="bold") if g.sweep else Text("—", style="dim"), tribute_text(s, g)]
    for t in teams:
        v = g.team_scores.get(t, 0) if g.over else None
        row.append(Text(f"{v:+}", style="green" if v and v > 0 else ("red" if v and v < 0 else "")) if v is not None else "")
    for t in teams:
        if g.over:
            totals[t] += g.team_scores.get(t, 0)
    if compact:
        row.append(Text(" / ".join(f"{totals[t]:+}" for t in teams), style="bold"))
    else:
        row.extend(Text(f"{totals[t]:+}", style="bold") for t in teams)
    return row


class ScoreboardScreen(ModalScreen[None]):
    """The match so far (F11, and when the last game of a match is over)."""

    BINDINGS = [Binding("escape,enter,f11,q", "dismiss(None)", N_("Close"))]

    def __init__(self, session: PlaySession, *, final: bool = False):
        super().__init__(classes="play-dialog-screen")
        self.session = session
        self.final = final

    def compose(self) -> ComposeResult:
        s = self.session
        st = s.state
        with Vertical(classes="play-dialog wide") as box:
            games = [g for g in s.match_summary() if g.over]
            box.border_title = (_("Match over: {n} games").format(n=s.length) if self.final else
                                _("Scoreboard: game {n} of {length}").format(n=s.game_index % s.length + 1, length=s.length)
                                if s.length > 1 else _("Scoreboard"))
            table: DataTable = DataTable(id="scoreboard", cursor_type="none", zebra_stripes=True)
            table.can_focus = False
            yield table
            totals = s.match_totals()
            mine = st.team(s.viewer) if s.viewer is not None else None
            if totals:
                best = max(totals.values())
                leaders = [t for t, v in totals.items() if v == best]
                team = _("team {team}").format(team=leaders[0]) + (_(" (you)") if leaders[0] == mine else "")
                verdict = (_("the match is level") if len(leaders) > 1 else
                           (_("{team} wins by {n}") if self.final else _("{team} leads by {n}")).format(
                               team=team, n=f"{best - min(totals.values()):g}").replace("） ", "）"))  # 联邦 1（你）领先
                yield Static(Text(ngettext("After {n} game: {verdict}.", "After {n} games: {verdict}.", len(games)).format(
                    n=len(games), verdict=verdict), style="bold"), classes="play-section")
            keys = s.over_keys() if s.remote else None  # (at a club table: the keys that do something there)
            yield Label("[b]enter/esc[/b] " + _("close") + "  ·  " + (escape(keys) if keys is not None else
                                                                       _("F10 deals {next}").format(next=s.next_game_label())),
                        classes="play-dialog-keys")

    def on_mount(self) -> None:
        scoreboard_table(self.query_one("#scoreboard", DataTable), self.session, compact=self.app.size.width < 110)


class BetweenGamesScreen(ModalScreen[None]):
    """The match so far, then what happens before play: tribute, buying, returns, shown one step
    at a time (Enter shows the next step at once; when all are shown, Enter plays on)."""

    BINDINGS = [
        Binding("enter,space", "step", N_("Next step")),
        Binding("escape", "dismiss(None)", N_("Play on")),
    ]
    STEP_DELAY = 0.6

    def __init__(self, session: PlaySession, *, animate: bool = True):
        super().__init__(classes="play-dialog-screen")
        self.session = session
        self.stepwise = animate  # (not `animate`: that is a Widget method)
        st = session.state
        self.steps = [e for e in st.record if e["type"] in ("transfer", "revolution", "redeal")]
        self.shown = 0 if animate else len(self.steps)

    def compose(self) -> ComposeResult:
        s = self.session
        st = s.state
        with Vertical(classes="play-dialog wide") as box:
            n = st.game_number
            box.border_title = (_("Game {n} of {length} (a {length}-game match)") if s.length > 1 else _("Game {n}")).format(
                n=n, length=s.length)
            if any(g.over for g in s.match_summary()):
                yield Label(_("Match so far"), classes="play-section")
                table: DataTable = DataTable(id="scoreboard", cursor_type="none", zebra_stripes=True)
                table.can_focus = False  # Enter steps through the dialog
                yield table
            yield Label(_("Before play") if self.steps else _("Nothing is handed over before play."), classes="play-section")
            yield Static("", id="steps")
            yield Label(_("[b]enter[/b] next step / play on  [b]esc[/b] play on"), classes="play-dialog-keys")

    def on_mount(self) -> None:
        if any(g.over for g in self.session.match_summary()):
            scoreboard_table(self.query_one("#scoreboard", DataTable), self.session, compact=self.app.size.width < 110)
        self._render_steps()
        if self.stepwise and self.steps:
            self._timer = self.set_interval(self.STEP_DELAY, self._tick)

    def _tick(self) -> None:
        if self.shown < len(self.steps):
            self.shown += 1
            self._render_steps()
        else:
            self._timer.stop()

    def _render_steps(self) -> None:
        me = self.session.viewer
        t = Text()
        for i, e in enumerate(self.steps[:self.shown]):
            t.append(f"{i + 1:>2}. {event_text(e, me, self.session.words)}\n", style="bold" if i == self.shown - 1 else "")
        if self.shown < len(self.steps):
            t.append("   " + _("… {n} more").format(n=len(self.steps) - self.shown), style="dim")
        self.query_one("#steps", Static).update(t)

    def action_step(self) -> None:
        if self.shown < len(self.steps):
            self.shown += 1
            self._render_steps()
        else:
            self.dismiss(None)


# ------------------------------------------------------------------------------ help
HELP = N_("""\
[b]Playing[/b]
  Type a move in the box and press [b]Enter[/b]:
    [b]RR TTT[/b]          cards (jokers R B, ranks 3-9 T J Q K A 2; spaces optional)
    [b]pass[/b] / [b]yield[/b]     pass, or yield to the next players (when the rules allow)
    [b]burn BB JJJJ[/b]    burn the gouji play on the table (typing cards is enough when asked)
    [b]revolt[/b], [b]declare[/b], [b]head[/b] / [b]headless[/b], [b]discard 44[/b], [b]return 7 8[/b]
  While you type, the line under the box says whether the move is legal, and if not which rule
  forbids it. After a refused move the rules are listed: [b]Tab[/b] to them, [b]Enter[/b] opens one.
  [b]Tab[/b] to your hand: ←/→ pick a rank, ↑/↓ add or take back a card, space the whole rank,
  Enter plays. A click on a rank adds a card (right click takes one back).

[b]Keys[/b]
  F2 pass · F3 hint (what the heuristic bot would play) · F4 your legal moves · F5 why (full trace)
  shift+F3 ask a bot (ISMCTS by default, or any other): its move, and for a search bot every
  candidate with its estimated value (your mean final score over sampled deals), standard error
  and number of deals · ctrl+n new game: the opponents' and teammates' bots, your seat, the seed
  F6 play on to the end of the trick · F7 to the end of the game (your seat plays the hint)
  F8 bot speed · F9 auto-pass when pass is your only move · F10 next game (it says which of the
  match) · F11 the match scoreboard · F12 review: every hand open, ←/→ every decision, its legal
  moves (↑/↓) and the rules that decide each (Enter)
  ctrl+z undo (back to your last decision) · ctrl+y redo · ↑/↓ one move back / forward
  PgUp/PgDn a trick back / forward · ctrl+home / ctrl+end the start / end (Home / End too when
  the move box is empty, and in the log)
  ctrl+r play on from the position shown · ctrl+l the game log (Enter on a move: the rules
  that decided it; g: go to it; ctrl+l again or esc: back to the move box) · ctrl+s save the record · ctrl+o open a record to replay
  ctrl+t export the position as a scenario case · ctrl+p every command · ctrl+q quit
""")
"""The play screen's F1 help (translated where shown)."""

TABLE_KEYS = N_("""\
[b]At a club table[/b] (the table's server judges every move and plays the bots)
  Type a move in the box and press [b]Enter[/b], as in test-play ([b]KK[/b], [b]pass[/b], [b]burn BB JJJJ[/b], [b]return 7 8[/b]...).
  F2 pass · F3 the table's hint (what its heuristic bot would play) · F4 your legal moves
  F5 why: the table's rules for the move in the box (from what your seat may see)
  F9 auto-pass when pass is your only move · F12 托管: a bot plays your seat, F12 again takes it back
  ctrl+g start now (bots take the free seats) · F10 ready for the next game (after the match: a new match)
  F11 the match scoreboard · ctrl+s save the match's record (once the match is over)
  ↑/↓ one move back / forward · PgUp/PgDn a trick · ctrl+l the game log · esc clear the box
  ctrl+b leave the table (your seat link takes it back) · ctrl+q quit
""")
"""F1 at a club table: only the keys that work there (no undo, no new game, no play-on)."""

WATCH_KEYS = N_("""\
[b]Watching a club table[/b] (every seat from nobody's side: no hand is shown)
  F11 the match scoreboard · ↑/↓ one move back / forward · PgUp/PgDn a trick · ctrl+l the game log
  ctrl+s save the match's record (once the match is over) · ctrl+b leave · ctrl+q quit
""")
"""F1 for a spectator of a club table."""


class PlayHelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,f1,q,enter", "dismiss(None)", N_("Close"))]

    def __init__(self, at_table: str | None = None) -> None:
        """``at_table``: ``seat`` or ``watch`` at a club table (only the keys that work there), else test-play."""
        super().__init__(classes="play-dialog-screen")
        self.at_table = at_table

    @property
    def text(self) -> str:
        return _({"seat": TABLE_KEYS, "watch": WATCH_KEYS}.get(self.at_table or "", HELP))

    def compose(self) -> ComposeResult:
        with Vertical(classes="play-dialog wide") as box:
            box.border_title = _("Test-play: help") if self.at_table is None else _("Club table: help")
            with VerticalScroll():
                yield HelpStatic(self.text)
            yield Label(_("[b]esc[/b] close"), classes="play-dialog-keys")


__all__ = ["LegalMovesScreen", "WhyScreen", "RuleSourceScreen", "PathScreen", "ExportScreen",
           "BetweenGamesScreen", "ScoreboardScreen", "scoreboard_table", "PlayHelpScreen", "rule_file_label", "reason_prompt",
           "Footer"]


# ------------------------------------------------------------------------------ bots
class BotHintScreen(ModalScreen[str | None]):
    """Ask a bot what it would play for your seat (shift+F3). A search bot (``ismcts``, ``pimc``)
    lists every candidate move it weighed with its estimated value — the mean final score of your
    seat over the deals it sampled from what you can see — the standard error of that mean and the
    number of deals; a bot that does not search gives its move only. The search runs in a worker
    thread (the app stays responsive) on a budget in iterations, and is seeded by the position: the
    same question gets the same answer. Enter puts the selected move in the move box."""

    BINDINGS = [Binding("escape", "dismiss(None)", N_("Close"))]

    def __init__(self, session: PlaySession, bot: str = "ismcts", iterations: int | None = None):
        super().__init__(classes="play-dialog-screen")
        self.session = session
        self.state = session.state
        self.moves = list(session.legal())
        self.bot = bot
        kind = BOTS[bot]
        self.iterations = iterations or (kind.default_iterations or None)
        self.analysis: Analysis | None = None
        self.error: str | None = None
        self._generation = 0
        self._stop = threading.Event()  # the search under way: set when its answer is no longer wanted

    def compose(self) -> ComposeResult:
        with Vertical(classes="play-dialog wide", id="hint-box") as box:
            box.border_title = _("Ask a bot: what would it play?")
            with Horizontal(id="hint-form"):
                yield Label(_("Bot "), classes="hint-label")
                yield Select([(k.name, k.name) for k in BOTS.values()], value=self.bot, allow_blank=False,
                             id="hint-bot")
                yield Label(_(" iterations "), classes="hint-label")
                yield Input(str(self.iterations or ""), type="integer", id="hint-iterations",
                            placeholder=_("default"))
            yield Static("", id="hint-status")
            table: DataTable[Any] = DataTable(id="hint-table", cursor_type="row", zebra_stripes=True)
            table.add_columns(_("move"), _("value"), _("± s.e."), _("deals"), "")
            yield table
            yield Label(_("value: your seat's mean final score over deals sampled from what you can see, every "
                        "candidate on the same deals. A search bot weighs a few candidates only: the heuristic's "
                        "move, pass / yield, the cheapest play of each rank."), classes="play-dialog-detail")
            yield Label(_("[b]enter[/b] put the move in the box  [b]esc[/b] close  change the bot or the iterations "
                        "(enter) to ask again"), classes="play-dialog-keys")

    def on_mount(self) -> None:
        self.ask()
        self.query_one("#hint-table", DataTable).focus()

    @property
    def spec(self) -> str | None:
        """The bot spec asked (``ismcts:500``), or None when the iterations field is refused (see `refusal`)."""
        return None if self.refusal else self._spec_text()

    @property
    def refusal(self) -> str | None:
        """Why the iterations field cannot be asked (not a whole number ≥ 1, above the registry's
        maximum), or None when it can."""
        text = self._spec_text()
        if text is None:
            return _("iterations: give a whole number of at least 1")
        try:  # the registry's own check: a budget above its maximum would fail the search
            parse_bot_spec(text)
        except ValueError as e:
            return _("iterations: {error}").format(error=e)
        return None

    def _spec_text(self) -> str | None:
        kind = BOTS[self.bot]
        if not kind.searches:
            return kind.name
        text = self.query_one("#hint-iterations", Input).value.strip()
        if not text:
            return kind.name
        if not (text.isascii() and text.isdigit()) or int(text) < 1:
            return None
        return f"{kind.name}:{int(text)}"

    def ask(self) -> None:
        """Start the search (in a worker thread); an answer to an earlier question is dropped."""
        self._generation += 1
        gen = self._generation
        self._stop.set()  # an earlier search still running stops (its answer would be dropped)
        self._stop = stop = threading.Event()
        status = self.query_one("#hint-status", Static)
        kind = BOTS[self.bot]
        field = self.query_one("#hint-iterations", Input)
        field.disabled = not kind.searches
        # the field shows 10 characters: 'per decision' was cut to 'per'
        field.placeholder = _("default") if kind.searches else "—"
        spec = self.spec
        if spec is None:
            status.update(Text(self.refusal or "", style="bold red"))
            return
        table = self.query_one("#hint-table", DataTable)
        table.clear()
        self.analysis = None
        status.update(Text(_("{bot} is thinking…").format(bot=spec), style="italic"))
        session, state, moves = self.session, self.state, self.moves

        def work() -> None:
            try:
                result: Analysis | str = session.analyse(spec, state, moves, stop=stop.is_set)
            except GoujiError as e:
                result = e.format()
            except Exception as e:  # a bot's failure is shown, never a traceback
                result = f"{type(e).__name__}: {e}"
            try:
                self.app.call_from_thread(self._answered, gen, spec, result)
            except RuntimeError:  # the app has closed meanwhile
                pass

        self.run_worker(work, thread=True, group="bot-hint", exit_on_error=False)

    def _answered(self, gen: int, spec: str, result: Analysis | str) -> None:
        if gen != self._generation or not self.is_attached:
            return
        status = self.query_one("#hint-status", Static)
        if isinstance(result, str):
            self.error = result
            status.update(Text(_("{bot} failed: {error}").format(bot=spec, error=result), style="bold red"))
            return
        self.analysis = a = result
        s = self.session
        best = s.move_word(a.best, self.state)
        t = Text()
        t.append(_("{bot} would play").format(bot=spec) + " ", style="")
        t.append(best, style="bold")
        if not a.moves:
            t.append("  " + (_("(the only move worth searching)") if a.forced else _("(it does not search: no estimates)")),
                     style="dim")
        else:
            t.append("  · " + _("{n} play-outs in {ms} ms").format(n=a.iterations, ms=f"{a.elapsed_ms:,.0f}"), style="dim")
            if a.policy_move is not None and a.policy_move != a.best:
                t.append("  · " + _("the heuristic would play {move}").format(move=s.move_word(a.policy_move, self.state)), style="dim")
            elif a.z > 0 and any(m.value > a.moves[0].value for m in a.moves):
                t.append("\n" + _("it keeps the heuristic's move: no other gains {z} standard errors over it on the "
                                  "same deals").format(z=f"{a.z:g}"), style="dim")
        status.update(t)
        table = self.query_one("#hint-table", DataTable)
        table.clear()
        rows = a.moves or []
        if not rows:
            table.add_row(best, "—", "—", "—", _("plays this"), key=best)
        for mv in rows:
            word = s.move_word(mv.move, self.state)
            notes = []
            if mv.move == a.best:
                notes.append(_("plays this"))
            if a.policy_move is not None and mv.move == a.policy_move:
                notes.append(_("heuristic's choice"))
            table.add_row(word, f"{mv.value:+.2f}", "—" if mv.stderr is None else f"{mv.stderr:.2f}", str(mv.visits),
                          _(", ").join(notes), key=word)

    def on_unmount(self) -> None:
        self._stop.set()  # closed: a search still running stops instead of burning a core for nothing

    @on(Select.Changed, "#hint-bot")
    def _bot_changed(self, event: Select.Changed) -> None:
        event.stop()
        if event.value == Select.NULL or event.value == self.bot:
            return
        self.bot = str(event.value)
        kind = BOTS[self.bot]
        self.query_one("#hint-iterations", Input).value = str(kind.default_iterations) if kind.searches else ""
        self.ask()

    @on(Input.Submitted, "#hint-iterations")
    def _iterations(self, event: Input.Submitted) -> None:
        event.stop()
        self.ask()

    @on(DataTable.RowSelected, "#hint-table")
    def _chosen(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.dismiss(event.row_key.value)


class NewGameScreen(ModalScreen["dict[str, Any] | None"]):
    """A new game (ctrl+N): the bots at your opponents' seats and at your teammates' (any bot of the
    registry, search bots with an iteration budget), your seat and the seed. Returns
    ``{"seat": s, "seed": x, "bots": {seat: spec}}`` or None."""

    BINDINGS = [Binding("escape", "dismiss(None)", N_("Close"))]

    def __init__(self, session: PlaySession):
        super().__init__(classes="play-dialog-screen")
        self.session = session

    def _current(self, same_team: bool) -> str:
        s = self.session
        st = s.state
        for seat, spec in sorted(s.bot_names.items()):
            if (st.team(seat) == st.team(s.seat)) == same_team:
                name, _sep, n = spec.partition(":")
                return name
        return "heuristic"

    def compose(self) -> ComposeResult:
        s = self.session
        choices = [(k.name, k.name) for k in BOTS.values()]
        iters = {spec.partition(":")[2] for spec in s.bot_names.values() if ":" in spec}
        # scrolls where the terminal is too small for it (80x24: the Deal button and a refusal were below
        # the screen, so Enter on a wrong field seemed to do nothing)
        with VerticalScroll(classes="play-dialog wide", id="new-box", can_focus=False) as box:  # Tab: the fields
            box.border_title = _("New game")
            yield Label(_("Opponents"), classes="play-section")
            yield Select(choices, value=self._current(False), allow_blank=False, id="new-opponents")
            yield Label(_("Teammates"), classes="play-section")
            yield Select(choices, value=self._current(True), allow_blank=False, id="new-teammates")
            yield Label(_("Iterations per decision of a search bot (empty: its default)"), classes="play-section")
            yield Input(next(iter(iters)) if len(iters) == 1 else "", type="integer", id="new-iterations",
                        placeholder=", ".join(f"{k.name} {k.default_iterations}" for k in BOTS.values() if k.searches))
            with Horizontal(id="new-seat-seed"):
                with Vertical():
                    yield Label(_("Your seat"), classes="play-section")
                    yield Select([(str(i), i) for i in range(1, s.graph.n_seats + 1)], value=s.seat, allow_blank=False,
                                 id="new-seat")
                with Vertical():
                    yield Label(_("Seed"), classes="play-section")
                    yield Input(str(_next_seed(s.seed)), id="new-seed")
            yield Static("", id="new-error")
            yield Button(_("Deal"), id="new-deal", variant="primary")
            yield Static(Text.from_markup(_bot_lines()), classes="play-dialog-detail")
            yield Label(_("[b]enter[/b] deal  [b]esc[/b] close"), classes="play-dialog-keys")

    @on(Input.Submitted)
    @on(Button.Pressed, "#new-deal")
    def _deal(self, event: Input.Submitted | Button.Pressed) -> None:
        event.stop()
        result = self.result()
        if result is not None:
            self.dismiss(result)
        else:  # the refusal in view (on a small terminal it is below the fields)
            self.call_after_refresh(self.query_one("#new-error", Static).scroll_visible)

    def result(self) -> dict[str, Any] | None:
        """The chosen game, or None (with the reason shown) when a field is wrong."""
        err = self.query_one("#new-error", Static)
        opp = str(self.query_one("#new-opponents", Select).value)
        mate = str(self.query_one("#new-teammates", Select).value)
        seat = int(str(self.query_one("#new-seat", Select).value))
        text = self.query_one("#new-iterations", Input).value.strip()
        if text and (not (text.isascii() and text.isdigit()) or int(text) < 1):
            err.update(Text(_("iterations: give a whole number of at least 1 (or leave it empty)"), style="bold red"))
            return None
        if text and not (BOTS[opp].searches or BOTS[mate].searches):
            err.update(Text(_("iterations: neither {a} nor {b} searches, so a budget has no effect "
                              "(leave it empty)").format(a=opp, b=mate), style="bold red"))
            return None
        seed_text = self.query_one("#new-seed", Input).value.strip()
        if not seed_text:
            err.update(Text("seed: give a number or a word", style="bold red"))
            return None
        if problem := seed_problem(seed_text):  # the rule of every --seed option (too long)
            err.update(Text(f"seed: {problem}", style="bold red"))
            return None
        seed: Any = seed_value(seed_text)

        def spec(name: str) -> str:
            return f"{name}:{text}" if text and BOTS[name].searches else name

        try:  # the registry's own check: a budget above its maximum would fail the new game
            for name in {opp, mate}:
                parse_bot_spec(spec(name))
        except ValueError as e:
            err.update(Text(f"iterations: {e}", style="bold red"))
            return None
        st = self.session.state
        bots = {x: spec(mate if st.team(x) == st.team(seat) else opp)
                for x in range(1, self.session.graph.n_seats + 1) if x != seat}
        return {"seat": seat, "seed": seed, "bots": bots}


def _next_seed(seed: Any) -> Any:
    return seed + 1 if isinstance(seed, int) else f"{seed}+1"


def _bot_lines() -> str:
    return "\n".join(f"[b]{k.name}[/b]: {k.summary}" for k in BOTS.values())
