"""The card model of one ruleset: card kinds and their strength, the deck, play classification
(RULES.md §2) and comparison (``beats``), all driven by settings.

Settings read here (documented in ``rules/base.yaml``; their types are the engine's declared
interface :data:`ENGINE_SETTINGS`, checked by :mod:`gouji_dsl.ruleset.settings` before this module
sees them): ``ranks`` (low→high), ``jokers`` (kinds above every rank, low→high), ``deck``,
``filler_rank`` (贴钱, or null), ``mixed_jokers_read_as_lowest``, ``comparison``.

Hands and plays are count vectors indexed by strength (``kinds[i]`` is the i-th weakest kind).
"""
from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from gouji_dsl.diagnostics import Code, Diagnostic, GoujiError
from gouji_dsl.i18n import N_, _
from gouji_dsl.ruleset.game.cards import SUITLESS, SUITS, SYMBOLS, Card, format_counts, parse_cards

REQUIRED = object()
"""The default of an engine setting (or key) that every ruleset must give."""

ENGINE_SETTINGS: dict[str, tuple[str, str, Any]] = {
    "seats": ("int(2..12)", "the number of players (the interpreter's table)", REQUIRED),
    "teams": ("int(1..6)", "the number of teams, seats alternating (must divide seats)", REQUIRED),
    "deck": ("{decks: int(1..12), cards_per_rank: int(1..8), jokers_per_deck: {rank -> int(0..8)}, "
             "remove: {rank -> int(0..)}, add: {rank -> int(0..96)}}",
             N_("the pack: decks, cards of each rank per deck, jokers of each kind per deck, cards taken out and added"),
             {"decks": REQUIRED, "cards_per_rank": REQUIRED, "jokers_per_deck": {}, "remove": {}, "add": {}}),
    "ranks": ("[symbol]", N_("the rank order, low to high"), REQUIRED),  # (N_: the hint of a missing one)
    "jokers": ("[symbol]", "the joker kinds, low to high, above every rank", []),
    "filler_rank": ("rank?", "the rank that may fill out a group (贴钱), or null", None),
    "mixed_jokers_read_as_lowest": ("bool", "jokers of different kinds played together all count as the lowest", True),
    "comparison": ("{model: 'cover' | 'positional', same_count: bool, "
                   "joker_cover: {higher: bool, equal: bool, equal_many: int(0..), lower_many: int(0..)}, "
                   "spare_jokers_for_rank: bool}",
                   "how a play beats another: the joker-cover model or card by card, counts, joker covering",
                   {"model": "cover", "same_count": True,
                    "joker_cover": {"higher": True, "equal": False, "equal_many": 0, "lower_many": 0},
                    "spare_jokers_for_rank": True}),
    "choices": ("{text -> {asked: 'deal' | 'setup'}}",
                "questions of the ruleset's own a seat is asked (word -> where: right after the deal, or after "
                "the revolt questions); the `offer` rules say who is asked, `answered` rules what an answer does",
                {}),
    "counters": ("{text -> {reset: 'trick' | 'deal' | 'game' | 'match'}}",
                 "per-seat counters (count: NAME) and when they start again from 0 (default: each deal)",
                 {}),
}
"""The settings the engine itself reads (interpreter and card model): name -> (type in the notation
of :mod:`gouji_dsl.lang.types`, what the engine does with it, default). A ruleset cannot change
these types; a setting (or a key of a record) left out takes its default, except where the default
is :data:`REQUIRED`."""


# ------------------------------------------------------------------------------ constraints between engine settings
@dataclass(frozen=True)
class Constraint:
    """A rule between settings: ``holds(values)`` is true when ``path`` (setting name, then keys)
    has no effect; ``message`` says why. Reported as a warning (``SettingHasNoEffect``) where the
    setting at ``path`` was written."""

    path: tuple[str, ...]
    holds: Callable[[Mapping[str, Any]], bool]
    message: str
    hint: str


def setting_at(values: Mapping[str, Any], *path: str) -> Any:
    """The value at ``path`` (setting name, then keys) of typed setting values, or None."""
    cur: Any = values
    for p in path:
        if not isinstance(cur, dict):
            return None
        cur = cur.get(p)
    return cur


