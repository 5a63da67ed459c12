"""A run's output folder: ``run.json`` and one ``chunk-START-STOP.json`` per finished chunk, written whole or not at
all (:func:`write_meta`, :func:`write_chunk`; a full disk or a read-only folder is :func:`write_failed`'s
:class:`~gouji_dsl.tools.runspec.OutputNotWritable`), prepared or reopened to resume (:func:`prepare_folder`),
held by one run at a time (:func:`lock_folder`), read back (:class:`RunFolder`: its files checked by
:mod:`gouji_dsl.tools.runfiles`), and the chunks of any number of folders merged into one set of totals
(:func:`load_runs`).
"""
from __future__ import annotations

import errno
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gouji_dsl.atomic import atomic_write
from gouji_dsl.diagnostics import quoted
from gouji_dsl.i18n import _
from gouji_dsl.tools.played import of_chunks
from gouji_dsl.tools.runfiles import RUN_FORMAT, RunError, read_chunk, read_meta, run_fingerprint
from gouji_dsl.tools.runkinds import engine_of
from gouji_dsl.tools.runspec import OutputNotWritable, RunSpec, Totals, totals_from_json


def chunk_name(start: int, stop: int) -> str:
    return f"chunk-{start:09d}-{stop:09d}.json"


def write_meta(out: Path, meta: dict[str, Any]) -> None:
    atomic_write(out / "run.json", json.dumps(meta, indent=1, sort_keys=True, ensure_ascii=False) + "\n")


def write_chunk(out: Path, start: int, stop: int, data: dict[str, Any]) -> None:
    """The chunk file of deals ``start .. stop-1`` in ``out``, on disk (file and folder) before the rename is final: a
    power cut leaves the chunk or nothing; a failed write is :func:`write_failed`'s error."""
    target = out / chunk_name(start, stop)
    try:
        atomic_write(target, json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":")) + "\n", fsync=True)
    except OSError as e:  # the chunk file is not there (a chunk is written whole or not at all)
        raise write_failed(e, target, out) from None


@dataclass
class RunFolder:
    """A run's output folder: ``run.json`` (checked: :func:`~gouji_dsl.tools.runfiles.read_meta`) and
    its chunk files (each checked as it is read: :meth:`read_chunk`)."""

    path: Path
    meta: dict[str, Any]
    chunks: dict[tuple[int, int], Path] = field(default_factory=dict)

    @classmethod
    def open(cls, path: str | os.PathLike[str]) -> RunFolder:
        p = Path(path)
        meta_path = p / "run.json"
        if not meta_path.is_file():
            raise RunError(_("{p}: no run.json here (not a folder written by --out)").format(p=p))
        meta = read_meta(meta_path)
        chunks = {}
        for c in sorted(p.glob("chunk-*-*.json")):
            try:
                a, b = c.stem.split("-")[1:]
                if not (a.isascii() and a.isdigit() and b.isascii() and b.isdigit()) or int(b) <= int(a):
                    raise ValueError
            except ValueError:
                raise RunError(_("{c}: not a chunk file name (chunk-START-STOP.json, START < STOP); "
                               "move it out of the run folder").format(c=c)) from None
            # the name gouji writes, and no other: chunk-1-2.json beside chunk-000000001-000000002.json
            # replaced it silently, and messages named a file that is not there
            if c.name != chunk_name(int(a), int(b)):
                raise RunError(_("{c}: not a chunk file name: gouji writes the chunk of deals {int}..{int2} "
                               "as {chunk_name}; move this file out of the run folder").format(
                                   c=c, int=int(a), int2=int(b) - 1, chunk_name=chunk_name(int(a), int(b))))
            chunks[(int(a), int(b))] = c
        return cls(p, meta, chunks)

    def read_chunk(self, key: tuple[int, int]) -> dict[str, Any]:
        """The chunk of deals ``key``, checked against this run (see :mod:`gouji_dsl.tools.runfiles`)."""
        return read_chunk(self.chunks[key], key, self.meta)

    def in_progress(self) -> bool:
        """Whether a driver holds this folder's lock now (a run still writing it)."""
        return locked(self.path)


