"""Chunked, streaming runs (gouji_dsl.tools.runs): the same totals whatever the executor, workers or
chunking; output folders, resume, merging folders (`gouji report`), --until-halfwidth; Dask."""
from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner

from gouji_dsl.ruleset.graph import load_graph
from gouji_dsl.tools.cli import cli
from gouji_dsl.tools.paired import paired_simulation
from gouji_dsl.tools.runchunks import play_chunk
from gouji_dsl.tools.runfiles import RunError
from gouji_dsl.tools.runfolders import load_runs
from gouji_dsl.tools.runs import Until, execute
from gouji_dsl.tools.runspec import RunSpec, SimulationCancelled, fingerprint

# one worker of pytest -n runs this module's Dask clusters (and the port 8787 test) one after another
pytestmark = pytest.mark.xdist_group("dask")


@pytest.fixture(scope="module")
def graphs():
    return load_graph("online"), load_graph("rulebook")


def figures(report) -> dict:
    return report.to_dict(timing=False)


def test_chunking_and_workers_do_not_change_the_report(graphs):
    a, b = graphs  # rulebook plays matches of 5: chunks are whole matches
    one = paired_simulation(a, b, 12, seed=3, workers=1, top=3, chunk_size=5)
    other = paired_simulation(a, b, 12, seed=3, workers=1, top=3, chunk_size=10)
    pool = paired_simulation(a, b, 12, seed=3, workers=2, top=3, chunk_size=5, executor="process")
    assert one.chunk_size == 5 and other.chunk_size == 10 and pool.executor == "process"
    assert figures(one) == figures(other) == figures(pool)
    assert one.to_dict(records=True, timing=False) == pool.to_dict(records=True, timing=False)


def test_chunks_hold_totals_not_games(graphs):
    a, b = graphs
    spec = RunSpec((a.resolved, b.resolved), 9, matches=False)
    small = json.dumps(play_chunk((a, b), spec, 0, 2).to_json())
    large = json.dumps(play_chunk((a, b), spec, 0, 12).to_json())
    # a chunk's size does not grow with its games (only the spread histogram and counts may)
    assert len(large) < 1.5 * len(small)


def test_fingerprint_ignores_where_but_not_what(tmp_path, graphs):
    from gouji_dsl.ruleset.load.resolving import resolve, resolve_text
    online = resolve("online")
    text = Path(online.path).read_text(encoding="utf-8")
    moved = resolve_text(text, tmp_path / "elsewhere.yaml", search=[str(Path(online.path).parent)])
    assert fingerprint(moved) == fingerprint(online)
    assert fingerprint(graphs[1].resolved) != fingerprint(online)


def test_interrupted_run_resumes_to_the_same_report(graphs, tmp_path):
    a, b = graphs
    full = paired_simulation(a, b, 10, seed=2, workers=1, top=2, chunk_size=5, records=False)
    cancel = threading.Event()

    def progress(done: int, total: int) -> None:
        if done >= 5:
            cancel.set()  # stop after the first chunk

    out = tmp_path / "run"
    with pytest.raises(SimulationCancelled) as info:
        paired_simulation(a, b, 10, seed=2, workers=1, top=2, chunk_size=5, out=out, progress=progress,
                          cancel=cancel)
    assert info.value.chunks_written == 1 and (out / "chunk-000000000-000000005.json").is_file()
    merged = load_runs([out])
    assert merged.games == 5 and merged.missing == ["seed 2: deals 5–9"]
    with pytest.raises(RunError, match="--resume"):
        paired_simulation(a, b, 10, seed=2, workers=1, top=2, chunk_size=5, out=out)
    with pytest.raises(RunError, match="seed"):
        paired_simulation(a, b, 10, seed=3, workers=1, top=2, chunk_size=5, out=out, resume=True)
    resumed = paired_simulation(a, b, 10, seed=2, workers=1, top=2, chunk_size=5, out=out, resume=True,
                                records=False)
    assert figures(resumed) == figures(full)
    assert load_runs([out]).missing == []


