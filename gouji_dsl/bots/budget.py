"""A search bot's budget per decision (:class:`Budget`): iterations and / or a think time."""
from __future__ import annotations

import math
from dataclasses import dataclass

from gouji_dsl.i18n import _

#: the longest think time per decision (5 minutes): ``--think-ms 1e9`` would think for eleven days a move
#: (a mistyped budget would otherwise look like a hung program)
MAX_THINK_MS = 300_000.0


@dataclass(frozen=True)
class Budget:
    """How long a search bot may think per decision: ``iterations`` (rollouts) and / or
    ``think_ms`` (wall-clock milliseconds); the search stops at whichever comes first."""

    iterations: int | None = None
    think_ms: float | None = None

    def __post_init__(self) -> None:
        if self.iterations is None and self.think_ms is None:
            raise ValueError(_("a budget needs iterations or a think time"))
        if self.iterations is not None and self.iterations < 1:
            raise ValueError(_("iterations must be at least 1, not {iterations}").format(iterations=self.iterations))
        if self.think_ms is not None and not 0 < self.think_ms < math.inf:  # nan fails both: it never ends a search
            raise ValueError(_("think time must be a positive finite number, not {think_ms} ms").format(think_ms=self.think_ms))
        if self.think_ms is not None and self.think_ms > MAX_THINK_MS:
            raise ValueError(_("think time: at most {max_think_ms:,} ms per decision, not {think_ms:g}").format(
                max_think_ms=MAX_THINK_MS, think_ms=self.think_ms))

    @property
    def deterministic(self) -> bool:
        """True when only iterations limit the search (same seed, same moves anywhere)."""
        return self.think_ms is None

    def text(self) -> str:
        parts = []
        if self.iterations is not None:
            parts.append(f"{self.iterations} iterations")
        if self.think_ms is not None:
            parts.append(f"{self.think_ms:g} ms")
        return " / ".join(parts) + " per decision"
