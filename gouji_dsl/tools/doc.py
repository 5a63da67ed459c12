"""A printable rulebook of a ruleset (``gouji doc RULESET``), written from its rules' and settings'
sentences (``says``), their provenance (``source``) and the card model.

Layout: the title, description, source and inheritance chain; "The cards" (the table, the pack and
its size, cards per player, rank order, filler, how plays compare, then the sentences of the card
settings and of the rules that say what a gouji play is); one section per phase of the game in
:data:`~gouji_dsl.ruleset.game.vocabulary.PHASES` order, each a numbered list of the sentences of the rules that
can fire under this ruleset's settings, and of the settings where the rules that read them are; and
a closing "Sources" list that the items cite by number (footnote style).

A rule with ``said_by: [SETTING, ...]`` (or ``SETTING.KEY``: the sentences about that key of a
map, or about its whole value) is stated by those settings' sentences: where they have sentences in
effect, those are printed in the rule's place (once, at the first such rule) instead of its own
``says`` — so a child that changes the setting and its sentence replaces what the rulebook says of
the rule, and the point is said once.

Rules that can never fire (a mechanic switched off by the settings, a rule shadowed by a later one;
see :mod:`gouji_dsl.ruleset.analysis`) are left out, and so are settings only such rules read. A setting changed
without its own ``says`` keeps a parent's sentence that may be wrong: it is left out too (the lint
reports it). Text output wraps at 88 columns (Chinese characters count two); markdown output uses
headings, lists and a table.

Languages (issue 26): the rulebook is in the active language (``gouji --lang zh doc ...``,
:mod:`gouji_dsl.i18n`): the ruleset's texts in that language where it gives them
(:func:`~gouji_dsl.ruleset.spec.said`), and the doc's own words — headings, labels, the facts
computed from the card model — through the ``gouji`` gettext catalog (:func:`gouji_dsl.i18n._`;
every one of them is written in this module, marked ``_()`` or ``N_()``).
"""
from __future__ import annotations

import contextvars
import re
import unicodedata
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path

from gouji_dsl import i18n
from gouji_dsl.i18n import N_, Language, _, bracketed, ngettext
from gouji_dsl.resources import display_path
from gouji_dsl.ruleset.analysis import ENGINE_SETTINGS, analyse
from gouji_dsl.ruleset.game.cards import NAMES
from gouji_dsl.ruleset.game.vocabulary import HOOKS, PHASES
from gouji_dsl.ruleset.graph import RuleGraph
from gouji_dsl.ruleset.languages import file_text
from gouji_dsl.ruleset.lint import no_effect, setting_sentences, stale_says
from gouji_dsl.ruleset.spec import said
from gouji_dsl.ruleset.words import GameWords, game_words
from gouji_dsl.tools import textlayout

__all__ = ["ruleset_doc", "cited", "FORMATS", "WIDTH"]

FORMATS: tuple[str, ...] = ("text", "markdown")
WIDTH = 88


_HEADINGS: dict[str, str] = {
    "deal": N_("Dealing and the first lead"),
    "lead": N_("Leading"),
    "trick": N_("Answering a play"),
    "burn": N_("Burning"),
    "finish": N_("Going out"),
    "end": N_("End of the game and scoring"),
    "view": N_("What players may see"),
    "tribute": N_("Between games"),
    "setup": N_("Before play"),
}


def _heading(phase: str, graph: RuleGraph) -> str:
    """The heading of ``phase``'s section (the sections' own words are put in the ruleset's words of
    the game when the sections are laid out: a ruleset that calls burning 火牌 gets a section 火牌)."""
    return _(_HEADINGS[phase]) if phase in _HEADINGS else phase.capitalize()


_CARD_SETTINGS = tuple(ENGINE_SETTINGS)
_TRIBUTE_HOOKS = {"tribute_kinds", "tribute", "tribute_card", "return_tribute"}
_REVOLUTION_HOOKS = {"must_revolt", "revolt", "redeal", "choose"}
_STAGE = {"seat_setup": 1, "choose": 1, "declare": 2, "game_start": 3, "seat_start": 3}
"""Within a phase, rules are grouped by topic (the first word of their ids); these hooks come later
in their phase, in the order the interpreter asks them (tribute, then cards changing hands after the
deal; revolution, the opposite's choice, declarations, then the start of play)."""