def test_report_merges_folders_of_several_seeds(graphs, tmp_path):
    a, b = graphs
    for seed in (1, 2):
        paired_simulation(a, b, 5, seed=seed, workers=1, top=3, out=tmp_path / f"s{seed}", records=False)
    both = load_runs([tmp_path / "s1", tmp_path / "s2", tmp_path / "s1"])  # a folder twice counts once
    assert both.games == 10 and both.seeds == [1, 2]
    one = load_runs([tmp_path / "s1"]).totals
    one.merge(load_runs([tmp_path / "s2"]).totals)
    assert both.totals.to_json() == one.to_json()
    assert {d.seed for d in both.totals.divergent} <= {"1", "2"}
    res = CliRunner().invoke(cli, ["report", str(tmp_path / "s1"), str(tmp_path / "s2"), "--format", "json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["games"] == 10 and data["seed"] == [1, 2] and "p_adjusted" in data["differences"]["decisions"]
    # another comparison cannot be merged in
    paired_simulation(a, a, 5, seed=1, workers=1, out=tmp_path / "same", records=False)
    res = CliRunner().invoke(cli, ["report", str(tmp_path / "s1"), str(tmp_path / "same")])
    assert res.exit_code == 1 and "not a run of the same comparison" in res.stderr
    res = CliRunner().invoke(cli, ["report", str(tmp_path)])
    assert res.exit_code == 1 and "no run.json" in res.stderr


def test_overlapping_chunks_of_one_seed_are_refused(graphs, tmp_path):
    a, b = graphs
    paired_simulation(a, b, 10, seed=4, workers=1, chunk_size=5, out=tmp_path / "x", records=False)
    paired_simulation(a, b, 10, seed=4, workers=1, chunk_size=10, out=tmp_path / "y", records=False)
    with pytest.raises(RunError, match="overlap"):
        load_runs([tmp_path / "x", tmp_path / "y"])


def test_until_halfwidth_stops_at_a_chunk_boundary(graphs, tmp_path):
    a, _ = graphs
    b = load_graph("qingdao")
    wide = Until(halfwidth=1000.0, max_games=50)
    r = paired_simulation(a, b, 50, seed=5, workers=1, chunk_size=8, until=wide, matches=False,
                          out=tmp_path / "u", records=False)
    # the first chunk boundary from MIN_CLUSTERS_TO_STOP (30) clusters on: 32 deals
    assert r.games == 32 and r.stopped_by == "halfwidth"
    assert len(list((tmp_path / "u").glob("chunk-*"))) == 4
    narrow = Until(halfwidth=1e-9, max_games=8, figure="decisions")
    r = paired_simulation(a, b, 8, seed=5, workers=2, chunk_size=4, until=narrow, matches=False, records=False)
    assert r.games == 8 and r.stopped_by == "games"
    with pytest.raises(KeyError):
        paired_simulation(a, b, 8, seed=5, workers=1, until=Until(1.0, 8, "no_such_figure"))


def test_simulate_command_out_and_report(tmp_path):
    runner = CliRunner()
    res = runner.invoke(cli, ["simulate", "online", "--games", "6", "--seed", "2", "--json", "--workers", "1",
                              "--out", str(tmp_path / "sim")])
    assert res.exit_code == 0, res.stderr
    summary = json.loads(res.stdout)
    assert summary["games"] == 6 and set(summary["intervals"]) >= {"decisions", "sweep_rate", "team_score.1"}
    res = runner.invoke(cli, ["report", str(tmp_path / "sim"), "--format", "json"])
    assert res.exit_code == 0, res.stderr
    again = json.loads(res.stdout)
    for key in ("games", "mean_decisions", "place_distribution", "intervals", "team_score_mean"):
        assert again[key] == summary[key]
    res = runner.invoke(cli, ["simulate", "online", "--games", "6", "--resume"])
    assert res.exit_code == 2 and "--resume needs --out" in res.stderr
    res = runner.invoke(cli, ["simulate", "online", "--games", "6", "--until-halfwidth", "0.5", "--figure", "nope"])
    assert res.exit_code == 1 and "unknown figure 'nope'" in res.stderr


def test_diff_run_options(tmp_path):
    runner = CliRunner()
    res = runner.invoke(cli, ["diff", "online", "rulebook", "--out", str(tmp_path / "d")])
    assert res.exit_code == 2 and "--out needs --simulate" in res.stderr
    res = runner.invoke(cli, ["diff", "online", "rulebook", "--simulate", "5", "--workers", "1", "--format", "json",
                              "--out", str(tmp_path / "d")])
    assert res.exit_code == 0, res.stderr
    sim = json.loads(res.stdout)["simulation"]
    res = runner.invoke(cli, ["report", str(tmp_path / "d"), "--format", "json"])
    rep = json.loads(res.stdout)
    assert {k: rep[k] for k in ("stats", "differences", "divergent")} == {
        k: sim[k] for k in ("stats", "differences", "divergent")}
    res = runner.invoke(cli, ["report", str(tmp_path / "d")])
    assert res.exit_code == 0 and "Statistics:" in res.stdout and "Holm" in res.stdout


def test_dask_cluster_gives_the_process_pool_report(graphs):
    """A small paired comparison on a local Dask cluster and on the process pool: the same JSON."""
    pytest.importorskip("distributed")
    a, b = graphs
    pool = paired_simulation(a, b, 10, seed=7, workers=2, top=2, executor="process", records=False)
    import socket
    import warnings
    taken = socket.socket()
    try:
        taken.bind(("127.0.0.1", 8787))  # the port Dask's HTTP server asks for first: taken (warned before)
    except OSError:
        pass  # taken already
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        dask = paired_simulation(a, b, 10, seed=7, workers=2, top=2, executor="dask", records=False)
    taken.close()
    assert not [w for w in caught if "already in use" in str(w.message)]
    assert dask.executor == "dask" and pool.executor == "process"
    assert json.dumps(figures(dask), sort_keys=True) == json.dumps(figures(pool), sort_keys=True)


def test_execute_rejects_a_folder_of_stray_chunks(graphs, tmp_path):
    a, b = graphs
    out = tmp_path / "stray"
    out.mkdir()
    (out / "chunk-000000000-000000005.json").write_text("{}", encoding="utf-8")
    with pytest.raises(RunError, match="no run.json"):
        execute(RunSpec((a.resolved, b.resolved), 1), 5, executor="local", out=out, graphs=(a, b))


def test_resumed_run_speed_counts_only_the_deals_played_now(graphs, tmp_path):
    """Deals read back by --resume are not played in elapsed_s: games/s counts the played ones."""
    a, b = graphs
    out = tmp_path / "r"
    first = paired_simulation(a, b, 10, seed=6, workers=1, chunk_size=5, out=out, records=False)
    assert first.resumed_games == 0 and first.games_per_s > 0
    again = paired_simulation(a, b, 10, seed=6, workers=1, chunk_size=5, out=out, resume=True, records=False)
    assert again.resumed_games == 10 and again.games_per_s == 0.0  # nothing was played
    data = again.to_dict()
    assert data["resumed_games"] == 10 and data["games_per_s"] == 0.0
    res = CliRunner().invoke(cli, ["simulate", "online", "-n", "6", "--workers", "1", "--json", "--out",
                                   str(tmp_path / "s")])
    assert res.exit_code == 0, res.stderr
    res = CliRunner().invoke(cli, ["simulate", "online", "-n", "6", "--workers", "1", "--json", "--out",
                                   str(tmp_path / "s"), "--resume"])
    summary = json.loads(res.stdout)
    assert summary["resumed_games"] == 6 and summary["games_per_s"] is None


def test_resume_keeps_the_runs_chunk_size_and_may_add_deals(graphs, tmp_path):
    """The default chunk size depends on N: resuming with a larger N keeps the folder's chunks."""
    a, b = graphs
    out = tmp_path / "grow"
    small = paired_simulation(a, b, 10, seed=8, workers=1, out=out, records=False)
    grown = paired_simulation(a, b, 20, seed=8, workers=1, out=out, resume=True, records=False)
    assert grown.chunk_size == small.chunk_size and grown.resumed_games == 10
    assert figures(grown) == figures(paired_simulation(a, b, 20, seed=8, workers=1, records=False))
    with pytest.raises(RunError, match="chunk size was .*leave out --chunk-size"):
        paired_simulation(a, b, 20, seed=8, workers=1, out=out, resume=True, chunk_size=small.chunk_size + 5,
                          records=False)


def test_until_halfwidth_says_whether_the_target_was_reached(graphs):
    a, b = graphs
    never = Until(halfwidth=1e-9, max_games=5)
    r = paired_simulation(a, b, 5, seed=5, workers=1, until=never, matches=False, records=False)
    assert r.precision is not None and r.precision["reached"] is False and r.precision["figure"] == "score_spread"
    assert r.to_dict()["until"]["target"] == 1e-9
    from gouji_dsl.tools.paired import report_text
    assert "Target not reached" in report_text(r)
    r = paired_simulation(a, b, 40, seed=5, workers=1, chunk_size=10, until=Until(1000.0, 40), matches=False,
                          records=False)
    assert r.precision is not None and r.precision["reached"] is True and "Stopped after 30 deals" in report_text(r)


def test_until_halfwidth_does_not_stop_on_a_few_equal_differences(graphs):
    """Two deals with the same score-spread difference give a zero-width interval: not a reason to stop."""
    a, b = graphs
    r = paired_simulation(a, b, 12, seed=5, workers=1, chunk_size=1, until=Until(1e-9, 12), matches=False,
                          records=False)
    assert r.games == 12 and r.stopped_by == "games"
    runner = CliRunner()
    res = runner.invoke(cli, ["simulate", "online", "-n", "4", "--workers", "1", "--until-halfwidth", "1e-9"])
    assert res.exit_code == 0 and "Target not reached" in res.stdout and "score spread" in res.stdout


def test_simulate_lists_the_figures_it_accepts():
    res = CliRunner().invoke(cli, ["simulate", "online", "-n", "4", "--until-halfwidth", "1", "--figure", "nope"])
    assert res.exit_code == 1 and "team_score.1, team_score.2" in res.stderr and "team_score.T" not in res.stderr
    res = CliRunner().invoke(cli, ["simulate", "online", "-n", "4", "--workers", "1", "--until-halfwidth", "100",
                                   "--figure", "team_score.2", "--json"])
    assert res.exit_code == 0, res.stderr
    assert json.loads(res.stdout)["until"]["figure"] == "team_score.2"


def test_ctrl_c_while_a_command_loads_is_one_line_and_exit_130(monkeypatch):
    import gouji_dsl.tools.exits as exits_module

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(exits_module, "load_graph", interrupted)  # what every command loads its ruleset with
    res = CliRunner().invoke(cli, ["simulate", "online", "-n", "4"])
    assert res.exit_code == 130 and res.stderr.strip() == "interrupted"


def test_console_script_entry_interrupted_while_importing(monkeypatch, capsys):
    import builtins
    import sys

    from gouji_app import entry
    real_import = builtins.__import__

    def fake_import(name, globals=None, locals=None, fromlist=(), level=0):
        if (name, level) in (("gouji_app.cli", 0), ("cli", 1)):
            raise KeyboardInterrupt
        return real_import(name, globals, locals, fromlist, level)

    monkeypatch.delitem(sys.modules, "gouji_app.cli", raising=False)
    monkeypatch.setattr(builtins, "__import__", fake_import)
    with pytest.raises(SystemExit) as info:
        entry.main(["--version"])
    assert info.value.code == 130 and capsys.readouterr().err == "interrupted\n"


def test_a_second_ctrl_c_while_the_workers_close_is_not_a_traceback(graphs, monkeypatch):
    """Ctrl+C pressed again while the pool or cluster closes: the run's outcome is still reported."""
    from concurrent.futures import Future

    from gouji_dsl.tools import runchunks, runpools, runs

    class Closing(runpools.Backend):
        def __init__(self, spec, workers):
            self.spec = spec

        def submit(self, start, stop):
            f: Future = Future()
            f.set_result(runchunks.run_chunk(self.spec, start, stop))
            return f

        def close(self, abort):
            raise KeyboardInterrupt

    monkeypatch.setattr(runs, "ProcessBackend", Closing)
    a, b = graphs
    res = execute(RunSpec((a.resolved, b.resolved), 1, matches=False), 4, executor="process", workers=2,
                  chunk_size=2, graphs=(a, b))
    assert res.games == 4


def test_resume_with_more_deals_plays_the_short_last_chunk_again_whole(graphs, tmp_path):
    """Issue 24: a run of 12 deals in chunks of 5 ends with a short chunk (deals 10..11, mid-match of
    rulebook's 5); resumed with 20 deals it is played again whole (10..14) and removed, so the folder
    and its figures are those of a fresh run of 20. Resumed with fewer deals than a chunk holds: refused, named."""
    a, b = graphs
    out = tmp_path / "grow"
    paired_simulation(a, b, 12, seed=4, workers=1, chunk_size=5, out=out, records=False)
    assert (out / "chunk-000000010-000000012.json").is_file()
    grown = paired_simulation(a, b, 20, seed=4, workers=1, out=out, resume=True, records=False)
    assert grown.resumed_games == 10 and grown.chunk_size == 5
    fresh_out = tmp_path / "fresh"
    fresh = paired_simulation(a, b, 20, seed=4, workers=1, chunk_size=5, out=fresh_out, records=False)
    assert figures(grown) == figures(fresh)
    names = sorted(p.name for p in out.glob("chunk-*.json"))
    assert names == sorted(p.name for p in fresh_out.glob("chunk-*.json"))
    merged = load_runs([out])
    assert merged.games == 20 and merged.missing == []
    with pytest.raises(RunError, match=r"cannot resume with 12 deals: chunk chunk-000000010-000000015\.json holds "
                                       r"deals 10\.\.14 .*at least 15 deals \(the folder's run has 20\)"):
        paired_simulation(a, b, 12, seed=4, workers=1, out=out, resume=True, records=False)


def test_a_stopped_resume_that_wrote_the_whole_chunk_drops_the_short_one(graphs, tmp_path):
    """A resume stopped after the whole chunk was written but before the short one was removed: the
    next resume removes it (both would overlap in gouji report)."""
    a, b = graphs
    out = tmp_path / "run"
    paired_simulation(a, b, 15, seed=4, workers=1, chunk_size=5, out=out, records=False)
    short = out / "chunk-000000010-000000012.json"
    short.write_text((out / "chunk-000000010-000000015.json").read_text())  # stands for the old short chunk
    again = paired_simulation(a, b, 15, seed=4, workers=1, out=out, resume=True, records=False)
    assert again.resumed_games == 15 and not short.exists()
    assert load_runs([out]).games == 15


def test_simulate_resumed_with_a_larger_n_equals_a_fresh_run(tmp_path):
    """Issue 24: `gouji simulate -n 17 --out D` (default chunks of 2: a short last chunk 16..16), then
    `-n 30 --resume`: not refused ("does not fit this run's chunks"), and the figures of a fresh -n 30."""
    runner = CliRunner()
    out = tmp_path / "d"
    base = ["simulate", "online", "--seed", "3", "--executor", "local", "--json"]
    first = runner.invoke(cli, base + ["-n", "17", "--out", str(out)])
    assert first.exit_code == 0, first.stderr
    grown = runner.invoke(cli, base + ["-n", "30", "--out", str(out), "--resume"])
    assert grown.exit_code == 0, grown.stderr
    fresh = runner.invoke(cli, base + ["-n", "30"])
    g, f = json.loads(grown.stdout), json.loads(fresh.stdout)
    assert g["resumed_games"] == 16
    for k in ("elapsed_s", "games_per_s", "resumed_games", "workers", "executor"):
        g.pop(k, None)
        f.pop(k, None)
    assert g == f
