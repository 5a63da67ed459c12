"""Issue 26 (中文), the command line after a fresh tester's findings (/work/notes/t26.md): the
rulesets' own sentences in the active language, Chinese frames, words of the game."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from gouji_dsl import i18n
from gouji_dsl.tools.cli import cli

#: rulebook.yaml's deck sentence (says: {en: …, zh: …})
DECK_EN = "ten 3s and ten 4s are taken out"
DECK_ZH = "从四副扑克牌中抽出10张“3”、10张“4”"


@pytest.fixture(autouse=True)
def _catalog_installed():
    assert i18n.has_catalog(i18n.Language.ZH), "python setup.py build_ext --inplace (docs/translating.md)"


@pytest.fixture
def runner() -> CliRunner:
    try:
        return CliRunner(mix_stderr=False)  # click < 8.2
    except TypeError:
        return CliRunner()


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
