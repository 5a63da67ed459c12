"""Texts per language in rulesets (issue 26): ``languages:``, ``says: {zh: …, en: …}``, their
diagnostics (matched by code), inheritance, and ``validate --strict``'s MissingLanguage warning."""
from __future__ import annotations

import copy
import pickle
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from gouji_dsl.diagnostics import Code, GoujiError
from gouji_dsl.i18n import Language
from gouji_dsl.ruleset.check import check
from gouji_dsl.ruleset.load.resolving import resolve
from gouji_dsl.ruleset.spec import Wording, said
from gouji_dsl.tools.cli import cli


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


def codes_of(path: Path) -> list[tuple[str, int, int]]:
    with pytest.raises(GoujiError) as info:
        resolve(path)
    return [(d.code, d.line, d.col) for d in info.value.diagnostics]


BOTH = """
ruleset: both
extends: online
languages: [en, zh]
title: {en: "Both languages", zh: "两种语言"}
description: "Plain: English."
rules:
  - id: yield.someone-left
    on: yield
    when: "not scramble"
    require: "not (done(downstream(seat)) and done(downstream(downstream(seat))))"
    says:
      zh: "下两家至少有一家没有过牌时才能让牌。"
      en: "You may yield only if at least one of the next two players has not passed."
"""


def test_per_language_says_round_trip(tmp_path):
    r = resolve(write(tmp_path, "both.yaml", BOTH))
    rule = r.rule("yield.someone-left")
    assert rule is not None and isinstance(rule.says, Wording)
    assert rule.says.in_lang(Language.ZH) == "下两家至少有一家没有过牌时才能让牌。"
    assert rule.says.in_lang(Language.EN) == "You may yield only if at least one of the next two players has not passed."
    assert str(rule.says) == rule.says.in_lang(Language.EN)  # the string itself: the first declared language
    assert rule.says.origin is not None and (rule.says.origin.line, rule.says.origin.col) == (12, 7)
    assert r.languages == (Language.EN, Language.ZH)
    assert said(r.title, Language.ZH) == "两种语言" and said(r.title, Language.EN) == "Both languages"
    # a plain string means the ruleset's first language, and has no other
    assert r.description == "Plain: English." and r.description.languages == (Language.EN,)
    assert said(r.description, Language.ZH) == "Plain: English."
    # copied and pickled whole (rulesets go to worker processes)
    for again in (pickle.loads(pickle.dumps(rule.says)), copy.deepcopy(rule.says)):
        assert again == rule.says and again.texts == rule.says.texts and again.origin == rule.says.origin


def test_plain_string_says_unchanged():
    r = resolve("online")
    rule = r.rule("yield.someone-left")
    assert rule is not None
    assert rule.says == "You may yield only if at least one of the next two players has not passed."
    assert isinstance(rule.says, str)
    assert said(rule.says, Language.EN) == rule.says


def test_plain_strings_take_the_first_declared_language_and_it_is_inherited(tmp_path):
    write(tmp_path, "zhfirst.yaml", """
        ruleset: zhfirst
        extends: online
        languages: [zh, en]
        title: 中文规则
        """)
    child = write(tmp_path, "child.yaml", """
        ruleset: child
        extends: zhfirst.yaml
        title: 青岛俱乐部
        """)
    r = resolve(child)
    assert r.languages == (Language.ZH, Language.EN)
    assert r.title is not None and r.title.languages == (Language.ZH,)
    # base's own plain strings stay English: each file's plain strings are in its own declared language
    seats = r.settings["seats"].says
    assert isinstance(seats, Wording) and seats.lang == Language.EN


def test_unknown_language_code(tmp_path):
    p = write(tmp_path, "bad.yaml", """
        ruleset: bad
        extends: online
        languages: [en, zh, jp]
        title: {en: "x", fr: "y"}
        """)
    found = codes_of(p)
    assert (Code.UNKNOWN_LANGUAGE, 3, 21) in found  # in languages:
    assert (Code.UNKNOWN_LANGUAGE, 4, 18) in found  # a text's key
    with pytest.raises(GoujiError) as info:
        resolve(p)
    assert any("did you mean" in (d.hint or "") or "en, zh" in (d.hint or "") for d in info.value.diagnostics)


def test_language_not_declared(tmp_path):
    p = write(tmp_path, "undeclared.yaml", """
        ruleset: undeclared
        extends: online
        languages: [en]
        rules:
          - id: yield.someone-left
            on: yield
            require: "true"
            says: {en: "You may yield.", zh: "可以让牌。"}
        """)
    assert codes_of(p) == [(Code.LANGUAGE_NOT_DECLARED, 8, 34)]
    # base declares [en, zh]: a child that declares nothing inherits both
    inherits = write(tmp_path, "inherits.yaml", "ruleset: inherits\nextends: online\ntitle: {en: x, zh: 甲}\n")
    assert resolve(inherits).languages == (Language.EN, Language.ZH)


