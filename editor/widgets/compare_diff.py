"""The rule diff of the compare screen: two synchronised panes, ruleset A left and B right.

:func:`diff_blocks` turns a :class:`~gouji_dsl.tools.compare.RuleDiff` into one :class:`DiffBlock` per
difference (per changed key for mapping settings, per rule, per definition), each with the lines of
side A and side B. :class:`DiffPanes` lays the blocks out in two panes so that every block starts
on the same row in both (the shorter side is padded), keeps the two scroll positions equal, and
moves a cursor from block to block (the current block is marked in both panes). Side by side when
the screen is wide; the screen stacks the panes (``layout: vertical``) when it is narrow. Both panes
always have the same width, so the rows line up in either layout.
"""
from __future__ import annotations

from dataclasses import dataclass

from rich.console import Console
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Container, VerticalScroll
from textual.message import Message
from textual.widgets import Static

from gouji_dsl.ruleset.spec import said
from gouji_dsl.tools.compare import DefinitionSide, RuleDiff, RuleSide, SettingValue, WordSide, field_words, fmt_value
from gouji_dsl.tools.doc import cited

from ..i18n import N_, _, chinese, ngettext, spaced
from .cjkwrap import wrap_text

KIND_STYLE = {"changed": "yellow", "added": "green", "removed": "red"}
MARK = "▌ "
NO_MARK = "  "


@dataclass(frozen=True)
class DiffBlock:
    """One difference: ``section`` (setting, rule, definition), its ``name``, ``kind`` (changed,
    added: only in B, removed: only in A), a short ``note``, the lines of each side (None: absent)
    and the one-line ``summary`` from :mod:`gouji_dsl.tools.compare`."""

    section: str
    name: str
    kind: str
    note: str
    left: list[Text] | None
    right: list[Text] | None
    summary: str


# ------------------------------------------------------------------------------ blocks
#: the sections of a difference, in words (a block's header: ``setting stuck_rank  changed``)
SECTION_WORDS = {"setting": N_("setting"), "rule": N_("rule"), "definition": N_("definition"),
                 "word": N_("word of the game")}


def _from(where: str, source: str | None) -> Text:
    t = Text(spaced(_("from")), style="dim")
    t.append(where, style="cyan")
    if source:  # the source note in the active language, cited as the rulebook cites it (资料 003 …, seed 003 …)
        t.append(("，" if chinese() else ", ") + " ".join(cited(said(source)).split()), style="dim")
    return t


def _says(says: str | None) -> list[Text]:
    return [Text(f"“{' '.join(said(says).split())}”", style="italic")] if says else []


def _setting_lines(v: SettingValue | None, kind: str) -> list[Text] | None:
    if v is None:
        return None
    return [Text(fmt_value(v.value), style=f"bold {KIND_STYLE[kind]}"), _from(v.where, v.source), *_says(v.says)]


_LABEL_FIELD = {"on": "on", "when": "when", "target": "target", "amount": "amount"}


def _rule_lines(r: RuleSide | None, fields: tuple[str, ...], kind: str) -> list[Text] | None:
    if r is None:
        return None
    out = []
    for label, text in r.lines():
        field = _LABEL_FIELD.get(label, "expr")
        changed = kind != "changed" or field in fields or (field == "expr" and "effect" in fields)
        line = Text()
        line.append(f"{label}: ", style="bold" if changed else "dim")
        line.append(" ".join(text.split()), style=KIND_STYLE[kind] if changed else "")
        out.append(line)
    out.append(_from(r.where, r.source))
    out += _says(r.says)
    return out


def _definition_lines(d: DefinitionSide | None, kind: str) -> list[Text] | None:
    if d is None:
        return None
    line = Text()
    line.append(f"{d.signature} = ", style="bold")
    line.append(" ".join(d.expr.split()), style=KIND_STYLE[kind])
    return [line, _from(d.where, d.source), *_says(d.says)]


def _word_lines(w: WordSide | None, kind: str) -> list[Text] | None:
    """A word of the game (``words:``) in every language it is given in, the active one first."""
    if w is None:
        return None
    first = said(w.word)
    out = []
    for lang, text in sorted(w.word.texts.items(), key=lambda kv: kv[1] != first):
        line = Text(f"{lang}: ", style="bold")
        line.append(text, style=KIND_STYLE[kind])
        out.append(line)
    return out + ([_from(w.where, None)] if w.where else [])