@dataclass
class _Item:
    text: str
    source: str | None
    mark: int | None = None


@dataclass
class _Section:
    phase: str
    heading: str
    items: list[_Item] = field(default_factory=list)
    facts: list[tuple[str, str]] = field(default_factory=list)


# ------------------------------------------------------------------------------ the content
def _sym(k: str) -> str:
    return "10" if k == "T" else k


def _joker_name(k: str, plural: bool = False, named: GameWords | None = None) -> str:
    """A joker's name: the ruleset's (``words.cards``: 大王, ``big joker (大王)``), in English with its
    plural where it is the usual one; the notation's name where the ruleset gives none."""
    word = named.card(k) if named is not None else None
    if word is not None:
        forms = _JOKER_WORDS.get(word) if i18n.current() is Language.EN else None
        return forms[plural] if forms is not None else word
    name = NAMES.get(k, k)
    words = _JOKER_WORDS.get(name)
    return name if words is None else _(words[plural])


_JOKER_WORDS: dict[str, tuple[str, str]] = {
    "small joker (小王)": (N_("small joker (小王)"), N_("small jokers (小王)")),
    "big joker (大王)": (N_("big joker (大王)"), N_("big jokers (大王)")),
    "eagle (鹰)": (N_("eagle (鹰)"), N_("eagles (鹰)")),
}
"""The jokers' names (:data:`gouji_dsl.ruleset.game.cards.NAMES`), one and several, for the catalog."""


def _facts(graph) -> list[tuple[str, str]]:
    """The table and the pack, computed from the card model and the table settings."""
    m = graph.model
    s = graph.settings
    n = int(s.get("seats", 6) or 6)
    teams = int(s.get("teams", 2) or 2)
    out: list[tuple[str, str]] = []
    if teams > 1 and n % teams == 0:
        sides = [[seat for seat in range(1, n + 1) if (seat - 1) % teams == t] for t in range(teams)]
        words = {2: _("two"), 3: _("three"), 4: _("four")}
        # (seats 1, 3, 5 against 2, 4, 6; in Chinese 1, 3, 5 号座位对 2, 4, 6 号座位, as the summaries name seats)
        listed = [", ".join(map(str, side)) for side in sides]
        out.append((_("Players"), _("{n}, in {teams} teams of {size}: {sides}").format(
            n=n, teams=words.get(teams, str(teams)), size=n // teams,
            sides=_("seats {seats}").format(seats=listed[0]) + "".join(_(" against {seats}").format(seats=x) for x in listed[1:]))))
    else:
        out.append((_("Players"), str(n)))
    counts = dict(zip(m.kinds, m.deck_counts))
    ranks = list(m.kinds[:m.n_ranks])
    jokers = list(m.kinds[m.n_ranks:])
    total = sum(m.deck_counts)
    by_count: dict[int, list[str]] = {}
    for r in ranks:
        by_count.setdefault(counts[r], []).append(r)
    common = max(by_count, key=lambda c: len(by_count[c])) if by_count else 0
    rank_part = _("{count} of each rank").format(count=common)
    others = [(c, rs) for c, rs in by_count.items() if c != common]
    if others:
        rank_part += _(" except ") + "; ".join(_("{count} of {ranks}").format(
            count=c, ranks=_(" and ").join(_sym(r) for r in rs)) for c, rs in others)
    named = game_words(graph.resolved)
    joker_parts = [_("{count} {name}").format(count=counts[j], name=_joker_name(j, counts[j] != 1, named))
                   for j in jokers if counts[j]]
    decks = (s.get("deck") or {}).get("decks")
    pack = _("{total} cards").format(total=total) + (
        _(" ({decks} decks)").format(decks=decks) if isinstance(decks, int) and decks > 1 else "")
    out.append((_("Pack"), pack + _(": ") + rank_part + (_(", ") + _(", ").join(joker_parts) if joker_parts else "")))
    each, extra = divmod(total, n)
    if extra == 0:
        out.append((_("Each player"), _("{each} cards").format(each=each)))
    else:
        out.append((_("Each player"), ngettext(
            "{each} or {more} cards ({total} ÷ {n}: the first {extra} player in dealing order get {more})",
            "{each} or {more} cards ({total} ÷ {n}: the first {extra} players in dealing order get {more})",
            extra).format(each=each, more=each + 1, total=total, n=n, extra=extra)))
    order = " ".join(_sym(r) for r in ranks)
    if jokers:
        order += _(", then ") + _(", ").join(_joker_name(j, named=named) for j in jokers)
    out.append((_("Rank order, low to high"), order))
    filler = s.get("filler_rank")
    out.append((_("Filler (贴钱)"), _("{rank}s may fill out a group of another rank").format(rank=_sym(str(filler)))
                if filler is not None else _("none: every card of a group has its rank")))
    out.append((_("Beating a play"), _beating(graph, bool(jokers))))
    if named.places:  # the ruleset's names of the places (words.places: 头科 … 大落)
        out.append((_("Places, first out to last"), _(", ").join(named.place(p) for p in range(1, n + 1))))
    return out


