"""The language setting (issue 26): --lang, then GOUJI_LANG, then the locale, else English."""
from __future__ import annotations

import pytest

from gouji_dsl.i18n import Language, UnknownLanguage, parse, resolve


def test_order_cli_then_env_then_locale():
    env = {"GOUJI_LANG": "en", "LANG": "zh_CN.UTF-8"}
    assert resolve("zh", env) is Language.ZH
    assert resolve(None, env) is Language.EN
    assert resolve(None, {"LANG": "zh_CN.UTF-8"}) is Language.ZH
    assert resolve(None, {"LC_ALL": "C", "LANG": "zh_CN.UTF-8"}) is Language.EN  # LC_ALL wins
    assert resolve(None, {"LANG": "de_DE.UTF-8"}) is Language.EN
    assert resolve(None, {}) is Language.EN


@pytest.mark.parametrize("code", ["zh", "ZH", "zh_CN", "zh-Hans", "zh_CN.UTF-8"])
def test_codes(code):
    assert parse(code) is Language.ZH


@pytest.mark.parametrize("value,source", [("fr", "--lang"), ("xx", "GOUJI_LANG")])
def test_unknown_language_is_an_error(value, source):
    with pytest.raises(UnknownLanguage, match="unknown language"):
        resolve(value if source == "--lang" else None, {"GOUJI_LANG": value})


def test_an_empty_lang_is_an_error_not_english():
    """A fresh tester (issue 26): ``--lang ''`` gave English silently while ``--lang xx`` was an error."""
    with pytest.raises(UnknownLanguage):
        resolve("", {})
    from click.testing import CliRunner

    from gouji_dsl.tools.cli import cli
    result = CliRunner().invoke(cli, ["--lang", "", "validate", "online"])
    assert result.exit_code == 2 and "unknown language" in result.output, result.output