def prepare_folder(out: Path, spec: RunSpec, games: int, chunk: int, resume: bool,
                    extra: dict[str, Any]) -> RunFolder:
    """Create or check ``out``; returns the folder with the chunk files already there (resume)."""
    meta: dict[str, Any] = {"format": RUN_FORMAT, "spec": {**spec.to_json(), **extra}, "games": games,
                            "chunk_size": chunk}
    meta["fingerprint"] = run_fingerprint(meta)
    if (out / "run.json").exists():
        folder = RunFolder.open(out)
        if not resume:
            raise RunError(_("{out} already holds a run ({n} chunk(s)): add --resume to continue it, "
                           "or choose another folder").format(out=out, n=len(folder.chunks)))
        old = folder.meta["spec"]
        mine = meta["spec"]
        for key in ("kind", "bots", "matches", "seed", "top", "match_length"):
            if old.get(key) != mine.get(key):
                raise RunError(_("{out}: cannot resume: {key} was {quoted}, now {quoted2}").format(
                    out=out, key=key, quoted=quoted(old.get(key)), quoted2=quoted(mine.get(key))))
        # (a run.json of before: not kept; ``generated``, the fast engine's name before, is ``native``)
        if old.get("engine") is not None and engine_of(old.get("engine")) != engine_of(mine.get("engine")):
            raise RunError(_("{out}: cannot resume: its games were played with --engine {old}, not {now} (the engine "
                             "is part of a run folder, and its summary names it: resume with --engine {old}, or "
                             "start another folder)").format(out=out, old=old.get("engine"), now=mine.get("engine")))
        if [r["fingerprint"] for r in old["rulesets"]] != [r["fingerprint"] for r in mine["rulesets"]]:
            raise RunError(_("{out}: cannot resume: the rules played differ from the run's "
                           "({join})").format(out=out, join=', '.join(r['name'] for r in old['rulesets'])))
        if int(folder.meta["chunk_size"]) != chunk:
            raise RunError(_("{out}: cannot resume: chunk size was {folder}, now {chunk} "
                           "(chunk sizes are rounded down to whole matches; leave out --chunk-size to keep the "
                           "run's)").format(out=out, folder=folder.meta.get('chunk_size'), chunk=chunk))
        meta["games"] = max(games, int(folder.meta["games"]))
        write_meta(out, meta)
        folder.meta = meta
        return folder
    out.mkdir(parents=True, exist_ok=True)
    if any(out.glob("chunk-*.json")):
        raise RunError(_("{out} holds chunk files but no run.json: choose another folder").format(out=out))
    write_meta(out, meta)
    return RunFolder(out, meta)


