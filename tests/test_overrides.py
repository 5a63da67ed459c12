"""One-line overrides (``--set KEY=VALUE``, gouji_dsl.ruleset.overrides; issue 28): a generated variant
checked as a variant file's settings are — the same codes, at the option."""
from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from gouji_dsl.diagnostics import Code, GoujiError
from gouji_dsl.resources import display_path, rules_dir
from gouji_dsl.ruleset import overrides
from gouji_dsl.ruleset.check import check
from gouji_dsl.tools.cli import cli


def problems(*sets: str) -> list:
    with pytest.raises(GoujiError) as e:
        overrides.load_graph("online", list(sets))
    return list(e.value.diagnostics)


def variant_codes(tmp_path: Path, settings: str) -> list[str]:
    """The codes `gouji validate` gives a variant file of online with these settings (the oracle)."""
    path = tmp_path / "v.yaml"
    path.write_text("ruleset: v\nextends: online\nsettings:\n" + textwrap.indent(settings, "  ") + "\n", encoding="utf-8")
    return sorted(str(d.code) for d in check(str(path)).diagnostics)


def test_values_are_merged_as_a_variant_files_settings_are() -> None:
    g = overrides.load_graph("online", ["filler_rank=null", "gouji_minimum.2=2", "gouji_minimum.A=3", "place_points.1=5"])
    assert g.name == "online --set filler_rank=null --set gouji_minimum.2=2 --set gouji_minimum.A=3 --set place_points.1=5"
    assert g.settings["filler_rank"] is None
    # RULES.md §3: T 5, J 4, Q 3, K 2, A 2, 2 1 — two keys changed, the others kept (a map merges key by key)
    assert g.settings["gouji_minimum"] == {"T": 5, "J": 4, "Q": 3, "K": 2, "A": 3, "2": 2}
    # RULES.md §9: places score 4, 2, 0, 0, -2, -4 — place 1 changed (a numeric key)
    assert list(g.settings["place_points"].values()) == [5, 2, 0, 0, -2, -4]
    assert g.resolved.chain[:4] == ("--set[4]", "--set[3]", "--set[2]", "--set[1]")


def test_a_number_where_a_card_kind_is_expected_is_that_kind() -> None:
    # (t28: `--set filler_rank=2` was "2 is not a card kind"; the shell eats the quotes of '2')
    g = overrides.load_graph("qingdao", ["buy.ranks=[3, 4]", "filler_rank=2", "stuck_rank= 3"])
    assert (g.settings["buy"]["ranks"], g.settings["filler_rank"], g.settings["stuck_rank"]) == (["3", "4"], "2", "3")
    assert overrides.load_graph("online", ["filler_rank='2'"]).settings["filler_rank"] == "2"
    assert overrides.load_graph("online", ["yield_to=2"]).settings["yield_to"] == 2  # a number stays a number
    # a bad one is still an error, at its own column (after a number made text before it)
    for option, col in (("buy.ranks=[3, X]", 15), ("filler_rank=10", 13), ("filler_rank=[2]", 13)):
        with pytest.raises(GoujiError) as e:
            overrides.load_graph("qingdao", [option])
        [d] = e.value.diagnostics
        assert (d.code, d.path, d.col) == (Code.VALUE_NOT_ALLOWED, "--set[1]", col), option
    from gouji_dsl.tools import sweep
    [p1, p2] = sweep.load_points("qingdao", sweep.parse_grids(["filler_rank=2,null"]))  # sweep --help's example
    assert (p1.settings["filler_rank"], p2.settings["filler_rank"]) == ("2", None)


def test_a_place_the_seats_do_not_have_is_an_error_in_an_override_and_in_a_file(tmp_path: Path) -> None:
    # (t28) RULES.md §9: six seats, places 1..6 — there is no place 7 or 9 to score or sweep
    [d] = problems("place_points.7=5")
    assert (d.code, d.path, d.col) == (Code.OUT_OF_RANGE, "--set[1]", 14)
    [d] = problems("sweep_places=[1,2,9]")
    assert (d.code, d.path, d.col) == (Code.OUT_OF_RANGE, "--set[1]", 19) and "no place 9 with 6 seats" in d.message
    assert variant_codes(tmp_path, "place_points: {7: 5}\nsweep_places: [0, 2]") == [Code.OUT_OF_RANGE] * 2
    assert overrides.load_graph("online", ["sweep_places=[1, 2]"]).settings["sweep_places"] == [1, 2]


