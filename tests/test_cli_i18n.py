"""The command line in Chinese (issue 26): --lang, GOUJI_LANG and the locale choose the language of
every command's output; diagnostics keep their codes and positions in every language."""
from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from gouji_dsl import i18n
from gouji_dsl.tools.cli import cli

BROKEN = """
ruleset: broken
extends: online
titel: oops
settings:
  tribute: {fall: 3}
rules:
  - id: my.rule
    on: follow
    when: play.size > 2 and nonsense(3)
    allow: true
  - id: my.rule
    on: follow
    deny: true
    says: no
"""

HEAD = re.compile(r"^(?P<pos>\S+:\d+:\d+): (?P<message>.*) \[(?P<code>\w+)\]$", re.M)
CJK = re.compile(r"[\u4e00-\u9fff]")

pytestmark = pytest.mark.usefixtures("zh_catalog")  # the Chinese catalog is compiled (tests/conftest.py)


@pytest.fixture
def broken(tmp_path: Path) -> str:
    path = tmp_path / "broken.yaml"
    path.write_text(textwrap.dedent(BROKEN).lstrip("\n"), encoding="utf-8")
    return str(path)


def _heads(text: str) -> list[tuple[str, str]]:
    return [(m["pos"], m["code"]) for m in HEAD.finditer(text)]


def test_validate_in_chinese_keeps_codes_and_positions(runner, broken):
    en = runner.invoke(cli, ["validate", broken])
    zh = runner.invoke(cli, ["validate", broken], env={"GOUJI_LANG": "zh"})
    assert en.exit_code == zh.exit_code == 1
    assert _heads(zh.stderr) == _heads(en.stderr) and len(_heads(en.stderr)) >= 4, zh.stderr
    codes = {code for _pos, code in _heads(zh.stderr)}
    assert {"UnknownKey", "DuplicateRuleId", "WrongType"} <= codes
    assert "在最外层有未知的键 'titel'" in zh.stderr  # the message, in Chinese, still quoting the file's word
    assert "提示：是不是 'title'？" in zh.stderr  # the hint
    assert "重复的规则 id 'my.rule'" in zh.stderr
    assert re.search(r"broken\.yaml: \d+ 个问题$", zh.stderr.strip().rsplit("\n", 1)[0])
    assert zh.stderr.strip().splitlines()[-1].endswith("（改正后再检查一次）")  # what the errors hold back
    assert not CJK.search(en.stderr)  # English unchanged


def test_lang_option_beats_the_environment(runner, broken):
    zh = runner.invoke(cli, ["--lang", "zh", "validate", broken], env={"GOUJI_LANG": "en"})
    assert "个问题" in zh.stderr
    en = runner.invoke(cli, ["--lang", "en", "validate", broken], env={"GOUJI_LANG": "zh", "LANG": "zh_CN.UTF-8"})
    assert "problems" in en.stderr and not CJK.search(en.stderr)


def test_validate_ok_and_json_in_chinese(runner):
    ok = runner.invoke(cli, ["--lang", "zh", "validate", "online"])
    assert ok.exit_code == 0 and re.fullmatch(r"online: 没有问题（\d+ 条规则）\n", ok.stdout), ok.stdout


def test_json_codes_are_the_same_words(runner, broken):
    import json
    en = json.loads(runner.invoke(cli, ["validate", "--format", "json", broken]).stdout)
    zh = json.loads(runner.invoke(cli, ["--lang", "zh", "validate", "--format", "json", broken]).stdout)
    key = lambda doc: [(d["code"], d["position"]["line"], d["position"]["col"]) for d in doc["files"][0]["diagnostics"]]
    assert key(zh) == key(en)
    assert [d["message"] for d in zh["files"][0]["diagnostics"]] != [d["message"] for d in en["files"][0]["diagnostics"]]


@pytest.mark.parametrize("args,env,where", [
    (["--lang", "fr", "validate", "online"], {}, "--lang"),
    (["validate", "online"], {"GOUJI_LANG": "klingon"}, "GOUJI_LANG"),
])
def test_a_bad_language_is_a_usage_error_with_a_hint(runner, args, env, where):
    res = runner.invoke(cli, args, env=env)
    assert res.exit_code == 2, res.output
    assert "unknown language" in res.stderr and "hint:" in res.stderr and where in res.stderr
    assert "ok (" not in res.stdout  # no quiet default: the command did not run


