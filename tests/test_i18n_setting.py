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
