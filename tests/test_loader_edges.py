"""Issues 22 and 23, the loader's part: the work of reading a ruleset is bounded by its size, CLI
values and paths are usage errors or bad input (never an internal error), and every problem is
reported at the user's line, all of them."""
from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from gouji_dsl.diagnostics import Code
from gouji_dsl.ruleset import settings as settings_mod
from gouji_dsl.tools.cli import cli


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


def cli_run(*args: str):
    res = CliRunner().invoke(cli, list(args))
    assert "Traceback" not in res.output and "Traceback" not in (res.stderr or "")
    assert "internal error" not in res.output and "internal error" not in (res.stderr or "")
    assert res.exception is None or isinstance(res.exception, SystemExit), res.exception
    return res


# ------------------------------------------------------------------------------ 22.4 nested settings
def _nested(levels: int, kind: str) -> str:
    value = "1"
    for i in range(levels):
        if kind == "map" or (kind == "mixed" and i % 2):
            value = "{a: " + value + (", b: 2}" if kind == "mixed" else "}")
        else:
            value = "[" + value + "]"
    return value


@pytest.mark.parametrize("kind", ["map", "mixed"])
def test_inferring_a_nested_setting_visits_each_value_once(monkeypatch, kind):
    # issue 22 item 4: infer_type inferred each value twice per level (2**levels calls)
    import yaml
    calls = 0
    real = settings_mod.infer_type

    def counting(value, kinds):
        nonlocal calls
        calls += 1
        return real(value, kinds)

    monkeypatch.setattr(settings_mod, "infer_type", counting)
    value = yaml.safe_load(_nested(40, kind))
    counting(value, ())
    nodes = 41 if kind == "map" else 41 + 20  # every map of the mixed form has one more value (b: 2)
    assert calls == nodes


@pytest.mark.parametrize("levels", [20, 60])
@pytest.mark.parametrize("kind", ["map", "mixed"])
def test_a_deeply_nested_setting_validates_and_shows(tmp_path, levels, kind):
    p = write(tmp_path, "deep.yaml", f"ruleset: deep\nextends: base\nsettings:\n  deep: {_nested(levels, kind)}\n")
    res = cli_run("validate", str(p))
    assert res.exit_code == 0, res.stderr
    res = cli_run("show", str(p), "--settings")
    assert res.exit_code == 0, res.stderr
    child = write(tmp_path, "child.yaml", f"ruleset: child\nextends: deep.yaml\nsettings:\n"
                  f"  deep: {_nested(levels, kind).replace('1', 'x')}\n")
    res = cli_run("validate", str(child))
    assert res.exit_code == 1 and f"{child}:4:" in res.stderr and f"[{Code.SETTING_TYPE_MISMATCH}]" in res.stderr, res.stderr


# ------------------------------------------------------------------------------ 22.12 the record limit scan
@pytest.mark.parametrize("body", ["x" * 2_000_000, "\\n" * 1_000_000, "\\u00e9x\\\"" * 200_000, "汉" * 1_000_000])
def test_the_record_limit_scan_keeps_no_state_per_character(body):
    # issue 22 item 12: the scan's string pattern kept ~120 bytes of backtracking state a character
    # (a record with a 15,000,000-character string took 1.8 GB to replay)
    import tracemalloc

    from gouji_dsl.engine import records
    text = '{"format": "gouji-record/1", "ruleset": "online", "seed": "' + body + '", "events": [[[1]]]}'
    tracemalloc.start()
    try:
        records._check_limits(text, "r.json")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < len(text) // 10, peak  # nothing of the order of the string is kept (was 60x its size)


@pytest.mark.parametrize("tail", ['\\"' * 100_000, '"' + '\\"' * 100_000, "x" * 100_000 + "\\"])
def test_an_unterminated_string_stops_the_scan_and_is_a_json_error(tail):
    # each later quote started a new scan to the end of the text (quadratic)
    from gouji_dsl.diagnostics import GoujiError
    from gouji_dsl.engine.records import parse_record
    with pytest.raises(GoujiError) as e:
        parse_record('{"format": "gouji-record/1", "seed": "' + tail, "r.json")
    assert [d.code for d in e.value.diagnostics] == [Code.JSON_SYNTAX]


def test_limits_are_still_found_after_long_strings():
    from gouji_dsl.diagnostics import GoujiError
    from gouji_dsl.engine.records import parse_record
    for text, code in (('{"a": "' + "\\\"[" * 1000 + '", "b": ' + "[" * 100 + "]" * 100 + "}", Code.TOO_DEEP),
                       ('{"a": "x\\\\", "b": ' + "1" * 50 + "}", Code.NUMBER_TOO_LARGE),
                       ('{"a": "x", "b": NaN}', Code.JSON_SYNTAX)):
        with pytest.raises(GoujiError) as e:
            parse_record(text, "r.json")
        assert [d.code for d in e.value.diagnostics] == [code]
