"""Issue 26 (中文), the library and command line after the closing note's list: one word per meaning
(座位, seed 002), the Chinese heading of leading (发牌, seed 002), simulate's teams and timing line,
an explanation naming a setting once."""
from __future__ import annotations

from pathlib import Path

import pytest

from gouji_dsl import i18n
from gouji_dsl.tools.cli import cli

SEEDS = Path("/work/shared/seeds")
PO = Path(__file__).resolve().parent.parent / "gouji_dsl" / "locale" / "zh" / "LC_MESSAGES" / "{domain}.po"

#: seed 002: the seat is 座位 ("不同阵营的玩家座位交错"); a seat by its number is "N 号座位" (as base.yaml's
#: "1号座位先抓牌")
SEAT_SEED = "不同阵营的玩家座位交错"
#: seed 002: leading (the first play of a trick) is 发牌
LEAD_SEED = '第一次出牌是"发牌"'
#: seed 001: a team (联邦) is the seats 1, 3, 5 or 2, 4, 6
TEAM_SEED = "①③⑤为一方联邦"

pytestmark = pytest.mark.usefixtures("zh_catalog")  # the Chinese catalog is compiled (tests/conftest.py)


def _seed_text() -> str:
    if not SEEDS.is_dir():
        pytest.skip("the seeds are not here")
    return "".join(p.read_text(encoding="utf-8") for p in sorted(SEEDS.glob("*.txt")))


def test_the_seeds_say_the_words_chosen():
    text = _seed_text()
    assert SEAT_SEED in text and LEAD_SEED in text and TEAM_SEED in text


@pytest.mark.parametrize("domain", [i18n.DOMAIN, i18n.APP_DOMAIN])
def test_a_seat_is_one_word_in_every_message(domain):
    """号位 (not in any seed) is gone: a seat is 座位, seat N is N 号座位 (the library's and the app's)."""
    po = Path(str(PO).format(domain=domain))
    strs = [line for line in po.read_text(encoding="utf-8").splitlines() if not line.startswith("msgid")]
    assert not [s for s in strs if "号位" in s.replace("号座位", "")]
    assert any("号座位" in s for s in strs)


def test_the_heading_of_leading_says_what_fa_pai_means_there(runner):
    r = runner.invoke(cli, ["--lang", "zh", "doc", "qingdao"])
    assert r.exit_code == 0, r.output
    heads = [line for line in r.stdout.splitlines() if line[:1].isdigit() and ". " in line]
    assert any(h.endswith(". 发牌（每一轮的第一次出牌）") for h in heads), heads


def test_simulate_names_the_teams_by_their_seats_and_its_engine_in_chinese(runner):
    zh = runner.invoke(cli, ["--lang", "zh", "simulate", "online", "--games", "4", "--workers", "1"])
    assert zh.exit_code == 0, zh.output
    assert "联邦 1（1, 3, 5 号座位）" in zh.stdout and "联邦 2（2, 4, 6 号座位）" in zh.stdout
    assert "第 1 队" not in zh.stdout
    timing = next(line for line in zh.stdout.splitlines() if line.startswith("用时"))
    assert "generated" not in timing and "local" not in timing and "引擎" in timing
    en = runner.invoke(cli, ["--lang", "en", "simulate", "online", "--games", "4", "--workers", "1"])
    assert "team 1 (seats 1, 3, 5)" in en.stdout and ("native engine" in en.stdout or "generated engine" in en.stdout)


def test_an_explanation_names_a_setting_once(runner):
    r = runner.invoke(cli, ["show", "qingdao", "--explain", "1 play 3"])
    assert r.exit_code == 0, r.output
    assert "setting first_lead: {rank: 3, min_same_suit: 2}, rules/base.yaml:" in r.stdout.replace("<bundled>", "rules")
    assert r.stdout.count("first_lead") == 1


def test_diff_in_chinese_breaks_lines_as_chinese_is_set(runner):
    """``gouji diff`` lays out with tools/textlayout.py: no line over the width, no 、。，）” at a line
    start, and a Chinese sentence keeps its words (no space put between two characters)."""
    from gouji_dsl.i18n import display_width
    from gouji_dsl.tools.textlayout import NO_START
    r = runner.invoke(cli, ["--lang", "zh", "diff", "online", "rulebook"], env={"COLUMNS": "100"})
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    assert max(display_width(line) for line in lines) <= 100
    cells = [c.strip() for line in lines for c in line.split("│")]
    assert not [c for c in cells if c[:1] in NO_START and c[:1] not in ".:"], cells
    assert "（没有）" in r.stdout and "(absent)" not in r.stdout


