"""Issue 26 (中文), the command line after a fresh tester's findings (/work/notes/t26.md): the
rulesets' own sentences in the active language, Chinese frames, words of the game."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from gouji_dsl.resources import display_path, rules_dir
from gouji_dsl.tools.cli import cli

#: rulebook.yaml's deck sentence (says: {en: …, zh: …})
DECK_EN = "ten 3s and ten 4s are taken out"
DECK_ZH = "从四副扑克牌中抽出10张“3”、10张“4”"

pytestmark = pytest.mark.usefixtures("zh_catalog")  # the Chinese catalog is compiled (tests/conftest.py)


@pytest.mark.parametrize("fmt", ["text", "markdown", "json"])
def test_diff_shows_the_rulesets_sentences_in_the_active_language(runner, fmt):
    zh = runner.invoke(cli, ["--lang", "zh", "diff", "online", "rulebook", "--format", fmt])
    en = runner.invoke(cli, ["--lang", "en", "diff", "online", "rulebook", "--format", fmt])
    assert zh.exit_code == 0 and en.exit_code == 0, zh.output + en.output
    assert DECK_ZH in zh.stdout and DECK_EN not in zh.stdout
    assert DECK_EN in en.stdout and DECK_ZH not in en.stdout
    if fmt == "json":
        deck = next(s for s in json.loads(zh.stdout)["diff"]["settings"] if s["name"] == "deck")
        assert DECK_ZH in deck["keys"][0]["b"]["says"]


CLUB = """\
ruleset: club
extends: online
words: {places: {6: {zh: 落科}, 1: {zh: 状元}}, terms: {burn: {zh: 炸牌}, yield: {zh: 让路}}}
"""


def test_a_renamed_word_that_inherited_sentences_still_use_is_a_warning_at_the_word(runner, tmp_path):
    club = tmp_path / "club.yaml"
    club.write_text(CLUB, encoding="utf-8")
    r = runner.invoke(cli, ["validate", str(club)])
    assert r.exit_code == 0, r.output  # a warning: the file loads
    heads = [line for line in r.stderr.splitlines() if line.startswith(str(club))]
    assert [h.split(": ")[0].rsplit(":", 2)[1:] for h in heads] == [["3", "21"], ["3", "34"], ["3", "59"], ["3", "76"]]
    assert all(h.endswith("[StaleWord]") for h in heads)
    assert "'大落'" in heads[0] and "'end.one-left'" in heads[0] and "'place_points'" in heads[0]
    assert "'烧牌'" in heads[2] and "'让牌'" in heads[3]
    doc = runner.invoke(cli, ["doc", str(club), "--lang", "zh"])
    assert doc.exit_code == 0 and "落科" in doc.stdout and "[StaleWord]" in doc.stderr
    assert "警告" in doc.stderr


def test_the_cookbook_club_gives_its_word_in_every_sentence(runner):
    r = runner.invoke(cli, ["validate", "--strict", "examples/variants/qingdao-club-zh.yaml"])
    assert r.exit_code == 0 and "StaleWord" not in r.output + r.stderr, r.output + r.stderr
    doc = runner.invoke(cli, ["doc", "examples/variants/qingdao-club-zh.yaml", "--lang", "zh"])
    book = doc.stdout.split("\n出处\n----\n")[0]
    assert "落科" in book and "大落" not in book


@pytest.mark.parametrize("text, where, english, chinese", [
    ('ruleset: q\nextends: online\ntitle: "abc\nsettings:\n  seats: 6\n\n', "3:8",
     "the quoted text that starts here is not closed", "从这里开始的引号没有闭合"),
    ("ruleset: q\nsettings:\n\tseats: 1\n", "3:1", "a tab character", "制表符"),
    ("ruleset: q\nlanguages: [en, zh\nsettings: {}\n", "2:12", "the list that starts here ([) is not closed", "列表"),
    ("ruleset: q\nsettings: {seats: 6\ntitle: x\n", "2:11", "the map that starts here ({) is not closed", "映射"),
    ("ruleset: q\nsettings:\n  seats: 1\n teams: 2\n", "4:2", "indented otherwise", "缩进"),
    ('ruleset: q\ntitle: "x" y\n', "2:12", "text after a value that has ended", "值已经结束"),
    ("ruleset: q\ntitle: @x\n", "2:8", "a value cannot start with '@'", "值不能以 '@' 开头"),
    ("ruleset: q\ntitle\nsettings: {}\n", "2:1", "this line is not `key: value`", "这一行不是"),
])
def test_yaml_syntax_errors_in_our_words_where_they_start(runner, tmp_path, text, where, english, chinese):
    path = tmp_path / "broken.yaml"
    path.write_text(text, encoding="utf-8")
    for lang, words in (("en", english), ("zh", chinese)):
        r = runner.invoke(cli, ["--lang", lang, "validate", str(path)])
        head = r.stderr.splitlines()[0]
        assert head.startswith(f"{path}:{where}: ") and head.endswith("[YamlSyntax]"), head
        assert words in head, head
        if lang == "zh":
            assert not re.search(r"[a-z]{4,} [a-z]{3,}", r.stderr.replace("validate", "")), r.stderr  # no English


def test_schema_hints_are_marked_for_the_catalog():
    from gouji_dsl.resources import schema_path
    from gouji_dsl.ruleset.load.checking import SCHEMA_HINTS
    found: list[str] = []

    def walk(x):
        if isinstance(x, dict):
            found.extend(v for k, v in x.items() if k == "patternErrorMessage")
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)
    walk(json.loads(Path(schema_path()).read_text(encoding="utf-8")))
    assert set(found) == set(SCHEMA_HINTS)


@pytest.mark.parametrize("text, code, chinese", [
    ("ruleset: q\nextends: online\nsettings:\n  bad-name: 3\n", "InvalidName", "设置名是由字母"),
    ("ruleset: q\nextends: online\nrules:\n  - id: Bad_Id\n    on: follow\n    deny: true\n", "InvalidName",
     "规则 id 是用"),
    ("ruleset: q\nextends: online\nrules:\n  - id: x.y\n    on: follow\n    deny: \"true + 1\"\n", "TypeMismatch",
     "而不是 布尔值"),
    ("ruleset: q\nextends: online\nsettings:\n  filler_rank: {value: 2}\n", "ValueNotAllowed", "牌的种类由 ranks（"),
])
def test_hints_and_type_names_in_chinese(runner, tmp_path, text, code, chinese):
    path = tmp_path / "bad.yaml"
    path.write_text(text, encoding="utf-8")
    r = runner.invoke(cli, ["--lang", "zh", "validate", str(path)])
    assert f"[{code}]" in r.stderr and chinese in r.stderr, r.stderr
    assert " set at " not in r.stderr and " is read as " not in r.stderr and "bool" not in r.stderr


def test_show_in_chinese_labels_its_lines_and_aligns_by_display_width(runner):
    from gouji_dsl.i18n import display_width
    r = runner.invoke(cli, ["--lang", "zh", "show", "online"])
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    assert lines[0].startswith("规则集 online")
    head = lines[1:5]
    assert [h.split("：")[0] for h in head] == ["文件", "继承链", "出处", "说明"]
    values = {display_width(h[: len(h) - len(h.split("：", 1)[1].lstrip())]) for h in head}
    assert len(values) == 1  # the values start in one column
    assert not re.search(r"^\s*(says|source|said by)", r.stdout, re.M)
    seats = next(ln for ln in lines if ln.startswith("  seats: "))
    where = display_path(str(rules_dir() / "base.yaml")).split("/")[0] + "/"  # rules/ in a checkout, <bundled>/ installed
    assert display_width(seats[: seats.index(where)]) == 64


def test_show_aligns_a_value_in_chinese_with_the_others(runner, tmp_path):
    from gouji_dsl.i18n import display_width
    path = tmp_path / "cjk.yaml"
    path.write_text('ruleset: cjk\nextends: online\nsettings:\n  club_name: "青岛够级俱乐部"\n', encoding="utf-8")
    r = runner.invoke(cli, ["show", str(path)])
    line = next(ln for ln in r.stdout.splitlines() if ln.startswith("  club_name: "))
    assert display_width(line[: line.index(str(path))]) == 64


@pytest.mark.parametrize("args, env, asked", [
    ([], {"LANG": "zh_TW.UTF-8"}, "LANG=zh_TW.UTF-8"),
    ([], {"LANG": "zh_HK.UTF-8"}, "LANG=zh_HK.UTF-8"),
    ([], {"GOUJI_LANG": "zh-Hant"}, "GOUJI_LANG=zh-Hant"),
    (["--lang", "zh_TW"], {}, "--lang zh_TW"),
])
def test_traditional_chinese_is_said_to_be_simplified(runner, args, env, asked):
    r = runner.invoke(cli, [*args, "validate", "online"], env={"LC_ALL": "", "LC_MESSAGES": "", **env})
    assert r.exit_code == 0 and "没有问题" in r.stdout
    notes = [ln for ln in r.stderr.splitlines() if asked in ln]
    assert len(notes) == 1 and "简体中文" in notes[0], r.stderr


def test_no_note_for_simplified_chinese(runner):
    r = runner.invoke(cli, ["validate", "online"], env={"LC_ALL": "", "LC_MESSAGES": "", "LANG": "zh_CN.UTF-8"})
    assert r.exit_code == 0 and r.stderr == ""


@pytest.mark.parametrize("args, env", [
    ([], {"GOUJI_LANG": "xx"}),
    (["--lang", "xx"], {}),
])
def test_a_bad_language_is_reported_in_the_locales_language(runner, args, env):
    r = runner.invoke(cli, [*args, "validate", "online"],
                      env={"LC_ALL": "", "LC_MESSAGES": "", "LANG": "zh_CN.UTF-8", **env})
    assert r.exit_code == 2
    assert "未知的语言 'xx'" in r.stderr and "错误" in r.stderr and "Error" not in r.stderr, r.stderr


@pytest.mark.parametrize("name", ["base", "online", "qingdao", "qingdao-classic", "rulebook", "online-xuandian",
                                  "six-deck-eagle"])
def test_the_chinese_rulebook_breaks_lines_as_chinese_is_set(name):
    from gouji_dsl.i18n import Language, display_width
    from gouji_dsl.tools.doc import WIDTH, ruleset_doc
    from gouji_dsl.tools.exits import load_graph
    text = ruleset_doc(load_graph(name), "text", Language.ZH)
    lines = text.splitlines()
    assert not [ln for ln in lines if re.match(r"^\s*[、。，；：！？）”]", ln)]  # never starts a line
    assert not [ln for ln in lines if re.search(r"[“（]$", ln)]  # never ends one
    assert max(map(display_width, lines)) <= WIDTH


def test_english_with_a_chinese_term_keeps_its_words_whole():
    from gouji_dsl.tools.textlayout import wrap
    words = "4 small jokers (小王), 4 big jokers (大王) and then some more words to wrap"
    for width in range(12, 40):
        assert " ".join(wrap(words, width)) == words
    chinese = "够级的进贡分四种按进贡顺序为：闷贡、烧贡、点贡、落贡。被闷者向对家进1张“闷贡”。"
    for width in range(8, 40):
        lines = wrap(chinese, width)
        assert "".join(lines) == chinese and all(not ln.startswith(("、", "。", "”")) for ln in lines)


@pytest.mark.parametrize("args, chinese, english", [
    (["valdate"], "你是不是想用 'validate'？", "Did you mean 'validate'?"),
    (["validate", "--format", "yaml"], "'yaml' 不是可选的值（可选：'text', 'json'）", "'yaml' is not one of 'text', 'json'."),
])
def test_clicks_plural_messages_in_chinese_and_english_as_click_words_them(runner, args, chinese, english):
    zh = runner.invoke(cli, ["--lang", "zh", *args])
    en = runner.invoke(cli, ["--lang", "en", *args])
    assert zh.exit_code == en.exit_code == 2
    assert chinese in zh.stderr and english in en.stderr, zh.stderr + en.stderr


def test_option_defaults_in_chinese(runner):
    r = runner.invoke(cli, ["--lang", "zh", "validate", "--help"])
    assert "[默认：text]" in r.stdout and "[default:" not in r.stdout


@pytest.mark.parametrize("command, chinese", [
    ("edit", "在编辑器里打开 FILE"), ("compare", "打开规则集 A 和 B"), ("serve", "把应用提供给网页浏览器"),
    ("play", "和机器人试打 RULESET"),
])
def test_the_app_commands_help_in_chinese(runner, command, chinese):
    from gouji_app.cli import gouji
    r = runner.invoke(gouji, ["--lang", "zh", command, "--help"])
    assert r.exit_code == 0 and chinese in r.stdout, r.output
    english = [ln for ln in r.stdout.splitlines() if re.search(r"\b[a-z]{3,} [a-z]{3,} [a-z]{3,}\b", ln)
               and not ln.strip().startswith("gouji ")]  # (the examples are commands)
    assert not english, english
    top = runner.invoke(gouji, ["--lang", "zh", "--help"])
    assert any(ln.strip().startswith(command) and chinese[:4] in ln for ln in top.stdout.splitlines())


@pytest.mark.parametrize("command", ["duel", "league"])
def test_the_bot_list_of_a_help_in_its_runs_language(runner, command):
    zh = runner.invoke(cli, ["--lang", "zh", command, "--help"])
    en = runner.invoke(cli, ["--lang", "en", command, "--help"])
    assert "机器人：" in zh.stdout and "在合法出牌中均匀随机地选" in zh.stdout
    assert "Bots:" in en.stdout and "picks uniformly among the legal moves" in en.stdout and "机器人：" not in en.stdout


def test_simulate_names_the_places_by_the_rulesets_words(runner):
    zh = runner.invoke(cli, ["--lang", "zh", "simulate", "online", "-n", "6"])
    assert zh.exit_code == 0, zh.output
    assert all(w in zh.stdout for w in ("头科", "二科", "三科", "四科", "二落", "大落")) and "第 1 名" not in zh.stdout
    en = runner.invoke(cli, ["--lang", "en", "simulate", "online", "-n", "6"])
    assert "place 1" in en.stdout  # "first out (头科)" does not fit a column: numbered


EDGES = """\
ruleset: edges
extends: online
rules:
  - id: Bad_Id
    on: folow
    deny: true
  - id: gouji.x
    on: follow
    deny: "true"
    said_by: [show_cont_at]
    before: [gouji.oposite-only]