def test_a_chinese_locale_picks_chinese(tmp_path, broken):
    """LANG=zh_CN.UTF-8 (no --lang, no GOUJI_LANG): Chinese, in a process of its own as a user runs it."""
    env = {k: v for k, v in os.environ.items() if k not in ("GOUJI_LANG", "LC_ALL", "LC_MESSAGES", "LANGUAGE")}
    env["LANG"] = "zh_CN.UTF-8"
    out = subprocess.run([sys.executable, "-m", "gouji_dsl", "validate", broken], capture_output=True, text=True,
                         encoding="utf-8", env=env, timeout=120)
    assert out.returncode == 1
    assert "个问题" in out.stderr and "[UnknownKey]" in out.stderr, out.stderr
    env["LANG"] = "de_DE.UTF-8"  # another language: English
    out = subprocess.run([sys.executable, "-m", "gouji_dsl", "validate", broken], capture_output=True, text=True,
                         encoding="utf-8", env=env, timeout=120)
    assert "problems" in out.stderr and not CJK.search(out.stderr)


@pytest.mark.parametrize("args,english,chinese", [
    (["simulate", "online", "-n", "2", "--workers", "1"], "2 games, seed", "2 局，种子"),
    (["diff", "online", "qingdao"], "setting(s)", "个设置"),
    (["show", "online", "--explain", "2 play AA"], "2 play AA: illegal", "2 play AA：不合法"),
])
def test_lang_zh_on_several_commands(runner, args, english, chinese):
    en = runner.invoke(cli, args)
    zh = runner.invoke(cli, ["--lang", "zh", *args])
    assert en.exit_code == zh.exit_code == 0, (en.output, zh.output)
    assert english in en.stdout, en.stdout
    assert chinese in zh.stdout, zh.stdout


def test_explain_in_chinese_keeps_rule_ids_and_checks(runner):
    en = runner.invoke(cli, ["show", "online", "--explain", "2 play AA"]).stdout
    zh = runner.invoke(cli, ["--lang", "zh", "show", "online", "--explain", "2 play AA"]).stdout
    ids = re.compile(r"\b(?:engine|lead|setting)\.[\w.-]+")
    assert ids.findall(zh) == ids.findall(en) and ids.findall(en)
    assert "[禁止] engine.turn：现在轮到 3 号座位，不是 2 号座位。" in zh


def test_gouji_test_in_chinese(runner):
    scenario = str(Path(__file__).parent / "scenarios" / "notation.yaml")
    res = runner.invoke(cli, ["--lang", "zh", "test", scenario])
    assert res.exit_code == 0, res.output
    assert re.search(r"^\d+ 个通过，0 个失败$", res.stdout, re.M) and "通过 " in res.stdout


def test_help_summaries_are_marked_for_translation():
    """Every library command's summary (its line in gouji --help) is one of HELP_TEXTS, so the catalog has it."""
    import click

    from gouji_dsl.tools.cli import HELP_TEXTS
    ctx = click.Context(cli)
    summaries = {name: cli.get_command(ctx, name).get_short_help_str(10 ** 6) for name in cli.list_commands(ctx)}
    missing = {name: s for name, s in summaries.items() if s not in HELP_TEXTS}
    assert not missing, f"add these summaries to gouji_dsl.tools.cli.HELP_TEXTS (and gouji.po): {missing}"


def test_help_in_chinese(runner):
    zh = runner.invoke(cli, ["--lang", "zh", "--help"])
    assert zh.exit_code == 0
    assert "命令" in zh.stdout and "选项" in zh.stdout and "检查规则集文件" in zh.stdout and "输出的语言" in zh.stdout
    env_zh = runner.invoke(cli, ["--help"], env={"GOUJI_LANG": "zh"})
    assert "检查规则集文件" in env_zh.stdout  # the environment's language, though --help comes first
    en = runner.invoke(cli, ["--help"])
    assert "Commands:" in en.stdout and "Check ruleset files" in en.stdout and not CJK.search(en.stdout.replace("够级", "").replace("中文", ""))