BROKEN = """\
ruleset: broken
extends: online
settings:
  nothing_reads_me: 3
rules:
  - id: x.y
    on: play
    allow: nonsense(
"""


@pytest.mark.parametrize("strict", [False, True])
def test_validate_says_which_checks_its_errors_hold_back(runner, tmp_path, strict):
    """All problems at once: the warnings of settings nothing reads and the lint need the compiled
    ruleset; a file with errors is told they did not run (and why), not silently spared them."""
    f = tmp_path / "broken.yaml"
    f.write_text(BROKEN, encoding="utf-8")
    args = ["validate", *(["--strict"] if strict else []), str(f)]
    r = runner.invoke(cli, args)
    assert r.exit_code == 1 and "[ExpressionSyntax]" in r.stderr
    note = r.stderr.strip().splitlines()[-1]
    assert note.startswith(f"{f}: not checked yet: the warnings of settings nothing reads")
    assert ("the lint (--strict)" in note) == strict and "errors stop" in note
    import json
    doc = json.loads(runner.invoke(cli, [*args, "--format", "json"]).stdout)
    assert doc["files"][0]["held_back"] == (["unread-settings", "lint"] if strict else ["unread-settings"])
    zh = runner.invoke(cli, ["--lang", "zh", *args])
    assert zh.stderr.strip().splitlines()[-1].startswith(f"{f}: 还没有检查：没有规则读取的设置的警告")
    f.write_text(BROKEN.split("rules:")[0], encoding="utf-8")  # fixed: the warning is shown, nothing held back
    ok = runner.invoke(cli, ["validate", str(f), "--format", "json"])
    got = json.loads(ok.stdout)["files"][0]
    assert got["held_back"] == [] and "UnreadSetting" in {d["code"] for d in got["diagnostics"]}


SOURCES = """\
ruleset: srcs
extends: online
source: {en: "seed 001, the pass rule", zh: "资料 001，过牌"}
settings:
  yield_to:
    value: 2
    says: {en: "Yield to two.", zh: "让两家。"}
    source: {en: "seed 001, yielding", zh: "资料 001，让牌"}
"""


def test_a_source_note_may_be_given_per_language(runner, tmp_path):
    f = tmp_path / "srcs.yaml"
    f.write_text(SOURCES, encoding="utf-8")
    assert runner.invoke(cli, ["validate", "--strict", str(f)]).exit_code == 0
    zh = runner.invoke(cli, ["--lang", "zh", "doc", str(f)]).stdout
    en = runner.invoke(cli, ["--lang", "en", "doc", str(f)]).stdout
    assert "资料 001，过牌" in zh and "资料 001，让牌" in zh and "yielding" not in zh
    assert "seed 001, the pass rule" in en and "seed 001, yielding" in en and "资料" not in en.split("Sources")[-1]
    show = runner.invoke(cli, ["--lang", "zh", "show", str(f)]).stdout
    assert "资料 001，让牌" in show
    diff = runner.invoke(cli, ["--lang", "zh", "diff", "online", str(f)]).stdout
    assert "资料 001，让牌" in diff and "yielding" not in diff


@pytest.mark.parametrize("source, code", [('{en: "x", fr: "y"}', "UnknownLanguage"), ('{zh: ""}', "EmptyText"),
                                          ("{}", "EmptyText")])
def test_a_bad_source_note_is_an_error_at_its_spot(runner, tmp_path, source, code):
    f = tmp_path / "bad.yaml"
    f.write_text(f"ruleset: bad\nextends: online\nsource: {source}\n", encoding="utf-8")
    r = runner.invoke(cli, ["validate", str(f)])
    assert r.exit_code == 1 and f"[{code}]" in r.stderr and f"{f}:3:" in r.stderr


def test_a_plain_source_note_stays_valid(runner, tmp_path):
    f = tmp_path / "plain.yaml"
    f.write_text('ruleset: plain\nextends: online\nsource: "my club"\n', encoding="utf-8")
    assert runner.invoke(cli, ["validate", "--strict", str(f)]).exit_code == 0
    assert "my club" in runner.invoke(cli, ["--lang", "zh", "doc", str(f)]).stdout