def _beating(graph, jokers: bool) -> str:
    """How a play beats another, in words, from the card model's comparison settings (the model,
    the count, which jokers cover a joker), so that the rulebook says what the engine does."""
    m = graph.model
    if m.model == "positional":
        count = _("the same number of cards") if m.same_count else _("the number of cards may differ")
        return count + _("; card by card, strongest first: each card higher than the card it meets")
    if m.same_count:
        beat = _("the same number of cards, of a higher rank")
    else:
        beat = _("a higher play; the number of cards may differ")
    if jokers:
        cover = _(" or ").join(w for w, on in ((_("higher"), m.cover_higher), (_("equal"), m.cover_equal)) if on)
        off = _no_effect(graph)
        equal_many = m.equal_many if ("comparison", "joker_cover", "equal_many") not in off else 0
        lower_many = m.lower_many if ("comparison", "joker_cover", "lower_many") not in off else 0
        if cover:
            beat += _("; attached jokers must be covered by {cover} jokers").format(cover=cover)
        elif equal_many or lower_many:
            beat += _("; attached jokers must be covered")
        else:
            beat += _("; a play with attached jokers cannot be beaten")
        if not m.spare_for_rank:
            beat += _("; no jokers beyond those that cover")
        if equal_many or lower_many:
            parts = []
            if equal_many:
                parts.append(_("{n} equal jokers beat one").format(n=equal_many))
            if lower_many:
                parts.append(_("{n} of the next lower kind beat one").format(n=lower_many))
            beat += " (" + _(", ").join(parts) + ")"
    return beat


def _setting_items(s, off: dict[tuple[str, ...], str] | None = None,
                   files: dict[str, str] | None = None, stale: Collection[str] = ()) -> list[_Item]:
    """A setting's sentences for the rulebook (:func:`_setting_sentences` without their keys)."""
    return [item for _keys, item in _setting_sentences(s, off, files, stale)]


def _setting_sentences(s, off: dict[tuple[str, ...], str] | None = None,
                       files: dict[str, str] | None = None,
                       stale: Collection[str] = ()) -> list[tuple[tuple[str, ...], _Item]]:
    """A setting's sentences for the rulebook: those in effect (:func:`setting_sentences`, which
    ``gouji show`` uses too), each with the keys it is about."""
    return [(keys, _Item(text, source)) for keys, text, source in setting_sentences(s, stale, off, files)]


def _no_effect(graph) -> dict[tuple[str, ...], str]:
    """The settings (name, then keys) another setting disables, each with why (:func:`no_effect`):
    the rulebook says only what takes effect."""
    return no_effect(graph.settings)


def _topic(rule_id: str) -> str:
    return rule_id.split(".", 1)[0]


def _norm(text: str) -> str:
    return " ".join(text.casefold().rstrip(". ").split())


def _sentence(n) -> str:
    """A rule's sentence; for a rule without one, its question and expressions, marked as such."""
    if n.says:
        return said(n.says) or ""
    when = _("when {guard}: ").format(guard=" ".join(n.when.split())) if n.when else ""
    return f"{HOOKS[n.hook].doc} {when}{n.effect} {' '.join(n.expr.split())}" + _(
        " (rule {id}, no description)").format(id=n.id)