def diff_blocks(diff: RuleDiff) -> list[DiffBlock]:
    """Every difference of ``diff`` in report order (settings, rules, definitions, words of the game)."""
    la, lb = diff.labels
    only = {"added": _("only in {label}").format(label=lb), "removed": _("only in {label}").format(label=la)}
    out: list[DiffBlock] = []
    for s in diff.settings:
        if s.keys:
            for k in s.keys:
                out.append(DiffBlock("setting", f"{s.name}.{k.key}", k.kind, only.get(k.kind, _("changed")),
                                     _setting_lines(k.a, k.kind), _setting_lines(k.b, k.kind), k.summary))
        else:
            out.append(DiffBlock("setting", s.name, s.kind, only.get(s.kind, _("changed")),
                                 _setting_lines(s.a, s.kind), _setting_lines(s.b, s.kind), s.summary))
    for r in diff.rules:
        if r.kind == "changed":
            note = _("changed: {fields}").format(fields=field_words(r.fields))
        elif r.kind == "removed" and r.removed_by:
            note = _("only in {a} ({b} removes it)").format(a=la, b=lb)
        else:
            note = only[r.kind]
        out.append(DiffBlock("rule", r.id, r.kind, note, _rule_lines(r.a, r.fields, r.kind),
                             _rule_lines(r.b, r.fields, r.kind), r.summary))
    for d in diff.definitions:
        out.append(DiffBlock("definition", d.name, d.kind, only.get(d.kind, _("changed")),
                             _definition_lines(d.a, d.kind), _definition_lines(d.b, d.kind), d.summary))
    for w in diff.words:
        out.append(DiffBlock("word", w.name, w.kind, only.get(w.kind, _("changed")),
                             _word_lines(w.a, w.kind), _word_lines(w.b, w.kind), w.summary))
    return out


def counts_text(diff: RuleDiff, compact: bool = False) -> Text:
    """``3 settings (5 values), 2 rules (1 changed, 1 only in B), 0 definitions differ`` (without
    the parts in brackets when ``compact``)."""
    la, lb = diff.labels
    t = Text()
    if diff.empty:
        t.append(spaced(_("No differences:")), style="bold green")
        t.append(_("the two rulesets have the same settings, rules, definitions and words of the game."))
        return t
    values = sum(max(1, len(s.keys)) for s in diff.settings)
    n_r = {k: sum(r.kind == k for r in diff.rules) for k in ("changed", "added", "removed")}
    rule_parts = [_("{n} changed").format(n=n_r["changed"])] if n_r["changed"] else []
    if n_r["added"]:
        rule_parts.append(_("{n} only in {label}").format(n=n_r["added"], label=lb))
    if n_r["removed"]:
        rule_parts.append(_("{n} only in {label}").format(n=n_r["removed"], label=la))
    n_s, n_rules, n_d = len(diff.settings), len(diff.rules), len(diff.definitions)
    t.append(ngettext("{n} setting", "{n} settings", n_s).format(n=n_s), style="bold yellow")
    if values != n_s and not compact:
        t.append(("" if chinese() else " ") + _("({n} values)").format(n=values), style="dim")
    t.append(_(", "))
    t.append(ngettext("{n} rule", "{n} rules", n_rules).format(n=n_rules), style="bold yellow")
    if rule_parts and not compact:
        t.append(("" if chinese() else " ") + _("({parts})").format(parts=_(", ").join(rule_parts)), style="dim")
    t.append(_(", "))
    t.append(ngettext("{n} definition", "{n} definitions", n_d).format(n=n_d), style="bold yellow")
    if diff.words:  # (the words of the game: named when some differ)
        t.append(_(", "))
        t.append(ngettext("{n} word of the game", "{n} words of the game", len(diff.words)).format(n=len(diff.words)),
                 style="bold yellow")
    t.append(_(" differ"))
    return t


# ------------------------------------------------------------------------------ layout
def wrap_lines(console: Console, lines: list[Text], width: int, indent: int = 2) -> list[Text]:
    """Wrap each line to ``width`` cells; continuation lines are indented by ``indent``."""
    out: list[Text] = []
    width = max(width, indent + 4)
    for line in lines:
        parts = wrap_text(line, width - indent, console)
        for i, part in enumerate(parts):
            part.rstrip()
            out.append(part if i == 0 else Text(" " * indent) + part)
    return out