def test_a_setting_set_twice_is_an_error_naming_both_options() -> None:
    [d] = problems("yield_to=2", "filler_rank=null", "yield_to=1")
    assert (d.code, d.path, d.col, d.source_line) == (Code.BAD_OVERRIDE, "--set[3]", 1, "yield_to=1")
    assert "--set yield_to=2" in d.message and "--set yield_to=1" in d.message
    from gouji_dsl.tools import sweep
    with pytest.raises(GoujiError) as e:
        sweep.parse_grids(["yield_to=1,2", "filler_rank=null", "yield_to=3"])
    assert [(d.code, d.path) for d in e.value.diagnostics] == [(Code.BAD_OVERRIDE, "--grid[3]")]


def test_a_setting_set_twice_is_reported_alone() -> None:
    # (N1) the later seats=4 is not checked: its consequences (place_points' keys 5 and 6) are not reported
    assert [(d.code, d.path) for d in problems("seats=6", "seats=4")] == [(Code.BAD_OVERRIDE, "--set[2]")]


def test_an_error_an_override_causes_in_the_rulesets_file_is_at_the_option() -> None:
    # (N1) RULES.md §9 scores six places: with four seats the file's place_points keys 5 and 6 are no places
    found = problems("filler_rank=null", "seats=4")
    assert {(d.path, d.line, d.col, d.source_line) for d in found} == {("--set[2]", 1, 7, "seats=4")}
    assert Code.OUT_OF_RANGE in {d.code for d in found}
    assert all("base.yaml:" in d.message for d in found)
    assert "--set[2]:1:7: " in found[0].format()


def test_seats_4_reports_only_the_place_points_it_breaks_in_the_file_as_cited_elsewhere() -> None:
    # (t28d bug 5) score.team-sum reads place_points, so it does not check while place_points is broken:
    # no SaidByNotRead for its said_by (an echo of the real problem); the file is shown as citations show it
    found = problems("seats=4")
    assert [(d.code, d.path, d.col) for d in found] == [(Code.OUT_OF_RANGE, "--set[1]", 7)] * 2
    base = display_path(str(rules_dir() / "base.yaml"))
    line = next(n for n, text in enumerate((rules_dir() / "base.yaml").read_text(encoding="utf-8").splitlines(), 1)
                if text.lstrip().startswith("value: {1: 4"))  # place_points (RULES.md §9)
    assert all(d.message.startswith(f"with --set seats=4, {base}:{line}:") for d in found), [d.message for d in found]


def test_a_whole_value_that_discards_an_earlier_dotted_key_is_an_error_naming_both_options() -> None:
    # maps are merged in order: revolution={place: 4} after revolution.place=3 would silently undo it
    [d] = problems("revolution.place=3", "filler_rank=null", "revolution={place: 4, redeal_at: 2}")
    assert (d.code, d.path, d.col) == (Code.BAD_OVERRIDE, "--set[3]", 12)
    assert "--set revolution.place=3" in d.message and "--set revolution={place: 4, redeal_at: 2}" in d.message
    # a whole value without that key keeps it; a dotted key after a whole value changes one entry of it
    kept = overrides.load_graph("online", ["revolution.place=3", "revolution={redeal_at: 3}"])
    assert kept.settings["revolution"]["place"] == 3 and kept.settings["revolution"]["redeal_at"] == 3
    after = overrides.load_graph("online", ["revolution={place: 4}", "revolution.place=3"])
    assert after.settings["revolution"]["place"] == 3
    from gouji_dsl.tools import sweep
    with pytest.raises(GoujiError) as e:
        sweep.parse_grids(["gouji_minimum.2=1,2", "gouji_minimum={\"3\": 4},{\"2\": 3}"])
    assert [(d.code, d.path) for d in e.value.diagnostics] == [(Code.BAD_OVERRIDE, "--grid[2]")]


@pytest.mark.parametrize(("option", "setting", "col"), [
    ("gouji_minimum.2=0", 'gouji_minimum: {"2": 0}', 17),
    ("yield_to=abc", "yield_to: abc", 10),
    ("filler_rank=Z", "filler_rank: Z", 13),
    ("revolution.place=0", "revolution: {place: 0}", 18),
])
def test_a_bad_value_has_the_variant_files_code_at_the_option(tmp_path: Path, option: str, setting: str, col: int) -> None:
    [d] = problems(option)
    assert variant_codes(tmp_path, setting) == [str(d.code)]
    assert (d.path, d.line, d.col, d.source_line) == ("--set[1]", 1, col, option)
    text = d.format()
    assert text.startswith(f"--set[1]:1:{col}: ")
    assert f"    {option}\n" + " " * (3 + col) + "^" in text