CONSTRAINTS: tuple[Constraint, ...] = (
    Constraint(("comparison", "joker_cover", "equal_many"),
               lambda v: bool(setting_at(v, "comparison", "same_count")) and (setting_at(v, "comparison", "joker_cover", "equal_many") or 0) >= 2,
               N_("has no effect while comparison.same_count is true: covering one joker with several equal jokers "
                  "needs more cards than the play it beats"),
               N_("set comparison.same_count: false (two-kill-one games), or equal_many: 0")),
    Constraint(("comparison", "joker_cover", "lower_many"),
               lambda v: bool(setting_at(v, "comparison", "same_count")) and (setting_at(v, "comparison", "joker_cover", "lower_many") or 0) >= 2,
               N_("has no effect while comparison.same_count is true: covering one joker with several lower jokers "
                  "needs more cards than the play it beats"),
               N_("set comparison.same_count: false (three-kill-one games), or lower_many: 0")),
)
"""Settings that another setting disables."""


class SettingError(ValueError):
    """A card setting that cannot be used: ``setting`` names it, ``hint`` says what would do."""

    def __init__(self, setting: str, message: str, hint: str | None = None):
        super().__init__(message)
        self.setting = setting
        self.hint = hint


@dataclass(frozen=True, eq=False)
class Play:
    """A classified play (一手牌) under a ruleset.

    ``counts``: cards per kind (strength-indexed tuple). ``valid``: a legal shape. ``rank``: the kind
    it counts as (a joker kind for a pure joker play). ``count``: number of cards. ``carried``: rank
    cards including 2s used as filler. ``filler``: 2s used as filler. ``jokers``: strength indices of
    attached jokers, strongest first, after the mixed-joker reading. ``gouji``: a gouji play
    (够级牌, decided by the ruleset's ``gouji`` rules). ``why``: for an invalid shape, why."""

    counts: tuple[int, ...]
    valid: bool
    rank: int = -1
    count: int = 0
    carried: int = 0
    filler: int = 0
    jokers: tuple[int, ...] = ()
    gouji: bool = False
    why: str = ""
    text: str = ""

    @property
    def n_jokers(self) -> int:
        return len(self.jokers)

    @property
    def pure_jokers(self) -> bool:
        return self.carried == 0 and bool(self.jokers)

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"Play({self.text!r})"