"""


def test_validate_lists_every_problem_with_a_bad_rule_id_and_before(tmp_path):
    from gouji_dsl.ruleset.check import check
    path = tmp_path / "edges.yaml"
    path.write_text(EDGES, encoding="utf-8")
    found = [(d.line, d.col, d.code) for d in check(str(path)).errors]
    assert found == [(4, 9, "InvalidName"), (5, 9, "UnknownHook"), (10, 14, "UnknownSetting"),
                     (11, 14, "UnknownRuleReference")]  # the reference at its before: entry


def test_a_misspelt_new_setting_is_an_error_a_setting_of_ones_own_a_warning(runner, tmp_path):
    path = tmp_path / "typo.yaml"
    path.write_text('ruleset: t\nextends: online\nsettings:\n  show_cout_at: 10\n  club_name: "x"\n', encoding="utf-8")
    r = runner.invoke(cli, ["validate", str(path)])
    assert r.exit_code == 1
    heads = [ln for ln in r.stderr.splitlines() if ln.startswith(str(path))]
    assert heads[0].startswith(f"{path}:4:3: setting 'show_cout_at'") and "[UnreadSetting]" in heads[0]
    assert "warning:" not in heads[0] and "show_count_at" in r.stderr
    assert heads[1].startswith(f"{path}:5:3: warning: setting 'club_name'")


def test_doc_notes_the_sentences_not_given_in_its_language(runner, tmp_path):
    path = tmp_path / "v.yaml"
    path.write_text('ruleset: v\nextends: online\nrules:\n  - id: gouji.no-next\n    on: follow\n    deny: "false"\n'
                    '    says: "The next seat may not answer a gouji play."\n', encoding="utf-8")
    zh = runner.invoke(cli, ["doc", str(path), "--lang", "zh"])
    assert zh.exit_code == 0 and "gouji.no-next (v.yaml:7)" in zh.stderr and "注意" in zh.stderr
    en = runner.invoke(cli, ["doc", str(path), "--lang", "en"])
    assert en.exit_code == 0 and en.stderr == ""
    for name in ("online", "qingdao", "rulebook"):
        assert runner.invoke(cli, ["doc", name, "--lang", "zh"]).stderr == ""


def test_a_ruleset_name_that_is_a_file_here_hints_at_its_path(runner, tmp_path, monkeypatch):
    (tmp_path / "club.yaml").write_text(CLUB, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    r = runner.invoke(cli, ["doc", "club"])
    assert r.exit_code == 1 and "[RulesetNotFound]" in r.stderr and "./club.yaml" in r.stderr


def test_a_scenarios_unknown_expect_key_once_in_chinese(runner, tmp_path):
    path = tmp_path / "cases.yaml"
    path.write_text("ruleset: online\ncases:\n  - name: c\n    classify: \"KK\"\n    expect: {rnak: K}\n", encoding="utf-8")
    r = runner.invoke(cli, ["--lang", "zh", "test", str(path)])
    out = r.stdout + r.stderr
    assert "rnak" in out and "(（" not in out and "）)" not in out, out
