"""Issue 26 (中文), the command line's remaining gaps (t26 F5, F6, F7, F17, F19, F20): a bundled file
named in the catalog's word (自带), full-width brackets around positions, Chinese spaced against
Latin words and quoted names, a ruleset's words of the game (``words.terms``) in the program's own
sentences, a list of places never split, the rulebook's note on its sources. Errors are matched by
code; English beside Chinese."""
from __future__ import annotations

import pytest

from gouji_dsl import i18n
from gouji_dsl.i18n import Language, bracketed, cjk_spaced
from gouji_dsl.resources import display_path, rules_dir
from gouji_dsl.tools import textlayout
from gouji_dsl.tools.cli import cli

EXPLAIN = ["--explain", "3 play AA", "--deal", "1=KK33", "--deal", "2=AA44", "--deal", "3=RAA5", "--deal", "4=AA5",
           "--deal", "5=JJJJ", "--deal", "6=99", "--after", "1 play KK", "--leader", "1"]

pytestmark = pytest.mark.usefixtures("zh_catalog")  # the Chinese catalog is compiled (tests/conftest.py)


def test_a_bundled_file_is_named_in_the_catalogs_word(monkeypatch, tmp_path):
    """F5: outside a checkout a bundled file is <bundled>/NAME.yaml in English and 自带/NAME.yaml in
    Chinese (the word the catalog uses for bundled), never the English placeholder in Chinese."""
    monkeypatch.chdir(tmp_path)
    base = str(rules_dir() / "base.yaml")
    i18n.use(Language.EN)
    try:
        assert display_path(base) == "<bundled>/base.yaml"
        i18n.use(Language.ZH)
        assert display_path(base) == "自带/base.yaml"
    finally:
        i18n.use(Language.EN)


def test_brackets_and_spacing_follow_the_language():
    assert bracketed("x.yaml:3", Language.ZH) == "（x.yaml:3）"
    assert bracketed("x.yaml:3", Language.EN, after=True) == " (x.yaml:3)"
    assert cjk_spaced("牌的种类由 ranks（b.yaml:31）和jokers（b.yaml:35） 规定", Language.ZH) == \
        "牌的种类由 ranks（b.yaml:31）和 jokers（b.yaml:35）规定"
    assert cjk_spaced("规则 '烧牌-测试'的'id'", Language.ZH) == "规则 '烧牌-测试' 的 'id'"
    assert cjk_spaced("rule 'x'is", Language.EN) == "rule 'x'is"


def test_validate_spaces_quoted_ids_alike_in_chinese(runner, tmp_path):
    """F5: "规则 '烧牌-测试' 没有效果" like "'俱乐部' 不是有效的名字"; the codes are the same words."""
    p = tmp_path / "q.yaml"
    p.write_text("ruleset: q\nextends: base\nrules:\n  - id: 烧牌-测试\n    when: burn\n    says: x\n", encoding="utf-8")
    zh = runner.invoke(cli, ["--lang", "zh", "validate", str(p)])
    en = runner.invoke(cli, ["validate", str(p)])
    assert "规则 '烧牌-测试' 没有效果 [NoEffect]" in zh.output and "[NoEffect]" in en.output
    assert "'烧牌-测试'没" not in zh.output and "'烧牌-测试'的" not in zh.output


def test_explain_brackets_positions_and_says_the_rulesets_words(runner, words2):
    """F5, F19: the rule lines' positions in full-width brackets in Chinese; the facts and the engine's
    own sentences in the ruleset's words (大级牌, 火牌); a quoted move stays the notation."""
    zh = runner.invoke(cli, ["--lang", "zh", "show", str(words2), *EXPLAIN])
    assert zh.exit_code == 0, zh.output
    assert zh.stdout.startswith("3 play AA：不合法")
    assert "KK（1 号座位）是大级牌" in zh.stdout and "火牌的顺序是" in zh.stdout
    assert "[禁止] engine.burn：在问你是否火牌：回答 'burn 牌' 或 'pass'。" in zh.stdout
    assert "够级牌" not in zh.stdout and "烧牌" not in zh.stdout
    en = runner.invoke(cli, ["--lang", "en", "show", str(words2), *EXPLAIN])
    assert "the fire order is" in en.stdout and "answer 'burn CARDS' or 'pass'" in en.stdout


def test_explain_rule_lines_in_full_width_brackets(runner):
    zh = runner.invoke(cli, ["--lang", "zh", "show", "online", "--explain", "2 play AA"])
    line = next(x for x in zh.stdout.splitlines() if "[禁止]" in x)
    assert "engine.turn：" in line and " (" not in line