def _chain(graph) -> list[tuple[str, str | None, str]]:
    """(name, title, display path) of each file of the inheritance chain, the ruleset first."""
    from gouji_dsl.ruleset.load.checking import load_file
    out = []
    for i, path in enumerate(graph.resolved.chain):
        if i == 0:
            out.append((graph.resolved.name, said(graph.resolved.title), display_path(path)))
            continue
        try:
            data = load_file(path).data
            out.append((str(data.get("ruleset") or Path(path).stem), said(file_text(data.get("title"), data)),
                        display_path(path)))
        except Exception:
            out.append((Path(path).stem, None, display_path(path)))
    return out


def _add_unsaid(sec: _Section, items: list[_Item]) -> None:
    """Append the items the section does not say yet (the same words, whatever the case and spacing)."""
    for item in items:
        if not any(_norm(i.text) == _norm(item.text) for i in sec.items):
            sec.items.append(item)


def _said_by(graph, shown: list, stale: set[str], off: dict[tuple[str, ...], str],
             files: dict[str, str]) -> tuple[dict[str, list[_Item]], set[tuple[str, str]]]:
    """The rules stated by their settings' sentences (``said_by``): rule id -> the sentences printed in
    its place (each once, at the first such rule; ``NAME.KEY``: the sentences about that key of the
    map, or about its whole value), for every rule whose named settings have a sentence in effect; and
    the (setting, sentence) pairs so printed."""
    resolved = graph.resolved
    said_for: dict[str, list[_Item]] = {}
    used: set[tuple[str, str]] = set()
    for n in shown:
        if not n.said_by:
            continue
        items: list[_Item] = []
        said = False
        for entry in n.said_by:
            name, _dot, key = entry.partition(".")
            s = resolved.settings.get(name)
            if s is None:
                continue
            mine = [item for keys, item in _setting_sentences(s, off, files, stale) if not key or not keys or key in keys]
            said = said or bool(mine)
            for item in mine:
                if (name, item.text) not in used and name not in ENGINE_SETTINGS:
                    items.append(item)
                    used.add((name, item.text))
        if said:
            said_for[n.id] = items
    return said_for, used


def _shown_by(an):
    """Whether a rule is stated in the rulebook: it can fire, or it is an override saying "no" on purpose."""
    def shown(n) -> bool:
        why = an.dead.get(n.id)
        if why is None:
            return n.id not in an.inert
        # an override saying "no" on purpose (`allow: false` over a parent's rule) states a rule
        return why.kind == "effect" and n.overrides is not None and (why.expr or "").strip() in ("true", "false")
    return shown


def _document_order(nodes: list) -> list:
    """Rules in document order: by phase, then by topic (first appearance), then as written."""
    topic_rank: dict[tuple[str, str], int] = {}
    for n in nodes:
        topic_rank.setdefault((n.phase, _topic(n.id)), len(topic_rank))
    phase_rank = {p: i for i, p in enumerate(PHASES)}
    position = {n.id: i for i, n in enumerate(nodes)}
    return sorted(nodes, key=lambda n: (phase_rank.get(n.phase, 99), _STAGE.get(n.hook, 0),
                                        topic_rank[(n.phase, _topic(n.id))], position[n.id]))


def _anchor(name: str, s, an, ordered: list, shown, chain_length: int):
    """The rule after which a setting's sentence goes (one that reads it, in the phase most of its
    readers are in), or None when it is not said there."""
    readers = [n for n in ordered if name in an.rule_settings.get(n.id, ())]
    live = [n for n in readers if shown(n)]
    if not live and (s.inherited or not readers or chain_length == 1):
        # only rules that can never fire read it (or nothing does); a child's own setting that
        # switches a parent's mechanic off is still said ("no stuck threes")
        return None
    pool = live or readers
    direct = [n for n in pool if any(f"settings.{name}" in "".join(t.split()) for t in an.texts(n.id))]
    pool = direct or pool
    per_phase: dict[str, int] = {}
    for n in pool:
        per_phase[n.phase] = per_phase.get(n.phase, 0) + 1
    best = max(per_phase.values())
    phase = next(n.phase for n in pool if per_phase[n.phase] == best)
    anchor = next(n for n in pool if n.phase == phase)
    if anchor.says and _norm(said(s.says) or "") in _norm(said(anchor.says) or ""):
        return None  # the rule already says it
    return anchor


