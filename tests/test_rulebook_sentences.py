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
from gouji_dsl.ruleset.load.resolving import resolve
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


# ------------------------------------------------------------------------------ each point said once
def _items(path) -> list[str]:
    """The rulebook's numbered sentences, normalised (case, spaces, escapes, the final full stop)."""
    import re
    md = ruleset_doc(load_graph(str(path)), "markdown")
    out = []
    for line in md.splitlines():
        m = re.match(r"^- \*\*[\d.]+\*\* (.*?)(?: \[\d+\])?$", line)
        if m:
            out.append(" ".join(m.group(1).replace("\\", "").split()).casefold().rstrip(". "))
    return out


ALL = EXAMPLES + BUNDLED + [rules_dir() / "base.yaml"]


@pytest.mark.parametrize("path", ALL, ids=lambda p: p.stem)
def test_no_rulebook_prints_a_sentence_twice(path):
    items = _items(path)
    assert items and len(items) == len(set(items)), sorted({x for x in items if items.count(x) > 1})


def test_online_says_each_point_once():
    # the pairs a tester found: first lead (2.2/2.3), revolution voiding the deal (3.2/3.3), the
    # sweep (7.3/7.4), scoring (7.5-7.7), counting at 10 (8.1/8.2): the setting's sentence, stated
    # once in its rule's place (said_by), replaces the rule's general one
    items = _items(rules_dir() / "online.yaml")
    def about(*words):
        return [x for x in items if all(w.casefold() in x for w in words)]
    assert about("first to show") == ["the first to show two 3s of one suit leads (亮3); more same-suit 3s take it "
                                      "over (顶班); if nobody shows two, a seat is drawn"]
    assert not about("first-lead rank")
    assert about("void") == ["a revolution in the first game voids the deal; two or more revolutions void any deal"]
    assert about("串三户") == ["a team taking 1st, 2nd and 3rd sweeps (串三户)"]
    assert about("sweep", "doubles") == ["a sweep doubles the score"]
    assert about("报牌") == ["a player with 10 cards or fewer shows the count (报牌)"]
    assert about("gouji play:") and not about("minimum count")


def test_a_child_rule_replaces_the_parents_sentence_yield_once():
    # one-yield-in-scramble overrides online's yield.in-scramble: "every player may yield" is gone
    items = _items(EXAMPLES[0].parent / "one-yield-in-scramble.yaml")
    assert "in the four-way scramble each player may yield once (and pass), each in turn" in items
    assert not [x for x in items if "every player may yield" in x]


def test_a_child_setting_sentence_replaces_its_rules_sentence(tmp_path):
    # view.count-at-ten is said_by show_count_at: the child's sentence, once, no "10 cards"
    p = _child(tmp_path, """
        ruleset: child
        extends: online
        settings:
          show_count_at:
            value: 8
            says: "A player with 8 cards or fewer shows the count (报牌)."
    """)
    text = flat(ruleset_doc(compile_ruleset(resolve(p))))
    assert text.count("(报牌)") == 1 and "8 cards or fewer" in text and "10 cards" not in text
    # a child that changes the revolution's condition replaces the condition's sentence only
    no_aces = flat(ruleset_doc(load_graph(str(EXAMPLES[0].parent / "revolution-no-aces.yaml"))))
    assert "A player dealt no aces, no 2s and no jokers may revolt" in no_aces
    assert "no 2s and no jokers may declare" not in no_aces
    assert "two or more revolutions void any deal" in no_aces


