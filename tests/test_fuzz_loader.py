"""Fuzzing the loader and `gouji validate` (issue 11): mutated ruleset files either load or give
clean positioned errors — never an exception, a hang or a position outside the file. Bounded (about
20 s); a longer run: ``GOUJI_FUZZ_EXAMPLES=5000 python -m pytest tests/test_fuzz_loader.py``."""
from __future__ import annotations

import os

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gouji_dsl.diagnostics import Diagnostic, GoujiError
from gouji_dsl.resources import rules_dir
from gouji_dsl.ruleset.check import check
from gouji_dsl.ruleset.load.checking import load_text

EXAMPLES = int(os.environ.get("GOUJI_FUZZ_EXAMPLES", "60"))
ONLINE = (rules_dir() / "online.yaml").read_text(encoding="utf-8")
QINGDAO = (rules_dir() / "qingdao.yaml").read_text(encoding="utf-8")

SNIPPETS = ["&a ", "*a", "!!timestamp ", "!!binary ", "<<: ", "? ", "- ", ": ", "{", "}", "[", "]", "'", '"',
            "\t", "\x00", "\u2028", "#", "---\n", "...\n", "%YAML 1.1\n", "9" * 5000, "1e+999", ".nan",
            "extends: /etc/passwd\n", "extends: ../../../../etc/shadow\n", "extends: " + "a" * 300 + "\n",
            "seats: 1000000\n", "  " * 80 + "x: 1\n", "[" * 300, "not " * 300, "settings:\n  x: ",
            "rules:\n  - id: x\n    on: follow\n", "ruleset: fuzz\n", "\ufeff", "é", "够级"]


@st.composite
def mutated(draw) -> str:
    text = draw(st.sampled_from([ONLINE, QINGDAO]))
    for _ in range(draw(st.integers(1, 4))):
        lines = text.split("\n")
        kind = draw(st.sampled_from(["insert", "delete", "duplicate", "replace-char", "snippet-line"]))
        i = draw(st.integers(0, max(len(lines) - 1, 0)))
        if kind == "insert":
            j = draw(st.integers(0, len(text)))
            text = text[:j] + draw(st.sampled_from(SNIPPETS)) + text[j:]
        elif kind == "delete" and lines:
            del lines[i]
            text = "\n".join(lines)
        elif kind == "duplicate" and lines:
            lines.insert(i, lines[i])
            text = "\n".join(lines)
        elif kind == "replace-char" and text:
            j = draw(st.integers(0, len(text) - 1))
            text = text[:j] + draw(st.characters(blacklist_categories=("Cs",))) + text[j + 1:]
        else:
            lines.insert(i, draw(st.sampled_from(SNIPPETS)).rstrip("\n"))
            text = "\n".join(lines)
    return text


def _positioned(d: Diagnostic, text: str, path: str) -> None:
    assert d.message and isinstance(d.code, str)
    if d.path == path and d.line > 0:
        n_lines = len(text.splitlines()) + 1
        assert 1 <= d.line <= n_lines, d.short()
    assert "Traceback" not in d.format()


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_mutated_rulesets_load_or_fail_cleanly(tmp_path_factory, text):
    folder = tmp_path_factory.mktemp("fuzz")
    path = str(folder / "fuzz.yaml")
    try:
        load_text(text, path)
    except GoujiError as e:
        for d in e.diagnostics:
            _positioned(d, text, path)
    result = check(path, text=text)  # never raises
    for d in result.diagnostics:
        _positioned(d, text, path)
    assert result.ok or result.errors