def _anchored(graph, an, ordered: list, shown, used, off, files, stale) -> tuple[dict[str, list[str]], list[str]]:
    """Where each other setting's sentence goes (rule id -> setting names: after a rule that reads
    it), and the card settings (said in "The cards")."""
    resolved = graph.resolved
    anchored: dict[str, list[str]] = {}
    card_settings: list[str] = []
    for name, s in resolved.settings.items():
        items = _setting_items(s, off, files, stale)
        if not items or all((name, i.text) in used for i in items):
            continue
        if name in ENGINE_SETTINGS:
            card_settings.append(name)
            continue
        anchor = _anchor(name, s, an, ordered, shown, len(resolved.chain))
        if anchor is not None:
            anchored.setdefault(anchor.id, []).append(name)
    return anchored, card_settings


def _add_anchored(sec: _Section, names, settings, used, off, files) -> None:
    """The sentences of the settings anchored at a rule, where not said already."""
    for name in names:
        for item in _setting_items(settings[name], off, files):
            if (name, item.text) not in used and not any(_norm(item.text) in _norm(i.text) for i in sec.items):
                sec.items.append(item)


def _tribute_heading(hooks: set[str]) -> str:
    parts = []
    if hooks & _TRIBUTE_HOOKS:
        parts.append(_("Between games: tribute"))
    if "seat_setup" in hooks:
        parts.append(_("after the deal: buying and giving cards") if parts
                     else _("After the deal: buying and giving cards"))
    return _("; ").join(parts) or _(_HEADINGS["tribute"])


def _setup_heading(hooks: set[str]) -> str:
    parts = []
    if hooks & _REVOLUTION_HOOKS:
        parts.append(_("revolution"))
    if "declare" in hooks:
        parts.append(_("declarations"))
    return _(_HEADINGS["setup"]) + (_(": ") + _(" and ").join(parts) if parts else "")


_HOOK_HEADINGS = {"tribute": _tribute_heading, "setup": _setup_heading}
"""The phases whose heading names what their rules do (by the hooks of the rules shown)."""


def _cite(sections: list[_Section]) -> list[str]:
    """Number the items' sources (footnote marks); the distinct sources in order of first citation."""
    sources: list[str] = []
    for sec in sections:
        for item in sec.items:
            if item.source:
                if item.source not in sources:
                    sources.append(item.source)
                item.mark = sources.index(item.source) + 1
    return sources


def _build(graph) -> tuple[list[_Section], list[str]]:
    """The sections and the distinct sources they cite (in order of first citation)."""
    an = analyse(graph)
    stale = stale_says(graph)
    resolved = graph.resolved
    shown = _shown_by(an)
    ordered = _document_order(list(graph.nodes))
    phase_rank = {p: i for i, p in enumerate(PHASES)}

    off = _no_effect(graph)
    files = {name: path for (name, _t, _d), path in zip(_chain(graph), resolved.chain)}

    said_for, used = _said_by(graph, [n for n in ordered if shown(n)], stale, off, files)
    anchored, card_settings = _anchored(graph, an, ordered, shown, used, off, files, stale)

    sections: list[_Section] = []
    cards = _Section("cards", _("The cards"), facts=_facts(graph))
    for name in card_settings:
        cards.items.extend(_setting_items(resolved.settings[name], off, files))
    sections.append(cards)
    by_phase: dict[str, _Section] = {"cards": cards}
    hooks_in: dict[str, set[str]] = {}
    for n in ordered:
        if not shown(n) and n.id not in anchored:
            continue
        sec = by_phase.get(n.phase)
        if sec is None:
            sec = by_phase[n.phase] = _Section(n.phase, _heading(n.phase, graph))
            sections.append(sec)
        if shown(n):
            hooks_in.setdefault(n.phase, set()).add(n.hook)
            _add_unsaid(sec, said_for.get(n.id, [_Item(_sentence(n), n.source)]))
        _add_anchored(sec, anchored.get(n.id, ()), resolved.settings, used, off, files)
    sections = [sections[0]] + sorted((s for s in sections[1:] if s.items), key=lambda s: phase_rank.get(s.phase, 99))
    named = game_words(graph.resolved)  # the doc's own words (headings, the facts) in the ruleset's words of the game
    for sec in sections:
        if sec.phase in _HOOK_HEADINGS:
            sec.heading = _HOOK_HEADINGS[sec.phase](hooks_in.get(sec.phase, set()))
        sec.heading = named.own(sec.heading)
        sec.facts = [(named.own(k), named.own(v)) for k, v in sec.facts]
    return sections, _cite(sections)


