"""Golden files per pipeline stage for every bundled ruleset: the resolved ruleset (`gouji show`),
the rule graph (`gouji show --graph`) and the rulebook (`gouji doc --format markdown`), in English
and in Chinese (`gouji doc --lang zh --format markdown`: the rulesets' Chinese sentences and the doc's
own words from the compiled `gouji` catalog). The AST stage has its own goldens (tests/test_golden_ast.py).

After an intended change, regenerate with
``GOUJI_UPDATE_GOLDEN=1 python -m pytest tests/test_golden_stages.py`` and review the diff."""
from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

import gouji_dsl
from gouji_dsl import i18n
from gouji_dsl.i18n import Language
from gouji_dsl.ruleset.load.finding import list_bundled
from gouji_dsl.tools import render
from gouji_dsl.tools.doc import ruleset_doc

GOLDEN = Path(__file__).resolve().parent / "golden"

# A bundled file shows as rules/NAME.yaml from a source checkout and as <bundled>/NAME.yaml from an
# installed package (resources.display_path); goldens keep the installed form.
_CHECKOUT_PATH = re.compile(r"(?<![\w./<>-])rules/([\w.-]+\.yaml)")


def _normalised(text: str, lang: Language = Language.EN) -> str:
    return _CHECKOUT_PATH.sub(lambda m: i18n.catalog(lang=lang).gettext("<bundled>/{name}").format(name=m.group(1)), text)

STAGES = {
    "resolved": ("txt", lambda name: render.resolved_text(gouji_dsl.load(name))),
    "graph": ("txt", lambda name: render.graph_text(gouji_dsl.compile(gouji_dsl.load(name)))),
    "doc": ("md", lambda name: ruleset_doc(gouji_dsl.compile(gouji_dsl.load(name)), "markdown")),
    "doc-zh": ("md", lambda name: ruleset_doc(gouji_dsl.compile(gouji_dsl.load(name)), "markdown", lang=Language.ZH)),
}


@pytest.mark.parametrize("stage", list(STAGES))
@pytest.mark.parametrize("name", list_bundled())
def test_stage_golden(stage, name):
    ext, make = STAGES[stage]
    text = _normalised(make(name), Language.ZH if stage.endswith("-zh") else Language.EN)  # (自带/base.yaml in Chinese)
    path = GOLDEN / stage / f"{name}.{ext}"
    if os.environ.get("GOUJI_UPDATE_GOLDEN"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"no golden file {path}: run with GOUJI_UPDATE_GOLDEN=1"
    assert text == path.read_text(encoding="utf-8"), \
        f"{stage} of {name} changed: if intended, regenerate (see this module's doc) and review the diff"