def test_a_command_help_in_chinese(runner):
    zh = runner.invoke(cli, ["--lang", "zh", "validate", "--help"])
    assert zh.exit_code == 0
    assert zh.stdout.startswith("用法：") and "选项：" in zh.stdout and "还要检查每个文件" in zh.stdout
    assert "[默认：text]" in zh.stdout  # click's own tail in Chinese too (its msgid "default: {default}")
    en = runner.invoke(cli, ["validate", "--help"])
    assert en.stdout.startswith("Usage:") and "Also lint each file" in en.stdout


FAILS = """
ruleset: fails
extends: online
title: a follow rule that divides by zero
rules:
  - id: follow.divides
    on: follow
    when: "count(finished) >= 0"
    require: "1 // (count(passed_seats) - count(passed_seats)) == 0"
    says: "Fails whenever it is asked."
"""


def test_why_the_native_core_is_not_used_is_said_in_chinese(monkeypatch):
    from gouji_dsl.engine import native
    from gouji_dsl.engine.native import flow
    from gouji_dsl.ruleset.graph import load_graph
    monkeypatch.setenv(native.DISABLE_ENV, "1")
    i18n.use(i18n.Language.ZH)
    reason = native.unavailable_reason()
    assert reason is not None and CJK.search(reason) and native.DISABLE_ENV in reason
    assert flow.fallback_reason(load_graph("online")) == reason
    i18n.use(i18n.Language.EN)
    assert native.unavailable_reason() == f"the native core is switched off ({native.DISABLE_ENV} is set)"


def test_a_rule_failure_reads_the_same_in_chinese_on_the_interpreter_and_the_native_core(runner, tmp_path):
    from gouji_dsl.engine import fast, native
    from gouji_dsl.ruleset.graph import load_graph
    path = tmp_path / "fails.yaml"
    path.write_text(textwrap.dedent(FAILS).lstrip("\n"), encoding="utf-8")
    if not native.available():
        pytest.skip(native.unavailable_reason() or "")
    eng = fast.engine(load_graph(str(path)))
    assert eng is not None and eng.native_fallback is None, eng and eng.native_fallback  # the core plays it
    said = {}
    for engine in ("interpreter", "generated"):
        r = runner.invoke(cli, ["simulate", str(path), "--games", "1", "--engine", engine], env={"GOUJI_LANG": "zh"})
        assert r.exit_code != 0
        said[engine] = r.stderr
    assert said["interpreter"] == said["generated"]
    heads = list(HEAD.finditer(said["interpreter"]))
    assert [m["code"] for m in heads] == ["RuleFailed"] and CJK.search(heads[0]["message"])
    assert "1 // 0" in heads[0]["message"] and "follow.divides" in heads[0]["message"]


@pytest.mark.parametrize("english, fn, args", [
    ("no key 'x' in {a: 1}", "no_key_text", ("x", {"a": 1})),
    ("division by zero: 3 // 0", "division_by_zero_text", (3, "//")),
    ("no item 4 in [1, 2] (2 items, counted from 0)", "no_item_text", (4, [1, 2])),
])
def test_the_native_programs_fail_with_the_interpreters_texts(english, fn, args):
    from gouji_dsl.lang import ops
    assert getattr(ops, fn)(*args) == english
    i18n.use(i18n.Language.ZH)
    assert CJK.search(getattr(ops, fn)(*args))


def test_the_statistics_footer_in_chinese_and_english_in_the_json():
    from gouji_dsl.tools import paired
    i18n.use(i18n.Language.ZH)
    zh = paired.methods()
    assert len(zh) == len(paired.METHODS) and all(CJK.search(m) for m in zh)
    assert zh[0].startswith(paired.LEVEL) and str(paired.ALPHA) in zh[2] and CJK.search(paired.methods_short())
    assert paired.METHODS[0].startswith("95% intervals. Means:") and "Holm's adjustment across the figures" in paired.METHODS[2]
    i18n.use(i18n.Language.EN)
    assert paired.methods() == paired.METHODS and paired.methods_short() == paired.METHODS_SHORT


