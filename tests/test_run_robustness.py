"""Long runs against what clusters do (issue 29): Dask workers lost mid-run, a lost scheduler, a full
disk or a read-only --out, SIGTERM and a killed driver. Each ends with one line and a documented exit
status, leaves no process behind, and the run resumed gives the report of an undisturbed run.

Everything runs on loopback; every wait is bounded and waits for an event (a chunk file, a process's
end), not for a fixed time. One local Dask cluster is shared by the module."""
from __future__ import annotations

import errno
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from gouji_dsl.ruleset.graph import load_graph
from gouji_dsl.tools import runchunks, runfolders, runpools, runs, runspec
from gouji_dsl.tools.cli import cli
from gouji_dsl.tools.exits import EXIT_INTERRUPTED, EXIT_RUN_STOPPED
from gouji_dsl.tools.paired import paired_simulation

# one worker of pytest -n runs this module's Dask clusters (and the port 8787 test) one after another
pytestmark = pytest.mark.xdist_group("dask")

WAIT = 90.0
"""The longest any wait of this module may take (a slow shared machine); none takes it normally."""


def wait_for(cond: Callable[[], bool], what: str, timeout: float = WAIT) -> None:
    """Until ``cond()`` holds (checked every 20 ms), at most ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


@pytest.fixture(scope="module")
def graphs():
    return load_graph("online"), load_graph("rulebook")


@pytest.fixture(scope="module")
def cluster():
    """One local Dask cluster (two single-threaded worker processes with nannies) on 127.0.0.1."""
    distributed = pytest.importorskip("distributed")
    import logging
    import warnings
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Port .* is already in use")  # (its small HTTP server)
        cl = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                      dashboard_address=None, silence_logs=logging.CRITICAL)
    client = distributed.Client(cl)
    yield cl, client
    client.close()
    cl.close()


def figures(report) -> str:
    return json.dumps(report.to_dict(timing=False), sort_keys=True, default=str)


def _kill_workers(cl) -> int:
    """SIGKILL every worker process of the cluster (their nannies start new ones) when every one is
    running; how many (0 while one of them is still starting). The process ids come from the nannies (in
    this process), not from asking the workers: a blocking call to the cluster from the run's progress
    callback could wait for a worker being restarted. A worker killed while its nanny starts it (slow on
    a loaded machine) makes the nanny give up ("Failed to restart worker"): the cluster would be left
    with no workers and the run would wait for ever."""
    from distributed.core import Status
    procs = [getattr(nanny, "process", None) for nanny in list(cl.workers.values())]
    if not procs or any(p is None or not p.pid or p.status is not Status.running for p in procs):
        return 0
    killed = 0
    for proc in procs:
        try:
            os.kill(proc.pid, signal.SIGKILL)
            killed += 1
        except ProcessLookupError:
            pass
    return killed


def test_lost_dask_workers_cost_only_their_chunks(graphs, cluster):
    """Every worker killed at once (the ones holding the run's spec before), twice in a run:
    the run goes on when the nannies have started new workers and gives the process pool's report."""
    cl, client = cluster
    client.wait_for_workers(2, timeout=WAIT)
    a, b = graphs
    kills = 2
    done_at: list[int] = []

    def progress(done: int, total: int) -> None:
        # both at once; then both of those the nannies started again
        if done > 0 and len(done_at) < kills and (not done_at or done > done_at[-1]) and _kill_workers(cl) == 2:
            done_at.append(done)

    dask = paired_simulation(a, b, 40, seed=11, workers=2, top=2, executor="dask", scheduler=cl.scheduler_address,
                             chunk_size=5, records=False, progress=progress)
    assert len(done_at) == kills and done_at[-1] < 40  # killed mid-run
    pool = paired_simulation(a, b, 40, seed=11, workers=2, top=2, executor="process", chunk_size=5, records=False)
    assert figures(dask) == figures(pool)


def test_a_chunk_that_keeps_losing_its_worker_stops_the_run_resumably(graphs, monkeypatch, tmp_path):
    """Dask gave up on a chunk (KilledWorker) more than MAX_CHUNK_LOSSES times: a RunStopped."""
    from concurrent.futures import Future

    class Dying(runpools.Backend):
        def __init__(self, spec, workers, scheduler):
            self.key, self.blob = runchunks.pack_spec(spec)

        def submit(self, start, stop):
            f: Future = Future()
            if start == 0:
                f.set_result(runchunks.run_packed_chunk(self.key, self.blob, start, stop))
            else:
                f.set_exception(RuntimeError("lost"))
            return f

        def result(self, fut):
            try:
                return fut.result()
            except RuntimeError:
                raise runpools.ChunkLost from None

        def close(self, abort):
            pass

    monkeypatch.setattr(runs, "DaskBackend", Dying)
    a, b = graphs
    with pytest.raises(runspec.RunStopped, match="every worker that played them died") as info:
        runs.execute(runspec.RunSpec((a.resolved, b.resolved), 1, matches=False), 4, executor="dask", chunk_size=2,
                     out=tmp_path / "d", graphs=(a, b))
    assert info.value.chunks_written == 1


def test_a_killed_pool_worker_costs_only_the_chunks_of_its_pool(graphs, tmp_path):
    """A process-pool worker killed mid-run (``kill -9``, the out-of-memory killer): the pool is started
    again, the chunks it held are played again, and the report is an undisturbed run's."""
    import psutil
    a, b = graphs
    killed: list[int] = []
    before = {c.pid for c in psutil.Process().children()}  # (the module's Dask workers, say)

    def progress(done: int, total: int) -> None:
        if done > 0 and not killed:
            workers = [c for c in psutil.Process().children()
                       if c.pid not in before and "spawn_main" in " ".join(c.cmdline())]
            killed.append(workers[0].pid)
            workers[0].kill()

    spec = runspec.RunSpec((a.resolved, b.resolved), 1, bots="heuristic")
    got = runs.execute(spec, 60, executor="process", workers=2, chunk_size=5, out=tmp_path / "d", graphs=(a, b),
                       progress=progress)
    assert killed
    want = runs.execute(spec, 60, executor="local", chunk_size=5, graphs=(a, b))
    assert json.dumps(got.totals.to_json(), sort_keys=True) == json.dumps(want.totals.to_json(), sort_keys=True)
    assert len(list((tmp_path / "d").glob("chunk-*.json"))) == 12


# ------------------------------------------------------------------------------ the scheduler lost
def _gouji(*args: str) -> list[str]:
    return [sys.executable, "-m", "gouji_dsl", *args]


def _report(folder: Path) -> dict:
    res = CliRunner().invoke(cli, ["report", str(folder), "--format", "json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    data.pop("folders")
    return data


def _end(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.kill()
    proc.wait(timeout=WAIT)


def test_a_lost_scheduler_is_one_line_exit_3_and_resume_gives_the_same_report(tmp_path):
    pytest.importorskip("distributed")
    sched = subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1",
                              "--port", "0", "--no-dashboard"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                             text=True)
    worker = gouji = None
    try:
        address = None
        assert sched.stderr is not None
        for line in sched.stderr:  # the scheduler says its address as it starts
            m = re.search(r"Scheduler at:\s+(tcp://\S+)", line)
            if m:
                address = m.group(1)
                break
        assert address and address.startswith("tcp://127.0.0.1:")
        worker = subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_worker", address, "--nworkers", "1",
                                   "--nthreads", "1", "--no-dashboard", "--host", "127.0.0.1"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        out = tmp_path / "run"
        cmd = ["diff", "online", "rulebook", "--simulate", "3000", "--seed", "5", "--chunk-size", "5",
               "--format", "json"]
        gouji = subprocess.Popen(_gouji(*cmd, "--executor", "dask", "--scheduler", address, "--out", str(out)),
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        wait_for(lambda: any(out.glob("chunk-*.json")) or gouji.poll() is not None, "a first chunk file")
        sched.kill()
        _, err = gouji.communicate(timeout=WAIT)
        assert gouji.returncode == EXIT_RUN_STOPPED, err
        lines = err.strip().splitlines()
        assert len(lines) == 1, err
        assert lines[0].startswith("error: lost the connection to the Dask scheduler at tcp://127.0.0.1:")
        assert "--resume" in lines[0] and "Traceback" not in err
    finally:
        for p in (gouji, worker, sched):
            if p is not None:
                _end(p)
    # what is there is whole; the rest is played elsewhere; the same report as an undisturbed run
    chunks = sorted(out.glob("chunk-*.json"))
    assert chunks and len(chunks) < 600
    for c in chunks:
        json.loads(c.read_text(encoding="utf-8"))
    short = ["diff", "online", "rulebook", "--simulate", "40", "--seed", "5", "--chunk-size", "5",
             "--format", "json", "--executor", "local"]
    for c in chunks:  # keep the run short: only the first 40 deals, resumed with 40
        if int(c.name.split("-")[1]) >= 40:
            c.unlink()
    meta = json.loads((out / "run.json").read_text(encoding="utf-8"))
    meta["games"] = 40
    (out / "run.json").write_text(json.dumps(meta), encoding="utf-8")
    runner = CliRunner()
    res = runner.invoke(cli, [*short, "--out", str(out), "--resume"])
    assert res.exit_code == 0, res.output
    res = runner.invoke(cli, [*short, "--out", str(tmp_path / "whole")])
    assert res.exit_code == 0, res.output
    assert _report(out) == _report(tmp_path / "whole")


def test_a_cluster_without_gouji_is_one_line_exit_3_not_an_internal_error(tmp_path, monkeypatch):
    """A scheduler started from another Python environment (`dask scheduler` of a system Python without
    gouji-dsl: found by the operator check on loopback) cannot unpickle a chunk's task: Dask raises
    "Error during deserialization of the task graph", caused by ModuleNotFoundError. That was "internal
    error … this is a bug in gouji", exit 2; it is one line saying what is missing where, exit 3."""
    import contextlib

    class Future:
        def done(self) -> bool:
            return True

        def result(self):
            try:
                raise ModuleNotFoundError("No module named 'gouji_dsl'")
            except ModuleNotFoundError as e:  # as distributed raises it (the scheduler's error as the cause)
                raise RuntimeError("Error during deserialization of the task graph. This frequently occurs if "
                                   "the Scheduler and Client have different environments.") from e

    class Client:
        status = "running"

        def close(self, timeout=None) -> None:
            pass

    class Backend(runpools.DaskBackend):
        def __init__(self, spec, workers, scheduler):
            self.cluster, self.client, self.workers = None, Client(), workers
            self.where = f"the Dask scheduler at {scheduler}"
            self._quiet = contextlib.nullcontext()

        def submit(self, start, stop):
            return Future()

    monkeypatch.setattr(runs, "DaskBackend", Backend)
    out = tmp_path / "run"
    res = CliRunner().invoke(cli, ["diff", "online", "rulebook", "--simulate", "40", "--chunk-size", "5", "--format",
                                   "json", "--executor", "dask", "--scheduler", "tcp://127.0.0.1:9", "--out", str(out)])
    assert res.exit_code == EXIT_RUN_STOPPED, res.output
    assert re.fullmatch(r"error: the Dask scheduler at tcp://127\.0\.0\.1:9 cannot run gouji's chunks \(No module "
                        r"named 'gouji_dsl' there: its scheduler or a worker runs in a Python environment without "
                        r"gouji-dsl\); stopped after 0 deals: .* --resume to continue once the scheduler and every "
                        r"worker run where gouji-dsl is installed \(the same version as here\)\n", res.stderr), res.stderr
    assert runpools._import_failure(ValueError("x")) is None


def test_an_unreachable_scheduler_is_exit_3_with_the_resume_hint(tmp_path, monkeypatch):
    """A --scheduler nobody answers at (not started yet, or gone before the run): the run folder is
    written already, so the same command without --resume is refused ("already holds a run"). That
    was exit 1 (bad input) with no hint (found by the operator check on loopback, issue 29); it is one
    line, exit 3, and --resume."""
    distributed = pytest.importorskip("distributed")

    def unreachable(address, timeout=None, **kw):  # what Client raises after its timeout (20 s)
        raise OSError(f"Timed out trying to connect to {address} after 20 s")

    monkeypatch.setattr(distributed, "Client", unreachable)
    out = tmp_path / "run"
    res = CliRunner().invoke(cli, ["diff", "online", "rulebook", "--simulate", "40", "--chunk-size", "5", "--format",
                                   "json", "--executor", "dask", "--scheduler", "tcp://127.0.0.1:9", "--out", str(out)])
    assert res.exit_code == EXIT_RUN_STOPPED, res.output
    assert re.fullmatch(r"error: cannot reach the Dask scheduler at tcp://127\.0\.0\.1:9 \(Timed out trying to "
                        r"connect to tcp://127\.0\.0\.1:9 after 20 s\); stopped after 0 deals: the 0 chunk file\(s\) "
                        r"in .* run the same command with --resume to continue once the scheduler is up at that "
                        r"address\n", res.stderr), res.stderr
    assert (out / "run.json").is_file()


# ------------------------------------------------------------------------------ a full disk, read-only --out
SMALL = ["simulate", "online", "--games", "40", "--seed", "3", "--chunk-size", "5", "--executor", "local",
         "--json"]


def _failing_write(monkeypatch, code: int, after: int) -> None:
    """The run's writes raise OSError(code) once ``after`` files were written."""
    real = runfolders.atomic_write
    count = [0]

    def write(path, text, **kw):
        count[0] += 1
        if count[0] > after:
            raise OSError(code, os.strerror(code), str(path))
        return real(path, text, **kw)

    monkeypatch.setattr(runfolders, "atomic_write", write)


@pytest.mark.parametrize("code, says", [(errno.ENOSPC, "once there is space again"),
                                        (errno.EDQUOT, "once there is space again"),
                                        (errno.EROFS, "can be written"), (errno.EACCES, "can be written")])
def test_a_full_disk_or_read_only_folder_mid_run_is_one_line_and_resumes(tmp_path, monkeypatch, code, says):
    out = tmp_path / "run"
    runner = CliRunner()
    _failing_write(monkeypatch, code, after=3)  # run.json and two chunk files, then the disk is full
    res = runner.invoke(cli, [*SMALL, "--out", str(out)])
    assert res.exit_code == EXIT_RUN_STOPPED, res.output
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and os.strerror(code) in lines[0] and says in lines[0], res.stderr
    assert "chunk-000000010-000000015.json" in lines[0] and "2 chunk file(s)" in lines[0]
    assert "--resume" in lines[0] and "internal error" not in res.stderr
    assert sorted(p.name for p in out.iterdir() if p.name != ".lock") == [
        "chunk-000000000-000000005.json", "chunk-000000005-000000010.json", "run.json"]  # no partial file left
    monkeypatch.undo()
    res = runner.invoke(cli, [*SMALL, "--out", str(out), "--resume"])
    assert res.exit_code == 0, res.output
    res = runner.invoke(cli, [*SMALL, "--out", str(tmp_path / "whole")])
    assert _report(out) == _report(tmp_path / "whole")


def test_an_output_folder_that_cannot_be_written_at_the_start_is_one_line(tmp_path, monkeypatch):
    runner = CliRunner()
    _failing_write(monkeypatch, errno.EROFS, after=0)
    res = runner.invoke(cli, [*SMALL, "--out", str(tmp_path / "ro")])
    assert res.exit_code == EXIT_RUN_STOPPED, res.output
    assert re.fullmatch(r"error: cannot write .*run\.json: Read-only file system; stopped after 0 deals: .*"
                        r"--resume to continue once .* can be written\n", res.stderr), res.stderr
    monkeypatch.undo()
    # a folder that is truly unwritable, even for root (tests may run as root, where chmod stops nothing)
    res = runner.invoke(cli, [*SMALL, "--out", "/proc/gouji-run"])
    assert res.exit_code in (1, EXIT_RUN_STOPPED), res.output
    assert len(res.stderr.strip().splitlines()) == 1 and res.stderr.startswith("error: cannot write /proc/gouji-run")
    assert "internal error" not in res.stderr


# ------------------------------------------------------------------------------ SIGTERM, a killed driver
def _children_gone(children: list, timeout: float = WAIT) -> list:
    """Wait until every process of ``children`` has ended (a zombie waiting for its reaper counts as
    ended); the ones still running after ``timeout``."""
    import psutil
    deadline = time.monotonic() + timeout
    alive = list(children)
    while alive and time.monotonic() < deadline:
        _, alive = psutil.wait_procs(alive, timeout=0.2)
        alive = [p for p in alive if _running(p)]
    return alive


def _running(p) -> bool:
    import psutil
    try:
        return p.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def _start_pool_run(tmp_path: Path) -> tuple[subprocess.Popen, list, Path]:
    """A process-pool run in a subprocess, once its first chunk file is written: the process, its
    children (the pool's workers and multiprocessing's resource tracker) and its --out folder."""
    import psutil
    out = tmp_path / "run"
    proc = subprocess.Popen(_gouji("simulate", "online", "--games", "20000", "--bots", "heuristic", "--workers", "2",
                                   "--executor", "process", "--chunk-size", "5", "--out", str(out)),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    wait_for(lambda: any(out.glob("chunk-*.json")) or proc.poll() is not None, "a first chunk file")
    assert proc.poll() is None, proc.communicate()
    children = psutil.Process(proc.pid).children(recursive=True)
    assert len([c for c in children if "spawn_main" in " ".join(c.cmdline())]) == 2, [c.cmdline() for c in children]
    return proc, children, out


def test_sigterm_stops_a_run_as_ctrl_c_does_and_leaves_no_process(tmp_path):
    proc, children, out = _start_pool_run(tmp_path)
    try:
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=WAIT)
    finally:
        _end(proc)
    assert proc.returncode == EXIT_INTERRUPTED, err
    assert re.fullmatch(r"interrupted after \d+ deals; \d+ chunk file\(s\) in .*: run the same command with "
                        r"--resume to continue, or `gouji report .*` to see what is there\n", err), err
    assert _children_gone(children) == []


def test_workers_end_with_a_driver_killed_by_sigkill(tmp_path):
    proc, children, _ = _start_pool_run(tmp_path)
    try:
        proc.kill()
        proc.wait(timeout=WAIT)
    finally:
        _end(proc)
    assert _children_gone(children) == []


@pytest.mark.parametrize("workers", [1, 2])
def test_sigterm_stops_a_duel_as_ctrl_c_does_and_leaves_no_process(tmp_path, workers):
    """`gouji duel` handles SIGTERM as simulate and diff do (the one helper, runpools.sigterm_interrupts):
    one line saying where the finished deals are and how to go on, exit 130, no worker left; the same
    command then plays only the rest."""
    import psutil
    save = tmp_path / "duel.jsonl"
    # (--engine interpreter: a duel of random and heuristic bots is otherwise played whole on the native
    # core, in this process and in a moment; the interpreter plays deal by deal, in the workers)
    cmd = _gouji("duel", "online", "heuristic", "random", "--deals", "400", "--workers", str(workers),
                 "--save", str(save), "--engine", "interpreter")
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:  # the header and a first finished deal saved: the duel is playing
        wait_for(lambda: (save.exists() and save.read_bytes().count(b"\n") >= 2) or proc.poll() is not None,
                 "a first saved deal")
        assert proc.poll() is None, proc.communicate()
        children = psutil.Process(proc.pid).children(recursive=True)
        assert len([c for c in children if "spawn_main" in " ".join(c.cmdline())]) == (workers if workers > 1 else 0)
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=WAIT)
    finally:
        _end(proc)
    assert proc.returncode == EXIT_INTERRUPTED, err
    lines = [ln for ln in err.splitlines() if not re.match(r"online: heuristic vs random: \d+/400 deals", ln)]
    assert lines == [f"interrupted; the finished deals are in {save}: run the same command to play the rest"], err
    assert _children_gone(children) == []
    lines = save.read_text(encoding="utf-8").splitlines()[1:]  # (with two workers a later deal may finish first)
    saved = {g["deal"] for line in lines for g in json.loads(line)["games"]}
    deals = max(saved) + 1
    res = CliRunner().invoke(cli, ["duel", "online", "heuristic", "random", "--deals", str(deals), "--save", str(save),
                                   "--json", "--engine", "interpreter"])
    assert res.exit_code == 0, res.output
    assert f"{len(saved)} of the {deals} deals saved already" in res.stderr
    assert json.loads(res.stdout)["resumed_deals"] == len(saved)


def test_a_local_dask_cluster_left_without_workers_stops_the_run_resumably(monkeypatch):
    """A nanny that failed to start its killed worker again gives up: a local cluster with no worker
    at all would leave the run waiting for ever. After NO_WORKERS_GRACE seconds it is a RunStopped (exit 3,
    --resume goes on); a worker seen in between starts the grace again; a remote scheduler is waited for."""
    from types import SimpleNamespace
    backend = object.__new__(runpools.DaskBackend)
    scheduler = SimpleNamespace(workers={})
    backend.cluster = SimpleNamespace(scheduler=scheduler)
    backend._no_workers_since = None
    clock = iter([0.0, 100.0, 200.0, 400.0])  # (a worker seen reads no clock)
    monkeypatch.setattr(runpools, "_clock", lambda: next(clock))  # (not time.monotonic: the Dask loop's thread reads it)
    backend.check_stalled()  # no worker since 0.0
    backend.check_stalled()  # 100 s: within the grace
    scheduler.workers = {"tcp://127.0.0.1:1": object()}
    backend.check_stalled()  # a worker again: the grace starts over
    scheduler.workers = {}
    backend.check_stalled()  # no worker since 200.0
    with pytest.raises(runspec.RunStopped, match="no worker for 120 s") as info:
        backend.check_stalled()  # 400 s
    assert "--executor process" in info.value.hint
    backend.cluster = None  # a scheduler given with --scheduler: its workers may come later
    backend.check_stalled()