def test_an_english_child_of_base_is_not_asked_for_chinese(tmp_path):
    p = write(tmp_path, "club.yaml", """
        ruleset: club
        extends: online
        title: An English club
        rules:
          - id: yield.someone-left
            on: yield
            require: "true"
            says: "You may yield."
        """)
    assert not [d for d in check(str(p), strict=True).diagnostics if d.code == Code.MISSING_LANGUAGE]


def test_every_bundled_text_is_in_english_and_chinese():
    from gouji_dsl.ruleset.languages import _texts
    from gouji_dsl.ruleset.load.finding import list_bundled
    for name in list_bundled():
        r = resolve(name)
        for w in _texts(r):
            assert set(w.texts) == {Language.EN, Language.ZH}, (name, str(w))


def test_empty_texts(tmp_path):
    p = write(tmp_path, "empty.yaml", """
        ruleset: empty
        extends: online
        languages: [en, zh]
        title: ""
        description: {}
        rules:
          - id: yield.someone-left
            on: yield
            require: "true"
            says: {en: "You may yield.", zh: "  "}
        """)
    found = codes_of(p)
    assert [c for c, _l, _c in found] == [Code.EMPTY_TEXT] * 3
    assert [line for _c, line, _col in found] == [4, 5, 10]


def test_duplicate_language(tmp_path):
    p = write(tmp_path, "twice.yaml", "ruleset: twice\nextends: online\nlanguages: [en, en]\n")
    assert [c for c, _l, _c in codes_of(p)] == [Code.DUPLICATE_ENTRY]


def test_strict_warns_where_a_declared_language_is_missing(tmp_path):
    p = write(tmp_path, "half.yaml", """
        ruleset: half
        extends: online
        languages: [en, zh]
        title: {en: "Half", zh: "一半"}
        rules:
          - id: yield.someone-left
            on: yield
            when: "not scramble"
            require: "not (done(downstream(seat)) and done(downstream(downstream(seat))))"
            says: "Only English here."
        """)
    plain = check(str(p))
    assert not [d for d in plain.diagnostics if d.code == Code.MISSING_LANGUAGE]
    strict = check(str(p), strict=True)
    missing = [d for d in strict.diagnostics if d.code == Code.MISSING_LANGUAGE]
    assert [(d.line, d.col, d.severity) for d in missing] == [(10, 12, "warning")]
    assert "zh" in missing[0].message
    res = CliRunner().invoke(cli, ["validate", "--strict", str(p)])
    assert res.exit_code == 1 and "MissingLanguage" in res.output


def test_words_of_a_variant_replace_the_parents_entry_by_entry(tmp_path):
    from gouji_dsl.ruleset.words import Term, game_words
    p = write(tmp_path, "luoke.yaml", """
        ruleset: luoke
        extends: online
        words:
          places: {6: "the fallen (落科)"}
          terms: {burn: "torching (烧牌)"}
        """)
    w = game_words(resolve(p))
    assert w.place(6, Language.EN) == "the fallen (落科)"
    assert w.term(Term.BURN, Language.EN) == "torching (烧牌)"


def test_unknown_term(tmp_path):
    p = write(tmp_path, "term.yaml", "ruleset: term\nextends: online\nwords:\n  terms: {bunr: x}\n")
    with pytest.raises(GoujiError) as info:
        resolve(p)
    d = info.value.diagnostics[0]
    assert d.code == Code.UNKNOWN_KEY and "'burn'" in (d.hint or "")


LUOKE = """
ruleset: luoke
extends: qingdao
languages: [zh, en]
title: {zh: 落科俱乐部, en: The 落科 club}
words:
  places:  # seed 003: 最后手中余牌未发者为败，称“落(音拉lá)科”
    6: {zh: 落科, en: "the fallen (落科)"}
"""


def _finished_game(graph):
    import random

    import gouji_dsl
    state = gouji_dsl.new_game(graph, seed=7)
    rng = random.Random(7)
    for _ in range(5000):
        if state.over:
            break
        state.apply_in_place(rng.choice(list(state.legal_moves())), trusted=True)
    assert state.over
    return state


