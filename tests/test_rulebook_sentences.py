"""The printed rulebook, `gouji show` and `gouji diff` say what is played (issue 23 items 8, 9, 10):
a changed setting or rule replaces its parent's sentence, a setting that has no effect is not stated
as if it applied, a child's sentence is not credited to the parent's source, and a rule overridden
only to change its sentence is a difference."""
from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from gouji_dsl.resources import rules_dir
from gouji_dsl.ruleset.graph import compile_ruleset, load_graph
from gouji_dsl.ruleset.loader import resolve
from gouji_dsl.tools.compare import rule_diff
from gouji_dsl.tools.doc import ruleset_doc

EXAMPLES = sorted((Path(__file__).resolve().parent.parent / "examples" / "variants").glob("*.yaml"))
BUNDLED = sorted(p for p in rules_dir().glob("*.yaml") if p.stem != "base")


def flat(text: str) -> str:
    return " ".join(text.split())


def _replaced(x, y) -> bool:
    """Sentence y (later in the chain) replaces x: one of them is about the whole value, or they
    speak of a common key."""
    return not x.keys or not y.keys or bool(set(x.keys) & set(y.keys))


@pytest.mark.parametrize("path", EXAMPLES + BUNDLED, ids=lambda p: p.stem)
def test_no_replaced_sentence_is_printed_beside_its_replacement(path):
    # every cookbook variant and bundled child: a setting sentence replaced by a later file's, or an
    # overridden rule's parent sentence, is not in the rulebook (e.g. deck-198: "216 cards, 36 each"
    # beside "198 cards"; burn-between-only: "any player except the opposite may burn")
    resolved = resolve(path)
    text = flat(ruleset_doc(compile_ruleset(resolved), "markdown").replace("\\", ""))
    assert "Changed in" not in text
    for name, s in resolved.settings.items():
        for i, x in enumerate(s.sentences):
            later = [y for y in s.sentences[i + 1:] if _replaced(x, y) and flat(y.says) in text]
            if later and flat(x.says) != flat(later[-1].says):
                assert flat(x.says) not in text, (name, x.ruleset, x.says)
    parent = resolve(resolved.chain[1]) if len(resolved.chain) > 1 else None
    for r in resolved.rules:
        if r.overrides is None or parent is None or not r.says:
            continue
        old = next((p for p in parent.rules if p.id == r.id), None)
        if old is not None and old.says and flat(old.says) != flat(r.says) and flat(r.says) in text:
            assert flat(old.says) not in text, (r.id, old.says)


def test_the_cookbooks_deck_and_burn_variants_state_one_pack_and_one_burn_rule():
    deck = flat(ruleset_doc(load_graph(str(EXAMPLES[0].parent / "deck-198.yaml"))))
    assert "198 cards, 33 each" in deck and "216 cards" not in deck and "36 each" not in deck
    burn = flat(ruleset_doc(load_graph(str(EXAMPLES[0].parent / "burn-between-only.yaml"))))
    assert "Only the two players between the gouji player and his opposite may burn" in burn
    assert "Any player except the opposite" not in burn and "anyone but the opposite" not in burn


def test_a_child_tribute_order_replaces_the_parents(tmp_path):
    # sweep-tribute (extends qingdao) states one tribute order, its own
    text = flat(ruleset_doc(load_graph(str(EXAMPLES[0].parent / "sweep-tribute.yaml"))))
    assert text.count("Tribute in the order") == 1 and "点贡, 串贡, 落贡" in text


def _child(tmp_path: Path, body: str) -> Path:
    p = tmp_path / "child.yaml"
    p.write_text(textwrap.dedent(body), encoding="utf-8")
    return p


def test_a_setting_without_effect_is_left_out_and_the_parents_sentence_stays(tmp_path):
    # equal_many has no effect while comparison.same_count holds (validate: SettingHasNoEffect)
    p = _child(tmp_path, """
        ruleset: child
        extends: online
        settings:
          comparison:
            value: {joker_cover: {equal_many: 2}}
            says: "Two equal jokers beat one."
    """)
    text = flat(ruleset_doc(compile_ruleset(resolve(p))))
    assert "Two equal jokers beat one" not in text
    assert "you must beat it on both parts" in text  # the parent's sentence still describes the value


def test_a_sentence_about_some_values_without_effect_is_marked(tmp_path):
    p = _child(tmp_path, """
        ruleset: child
        extends: online
        settings:
          comparison:
            value: {joker_cover: {equal: true, equal_many: 2}}
            says: "An equal joker covers a joker, and two equal jokers beat one."
    """)
    text = flat(ruleset_doc(compile_ruleset(resolve(p))))
    assert ("An equal joker covers a joker, and two equal jokers beat one. (Not in effect here: "
            "comparison.joker_cover.equal_many has no effect while comparison.same_count is true.)") in text


def test_a_childs_sentence_without_source_has_no_source(tmp_path):
    p = _child(tmp_path, """
        ruleset: child
        extends: online
        settings:
          deck:
            value: {remove: {"3": 10, "4": 8}}
            says: "Ten 3s and eight 4s are taken out: 198 cards, 33 each."
          seats:
            value: 6
            source: "a club's notice board"
    """)
    r = resolve(p)
    assert r.settings["deck"].says.startswith("Ten 3s") and r.settings["deck"].source is None
    assert r.settings["seats"].source == "a club's notice board"
    online = resolve("online")
    assert online.settings["deck"].source is not None  # the parent keeps its own


def test_diff_lists_a_rule_and_a_setting_changed_only_in_their_sentence(tmp_path):
    p = _child(tmp_path, """
        ruleset: child
        extends: online
        settings:
          show_count_at:
            value: 10
            says: "Ten cards or fewer: the count is shown."
        rules:
          - id: burn.failure-last
            on: burn_failure
            value: "'last'"
            says: "A failed burner is last."
    """)
    d = rule_diff(resolve("online"), resolve(p))
    rule = d.rule("burn.failure-last")
    assert rule is not None and rule.kind == "changed" and rule.fields == ("says",)
    assert "A failed burner is last." in rule.summary
    setting = d.setting("show_count_at")
    assert setting is not None and "Ten cards or fewer: the count is shown." in setting.summary
    assert rule_diff(resolve("online"), resolve("online")).empty
