"""Issue 26 (中文), findings left open (h26f): ``gouji diff`` lists the words of the game (``words:``)
as it lists the settings and rules, ``diff --simulate`` labels its figures in each ruleset's words,
the rulebook's players fact and the simulation summary's team line in Chinese. Both languages."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from gouji_dsl import i18n
from gouji_dsl.i18n import Language
from gouji_dsl.resources import rules_dir
from gouji_dsl.ruleset.load.resolving import resolve
from gouji_dsl.tools.cli import cli
from gouji_dsl.tools.compare import rule_diff

#: a variant of online that renames a place and a term, and nothing else
RENAMED = """ruleset: renamed
extends: online
words:
  places:
    6: {en: "bottom (落科)", zh: 落科}
  terms:
    burn: {en: "fire (火牌)", zh: 火牌}
"""


def base_line(start: str) -> str:
    """``base.yaml:N``: where base writes the line that starts (indent aside) with ``start``."""
    lines = (rules_dir() / "base.yaml").read_text(encoding="utf-8").splitlines()
    return f"base.yaml:{next(i for i, x in enumerate(lines, 1) if x.strip().startswith(start))}"


LAST = base_line('6: {en: "last (大落)"')

pytestmark = pytest.mark.usefixtures("zh_catalog")  # the Chinese catalog is compiled (tests/conftest.py)


@pytest.fixture()
def renamed(ruleset_file) -> Path:
    return ruleset_file("renamed", RENAMED)


def test_a_diff_lists_the_renamed_words_of_the_game(renamed):
    d = rule_diff(resolve("online"), resolve(renamed))
    assert not d.empty and len(d) == 2 and not (d.settings or d.rules or d.definitions)
    place, burn = d.words
    assert (place.name, place.kind, place.a.where, place.b.where) == ("words.places.6", "changed", LAST, "renamed.yaml:5")
    assert dict(place.a.word.texts) == {"en": "last (大落)", "zh": "大落"} and place.b.word.texts["zh"] == "落科"
    assert burn.name == "words.terms.burn" and burn.b.word.texts["en"] == "fire (火牌)"
    assert rule_diff(resolve(renamed), resolve(renamed)).empty
    eagle = rule_diff(resolve("base"), resolve("six-deck-eagle")).words
    assert [(w.name, w.kind) for w in eagle] == [("words.cards.E", "added")]


def test_a_word_changed_in_one_language_only_is_shown_in_all_of_them(tmp_path):
    p = tmp_path / "en-only.yaml"
    p.write_text('ruleset: en-only\nextends: online\nwords:\n  places:\n    6: {en: "bottom (大落)", zh: 大落}\n',
                 encoding="utf-8")
    i18n.use(Language.ZH)
    try:
        (w,) = rule_diff(resolve("online"), resolve(p)).words  # (大落 both sides in Chinese: the English tells them apart)
    finally:
        i18n.use(Language.EN)
    assert w.summary.startswith('words.places.6：{en: "last (大落)", zh: "大落"}') and '"bottom (大落)"' in w.summary


@pytest.mark.parametrize("lang, heading, said, none", [
    ("en", "Words of the game", f'words.places.6: "last (大落)" ({LAST}) vs "bottom (落科)" (renamed.yaml:5)',
     "No differences"),
    ("zh", "术语", f'words.places.6："大落"（{LAST}）对 "落科"（renamed.yaml:5）', "没有差别"),
])
def test_cli_diff_says_the_words_in_both_languages(runner, renamed, lang, heading, said, none):
    res = runner.invoke(cli, ["--lang", lang, "diff", "online", str(renamed)])
    assert res.exit_code == 0, res.output
    assert none not in res.stdout and heading in res.stdout.splitlines() and said in res.stdout
    assert "words.terms.burn" in res.stdout
    assert ("2 word(s) of the game" if lang == "en" else "2 个术语") in res.stdout
    assert ("0 setting(s)" if lang == "en" else "0 个设置") not in res.stdout  # (only the words differ: that line alone)
    md = runner.invoke(cli, ["--lang", lang, "diff", "online", str(renamed), "--format", "markdown"])
    assert ("## Words of the game" if lang == "en" else "## 术语") in md.stdout and "| `words.places.6` |" in md.stdout
    data = json.loads(runner.invoke(cli, ["--lang", lang, "diff", "online", str(renamed), "--format", "json"]).stdout)
    assert data["diff"]["identical"] is False and data["diff"]["counts"]["words"] == 2
    assert data["diff"]["words"][1]["b"]["texts"] == {"en": "fire (火牌)", "zh": "火牌"}
    same = runner.invoke(cli, ["--lang", lang, "diff", "online", "online"])
    assert none in same.stdout and ("words of the game" if lang == "en" else "术语") in same.stdout


def test_diff_simulate_labels_its_figures_in_each_rulesets_words(runner, words2):
    """words2 (tests/conftest.py) calls burning, revolutions and the sweep otherwise."""
    p = words2
    args = ["diff", "online", str(p), "--simulate", "2", "--workers", "1"]
    zh = runner.invoke(cli, ["--lang", "zh", *args])
    assert zh.exit_code == 0, zh.output
    rows = [x.split("  ")[0] for x in zh.stdout.splitlines()]
    for label in ("烧牌成功率/火牌成功率", "有革命的局/有造反的局", "串三户率/扫三家率", "每局烧牌次数/每局火牌次数"):
        assert label in rows, (label, rows)
    same = runner.invoke(cli, ["--lang", "zh", "diff", str(p), str(p), "--simulate", "2", "--workers", "1"])
    rows = [x.split("  ")[0] for x in same.stdout.splitlines()]
    assert "火牌成功率" in rows and "扫三家率" in rows and not any("烧牌" in x for x in rows if "率" in x)
    md = runner.invoke(cli, [*args, "--format", "markdown"])
    assert "| burn success rate/fire success rate |" in md.stdout and "| games with a revolution/games with a uprising |" in md.stdout


def test_the_rulebooks_players_fact_names_the_seats_as_the_summaries_do(runner):
    """The 人数 fact: 1, 3, 5 号座位对 2, 4, 6 号座位 (the library's 号座位, as simulate's team line), English as before."""
    zh = runner.invoke(cli, ["--lang", "zh", "doc", "online"])
    (fact,) = [x for x in zh.stdout.splitlines() if x.strip().startswith("人数")]
    assert fact.endswith("每个联邦 3 人：1, 3, 5 号座位对 2, 4, 6 号座位"), fact
    assert "座位 1, 3, 5" not in zh.stdout
    en = runner.invoke(cli, ["doc", "online"])
    assert any(x.endswith("6, in two teams of 3: seats 1, 3, 5 against 2, 4, 6") for x in en.stdout.splitlines())


@pytest.mark.parametrize("columns", ["80", "60"])
def test_simulates_team_line_is_aligned_with_the_other_figures(runner, monkeypatch, columns):
    """联邦的平均分： starts its value in the column the other figures' values start (as in English), and
    a line it wraps onto starts there too (display width: the labels are double-width)."""
    from gouji_dsl.i18n import display_width
    monkeypatch.setenv("COLUMNS", columns)
    zh = runner.invoke(cli, ["--lang", "zh", "simulate", "online", "--games", "2", "--workers", "1"])
    assert zh.exit_code == 0, zh.output
    lines = zh.stdout.splitlines()
    i = next(i for i, x in enumerate(lines) if x.startswith("联邦的平均分："))
    spread = next(x for x in lines if x.startswith("分差："))

    def column(line: str, label: str) -> int:
        rest = line[len(label):]
        return display_width(label) + len(rest) - len(rest.lstrip(" "))
    assert column(lines[i], "联邦的平均分：") == column(spread, "分差：")
    if not lines[i + 1].startswith("分差："):  # (wrapped: the rest under the value)
        assert len(lines[i + 1]) - len(lines[i + 1].lstrip(" ")) == column(spread, "分差：")


def test_diff_cites_the_seeds_and_punctuates_as_chinese_in_chinese(runner):
    """The sources as the rulebook cites them (资料 001、002（RULES.md §2）, not [S1][S2]), full-width
    punctuation in the summaries, and a changed rule's fields in words (表达式、说法); English as written."""
    zh = runner.invoke(cli, ["--lang", "zh", "diff", "online", "rulebook"]).stdout
    assert "[S1]" not in zh and "资料 001、002（RULES.md §2）" in zh and "seed 000" not in zh
    assert ", 资料" not in zh and "（base.yaml:39，资料 001、002（RULES.md §2））" in zh
    assert "——rulebook：" in zh and " — rulebook: " not in zh
    assert "deal.first-drawer [改了：表达式、说法]" in zh and "expr, says" not in zh
    en = runner.invoke(cli, ["diff", "online", "rulebook"]).stdout
    assert "(base.yaml:39, RULES.md §2 [S1][S2])" in en and "deal.first-drawer [changed: expr, says]" in en
    assert " — rulebook: " in en
