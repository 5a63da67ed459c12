"""The language's house-rule features (issue 23 items 1-6): how rules combine, ruleset-defined
choices, events and counters, play accessors, where the redeal question is asked, and the bounds
of every loop a ruleset can drive."""
from __future__ import annotations

import textwrap
from pathlib import Path

from gouji_dsl.engine.interpreter import Ctx, new_game
from gouji_dsl.ruleset.graph import load_graph
from gouji_dsl.ruleset.vocabulary import COMBINING, HOOKS, default_text

ROOT = Path(__file__).resolve().parent.parent


def write(folder: Path, name: str, text: str) -> str:
    path = folder / name
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return str(path)


# ------------------------------------------------------------------------------ item 5: combining
def test_how_rules_combine_is_stated_in_the_docs_and_in_f1():
    from editor.helptext import help_markdown
    doc = (ROOT / "docs" / "ruleset-format.md").read_text(encoding="utf-8")
    assert "## How rules combine" in doc and "When no rule applies" in doc
    text = help_markdown()
    assert COMBINING in text
    assert "| `revolt` | permit | seat | May this seat declare revolution (革命)? | no |" in text
    assert default_text(HOOKS["play"]) == "yes" and default_text(HOOKS["after_play"]) == "nothing happens"


def test_a_deny_wins_over_an_allow_whatever_the_order(tmp_path):
    """Two files with the same allow and deny rules in either order answer the same: no."""
    for first, second in (("allow", "deny"), ("deny", "allow")):
        p = write(tmp_path, f"{first}.yaml", f"""
            ruleset: {first}
            extends: online
            rules:
              - id: x.{first}
                on: see_hand
                {first}: "true"
              - id: x.{second}
                on: see_hand
                {second}: "true"
            """)
        g = load_graph(p)
        st = new_game(g, 1)
        assert g.permit("see_hand", Ctx(st, seat=1, target=2)) is False