def test_said_by_names_settings_the_rule_reads(tmp_path):
    from gouji_dsl.diagnostics import Code, GoujiError
    p = _child(tmp_path, """
        ruleset: child
        extends: online
        rules:
          - id: view.count-at-ten
            on: see_count
            allow: "hand_size(target) <= settings.show_count_at"
            says: "A player down to the limit shows his count."
            said_by: [show_count_a]
          - id: x.other
            on: see_hand
            allow: "false"
            said_by: [show_count_at]
          - id: x.key
            on: redeal
            value: "count(revolted_seats) >= settings.revolution.redeal_at"
            said_by: [revolution.redeal_a]
    """)
    try:
        load_graph(str(p))
    except GoujiError as e:
        got = [(d.code, d.line) for d in e.diagnostics]
        assert got == [(Code.UNKNOWN_SETTING, 9), (Code.SAID_BY_NOT_READ, 13), (Code.UNKNOWN_SETTING, 17)], got
        assert "did you mean 'show_count_at'" in (e.diagnostics[0].hint or "")
        assert "did you mean 'redeal_at'" in (e.diagnostics[2].hint or "")
    else:
        raise AssertionError("bad said_by accepted")


def test_a_child_tribute_change_replaces_the_tribute_numbers(tmp_path):
    # the tester's club (issue 23.8): tribute.fall {6: 1, 5: 1} with its own sentence; base's
    # tribute.fall / burn / stuck / return-fall rules are said_by those keys, so the page states the
    # child's numbers once and not base's "大落 gives 头科 two cards"
    p = _child(tmp_path, """
        ruleset: child
        extends: online
        settings:
          tribute:
            value: {order: [stuck, burn, fall], fall: {"6": 1, "5": 1}, burn: 1, counter_burn_factor: 2,
                    stuck: 1, return_fall: true}
            says: "Tribute in the order 闷贡, 烧贡, 落贡: 大落 gives 头科 one card, 二落 gives 二科 one; the burned player gives the burner one card, two after a counter-burn; a stuck player gives his opposite one; fall tribute is returned card for card."
    """)
    items = _items(p)
    tribute = [x for x in items if "tribute" in x or "贡" in x]
    assert "大落 gives 头科 one card" in " ".join(tribute)
    assert not [x for x in items if "two cards" in x], tribute
    assert not [x for x in items if "(烧贡)" in x or "(闷贡)" in x or "(还贡)" in x or "(落贡)" in x], tribute
    # the bundled rulesets still state their numbers, once
    for name in ("online-xuandian", "qingdao", "rulebook", "qingdao-classic"):
        text = " ".join(_items(rules_dir() / f"{name}.yaml"))
        assert text.count("大落 gives 头科 two") == 1, name


def test_strict_warns_where_an_inherited_rules_sentence_states_a_number_its_setting_lost(tmp_path):
    # a parent whose tribute.fall rule says "two cards" for its fall {6: 2, 5: 1}; a child with
    # {6: 1, 5: 1} keeps that sentence: StaleSentence at the child's fall key (2 is gone); a child
    # whose values still have the sentence's numbers is not warned about
    from gouji_dsl.diagnostics import Code
    from gouji_dsl.ruleset.lint import lint
    (tmp_path / "parent.yaml").write_text(textwrap.dedent("""
        ruleset: parent
        extends: online
        settings:
          tribute:
            value: {order: [fall], fall: {"6": 2, "5": 1}}
            says: "Only the fall tribute is paid."
          match_games: {value: 2, says: "A match is two games."}
        rules:
          - id: tribute.fall
            on: tribute
            when: "kind == 'fall' and prev_place(target) == count(all_seats) + 1 - prev_place(seat)"
            value: "settings.tribute.fall[prev_place(seat)] if prev_place(seat) in settings.tribute.fall else 0"
            says: "大落 gives 头科 two cards, 二落 gives 二科 one (落贡)."
    """), encoding="utf-8")

    def stale(fall: str) -> list:
        p = tmp_path / "child.yaml"
        p.write_text(textwrap.dedent(f"""
            ruleset: child
            extends: parent.yaml
            settings:
              tribute:
                value: {{fall: {fall}}}
                says: "Fall tribute as the club plays it."
        """), encoding="utf-8")
        return [d for d in lint(load_graph(str(p))) if d.code == Code.STALE_SENTENCE]

    found = stale('{"6": 1, "5": 1}')
    assert [(d.line, "tribute.fall" in d.message, "2" in d.message) for d in found] == [(6, True, True)], found
    assert not stale('{"6": 2, "5": 1, "4": 1}')