#: seed 001 (让牌 2)) and seed 003 (挑牌): the bundled rulesets' Chinese source notes quote the seeds
SOURCE_SEED = "四人乱缠情况下，四人都有让牌和过牌的权利（按出牌顺序出牌）"


def test_the_bundled_rulesets_source_notes_in_chinese(runner):
    assert SOURCE_SEED in _seed_text() and "挑牌" in _seed_text()
    zh = runner.invoke(cli, ["--lang", "zh", "doc", "online"]).stdout
    notes = zh.split("\n出处\n")[-1]
    assert SOURCE_SEED in notes.replace("\n", "").replace(" ", "")
    assert "seed 0" not in notes and "examples" not in notes and "note 2" not in notes
    assert "资料 001，过牌有以下特殊情况 1 和 2" in notes
    qingdao = runner.invoke(cli, ["--lang", "zh", "doc", "qingdao"]).stdout.split("\n出处\n")[-1]
    assert "资料 003（挑牌）" in qingdao and "five games" not in qingdao
    en = runner.invoke(cli, ["--lang", "en", "doc", "online"]).stdout
    assert "seed 001, 过牌 examples 1 and 2" in en


def test_figure_labels_and_place_headers_in_the_active_language():
    from gouji_dsl.ruleset.load.resolving import resolve
    from gouji_dsl.ruleset.words import game_words
    from gouji_dsl.tools.figures import DIFF_FIGURES, figure_label, place_headers
    was = i18n.current()
    try:
        i18n.use(i18n.Language.ZH)
        assert figure_label("sweep_rate") == "串三户率"
        assert all(not any(c.isascii() and c.isalpha() for c in figure_label(k)) for k, _l, _k in DIFF_FIGURES)
        words = game_words(resolve("qingdao"))
        assert place_headers(6, words, words) == ["头科", "二科", "三科", "四科", "二落", "大落"]  # seed 003
        assert place_headers(2) == ["第 1 名", "第 2 名"]  # no ruleset: place N
        i18n.use(i18n.Language.EN)
        assert figure_label("sweep_rate") == "sweep rate (串三户)"
        assert place_headers(6, words, width=10)[0] == "place 1"  # "first out (头科)" does not fit a cell
    finally:
        i18n.use(was)


def test_diffs_simulation_report_in_chinese_heads_places_with_the_rulesets_words(runner):
    r = runner.invoke(cli, ["--lang", "zh", "diff", "online", "qingdao", "--simulate", "10", "--workers", "1"],
                      env={"COLUMNS": "100"})
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    head = next(line for line in lines if line.startswith("座位 "))
    assert head.split() == ["座位", "头科", "二科", "三科", "四科", "二落", "大落"]
    figures = next(line for line in lines if "B − A" in line and "online" in line)
    assert figures.split()[-1] == "效应量" and "effect" not in r.stdout


#: seed 002: the jokers' other names
JOKER_SEED = "大王和小王又称作大花和小花"


def test_the_jokers_names_come_from_the_rulesets_words(runner, tmp_path):
    from gouji_dsl.ruleset.load.resolving import resolve
    from gouji_dsl.ruleset.words import game_words
    assert JOKER_SEED in _seed_text()
    words = game_words(resolve("online"))
    assert (words.card("R", i18n.Language.ZH), words.card("B", i18n.Language.ZH)) == ("大王", "小王")
    assert words.card("E") is None and game_words(resolve("six-deck-eagle")).card("E", i18n.Language.ZH) == "鹰"
    club = tmp_path / "flowers.yaml"
    club.write_text("ruleset: flowers\nextends: online\nwords: {cards: {R: {zh: 大花}, B: {zh: 小花}}}\n",
                    encoding="utf-8")
    v = runner.invoke(cli, ["validate", str(club)])  # the inherited sentences still say 大王: StaleWord
    assert v.exit_code == 0 and "[StaleWord]" in v.stderr and "'大王'" in v.stderr
    zh = runner.invoke(cli, ["--lang", "zh", "doc", str(club)]).stdout
    assert "4 张小花，4 张大花" in zh and "再往上是小花，大花" in zh
    en = runner.invoke(cli, ["--lang", "en", "doc", str(club)]).stdout
    assert "4 小花, 4 大花" in " ".join(en.split())  # (the club's word replaces base's, every language)