# ------------------------------------------------------------------------------ text
def _width(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def _wrap(text: str, width: int, first: str = "", rest: str | None = None) -> list[str]:
    """Greedy wrap by display width; ``first`` / ``rest`` prefix the first / following lines; Chinese
    breaks between characters, its punctuation kept with its neighbour (:mod:`gouji_dsl.tools.textlayout`)."""
    return textlayout.wrap(text, width, first, rest, _KEEP.get())


_KEEP: contextvars.ContextVar[tuple[str, ...]] = contextvars.ContextVar("doc_keep", default=())
"""The words of the game of the ruleset being written (头科, 大王, 革命, 四人乱缠 …): never cut by a line break."""


def _words_of(graph) -> tuple[str, ...]:
    """The ruleset's words of the game (places, terms, cards) in the active language."""
    return game_words(graph.resolved).unbroken()


_SEED_MARKS = re.compile(r"RULES\.md (§[0-9§, \-]+?) ?((?:\[S[0-9]\])+)")
_SEED_WORD = re.compile(r"\bseed (\d{3})\b")


def cited(note: str) -> str:
    """A source note as the rulebook's language cites it: in Chinese the seeds by their Chinese name
    (``RULES.md §1 [S1][S3]`` → ``资料 001、003（RULES.md §1）``, ``seed 003`` → ``资料 003``), the one
    name the per-language notes use (``资料 001，游戏开始 B-C``); in English as written. The one way
    the program cites a source: the rulebook, ``gouji diff`` and the compare screen."""
    if i18n.current() is not Language.ZH:
        return note

    def seeds(m: re.Match[str]) -> str:
        marks = re.findall(r"\[S([0-9])\]", m.group(2))
        names = "、".join(f"{int(n):03d}" for n in marks)
        return _("source text {number}").format(number=names) + f"（RULES.md {m.group(1).strip()}）"
    return _SEED_WORD.sub(lambda m: _("source text {number}").format(number=m.group(1)), _SEED_MARKS.sub(seeds, note))


def _sources_note(sources: list[str]) -> str:
    """What the sources cite, for a reader who has not the project at hand: the seeds are the Chinese
    rule texts quoted, RULES.md the project's English summary of them ("" when no source cites them)."""
    cited = " ".join(str(said(s)) for s in sources)
    if not (_SEED_WORD.search(cited) or "RULES.md" in cited):
        return ""
    return _("The seeds ([S0]-[S3] and seed 000-003) are the Chinese rule texts the rules are quoted from; "
             "RULES.md is the project's summary of them in English, by section (§).")


def _text_head(graph) -> list[str]:
    """The title, the description and the inheritance chain (labelled lines)."""
    r = graph.resolved
    out: list[str] = []
    title = said(r.title) or r.name
    out += [title, "=" * _width(title), ""]
    if r.description:
        out += _wrap(str(said(r.description)), WIDTH) + [""]
    chain = _chain(graph)
    label_w = 11

    def padded(text: str) -> str:
        return text + " " * max(label_w - _width(text), 1)  # "": label_w spaces
    out += _wrap(_("{name} ({path})").format(name=chain[0][0], path=chain[0][2]), WIDTH, padded(_("Ruleset")), " " * label_w)
    if r.source:
        out += _wrap(said(r.source), WIDTH, padded(_("Source")), " " * label_w)
    for i, (name, ptitle, path) in enumerate(chain[1:]):
        head = _("Builds on") if i == 0 else _("which builds on")
        if i:
            out += [" " * label_w + head]
            head = ""
        out += _wrap(_("{name} ({path})").format(name=name, path=path) + (_(": ") + ptitle if ptitle else ""), WIDTH,
                     padded(head), " " * (label_w + 2))
    return out


def _text_section(num: int, sec: _Section) -> list[str]:
    """A numbered section: its heading, its facts (a two-column table), its numbered items."""
    head = f"{num}. {sec.heading}"
    out = ["", "", head, "-" * _width(head), ""]
    if sec.facts:
        fw = max(_width(k) for k, _ in sec.facts) + 2
        for k, v in sec.facts:
            out += _wrap(v, WIDTH, "  " + k + " " * (fw - _width(k)), " " * (fw + 2))
        if sec.items:
            out.append("")
    for j, item in enumerate(sec.items, 1):
        label = f"  {num}.{j}"
        label = label + " " * max(8 - len(label), 1)
        text = item.text + (f" [{item.mark}]" if item.mark else "")
        out += _wrap(text, WIDTH, label, " " * len(label))
    return out


def _text_sources(sources: list[str]) -> list[str]:
    """The closing "Sources" list the items cite by number."""
    head = _("Sources")
    out = ["", "", head, "-" * _width(head), ""]
    out += _wrap(_sources_note(sources), WIDTH, "  ") + [""] if _sources_note(sources) else []
    mw = len(f"[{len(sources)}]") + 1
    for i, src in enumerate(sources, 1):
        mark = f"[{i}]"
        out += _wrap(cited(said(src)), WIDTH, "  " + mark + " " * (mw - len(mark)), " " * (mw + 2))
    return out


def _text(graph, sections: list[_Section], sources: list[str]) -> str:
    out = _text_head(graph)
    for num, sec in enumerate(sections, 1):
        out += _text_section(num, sec)
    if sources:
        out += _text_sources(sources)
    return "\n".join(out).rstrip() + "\n"


# ------------------------------------------------------------------------------ markdown
def _md(text: str, table: bool = False) -> str:
    for ch in "\\`*_<":
        text = text.replace(ch, "\\" + ch)
    if table:
        text = text.replace("|", "\\|")
    return " ".join(text.split())


def _markdown(graph, sections: list[_Section], sources: list[str]) -> str:
    r = graph.resolved
    out: list[str] = [f"# {_md(said(r.title) or r.name)}", ""]
    if r.description:
        out += [_md(said(r.description) or ""), ""]
    chain = _chain(graph)
    colon = _(":")
    out.append(f"- **{_('Ruleset')}{colon}** `{chain[0][0]}`" + bracketed(f"`{chain[0][2]}`", after=True))
    if r.source:
        out.append(f"- **{_('Source')}{colon}** {_md(said(r.source))}")
    if len(chain) > 1:
        out.append(f"- **{_('Builds on')}{colon}** " + _(", which builds on ").join(
            f"`{name}`" + bracketed(f"`{path}`", after=True) + (_(": ") + _md(t) if t else "") for name, t, path in chain[1:]))
    for num, sec in enumerate(sections, 1):
        out += ["", f"## {num}. {_md(sec.heading)}", ""]
        if sec.facts:
            out += ["| | |", "| --- | --- |"]
            out += [f"| {_md(k, True)} | {_md(v, True)} |" for k, v in sec.facts]
            if sec.items:
                out.append("")
        for j, item in enumerate(sec.items, 1):
            mark = f" [{item.mark}]" if item.mark else ""
            out.append(f"- **{num}.{j}** {_md(item.text)}{mark}")
    if sources:
        out += ["", f"## {_('Sources')}", ""]
        out += [_md(_sources_note(sources)), ""] if _sources_note(sources) else []
        out += [f"{i}. {_md(cited(said(src)))}" for i, src in enumerate(sources, 1)]
    return "\n".join(out).rstrip() + "\n"


def ruleset_doc(graph, fmt: str = "text", lang: Language | None = None) -> str:
    """The rulebook of a compiled ruleset (:class:`~gouji_dsl.ruleset.graph.RuleGraph`) as ``text`` (wrapped
    at 88 columns) or ``markdown``, in ``lang`` (default: the active language, :func:`gouji_dsl.i18n.current`)."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}: use one of {', '.join(FORMATS)}")
    was = i18n.current()
    i18n.use(was if lang is None else lang)
    try:
        sections, sources = _build(graph)
        token = _KEEP.set(_words_of(graph))
        try:
            return (_markdown if fmt == "markdown" else _text)(graph, sections, sources)
        finally:
            _KEEP.reset(token)
    finally:
        i18n.use(was)

