"""Card text (NOTATION.md, "Cards"): parse and format.

A card is written as a rank symbol, optionally followed by a suit letter:
``3 4 5 6 7 8 9 T J Q K A 2`` (``10`` accepted for ``T``), ``B`` small joker (小王),
``R`` big joker (大王), and — an extension for the six-deck ruleset — ``E`` eagle (鹰).
Suits ``s h d c`` only matter for showing threes / fours (亮3 / 亮4). Jokers and eagles take no suit.

The rank *order* is not fixed here: a ruleset's ``ranks`` and ``jokers`` settings give it.
Canonical output (:func:`format_cards`) is jokers first (strongest first), then ranks high to low,
one space between rank groups: ``RB 22 JJJ``.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from gouji_dsl.diagnostics import Code, Diagnostic, GoujiError
from gouji_dsl.i18n import _

SYMBOLS: str = "3456789TJQKA2BRE"
"""Every card symbol the notation knows, in the default strength order (low to high)."""

SUITS: str = "shdc"
SUITLESS: frozenset[str] = frozenset("BRE")

NAMES: dict[str, str] = {
    "T": "10", "J": "jack", "Q": "queen", "K": "king", "A": "ace", "2": "two (钱)",
    "B": "small joker (小王)", "R": "big joker (大王)", "E": "eagle (鹰)",
}


@dataclass(frozen=True)
class Card:
    """One card: a symbol from :data:`SYMBOLS` and a suit letter or ``""`` when unspecified."""

    symbol: str
    suit: str = ""

    def __str__(self) -> str:
        return self.symbol + self.suit


def _read_card(text: str, i: int, col: int, fail: Callable[..., GoujiError]) -> tuple[Card, int]:
    """The card written at ``text[i]`` (not a space; ``col``: the column of ``text[0]``) and where the next starts."""
    n = len(text)
    ch = text[i]
    if ch == "1":
        if i + 1 < n and text[i + 1] == "0":
            sym, width = "T", 2
        else:
            raise fail(i, _("unknown card '1' at column {col}").format(col=col + i), _("write a ten as T or 10; ") + CARDS_HINT)
    elif ch in SYMBOLS:
        sym, width = ch, 1
    else:
        raise fail(i, _("unknown card {ch!r} at column {col}").format(ch=ch, col=col + i), _hint(ch))
    i += width
    suit = ""
    if i < n and text[i] in SUITS:
        if sym in SUITLESS:
            raise fail(i, _("a joker takes no suit: {text!r} at column {col}").format(text=text[i], col=col + i))
        suit = text[i]
        i += 1
    if i < n and text[i].isdigit() and sym == "T" and width == 2:
        raise fail(i, _("unknown card {text!r} at column {col}").format(text=text[i - 2:i + 1], col=col + i - 2))
    return Card(sym, suit), i


def parse_cards(text: str, *, path: str = "<cards>", line: int = 0, col: int = 1,
                allow_empty: bool = False) -> list[Card]:
    """Parse card text such as ``"RR TTT"`` or ``"3h3h 10 10"`` into cards, in written order.

    Spaces are optional. ``path``/``line``/``col`` say where ``text`` starts, for error positions.
    Raises :class:`GoujiError` naming the offending character and its column for anything else
    (``1``, ``11``, ``X``, lower-case ranks, a suit on a joker) and for an empty text unless
    ``allow_empty``.
    """
    cards: list[Card] = []
    i = 0
    n = len(text)

    def fail(pos: int, what: str, hint: str | None = None) -> GoujiError:
        return GoujiError(Diagnostic(path, line, col + pos, what, hint, text if line else None, code=Code.UNKNOWN_CARD))

    while i < n:
        if text[i].isspace() or text[i] == ",":
            i += 1
            continue
        card, i = _read_card(text, i, col, fail)
        cards.append(card)
    if not cards and not allow_empty:
        raise fail(0, _("empty play: no cards given"), _("write cards such as 'RR TTT'"))
    return cards


CARDS_HINT = "cards are 3-9 T J Q K A 2, B (small joker) and R (big joker); a ten is T (or 10)"


def _hint(ch: str) -> str:
    """What to write instead of an unknown character."""
    if ch.upper() in SYMBOLS:
        return f"ranks are upper case ({ch.upper()!r}, not {ch!r}) and a ten is T (or 10); {CARDS_HINT}"
    if ch.lower() in SUITS:
        return f"a suit letter (s h d c) comes right after a rank, as in 3h; {CARDS_HINT}"
    return CARDS_HINT


def count_symbols(cards: list[Card]) -> Counter[str]:
    """Multiset of symbols (suits dropped)."""
    return Counter(c.symbol for c in cards)


def format_counts(counts: dict[str, int], order: str = SYMBOLS) -> str:
    """Canonical text for a multiset of symbols, strongest first, groups separated by one space.

    ``order`` is the strength order low to high (a ruleset passes its own)."""
    groups: list[str] = []
    jokers = ""
    for sym in reversed(order):
        k = counts.get(sym, 0)
        if not k:
            continue
        if sym in SUITLESS:
            jokers += sym * k
        else:
            groups.append(sym * k)
    if jokers:
        groups.insert(0, jokers)
    return " ".join(groups)


def format_cards(cards: list[Card] | dict[str, int], order: str = SYMBOLS) -> str:
    """Canonical text for cards (``RB 22 JJJ``); accepts a list of cards or a symbol count map."""
    if isinstance(cards, dict):
        return format_counts(cards, order)
    return format_counts(count_symbols(cards), order)