def test_a_card_word_for_no_card_is_an_error(runner, tmp_path):
    f = tmp_path / "bad.yaml"
    f.write_text("ruleset: bad\nextends: online\nwords: {cards: {X: {zh: 鬼}}}\n", encoding="utf-8")
    r = runner.invoke(cli, ["validate", str(f)])
    assert r.exit_code == 1 and f"{f}:3:" in r.stderr and "a card of the notation" in r.stderr


def test_a_rulesets_word_for_burn_is_in_the_explanation_and_the_rulebook(runner, tmp_path):
    """F19: a ruleset that calls burning 火牌 (words.terms) gets 火牌 in the program's own sentences too:
    the explanation's burn order and refusal, and the rulebook's heading; English follows its en word."""
    f = tmp_path / "words2.yaml"
    f.write_text('ruleset: words2\nextends: online\nlanguages: [zh, en]\n'
                 'words: {terms: {burn: {zh: "火牌", en: "fire"}}}\n', encoding="utf-8")
    deal = ["--deal", "1=KK33", "--deal", "2=AA44", "--deal", "3=RAA5", "--deal", "4=AA5", "--deal", "5=JJJJ",
            "--deal", "6=99", "--after", "1 play KK", "--leader", "1"]
    zh = runner.invoke(cli, ["--lang", "zh", "show", str(f), "--explain", "3 play AA", *deal])
    assert zh.exit_code == 0, zh.output
    assert "火牌的顺序是 3, 5, 2, 6" in zh.stdout and "是否火牌" in zh.stdout and "烧牌" not in zh.stdout
    en = runner.invoke(cli, ["--lang", "en", "show", str(f), "--explain", "3 play AA", *deal])
    assert "the fire order is 3, 5, 2, 6" in en.stdout
    doc = runner.invoke(cli, ["--lang", "zh", "doc", str(f)])
    heads = [line for line in doc.stdout.splitlines() if line[:1].isdigit() and ". " in line]
    assert "5. 火牌" in heads and "5. 烧牌" not in heads
    base = runner.invoke(cli, ["--lang", "zh", "doc", "online"])  # base's own word: the heading as before
    assert "5. 烧牌" in base.stdout.splitlines()


def test_one_word_per_meaning_in_the_librarys_catalog():
    """The library's Chinese says a team 联邦 (seed 001), the opposite 对头 (seeds 001 and 003 “对门为各自的
    够级对象,称‘对头’”; seed 000 “互称为‘对家’，也叫做‘对门’、‘对头’”: tests/test_zh_wording.py),
    a game played 局 (seed 002 “每局”; 副 is a pack, seed 000 “四副扑克”), an illegal move 不合法,
    a bundled ruleset 自带, seat N “N 号座位”."""
    text = _seed_text()
    assert TEAM_SEED in text and "称“对头”" in text and "每局" in text and "四副扑克" in text
    po = Path(str(PO).format(domain=i18n.DOMAIN)).read_text(encoding="utf-8").split("\nmsgid")
    strs = "".join(entry.partition("msgstr")[2] for entry in po)
    for other in ("队伍", "两队", "对家", "不合规则", "内置", "座位安排", "副中", "全部 {games} 副"):
        assert other not in strs, other
    import re
    assert not re.search(r"\d号座位", strs)


def test_the_operating_systems_reasons_are_said_in_chinese_with_the_same_codes(runner, tmp_path):
    """F17: a folder, a file that is not UTF-8 and a path that cannot be written are said in Chinese (not
    the OS's English), the codes unchanged."""
    (tmp_path / "d.yaml").mkdir()
    (tmp_path / "bad.yaml").write_bytes(b"ruleset: p\n\xff\n")
    r = runner.invoke(cli, ["--lang", "zh", "validate", str(tmp_path / "d.yaml"), str(tmp_path / "bad.yaml")])
    assert r.exit_code == 1
    assert "[NotARuleset]" in r.stderr and "[NotText]" in r.stderr
    assert "是文件夹" in r.stderr and "a folder" not in r.stderr and "invalid start byte" not in r.stderr
    out = runner.invoke(cli, ["--lang", "zh", "doc", "online", "-o", str(tmp_path / "no" / "x.md")])
    assert out.exit_code != 0 and "No such file" not in out.stderr
    assert "没有这个文件或文件夹" in out.stderr or "不是文件夹" in out.stderr, out.stderr
    en = runner.invoke(cli, ["--lang", "en", "validate", str(tmp_path / "d.yaml")])
    assert "a folder" in en.stderr and "[NotARuleset]" in en.stderr