@dataclass
class _Placed:
    start: int          # first row of the block (its header)
    height: int         # rows, header included (without the blank row after it)
    left: list[Text]
    right: list[Text]


class _Pane(VerticalScroll):
    """One side's pane: when its own size changes (a change of layout, side by side / stacked, keeps
    the size of :class:`DiffPanes` and sends it no resize), the blocks are laid out again to its width."""

    def on_resize(self, _event: events.Resize) -> None:
        owner = self.parent
        if isinstance(owner, DiffPanes):
            owner.relayout()


class DiffPanes(Container, can_focus=True):
    """Two panes (``#pane-a``, ``#pane-b``) showing :class:`DiffBlock` s row-aligned, scrolled
    together, with a block cursor (↑/↓, PgUp/PgDn, Home/End; a click picks a block)."""

    BINDINGS = [
        Binding("up,k", "move(-1)", N_("Previous"), show=False, tooltip=N_("The previous difference")),
        Binding("down,j", "move(1)", N_("Next"), show=False, tooltip=N_("The next difference")),
        Binding("pageup", "page(-1)", N_("Page up"), show=False),
        Binding("pagedown", "page(1)", N_("Page down"), show=False),
        Binding("home", "move_to(0)", N_("First"), show=False),
        Binding("end", "move_to(-1)", N_("Last"), show=False),
        Binding("enter", "choose", N_("Details"), show=False, tooltip=N_("The current difference in full")),
    ]

    @dataclass
    class Moved(Message):
        """The cursor moved to block ``index`` (None: nothing to show)."""

        panes: DiffPanes
        index: int | None

    @dataclass
    class Chosen(Message):
        """Enter on block ``index``."""

        panes: DiffPanes
        index: int

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.blocks: list[DiffBlock] = []
        self.labels: tuple[str, str] = ("A", "B")
        self.absent: tuple[str, str] = ("", "")
        self.cursor = 0
        self._placed: list[_Placed] = []
        self._width = 0
        self._syncing = False

    def compose(self) -> ComposeResult:
        for side in ("a", "b"):
            pane = _Pane(Static("", id=f"pane-{side}-text", classes="pane-text"), id=f"pane-{side}",
                         classes="diff-pane")
            pane.can_focus = False
            yield pane

    def on_mount(self) -> None:
        a, b = self.pane("a"), self.pane("b")
        self.watch(a, "scroll_y", lambda y: self._sync(b, y), init=False)
        self.watch(b, "scroll_y", lambda y: self._sync(a, y), init=False)

    def pane(self, side: str) -> VerticalScroll:
        return self.query_one(f"#pane-{side}", VerticalScroll)

    def _sync(self, other: VerticalScroll, y: float) -> None:
        if other.scroll_y != y:
            other.scroll_to(y=y, animate=False, immediate=True)

    # -------------------------------------------------------------- content
    def show(self, blocks: list[DiffBlock], labels: tuple[str, str], titles: tuple[str, str] = ("", ""),
             subtitles: tuple[str, str] = ("", "")) -> None:
        """Show ``blocks``; ``labels`` name the two sides (for "not in B"), ``titles`` head the panes."""
        self.blocks = blocks
        self.labels = labels
        self.cursor = 0
        for side, title, sub in zip("ab", titles, subtitles):
            p = self.pane(side)
            p.border_title = title
            p.border_subtitle = sub
        self._width = 0  # lay out again
        self._layout()
        for side in "ab":
            self.pane(side).scroll_to(y=0, animate=False, immediate=True)
        self.post_message(self.Moved(self, 0 if blocks else None))

    def on_resize(self, _event: events.Resize) -> None:
        self.relayout()

    def relayout(self) -> None:
        """Wrap the blocks again once the panes have their new size (after a resize or a change of
        layout: side by side / stacked)."""
        self.call_after_refresh(self._layout)

    def _content_width(self) -> int:
        widths = [self.pane(s).scrollable_content_region.width for s in "ab"]
        return max(0, min(widths))

    def _layout(self) -> None:
        """Wrap every block to the panes' width and render both panes (when the width changed)."""
        width = self._content_width()
        if width <= 0:
            return
        if width != self._width or not self._placed or len(self._placed) != len(self.blocks):
            self._width = width
            console = self.app.console
            text_w = width - len(MARK)
            la, lb = self.labels
            placed: list[_Placed] = []
            row = 0
            for blk in self.blocks:
                left = blk.left if blk.left is not None else [Text(_("(not in {label})").format(label=la), style="dim italic")]
                right = blk.right if blk.right is not None else [Text(_("(not in {label})").format(label=lb), style="dim italic")]
                wl = wrap_lines(console, left, text_w)
                wr = wrap_lines(console, right, text_w)
                n = max(len(wl), len(wr))
                wl += [Text("")] * (n - len(wl))
                wr += [Text("")] * (n - len(wr))
                placed.append(_Placed(row, n + 1, wl, wr))
                row += n + 2
            self._placed = placed
            if self.blocks:
                self.call_after_refresh(self._scroll_into_view)
        self._paint()

    def _header(self, blk: DiffBlock, current: bool, width: int) -> Text:
        t = Text()
        section = _(SECTION_WORDS[blk.section]) if blk.section in SECTION_WORDS else blk.section
        t.append(section + " ", style="dim" if not current else "")
        t.append(blk.name, style=f"bold {KIND_STYLE.get(blk.kind, '')}")
        t.append(f"  {blk.note}", style="dim" if not current else "")
        if current:
            t.stylize("reverse")
        t.truncate(width, overflow="ellipsis")
        return t

    def _paint(self) -> None:
        width = self._width - len(MARK)
        for side in "ab":
            out = Text(no_wrap=True, overflow="crop", end="")
            for i, (blk, p) in enumerate(zip(self.blocks, self._placed)):
                current = i == self.cursor
                mark = Text(MARK, style="bold magenta") if current else Text(NO_MARK)
                if i:
                    out.append("\n")
                out.append_text(mark + self._header(blk, current, width))
                for line in (p.left if side == "a" else p.right):
                    out.append("\n")
                    out.append_text(mark + line)
                out.append("\n")
            self.query_one(f"#pane-{side}-text", Static).update(out)

    # -------------------------------------------------------------- cursor
    def block_at(self, row: int) -> int | None:
        """The block shown at content row ``row``."""
        for i, p in enumerate(self._placed):
            if p.start <= row < p.start + p.height + 1:
                return i
        return None

    def select(self, index: int) -> None:
        """Make block ``index`` current and scroll it into view in both panes."""
        if not self.blocks:
            return
        index = max(0, min(index, len(self.blocks) - 1))
        changed = index != self.cursor
        self.cursor = index
        if self._placed:
            self._paint()
            self._scroll_into_view()
        if changed:
            self.post_message(self.Moved(self, index))

    def _scroll_into_view(self) -> None:
        p = self._placed[self.cursor]
        pane = self.pane("a")
        view = pane.scrollable_content_region.height
        y = pane.scroll_y
        if p.start < y or view <= 0:
            y = p.start
        elif p.start + p.height > y + view:
            y = max(p.start, p.start + p.height - view) if p.height <= view else p.start
        if y != pane.scroll_y:
            for side in "ab":
                self.pane(side).scroll_to(y=y, animate=False, immediate=True)

    def action_move(self, delta: int) -> None:
        self.select(self.cursor + delta)

    def action_move_to(self, index: int) -> None:
        self.select(index if index >= 0 else len(self.blocks) - 1)

    def action_page(self, direction: int) -> None:
        if not self._placed:
            return
        view = max(1, self.pane("a").scrollable_content_region.height)
        target = self._placed[self.cursor].start + direction * view
        i = self.block_at(max(0, target))
        if i is None:
            i = len(self.blocks) - 1 if direction > 0 else 0
        if i == self.cursor:
            i += direction
        self.select(i)

    def action_choose(self) -> None:
        if self.blocks:
            self.post_message(self.Chosen(self, self.cursor))

    def on_click(self, event: events.Click) -> None:
        widget = event.widget
        if not isinstance(widget, Static) or "pane-text" not in widget.classes:
            return
        offset = event.get_content_offset(widget)
        if offset is None:
            return
        i = self.block_at(offset.y)
        if i is not None:
            self.focus()
            self.select(i)


__all__ = ["DiffBlock", "DiffPanes", "diff_blocks", "counts_text", "wrap_lines", "KIND_STYLE"]