def test_a_variant_renaming_a_place_shows_its_own_word_in_doc_and_in_the_game_summary(tmp_path):
    import gouji_dsl
    from gouji_dsl.ruleset.words import game_words
    from gouji_dsl.tools.cli_replay import _game_text
    from gouji_dsl.tools.doc import ruleset_doc
    graph = gouji_dsl.compile(resolve(write(tmp_path, "luoke.yaml", LUOKE)))
    words = game_words(graph.resolved)
    assert words.place(6, Language.ZH) == "落科" and words.place(1, Language.ZH) == "头科"  # the rest from base
    zh = ruleset_doc(graph, "markdown", lang=Language.ZH)
    assert "| 名次（由先走到后走） | 头科，二科，三科，四科，二落，落科 |" in zh
    assert "大落，" not in zh.split("名次", 1)[1].split("\n", 1)[0]
    en = ruleset_doc(graph, "markdown", lang=Language.EN)
    assert "second last (二落), the fallen (落科) |" in en
    state = _finished_game(graph)
    last = next(s for s, p in state.places.items() if p == 6)
    text = "\n".join(_game_text(state, 1))
    assert f"6. seat {last} — the fallen (落科)" in text and "last (大落)" not in text
    # base's own words where the variant gives none
    base_state = _finished_game(gouji_dsl.compile(resolve("qingdao")))
    assert "— last (大落)" in "\n".join(_game_text(base_state, 1))


def test_explanations_and_show_give_a_rules_sentence_in_the_active_language():
    import gouji_dsl
    from gouji_dsl import i18n
    graph = gouji_dsl.compile(resolve("online"))
    node = next(n for n in graph.nodes if n.id == "yield.someone-left")
    was = i18n.current()
    try:
        i18n.use(Language.ZH)
        assert node.sentence() == "让牌必须是下面2家至少有1家没叫过过牌才能让。"  # seed 001, 游戏术语 C
        i18n.use(Language.EN)
        assert node.sentence() == "You may yield only if at least one of the next two players has not passed."
    finally:
        i18n.use(was)
    res = CliRunner().invoke(cli, ["--lang", "zh", "show", "online"])
    assert res.exit_code == 0, res.output
    assert "让牌必须是下面2家至少有1家没叫过过牌才能让。" in res.output and "在线平台规则（资料 001）" in res.output


def test_the_replay_names_events_as_the_ruleset_does(tmp_path):
    from gouji_dsl.ruleset.words import game_words
    from gouji_dsl.tools.cli_replay import _event_text
    event = {"type": "burn", "seat": 3, "burned": 5}
    # the play log's words (event_words.event_text): in English the ruleset's Chinese term in brackets
    assert _event_text(event, game_words(resolve("online"))) == "seat 3 burns seat 5 (烧牌)"
    p = write(tmp_path, "torch.yaml", "ruleset: torch\nextends: online\nwords:\n  terms: {burn: {en: torching, zh: 烧}}\n")
    assert _event_text(event, game_words(resolve(p))) == "seat 3 burns seat 5 (烧)"
    assert _event_text({"type": "redeal"}, game_words(resolve(p))) == "the deal is void: dealt again"


def test_diff_sees_a_change_of_the_chinese_sentence_alone(tmp_path):
    from gouji_dsl.tools.compare import rule_diff
    rule = """
        ruleset: {name}
        extends: online
        languages: [en, zh]
        rules:
          - id: yield.someone-left
            on: yield
            when: "not scramble"
            require: "not (done(downstream(seat)) and done(downstream(downstream(seat))))"
            says: {{en: "You may yield only if one of the next two has not passed.", zh: "{zh}"}}
        """
    a = write(tmp_path, "a.yaml", rule.format(name="a", zh="下两家至少有一家没过牌才能让牌。"))
    b = write(tmp_path, "b.yaml", rule.format(name="b", zh="下面2家至少有1家没叫过过牌才能让。"))
    diff = rule_diff(resolve(a), resolve(b))
    changed = [c for c in diff.rules if c.id == "yield.someone-left"]
    assert changed and "says" in changed[0].fields


def test_the_caret_stands_under_the_error_after_chinese_characters(tmp_path):
    """A fresh tester (issue 26): the caret line padded one space per character, so each Chinese
    character before the error put it one column too far left. It is padded by display width."""
    from rich.cells import cell_len
    path = write(tmp_path, "club.yaml", 'ruleset: club\nextends: online\nlanguages: [en, zh]\ntitle: {zh: "俱乐部规则", en: "Club", fr: "Club"}\n')
    with pytest.raises(GoujiError) as e:
        resolve(path)
    d = next(d for d in e.value.diagnostics if d.code == Code.UNKNOWN_LANGUAGE)
    source, caret = d.format().splitlines()[1:3]
    at = source.index("fr")
    assert cell_len(source[:at]) == caret.index("^"), (source, caret)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_hint_of_a_text_with_no_language_shows_single_braces(tmp_path, lang):
    """A fresh tester (issue 26): the hint printed `{{en: "...", zh: "..."}}` (a format string's escapes)."""
    path = write(tmp_path, "club.yaml", "ruleset: club\nextends: online\nlanguages: [en, zh]\ntitle: {}\n")
    result = CliRunner().invoke(cli, ["--lang", lang, "validate", str(path)])
    assert '{en: "...", zh: "..."}' in result.output and "{{" not in result.output, result.output