def test_simulate_in_chinese_lines_values_up_and_keeps_a_number_with_its_measure_word(runner):
    """F7: the values after the labels (分差：, 用时：, 座位优势：…) start in one column, and a line never
    breaks between a number and its measure word (20 局, 1 个) nor inside a word of the game."""
    from gouji_dsl.tools import textlayout
    r = runner.invoke(cli, ["--lang", "zh", "simulate", "online", "--games", "4", "--workers", "1"])
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    starts = {display_col(line) for line in lines
              if line.startswith(("分差：", "串三户率：", "座位优势：", "首发方：", "真正选择：", "用时：", "每局平均决策数："))}
    assert len(starts) == 1, starts
    for width in range(8, 30):
        lines = textlayout.wrap("来自全部 20 局（每局边打边计），6 张小王，6 张大王，四人乱缠", width, keep=["大王", "四人乱缠"])
        assert not [line for line in lines if line.endswith(("20", "大", "四人", "乱"))], (width, lines)


def display_col(line: str) -> int:
    """The display column where the value after a label ``…：`` starts."""
    label, _sep, value = line.partition("：")
    return i18n.display_width(label) + 2 + (len(value) - len(value.lstrip()))


@pytest.mark.parametrize("name", ["online", "six-deck-eagle"])
def test_the_rulebook_never_cuts_a_word_of_the_game(runner, name):
    """F18: 大王 (words.cards), 革命, 四人乱缠 (words.terms) are never cut across two lines of the rulebook."""
    r = runner.invoke(cli, ["--lang", "zh", "doc", name])
    assert r.exit_code == 0, r.output
    lines = [line.strip() for line in r.stdout.splitlines()]
    cuts = [(a, b) for a, b in zip(lines, lines[1:])
            for term in ("大王", "小王", "革命", "四人乱缠") for i in range(1, len(term))
            if a.endswith(term[:i]) and b.startswith(term[i:])]
    assert not cuts, cuts


def test_the_chinese_rulebook_cites_the_seeds_by_one_name(runner):
    """F6/F5: the sources list names a seed 资料 00N everywhere (not [SN] beside 资料 001), the header
    uses full-width （）：; the English rulebook keeps its notes as written."""
    zh = runner.invoke(cli, ["--lang", "zh", "doc", "online"])
    assert zh.exit_code == 0, zh.output
    assert "[S1]" not in zh.stdout and "资料 001、002、003（RULES.md §1）" in zh.stdout
    # a source checkout shows rules/online.yaml, an installed package the bundled placeholder (自带)
    assert "online（rules/online.yaml）" in zh.stdout.replace("自带/", "rules/")
    en = runner.invoke(cli, ["--lang", "en", "doc", "online"])
    assert "RULES.md §1 [S1][S2][S3]" in en.stdout


def test_reasons_joined_without_a_semicolon_after_a_chinese_full_stop():
    """F5: two Chinese reasons of a refused move are not joined with “。; ”."""
    from types import SimpleNamespace

    from gouji_dsl.ruleset.graph import Verdict
    from gouji_dsl.tools.scenario_games import _forbade
    trace = [SimpleNamespace(verdict=Verdict.FORBADE, rule_id="engine.turn", text="现在轮到 3 号座位，不是 2 号座位。"),
             SimpleNamespace(verdict=Verdict.FORBADE, rule_id="gouji.opposite-only", text="只有对家能上。"),
             SimpleNamespace(verdict=Verdict.FORBADE, rule_id="x", text="not yours"),
             SimpleNamespace(verdict=Verdict.FORBADE, rule_id="y", text="b")]
    said = _forbade(trace, SimpleNamespace(voided=False))
    assert "。; " not in said and "。 gouji.opposite-only" in said and "not yours; y: b" in said