def locked(out: Path) -> bool:
    """Whether another process holds ``out/.lock`` (a run writing the folder); nothing is created."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows: no lock
        return False
    try:
        f = open(out / ".lock", "rb")  # noqa: SIM115 - closed below
    except OSError:
        return False
    try:
        fcntl.flock(f.fileno(), fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        f.close()
    return False


_NO_SPACE = {getattr(errno, n) for n in ("ENOSPC", "EDQUOT", "EFBIG") if hasattr(errno, n)}
_READ_ONLY = {getattr(errno, n) for n in ("EROFS", "EACCES", "EPERM") if hasattr(errno, n)}


def write_failed(e: OSError, path: Path, out: Path) -> Exception:
    """What a failed write of ``path`` in the output folder ``out`` is: :class:`OutputNotWritable`
    (a full disk, a read-only or forbidden folder: resumable once that is mended) or a
    :class:`RunError` (a path that cannot be a run folder at all)."""
    what = e.strerror or type(e).__name__
    if e.errno in _NO_SPACE:
        return OutputNotWritable(_("cannot write {path}: {what}").format(path=path, what=what), hint=_("once there is space again"))
    if e.errno in _READ_ONLY:
        return OutputNotWritable(_("cannot write {path}: {what}").format(path=path, what=what), hint=_("once {out} can be written").format(out=out))
    return RunError(_("cannot write {path}: {what}").format(path=path, what=what))


def lock_folder(out: Path) -> Any:
    """Hold ``out/.lock`` while a run writes there: a second run into the same folder is refused
    (instead of both writing the same chunks)."""
    out.mkdir(parents=True, exist_ok=True)
    f = open(out / ".lock", "a+")  # noqa: SIM115 - held open for the whole run
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows: no lock
        return f
    try:
        fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        f.close()
        raise RunError(_("{out}: another run is writing this folder").format(out=out)) from None
    return f


@dataclass
class MergedRuns:
    """The totals of every chunk of one or more run folders (see :func:`load_runs`)."""

    kind: str
    spec: dict[str, Any]
    seeds: list[Any]
    totals: Totals
    games: int
    folders: list[str]
    chunks: int
    missing: list[str]
    #: the folders a driver is still writing (their lock is held): their gaps are deals not played yet
    in_progress: list[str] = field(default_factory=list)
    #: how the run stopped (``run.json``'s ``stopped_by`` and ``until``), when one folder is read
    stopped_by: str = "games"
    until: dict[str, Any] | None = None
    #: who played each ruleset's games (run.json's order), from the chunks: :func:`~gouji_dsl.tools.played.of_chunks`
    engines: list[dict[str, Any]] = field(default_factory=list)


def engines_of(chunks: list[tuple[int, Any]], n: int) -> list[dict[str, Any]]:
    """Who played each of the ``n`` rulesets' games, from ``(deals, the chunk's engines)``."""
    return [of_chunks([(deals, es[k] if isinstance(es, list) and k < len(es) else None) for deals, es in chunks])
            for k in range(n)]


def load_runs(paths: Sequence[str | os.PathLike[str]]) -> MergedRuns:
    """Merge the chunk files of the folders ``paths`` (runs of the same comparison: same rulesets by
    content, bots and matches; seeds may differ). A chunk present in two folders (a copied folder,
    the same seed run twice) counts once; overlapping chunks of different sizes are an error.
    ``missing`` lists the gaps in each seed's deals (an interrupted run, or one still in progress:
    ``in_progress``). Every chunk is checked against its folder's run (fingerprint, range, totals:
    :mod:`gouji_dsl.tools.runfiles`); RunError names the file that is not."""
    folders = _same_comparison(paths)
    first = folders[0]
    kind = _identity(first.meta)["kind"]
    seeds, by_seed = _chunks_by_seed(folders)
    merged = _Merged(kind)
    for seed in seeds:
        chunks = by_seed[str(seed)]
        keys = sorted(chunks)
        _refuse_overlaps(seed, keys)
        planned = max(int(f.meta.get("games", 0)) for f in folders if str(f.meta["spec"].get("seed")) == str(seed))
        merged.add_seed(seed, keys, chunks, planned)
    if merged.totals is None:
        busy = [str(f.path) for f in folders if f.in_progress()]
        raise RunError(_("{join}: no finished chunk yet").format(join=', '.join(str(p) for p in paths))
                       + (_(" (a run is writing {join}: report again in a while)").format(join=', '.join(busy)) if busy else ""))
    one = first.meta if len(folders) == 1 else {}
    return MergedRuns(kind, first.meta["spec"], seeds, merged.totals, merged.games, [str(f.path) for f in folders],
                      merged.chunks, merged.missing, [str(f.path) for f in folders if f.in_progress()],
                      str(one.get("stopped_by", "games")), one.get("until"),
                      engines_of(merged.played, len(first.meta["spec"]["rulesets"])))


def _same_comparison(paths: Sequence[str | os.PathLike[str]]) -> list[RunFolder]:
    """The run folders ``paths``, opened; RunError when there is none or one is a run of another comparison."""
    if not paths:
        raise RunError(_("no run folder given"))
    folders = [RunFolder.open(p) for p in paths]
    first = folders[0]
    ident = _identity(first.meta)
    for f in folders[1:]:
        if _identity(f.meta) != ident:
            raise RunError(_("{path} is not a run of the same comparison as {path2} "
                           "(rulesets, bots or matches differ)").format(path=f.path, path2=first.path))
    return folders


ChunkKey = tuple[int, int]


def _chunks_by_seed(folders: list[RunFolder]) -> tuple[list[Any], dict[str, dict[ChunkKey, tuple[RunFolder, ChunkKey]]]]:
    """The seeds of ``folders`` in order, and for each the chunk of each range (the first folder's, when two hold it)."""
    by_seed: dict[str, dict[ChunkKey, tuple[RunFolder, ChunkKey]]] = {}
    seeds: list[Any] = []
    for f in folders:
        seed = f.meta["spec"].get("seed")
        if str(seed) not in by_seed:
            seeds.append(seed)
        chunks = by_seed.setdefault(str(seed), {})
        for key in f.chunks:
            chunks.setdefault(key, (f, key))
    return seeds, by_seed


def _refuse_overlaps(seed: Any, keys: list[ChunkKey]) -> None:
    for x, y in zip(keys, keys[1:]):
        if y[0] < x[1]:
            raise RunError(_("seed {seed}: chunks {chunk_name} and {chunk_name2} overlap "
                           "(runs with different chunk sizes): merge only one of them").format(
                               seed=seed, chunk_name=chunk_name(*x), chunk_name2=chunk_name(*y)))


@dataclass
class _Merged:
    """The chunks of :func:`load_runs` read so far: their totals merged in order, the gaps between them."""

    kind: str
    totals: Totals | None = None
    games: int = 0
    chunks: int = 0
    missing: list[str] = field(default_factory=list)
    played: list[tuple[int, Any]] = field(default_factory=list)

    def add_seed(self, seed: Any, keys: list[ChunkKey], chunks: dict[ChunkKey, tuple[RunFolder, ChunkKey]], planned: int) -> None:
        """The chunks ``keys`` of one seed, read in order; the deals up to ``planned`` no chunk holds are missing."""
        expect = 0
        for key in keys:
            if key[0] > expect:
                self.missing.append(_("seed {seed}: deals {expect}–{key}").format(seed=seed, expect=expect, key=key[0] - 1))
            expect = key[1]
            f, k = chunks[key]
            data = f.read_chunk(k)
            self.played.append((key[1] - key[0], data.get("engines")))
            t = totals_from_json(self.kind, data["totals"])
            if self.totals is None:
                self.totals = t
            else:
                self.totals.merge(t)  # type: ignore[arg-type]
            self.games += key[1] - key[0]
            self.chunks += 1
        if expect < planned:
            self.missing.append(_("seed {seed}: deals {expect}–{planned}").format(seed=seed, expect=expect, planned=planned - 1))


def _identity(meta: dict[str, Any]) -> dict[str, Any]:
    spec = meta["spec"]
    return {"kind": spec["kind"], "bots": spec["bots"], "matches": spec["matches"], "match_length": spec["match_length"],
            "rulesets": [r["fingerprint"] for r in spec["rulesets"]]}