def test_the_rulebook_headings_say_the_rulesets_words(runner, words2):
    """F19: every heading of the doc's own that names a term (革命, 过牌, 让牌, 烧牌, 走科, 报牌)."""
    zh = runner.invoke(cli, ["--lang", "zh", "doc", str(words2)])
    assert zh.exit_code == 0, zh.output
    heads = [x for x in zh.stdout.splitlines() if x[:1].isdigit() and ". " in x]
    for word in ("出牌之前：造反", "上牌、不要与放行", "5. 火牌", "6. 出科", "8. 亮张"):
        assert any(word in h for h in heads), (word, heads)
    assert not any(w in h for h in heads for w in ("革命", "过牌", "让牌", "烧牌", "走科", "报牌"))


def test_simulate_says_the_rulesets_words(runner, words2):
    zh = runner.invoke(cli, ["--lang", "zh", "simulate", str(words2), "--games", "2", "--workers", "1"])
    assert zh.exit_code == 0, zh.output
    assert "火牌率：" in zh.stdout and "造反率：" in zh.stdout and "扫三家率：" in zh.stdout
    assert "烧牌率" not in zh.stdout


@pytest.mark.parametrize("text", [
    "#1 发牌 1:19：Σ|Δ得分| 108，6 个座位名次不同；各座位的名次 qingdao：3 4 5 1 6 2 | qingdao-classic：1 6 2 5 3 4",
    "#1 deal 1:19: Σ|Δscore| 108, 6 seat(s) placed differently; places by seat qingdao: 3 4 5 1 6 2 | "
    "qingdao-classic: 1 6 2 5 3 4"])
def test_a_list_of_places_is_never_split(text):
    """F20: diff --simulate's divergent deals: the list (and its side's name) stays on one line."""
    keep = ("1 6 2 5 3 4", "qingdao-classic：1 6 2 5 3 4", "qingdao-classic: 1 6 2 5 3 4")
    for width in (60, 80, 100):
        lines = textlayout.wrap(text, width, keep=keep)
        assert any("qingdao-classic" in x and x.endswith("1 6 2 5 3 4") for x in lines), lines


def test_the_rulebooks_sources_say_what_they_cite(runner):
    """F6: the seeds named one way (资料 NNN), and a line telling a Chinese reader what RULES.md is."""
    zh = runner.invoke(cli, ["--lang", "zh", "doc", "online"])
    sources = zh.stdout.split("\n出处\n")[1]
    assert "资料 000–003 是本规则书引用的中文规则原文" in sources and "[S1]" not in sources
    en = runner.invoke(cli, ["doc", "online"])
    assert "The seeds ([S0]-[S3] and seed 000-003) are the Chinese rule texts" in en.stdout


def test_a_chinese_numeral_keeps_its_measure_word():
    """F7: 一个 / 20 局 never split; the rest of a Chinese line may break between characters."""
    text = "真正选择：69.5% 95% [65.1%, 73.8%]（合法着法多于一个的决策）"
    for width in range(20, 60):
        lines = textlayout.wrap(text, width)
        assert not any(x.endswith("一") for x in lines[:-1]), (width, lines)


def test_simulate_keeps_a_team_and_a_seats_figure_whole_at_60_columns(runner, monkeypatch):
    monkeypatch.setenv("COLUMNS", "60")
    zh = runner.invoke(cli, ["--lang", "zh", "simulate", "online", "--games", "2", "--workers", "1"])
    assert zh.exit_code == 0, zh.output
    assert "联邦 2（2, 4, 6 号座位）" in zh.stdout and "联邦 1（1, 3, 5 号座位）" in zh.stdout
    lines = zh.stdout.splitlines()
    assert not any(x.rstrip().endswith(":") for x in lines if x.startswith(("座位优势", " ")))
    assert not any(x.endswith(" （") or " （" in x for x in lines)  # (no space before a full-width bracket)


def test_league_counts_deals_and_names_its_interval_as_duel_does(runner):
    zh = runner.invoke(cli, ["--lang", "zh", "league", "online", "heuristic", "random", "-n", "2"])
    assert zh.exit_code == 0, zh.output
    assert "同样的 2 次发牌上对战" in zh.stdout and "95% 置信区间" in zh.stdout and "heuristic − random：" in zh.stdout
    assert "见英文 README 的“gouji league RULESET BOT... [--deals N]”一节" in zh.stdout