def test_an_empty_value_is_pointed_at_not_the_equals_sign() -> None:
    # (N4) yield_to is a whole number (rules/base.yaml): an empty value is null, at the empty value
    [d] = problems("yield_to=")
    assert (d.code, d.path, d.col) == (Code.SETTING_TYPE_MISMATCH, "--set[1]", 10)
    from gouji_dsl.tools import sweep
    with pytest.raises(GoujiError) as e:
        sweep.load_points("online", sweep.parse_grids(["yield_to=1,,2"]))
    [d] = e.value.diagnostics
    assert (d.code, d.path, d.col) == (Code.SETTING_TYPE_MISMATCH, "--grid[1]", 12)


def test_an_unknown_setting_is_the_files_code_but_an_error(tmp_path: Path) -> None:
    [d] = problems("filler_rnk=null")
    assert variant_codes(tmp_path, "filler_rnk: null") == [Code.UNREAD_SETTING] == [d.code]
    assert d.severity == "error" and (d.path, d.col) == ("--set[1]", 1) and "filler_rank" in (d.hint or "")


def test_every_problem_at_once_each_at_its_option() -> None:
    found = problems("yield_to=x", "filler_rnk=2", "nokey", "a..b=1")
    assert [(d.path, d.code) for d in found] == [
        ("--set[1]", Code.SETTING_TYPE_MISMATCH), ("--set[2]", Code.UNREAD_SETTING),
        ("--set[3]", Code.BAD_OVERRIDE), ("--set[4]", Code.BAD_OVERRIDE)]
    assert found[3].col == 3  # the empty part between the dots


def test_cli_commands_take_set(runner: CliRunner) -> None:
    res = runner.invoke(cli, ["show", "online", "--set", "filler_rank=null"])
    assert res.exit_code == 0, res.stderr
    assert "ruleset online --set filler_rank=null" in res.stdout and "--set[1]:1" in res.stdout
    res = runner.invoke(cli, ["doc", "online", "--set", "gouji_minimum.2=2"])
    assert res.exit_code == 0 and "online --set gouji_minimum.2=2" in res.stdout
    res = runner.invoke(cli, ["simulate", "online", "-n", "4", "--workers", "1", "--json", "--set", "yield_to=1"])
    assert res.exit_code == 0, res.stderr
    assert json.loads(res.stdout)["ruleset"] == "online --set yield_to=1"
    res = runner.invoke(cli, ["duel", "online", "random", "random", "-n", "1", "--json", "--set", "yield_to=1"])
    assert res.exit_code == 0, res.stderr
    res = runner.invoke(cli, ["simulate", "online", "-n", "4", "--set", "yield_to=-1"])
    assert res.exit_code == 1 and "--set[1]:1:10:" in res.stderr and "[OutOfRange]" in res.stderr


def test_show_and_doc_agree_on_a_sentence_an_override_made_stale(runner: CliRunner) -> None:
    """Issue 28 F2: --set gouji_minimum.2=2 changes the map without a sentence: the inherited one
    ("... one 2 ...") no longer holds, so neither show nor doc prints it (the one function
    lint.setting_sentences decides); the map's entry is at the one-line option, line 1, its column."""
    import gouji_dsl
    from gouji_dsl.ruleset.lint import setting_sentences, stale_says
    old = gouji_dsl.load("online").settings["gouji_minimum"].says  # base.yaml's sentence, as written
    option = "gouji_minimum.2=2"
    res = runner.invoke(cli, ["show", "online"])
    assert res.exit_code == 0 and old in res.stdout
    graph = overrides.load_graph("online", [option])
    assert "gouji_minimum" in stale_says(graph.resolved)
    assert setting_sentences(graph.resolved.settings["gouji_minimum"], stale_says(graph.resolved)) == []
    shown = runner.invoke(cli, ["show", "online", "--set", option])
    doc = runner.invoke(cli, ["doc", "online", "--set", option])
    assert shown.exit_code == 0 and doc.exit_code == 0
    assert old not in shown.stdout and " ".join(old.split()[:4]) not in doc.stdout
    assert "none in effect: --set[1] changed the value" in shown.stdout
    # ... nor the source of the sentence no longer said (gouji doc cites none there either)
    said = shown.stdout.splitlines()
    at = next(i for i, line in enumerate(said) if "none in effect" in line)
    assert not said[at + 1].strip().startswith("source:"), said[at + 1]
    source = gouji_dsl.load("online").settings["gouji_minimum"].source
    assert source and f"source: {source}" in res.stdout
    col = option.index("=") + 2
    entry = next(line for line in shown.stdout.splitlines() if line.strip().startswith("2: 2"))
    assert entry.split()[-1] == f"--set[1]:1:{col}"
    head = next(line for line in shown.stdout.splitlines() if line.strip().startswith("gouji_minimum:"))
    assert head.split()[-1] == f"--set[1]:1:{col}"