@dataclass
class CardModel:
    """Kinds, strength, deck and the play rules of one ruleset.

    Built by :func:`CardModel.from_settings`; raises :class:`GoujiError` through the compiler when
    settings are inconsistent. ``gouji_fn(play) -> bool`` is installed by the compiler from the
    ruleset's ``gouji`` rules."""

    kinds: tuple[str, ...]
    n_ranks: int
    filler: int | None
    mixed_as_lowest: bool
    model: str
    same_count: bool
    cover_higher: bool
    cover_equal: bool
    equal_many: int
    lower_many: int
    spare_for_rank: bool
    deck_counts: tuple[int, ...]
    suits_per_rank: int
    gouji_fn: Callable[[Play], bool] = field(default=lambda p: False, repr=False)
    _cache: dict[tuple[int, ...], Play] = field(default_factory=dict, repr=False)
    _jcache: dict[tuple[int, ...], dict[int, tuple[tuple[int, ...], ...]]] = field(default_factory=dict, repr=False)
    _deck: list[Card] = field(default_factory=list, repr=False, compare=False)  # (deck(), made once: cards are immutable)

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_settings(cls, s: dict[str, Any]) -> CardModel:
        """Build from resolved settings (plain values). Raises ValueError with a readable message."""
        ranks = _symbols(s.get("ranks"), "ranks")
        jokers = _symbols(s.get("jokers") or [], "jokers")
        kinds = tuple(ranks + jokers)
        if len(set(kinds)) != len(kinds):
            raise SettingError("jokers", _("a card kind appears twice in ranks/jokers"))
        filler_sym = s.get("filler_rank")
        filler = None
        if filler_sym is not None:
            filler_sym = str(filler_sym)
            if filler_sym not in ranks:
                raise SettingError("filler_rank", _("filler_rank {filler_sym!r} is not one of the ranks").format(filler_sym=filler_sym),
                                   "ranks: " + " ".join(ranks) + _("; null for no filler"))
            filler = kinds.index(filler_sym)
        cmp = s.get("comparison") or {}
        cover = cmp.get("joker_cover") or {}
        deck = s.get("deck") or {}
        for key in ("decks", "cards_per_rank"):
            if not isinstance(deck.get(key), int) or isinstance(deck.get(key), bool):
                raise SettingError("deck", _("deck.{key} must be a whole number, got {deck!r}").format(key=key, deck=deck.get(key)))
        decks = int(deck["decks"])
        per_rank = int(deck["cards_per_rank"])
        if decks < 1 or per_rank < 1:
            raise SettingError("deck", _("deck: decks and cards_per_rank must be at least 1"))
        jpd = {str(k): int(v) for k, v in (deck.get("jokers_per_deck") or {}).items()}
        counts = []
        for i, k in enumerate(kinds):
            n = decks * (per_rank if i < len(ranks) else jpd.get(k, 0))
            n -= int((deck.get("remove") or {}).get(k, 0) or 0)
            n += int((deck.get("add") or {}).get(k, 0) or 0)
            if n < 0:
                raise SettingError("deck", _("deck: removing more {k} than the deck holds").format(k=k))
            counts.append(n)
        model = str(cmp.get("model", "cover"))
        if model not in ("cover", "positional"):
            raise SettingError("comparison", _("comparison.model must be 'cover' or 'positional', not {model!r}").format(model=model))
        return cls(kinds=kinds, n_ranks=len(ranks), filler=filler,
                   mixed_as_lowest=bool(s.get("mixed_jokers_read_as_lowest", True)),
                   model=model, same_count=bool(cmp.get("same_count", True)),
                   cover_higher=bool(cover.get("higher", True)), cover_equal=bool(cover.get("equal", False)),
                   equal_many=int(cover.get("equal_many", 0) or 0), lower_many=int(cover.get("lower_many", 0) or 0),
                   spare_for_rank=bool(cmp.get("spare_jokers_for_rank", True)),
                   deck_counts=tuple(counts), suits_per_rank=per_rank)

    # ------------------------------------------------------------------ text
    @property
    def order(self) -> str:
        return "".join(self.kinds)

    def index(self, symbol: str) -> int:
        return self.kinds.index(symbol)

    def is_joker(self, i: int) -> bool:
        return i >= self.n_ranks

    def counts_of(self, cards: list[Card], *, path: str = "<cards>", line: int = 0, col: int = 1) -> tuple[int, ...]:
        """Count vector of parsed cards; raises GoujiError for a kind this ruleset has no card for."""
        v = [0] * len(self.kinds)
        for c in cards:
            if c.symbol not in self.kinds:
                raise GoujiError(Diagnostic(path, line, col, _("this ruleset has no card {symbol!r}").format(symbol=c.symbol),
                                            _("cards: ") + " ".join(self.kinds), code=Code.UNKNOWN_CARD))
            v[self.kinds.index(c.symbol)] += 1
        return tuple(v)

    def parse(self, text: str, **pos: Any) -> tuple[int, ...]:
        """Card text → count vector (NOTATION.md). Raises GoujiError with the column."""
        return self.counts_of(parse_cards(text, **pos), **pos)

    def text(self, counts: tuple[int, ...] | list[int]) -> str:
        """Canonical text of a count vector (``RB 22 JJJ``)."""
        return format_counts({k: n for k, n in zip(self.kinds, counts) if n}, self.order)

    # ------------------------------------------------------------------ classification
    def classify(self, counts: tuple[int, ...]) -> Play:
        """Classify a play (RULES.md §2): one rank, 2s as filler, attached jokers.

        Cached for the shapes a play can have — at most one rank besides the filler, so the cache is
        bounded by the deck (ranks × counts × filler counts × joker holdings), and the same shape
        gives the same :class:`Play` object (tables of the generated play-out are keyed by it).
        Other card sets (a bot asking about its whole hand) are classified each time: there are as
        many of them as hands, and a cache of them grew with every game played."""
        p = self._cache.get(counts)
        if p is None:
            p = self._classify(counts)
            if self._one_rank(counts):
                self._cache[counts] = p
        return p

    def _one_rank(self, c: tuple[int, ...]) -> bool:
        """At most one rank other than the filler in ``c`` (the filler itself counts when there is
        no filler rank)."""
        seen = 0
        filler = self.filler
        for i in range(self.n_ranks):
            if c[i] and i != filler:
                seen += 1
                if seen > 1:
                    return False
        return True

    def _classify(self, c: tuple[int, ...]) -> Play:
        text = self.text(c)
        nr = self.n_ranks
        total = sum(c)
        if total == 0:
            return Play(c, False, why=_("an empty play"), text=text)
        ranks = [i for i in range(nr) if c[i]]
        jok = [i for i in range(nr, len(c)) if c[i]]
        filler = self.filler
        non_filler = [r for r in ranks if r != filler]
        if len(non_filler) > 1 or (len(non_filler) == 1 and filler is None and len(ranks) > 1):
            return Play(c, False, why=_("a play must be one rank (with 2s as filler where allowed)"), text=text)
        used_filler = 0
        if non_filler:
            rank = non_filler[0]
            carried = c[rank]
            if filler is not None and c[filler]:
                used_filler = c[filler]
                carried += used_filler
        elif ranks:
            rank = ranks[0]
            carried = c[rank]
        else:
            rank = -1
            carried = 0
        jokers: list[int] = []
        for j in sorted(jok, reverse=True):
            jokers += [j] * c[j]
        if len(jok) > 1 and self.mixed_as_lowest:
            jokers = [min(jok)] * len(jokers)
        if rank < 0:
            rank = jokers[0]
        p = Play(c, True, rank=rank, count=total, carried=carried, filler=used_filler,
                 jokers=tuple(jokers), text=text)
        object.__setattr__(p, "gouji", bool(self.gouji_fn(p)))
        return p

    # ------------------------------------------------------------------ comparison
    def beats(self, lead: Play, play: Play) -> bool:
        """May ``play`` follow ``lead`` in an open trick (same count, higher rank, jokers covered)?"""
        if not (lead.valid and play.valid):
            return False
        if self.same_count and play.count != lead.count:
            return False
        if self.model == "positional":
            return self._beats_positional(lead, play)
        return self._beats_cover(lead, play)

    def why_not(self, lead: Play, play: Play) -> str:
        """In words, why ``play`` does not beat ``lead`` (empty when it does)."""
        if self.beats(lead, play):
            return ""
        if not play.valid:
            return _("{text} is not a play ({why})").format(text=play.text, why=play.why)
        if self.same_count and play.count != lead.count:
            return _("a follow has the same number of cards as the lead: {count}, not {count2}").format(count=lead.count, count2=play.count)
        if self.model == "positional":
            return _("card by card, every card of {text} must be higher than the card of {text2} it meets").format(text=play.text, text2=lead.text)
        if lead.jokers:
            avail = list(play.jokers)
            if not all(self._cover_one(x, avail) for x in lead.jokers):
                how = (_("a stronger or an equal joker") if self.cover_higher and self.cover_equal else
                       _("a stronger joker") if self.cover_higher else _("an equal joker") if self.cover_equal else
                       _("jokers as the comparison setting allows"))
                return _("the jokers of {lead} must each be covered by {how} (attached jokers are beaten on both parts)").format(
                    lead=lead.text, how=how)
        if lead.carried == 0:
            return _("{text} is only jokers: only stronger jokers beat it").format(text=lead.text)
        if play.carried and play.rank <= lead.rank:
            return _("the rank must be higher than {self}").format(self=self.kinds[lead.rank])
        return f"{play.text} does not match the {lead.carried} rank cards of {lead.text}"

    def _values(self, p: Play) -> list[int]:
        vals = list(p.jokers)
        rank_val = p.rank if p.carried else None
        if rank_val is not None:
            vals += [rank_val] * p.carried
        return sorted(vals, reverse=True)

    def _beats_positional(self, lead: Play, play: Play) -> bool:
        a, b = self._values(lead), self._values(play)
        return len(a) == len(b) and all(y > x for x, y in zip(a, b))

    def _beats_cover(self, lead: Play, play: Play) -> bool:
        avail = list(play.jokers)  # strongest first
        for x in lead.jokers:  # strongest first
            if not self._cover_one(x, avail):
                return False
        spare = len(avail)
        if lead.carried == 0:
            return play.carried == 0 and (self.same_count or spare == 0)
        if play.carried and play.rank <= lead.rank:
            return False
        if not self.spare_for_rank and spare:
            return False
        have = play.carried + spare
        # same total count: enough; free count (two/three-kill-one): every card must be used exactly
        return have >= lead.carried if self.same_count else have == lead.carried

    def _cover_one(self, x: int, avail: list[int]) -> bool:
        """Remove from ``avail`` the cheapest jokers that cover one lead joker ``x``."""
        if self.cover_higher:
            higher = [j for j in avail if j > x]
            if higher:
                avail.remove(min(higher))
                return True
        if self.cover_equal and x in avail:
            avail.remove(x)
            return True
        if self.equal_many and avail.count(x) >= self.equal_many:
            for _ in range(self.equal_many):
                avail.remove(x)
            return True
        if self.lower_many and x - 1 >= self.n_ranks and avail.count(x - 1) >= self.lower_many:
            for _ in range(self.lower_many):
                avail.remove(x - 1)
            return True
        return False

    # ------------------------------------------------------------------ generation
    def answer_floor(self, lead: Play) -> int:
        """The weakest rank index a play needs to have any chance of beating ``lead`` (plays of
        weaker ranks need not be generated): above the lead's rank in the cover model, no rank at
        all over a pure joker play."""
        if self.model != "cover":
            return 0
        return self.n_ranks if lead.carried == 0 else lead.rank + 1

    def plays_from(self, hand: tuple[int, ...] | list[int], count: int | None = None,
                   min_rank: int = 0) -> Iterator[Play]:
        """Every valid play that ``hand`` can make (of ``count`` cards when given), each once.

        Plays are generated by signature (rank, how many, 2s as filler, jokers per kind), not by
        card subsets, so a 36-card hand costs at most a few thousand classifications (cached)."""
        nr = self.n_ranks
        K = len(self.kinds)
        filler = self.filler
        by_sum = self._joker_combos(tuple(hand[nr:K]))
        fill_max = hand[filler] if filler is not None else 0
        for r in range(min_rank, nr):
            if hand[r]:
                fmax = fill_max if (filler is not None and r != filler) else 0
                yield from self._plays_of_rank(r, hand[r], fmax, count, by_sum)
        if count is None:
            items = [c for k, cs in by_sum.items() if k for c in cs]
        else:
            items = list(by_sum.get(count, ())) if count else []
        zeros = (0,) * nr
        for jc in items:
            yield self.classify(zeros + jc)

    def _plays_of_rank(self, r: int, held: int, fmax: int, count: int | None,
                       by_sum: dict[int, tuple[tuple[int, ...], ...]]) -> Iterator[Play]:
        """The plays of rank ``r`` (of which the hand holds ``held``): 1..held of it, 0..``fmax`` 2s as filler, and
        each way of adding the hand's jokers (of ``count`` cards in all when given)."""
        filler = self.filler
        classify = self.classify
        cache = self._cache
        zeros = (0,) * self.n_ranks
        for n in range(1, held + 1):
            for f in range(fmax + 1):
                groups: Iterable[tuple[tuple[int, ...], ...]]
                if count is None:
                    groups = by_sum.values()
                else:
                    rest = count - n - f
                    if rest < 0:
                        break
                    groups = (by_sum.get(rest, ()),)
                for combos in groups:
                    for jc in combos:
                        v = list(zeros)
                        v[r] = n
                        if f:
                            assert filler is not None  # f > 0 only with a filler
                            v[filler] = f
                        key = tuple(v) + jc
                        p = cache.get(key)
                        yield p if p is not None else classify(key)

    def _joker_combos(self, jhand: tuple[int, ...]) -> dict[int, tuple[tuple[int, ...], ...]]:
        """Joker count vectors a hand can make, grouped by their total (cached per joker holding)."""
        cache = self._jcache
        got = cache.get(jhand)
        if got is None:
            groups: dict[int, list[tuple[int, ...]]] = {}
            for jc in itertools.product(*[range(k + 1) for k in jhand]):
                groups.setdefault(sum(jc), []).append(tuple(jc))
            got = {k: tuple(v) for k, v in groups.items()}
            cache[jhand] = got
        return got

    def deck(self) -> list[Card]:
        """The full pack as cards with suits (rank cards spread over ``s h d c``), in a fixed order
        (a new list each time: the caller may shuffle it)."""
        if self._deck:
            return self._deck[:]
        out: list[Card] = []
        for i, k in enumerate(self.kinds):
            n = self.deck_counts[i]
            if k in SUITLESS or self.is_joker(i):
                out += [Card(k)] * n
            else:
                out += [Card(k, SUITS[j % len(SUITS)]) for j in range(n)]
        self._deck[:] = out
        return out[:]


def _symbols(v: Any, name: str) -> list[str]:
    if isinstance(v, str):
        items = list(v.replace(" ", ""))
    elif isinstance(v, list):
        items = ["T" if str(x) == "10" else str(x) for x in v]
    else:
        raise SettingError(name, _("{name} must be a list of card symbols").format(name=name))
    for x in items:
        if x not in SYMBOLS:
            raise SettingError(name, _("{name}: unknown card symbol {x!r}").format(name=name, x=x), _("card symbols: 3-9 T J Q K A 2 B R E"))
    return items