def test_the_bots_option_help_in_chinese(runner):
    from gouji_dsl.bots import BOTS
    for command in ("simulate", "diff"):
        zh = runner.invoke(cli, [command, "--help"], env={"GOUJI_LANG": "zh"})
        en = runner.invoke(cli, [command, "--help"])
        assert zh.exit_code == en.exit_code == 0
        en_words, zh_words = " ".join(en.stdout.split()), "".join(zh.stdout.split())
        assert "one bot for every seat" in en_words and "onebotforeveryseat" not in zh_words
        assert "所有座位用同一个机器人" in zh_words and all(name in zh_words for name in BOTS)


@pytest.mark.parametrize("command", ["simulate", "diff", "validate", "show"])
def test_chinese_help_is_wrapped_within_the_width(runner, command):
    from gouji_dsl.tools.compare import disp_width
    r = runner.invoke(cli, [command, "--help"], env={"GOUJI_LANG": "zh", "COLUMNS": "80"}, terminal_width=80)
    assert r.exit_code == 0 and CJK.search(r.stdout)
    # (an option's name and a long unbroken English word may pass the width, as in English)
    wide = [line for line in r.stdout.splitlines() if disp_width(line) > 80 and CJK.search(line)]
    assert not wide, "\n".join(wide)


@pytest.mark.parametrize("command, english", [
    ("simulate", "each with its interval at 95%"), ("diff", "compared with confidence intervals at 95%"),
    ("duel", "with its confidence interval at 95%")])
def test_help_paragraphs_with_a_percentage_in_chinese(runner, command, english):
    en = runner.invoke(cli, [command, "--help"])
    zh = runner.invoke(cli, [command, "--help"], env={"GOUJI_LANG": "zh"})
    assert english in " ".join(en.stdout.split()) and "95% 置信区间" in "".join(zh.stdout.split()).replace("%置", "% 置")
    assert english not in " ".join(zh.stdout.split())


def test_clicks_own_words_in_chinese(runner):
    zh = runner.invoke(cli, ["simulate", "online", "--games", "x"], env={"GOUJI_LANG": "zh"})
    en = runner.invoke(cli, ["simulate", "online", "--games", "x"])
    assert zh.exit_code == en.exit_code == 2
    assert "Error: Invalid value for '--games' / '-n':" in en.stderr and "Try 'cli simulate --help' for help." in en.stderr
    assert "错误：'--games' / '-n' 的值无效：" in zh.stderr and "用 'cli simulate --help' 查看帮助。" in zh.stderr
    assert "Error" not in zh.stderr and "Try" not in zh.stderr


def test_show_vocabulary_frame_in_chinese(runner):
    zh = runner.invoke(cli, ["show", "--vocabulary"], env={"GOUJI_LANG": "zh"})
    en = runner.invoke(cli, ["show", "--vocabulary"])
    assert zh.exit_code == en.exit_code == 0
    assert en.stdout.startswith("Hooks (on:)") and "(no rule: no)" in en.stdout and "How rules combine." in en.stdout
    assert zh.stdout.startswith("钩子（on:）") and "（没有规则时：否）" in zh.stdout and "规则如何组合。" in zh.stdout
    assert "knows:" not in zh.stdout and "(known in:" not in zh.stdout


def test_why_the_native_flow_does_not_play_a_ruleset_follows_the_language(refused_by_the_flow):
    from gouji_dsl.engine import fast
    from gouji_dsl.engine.native import flow
    from gouji_dsl.ruleset.graph import load_graph
    g = load_graph(refused_by_the_flow)
    eng = fast.engine(g)
    if eng is None or not flow.enabled():
        pytest.skip("the native flow is not available here")
    en = flow.fallback_reason(g)
    assert en == "the native game flow does not ask the hook 'after_discard' yet (rule point.threw-away)"
    i18n.use(i18n.Language.ZH)  # (the plan's refusal is kept per graph: shown in the language asked in)
    zh = flow.fallback_reason(g)
    assert zh is not None and CJK.search(zh)
    i18n.use(i18n.Language.EN)
    assert flow.fallback_reason(g) == en