def test_diff_with_one_ruleset_and_set_compares_it_with_itself_changed(runner: CliRunner) -> None:
    res = runner.invoke(cli, ["diff", "online", "--set", "filler_rank=null", "--format", "json"])
    assert res.exit_code == 0, res.stderr
    diff = json.loads(res.stdout)["diff"]
    assert json.dumps(diff).count("online --set filler_rank=null") >= 1
    assert [s["name"] for s in diff["settings"]] == ["filler_rank"]
    res = runner.invoke(cli, ["diff", "online"])
    assert res.exit_code == 2 and "--set" in res.stderr


def test_diff_set_simulate_reads_like_two_files_and_play_checks_set(runner: CliRunner) -> None:
    res = runner.invoke(cli, ["diff", "online", "--set", "filler_rank=null", "--simulate", "2", "--workers", "1"])
    assert res.exit_code == 0, res.stderr
    out = res.stdout
    # (the bundled file's short name: rules/online.yaml in a checkout, <bundled>/online.yaml installed)
    online = display_path(str(rules_dir() / "online.yaml"))
    assert f"online ({online}) vs online --set filler_rank=null (--set[1])" in out
    # the table is headed by the two names (or, where the long name does not fit a column, A and B with a legend)
    import re
    assert "A: online\nB: online --set filler_rank=null\n" in out or re.search(
        r"\n +online +online --set filler_rank=null +B − A", out), out
    assert "\ndecisions per game  " in out
    from gouji_app.play.command import play_command
    bad = runner.invoke(play_command, ["online", "--set", "yield_to=-1"])
    assert bad.exit_code == 1 and "--set[1]:1:10:" in bad.stderr and "[OutOfRange]" in bad.stderr


def test_a_hook_named_as_a_setting_says_rules_answer_it() -> None:
    # burn_failure is the question the rule burn.failure-last answers (RULES.md §5: 诈烧 → 大落), not a setting
    [d] = problems("burn_failure=next")
    assert d.code == Code.UNREAD_SETTING and "burn.failure-last" in (d.hint or "") and "hook" in (d.hint or "")


def test_the_issue_s_burn_failure_grid_says_how_to_sweep_a_hook_and_the_recipe_works(runner) -> None:
    """(issue 28's `--grid burn_failure=last,next`) refused, positioned, with a hint that says how to sweep a
    hook; the variant the hint and the README name makes it a setting, and the grid then plays."""
    args = ["--grid", "gouji_minimum.2=1,2", "--simulate", "4", "--workers", "1", "--format", "json"]
    bad = runner.invoke(cli, ["sweep", "online", *args, "--grid", "burn_failure=last,next"])
    assert bad.exit_code == 1 and bad.stderr.startswith("--grid[2]:1:1: ") and "[UnreadSetting]" in bad.stderr
    hint = " ".join(line.strip() for line in bad.stderr.splitlines() if "hint:" in line)
    assert "burn.failure-last" in hint and "value: settings.NAME" in hint and "--grid NAME=V1,V2" in hint
    example = "examples/variants/burn-failure-setting.yaml"
    assert example in hint and (Path(__file__).parent.parent / example).is_file()
    readme = (Path(__file__).parent.parent / "README.md").read_text(encoding="utf-8")
    assert f"gouji sweep {example} --grid gouji_minimum.2=1,2 --grid burn_failure_place=last,next" in readme
    ok = runner.invoke(cli, ["sweep", str(Path(__file__).parent.parent / example), *args,
                             "--grid", "burn_failure_place=last,next"])
    assert ok.exit_code == 0, ok.stderr
    got = json.loads(ok.stdout)
    assert len(got["points"]) == 4 and got["points"][0]["same_as"] == "base"  # online's own: 2 as 1 card, last
