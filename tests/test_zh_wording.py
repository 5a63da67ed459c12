"""Issue 26 (中文), the wording of the program's own Chinese (t26d bugs 11, 12): diagnostics said as
natural Chinese (the codes unchanged), and one word per meaning in the catalogs' msgstrs — the word the
seeds use (对头, 大王 / 小王, 联邦, 四人乱缠, 还贡); the seeds' own sentences are quoted verbatim in the
rulesets and are not checked here."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from gouji_dsl import i18n
from gouji_dsl.i18n import Language
from gouji_dsl.tools.cli import cli

ROOT = Path(__file__).resolve().parent.parent
PO = ROOT / "gouji_dsl" / "locale" / "zh" / "LC_MESSAGES"

#: a shadowed rule, a text in one declared language only
SHADOWED = """ruleset: shadow
extends: online
languages: [en, zh]
title: {zh: 我们的规则}
rules:
  - id: gouji.always
    on: gouji
    value: "true"
  - id: gouji.always2
    on: gouji
    value: "true"
"""


@pytest.fixture(autouse=True)
def _catalog_installed():
    assert i18n.has_catalog(Language.ZH), "python setup.py build_ext --inplace (docs/translating.md)"


def test_the_lint_speaks_natural_chinese_with_the_same_codes(runner, tmp_path):
    """t26d bug 12: RuleShadowed says the later rule has no guard (不带条件), not "这条用 没有条件";
    MissingLanguage names the languages (中文（zh）, 英文（en）); the summary counts 检查提示."""
    p = tmp_path / "shadow.yaml"
    p.write_text(SHADOWED, encoding="utf-8")
    zh = runner.invoke(cli, ["--lang", "zh", "validate", "--strict", str(p)]).output
    en = runner.invoke(cli, ["--lang", "en", "validate", "--strict", str(p)]).output
    assert re.findall(r"\[(\w+)\]", zh) == re.findall(r"\[(\w+)\]", en)
    assert "这段文字只有中文（zh），缺少规则集声明的英文（en） [MissingLanguage]" in zh
    assert "given in Chinese (zh) and not in English (en), which the ruleset declares" in en
    assert "也回答 'gouji'，而且不带条件；条件成立的规则中以最后一条为准 [RuleShadowed]" in zh
    assert "两条都回答 'gouji'，这条不带条件，而条件成立的规则中以最后一条为准 [RuleShadowed]" in zh
    assert "3 条检查提示（--strict）" in zh
    for awkward in ("用 没有条件", "用没有条件", "只写了", "处检查发现"):
        assert awkward not in zh


#: one word per meaning in the program's own Chinese (the catalogs): the word the seeds use → the
#: variants it replaces. 对头: "对门为各自的够级对象,称“对头”" (seeds 001, 003); 大王 / 小王: "大王和小王又称作大花和小花"
#: (seed 002); 联邦: "交叉3人为一方，互称“联邦”" (seed 001); 四人乱缠 (seeds 001–003; 000 alone says 四家户乱缠);
#: 还贡: "落贡要还贡即还等量的牌" (seed 003; 000 alone says 回贡)
ONE_WORD = {"对头": ("对家", "对门"), "大王 / 小王": ("大花", "小花"), "联邦": ("同帮", "本方", "一方"),
            "四人乱缠": ("四家户乱缠",), "还贡": ("回贡",),
            "牌局数": ("发牌次数",)}  # (the app's field 牌局, t26d bug 10; 配对牌局 in its status)


@pytest.mark.parametrize("domain", [i18n.DOMAIN, i18n.APP_DOMAIN])
def test_the_catalogs_use_one_word_per_meaning(domain):
    """t26d bug 11: no msgstr of the catalog says a discouraged variant of a word of the game."""
    with (PO / f"{domain}.po").open("rb") as fh:
        catalog = read_po(fh, locale="zh", domain=domain)
    found = []
    for msg in catalog:
        strs = [msg.string] if isinstance(msg.string, str) else list(msg.string)
        for word, variants in ONE_WORD.items():
            found += [f"{msg.id!r}: {v} (say {word})" for v in variants for s in strs if s and v in s]
    assert not found, "\n".join(found)


def test_a_place_is_numbered_in_chinese_numerals():
    """A place's number in Chinese is a Chinese numeral (二落（第五名）): no digit to space against the
    characters beside it (Chinese spacing), none for a line break to cut from its 名."""
    from gouji_dsl.i18n import chinese_numeral
    from gouji_dsl.ruleset.event_words import place_text
    from gouji_dsl.ruleset.load.resolving import resolve
    from gouji_dsl.ruleset.words import game_words

    assert [chinese_numeral(n) for n in (1, 5, 10, 12, 20, 100)] == ["一", "五", "十", "十二", "二十", "100"]
    i18n.use(Language.ZH)
    try:
        assert place_text(5, game_words(resolve("online"))) == "二落（第五名）"
    finally:
        i18n.use(Language.EN)


def test_a_transfer_says_the_rulesets_words_not_the_rule_id():
    """A transfer of the buying of 3s is said by the ruleset's term: the rule's own (如无人可卖，则由同帮
    相赠（先买后送） → 先买后送), else that of the flag its guard reads (buying_3 → 买三), never its id."""
    from gouji_dsl.ruleset.event_words import event_text
    from gouji_dsl.ruleset.load.resolving import resolve
    from gouji_dsl.ruleset.words import game_words

    words = game_words(resolve("online"))
    given = {"type": "transfer", "giver": 3, "receiver": 1, "cards": "3"}
    i18n.use(Language.ZH)
    try:
        assert event_text({**given, "rule": "buy.three-from-teammate"}, None, words) == "3 号座位 → 1 号座位：3（先买后送）"
        assert event_text({**given, "rule": "buy.three-from-seller"}, None, words).endswith("：3（买三）")
        assert event_text({**given, "rule": "tribute:stuck"}, None, words).endswith("（闷贡）")
    finally:
        i18n.use(Language.EN)
    assert "buy.three" not in event_text({**given, "rule": "buy.three-pay"}, None, words)


def test_the_seats_asked_in_turn_are_listed_as_the_language_lists_them(runner):
    """t26d bug 13: 2、3、4、5、6 in Chinese (the catalog's list), 2, 3, 4, 5, 6 in English."""
    deal = ["--deal", "1=KK33", "--deal", "2=AA44", "--deal", "3=RAA5", "--deal", "4=AA5", "--deal", "5=JJJJ",
            "--deal", "6=99", "--after", "1 play KK", "--leader", "1"]
    zh = runner.invoke(cli, ["--lang", "zh", "show", "online", "--explain", "3 play AA", *deal]).output
    en = runner.invoke(cli, ["--lang", "en", "show", "online", "--explain", "3 play AA", *deal]).output
    assert "其他人按这个顺序被问到：2、3、4、5、6" in zh and "the others are asked in the order 2, 3, 4, 5, 6" in en
