"""Issue 9 item 6: `gouji show --settings [RULESET]` and docs/settings.md, from one source of data
(the setting-type layer). Regenerate docs/settings.md with
``gouji show --settings --format markdown > docs/settings.md``."""
from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

pytest.importorskip("gouji_dsl.ruleset.settings")

from gouji_dsl.tools.cli import cli
from gouji_dsl.tools.settings_ref import reference_markdown, rows

DOC = Path(__file__).resolve().parent.parent / "docs" / "settings.md"


def test_docs_settings_md_is_in_sync():
    assert DOC.read_text(encoding="utf-8") == reference_markdown(), \
        "docs/settings.md is stale: gouji show --settings --format markdown > docs/settings.md"


def test_show_settings_lists_every_setting_with_type_allowed_default_sentence_source():
    import gouji_dsl
    resolved = gouji_dsl.load("online")
    got = {r.name: r for r in rows(resolved)}
    assert set(resolved.settings) <= set(got)
    seats = got["seats"]
    assert seats.type.startswith("int") and seats.value == 6 and seats.says and seats.source
    comparison = got["comparison"]
    assert {k.key for k in comparison.keys} >= {"same_count", "joker_cover"}
    res = CliRunner().invoke(cli, ["show", "--settings", "online"])
    assert res.exit_code == 0, res.output
    for name in resolved.settings:
        assert f"\n{name}: " in res.output
    assert "says:" in res.output and "source:" in res.output and "allowed:" in res.output
