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
