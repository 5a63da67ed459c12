"""Reading a run folder's files (``run.json`` and ``chunk-START-STOP.json``) without trusting them.

Both are checked against their JSON Schemas (``schema/run.schema.json``, ``schema/chunk.schema.json``,
draft-07, strict integers as records are), then for what a schema cannot say:

- ``run.json``'s ``fingerprint`` is the one of its spec (:func:`run_fingerprint`: the rulesets by
  content, bots, matches, match lengths, seed and chunk size) — every chunk file carries it, so a
  chunk of another run (another ruleset, seed, bots or chunking) copied into the folder is refused;
- a chunk's totals agree with its range: as many games as deals ``START .. STOP-1``, every count of
  every figure within them (a rate's successes at most its games, each seat placed at most once a
  game, the spread histogram summing to the games, a sum of squares at least the square of the sum
  over the games ...), the seats and teams of the run's rulesets.

Every refusal is a :class:`RunError` whose message starts ``path:line:col:`` (the place in the file),
and for a chunk says that removing the file lets ``--resume`` play its deals again. Files are bounded
(:data:`MAX_RUN_FILE_BYTES`, :data:`MAX_RUN_NESTING`, :data:`MAX_RUN_KEYS`) before ``json`` reads them; a key
written twice in one object is refused.
"""
from __future__ import annotations

import functools
import hashlib
import json
import re
from fractions import Fraction
from pathlib import Path
from typing import Any

from gouji_dsl import resources
from gouji_dsl.diagnostics import quoted
from gouji_dsl.i18n import N_, _, ngettext
from gouji_dsl.readfile import FileTooLarge, NotRegularFile, read_regular
from gouji_dsl.readjson import DuplicateKeyError, Positions, json_limit, load_json, schema_message, strict_validator_class
from gouji_dsl.tools.exits import shown
from gouji_dsl.tools.figures import PROBE_EVERY, Mirrors

RUN_FORMAT = "gouji-run/3"
CHUNK_FORMAT = "gouji-chunk/3"
OLD_FORMATS = ("gouji-run/1",)
#: formats whose chunks hold figures this gouji measures on other deals (gouji-run/2: the design metrics
#: of every PROBE_EVERY-th deal; from gouji-run/3 on, of every deal the native core plays whole)
OTHER_DEALS_FORMATS = ("gouji-run/2",)

MAX_RUN_FILE_BYTES = 32 * 1024 * 1024
"""The largest ``run.json`` or chunk file read (a chunk holds totals, not games: a few kB, more with a
large ``--top``); a larger one is refused before it is read."""

MAX_RUN_NESTING = 12
"""The deepest nesting of arrays and objects read (a chunk nests 6 levels deep)."""

MAX_RUN_KEYS = 100_000
"""The most keys of one object read (a chunk's largest, its spread histogram, has one per score spread
seen: a few hundred); counted before ``json`` builds anything (500,000 keys in run.json, 7 MB, took
162 MB)."""

HINT_REMOVE = N_("remove this file: --resume plays its deals again")


class RunError(ValueError):
    """An output folder that cannot be used (another run's chunks, mismatching chunk files, bad JSON)."""


# ------------------------------------------------------------------------------ reading JSON


def _line_col(text: str, i: int) -> tuple[int, int]:
    return text.count("\n", 0, i) + 1, i - (text.rfind("\n", 0, i) + 1) + 1


def read_json(path: Path, what: str, advice: str | None = None) -> tuple[Any, str]:
    """The JSON value of ``path`` and its text; :class:`RunError` (positioned, with ``advice``) for a file
    that cannot be read, is too large, not UTF-8, nested too deep, has NaN / Infinity, or is not JSON."""
    tail = f" ({advice})" if advice else ""
    try:
        raw = read_regular(path, MAX_RUN_FILE_BYTES)  # a FIFO or a device would block or never end
    except NotRegularFile as e:
        raise RunError(_("{path}: not a {what}: {kind}{tail}").format(path=path, what=what, kind=e.kind, tail=tail)) from None
    except FileTooLarge as e:
        raise RunError(_("{path}: {size:,} bytes: not a {what} (at most {max_run_file_bytes:,} bytes "
                       "are read, MAX_RUN_FILE_BYTES){tail}").format(
                           path=path, size=e.size, what=what, max_run_file_bytes=MAX_RUN_FILE_BYTES, tail=tail)) from None
    except OSError as e:
        raise RunError(_("{path}: cannot read: {e}{tail}").format(path=path, e=e.strerror or e, tail=tail)) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        ln, col = _line_col(raw[:e.start].decode("utf-8", errors="replace"), e.start)
        raise RunError(_("{path}:{ln}:{col}: not a {what}: not UTF-8 text (byte 0x{raw:02x}){tail}").format(
            path=path, ln=ln, col=col, what=what, raw=raw[e.start], tail=tail)) from None
    found = json_limit(text, nesting=MAX_RUN_NESTING, keys=MAX_RUN_KEYS, numbers=False)
    if found is not None:
        ln, col = _line_col(text, found.offset)
        why = {"nesting": _("nested more than {max_run_nesting} levels deep (MAX_RUN_NESTING)").format(max_run_nesting=MAX_RUN_NESTING),
               "keys": _("an object of more than {max_run_keys:,} keys (MAX_RUN_KEYS)").format(max_run_keys=MAX_RUN_KEYS)}.get(found.kind,
                                                                                       _("{token} is not a JSON value").format(token=found.token))
        raise RunError(_("{path}:{ln}:{col}: not a {what}: {why}{tail}").format(path=path, ln=ln, col=col, what=what, why=why, tail=tail))
    try:
        return load_json(text), text
    except json.JSONDecodeError as e:
        raise RunError(_("{path}:{lineno}:{colno}: not a {what}: not valid JSON ({msg}){tail}").format(
            path=path, lineno=e.lineno, colno=e.colno, what=what, msg=e.msg, tail=tail)) from None
    except DuplicateKeyError as e:  # json keeps the last one silently: which did the user mean?
        ln, col = _line_col(text, e.offset)
        raise RunError(_("{path}:{ln}:{col}: not a {what}: {e}{tail}").format(path=path, ln=ln, col=col, what=what, e=e, tail=tail)) from None
    except (ValueError, RecursionError):  # an integer of more than 4,300 digits (Python's limit)
        long = re.search(r"[0-9]{4300,}", text)
        ln, col = _line_col(text, long.start()) if long else (0, 0)
        raise RunError(_("{path}:{ln}:{col}: not a {what}: a number of more than 4,300 digits{tail}").format(
            path=path, ln=ln, col=col, what=what, tail=tail)) from None


class Located:
    """Messages about a parsed JSON file, each at the line and column of the value it is about."""

    def __init__(self, path: Path, text: str, what: str, advice: str | None = None):
        self.path, self.what, self.advice = path, what, advice
        self.positions = Positions(text)

    def at(self, where: tuple[Any, ...], message: str) -> str:
        ln, col = self.positions.at.get(where, (0, 0))
        if (ln, col) == (0, 0):
            for n in range(len(where) - 1, -1, -1):
                ln, col = self.positions.at.get(where[:n], (0, 0)) if n else (1, 1)
                if (ln, col) != (0, 0):
                    break
        place = _where(where)
        return f"{self.path}:{ln}:{col}: {place + ': ' if place else ''}{message}"

    def error(self, problems: list[str]) -> RunError:
        tail = f"\n{self.path}: {self.advice}" if self.advice else ""
        more = _("\n{path}: {n} more problem(s)").format(path=self.path, n=len(problems) - MAX_PROBLEMS)
        return RunError("\n".join(problems[:MAX_PROBLEMS]) + (more if len(problems) > MAX_PROBLEMS else "") + tail)


MAX_PROBLEMS = 10
"""Problems of one file listed (the others are counted)."""


def _where(path: tuple[Any, ...]) -> str:
    out = ""
    for p in path:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return shown(out)


# ------------------------------------------------------------------------------ schemas
@functools.cache
def _schema(name: str) -> dict[str, Any]:
    path = resources.run_schema_path() if name == "run.schema.json" else resources.chunk_schema_path()
    with open(path, encoding="utf-8") as f:
        return json.load(f)


_TOTALS = {"paired": "pair", "sweep": "sweep", "single": "side"}
#: the paired differences over fewer deals than the chunk's (a game without a first leader; the probed deals)
_PARTIAL = ("first_leader_team_score", "real_choice_share", "lead_changes", "settled_at")


@functools.cache
def _validator(name: str, kind: str | None = None) -> Any:
    schema = _schema(name)
    if kind is not None:  # a chunk of a known kind: its totals checked against that kind's definition only
        schema = {**schema, "properties": {**schema["properties"],
                                           "totals": {"$ref": f"#/definitions/{_TOTALS.get(kind, 'side')}"}}}
    return strict_validator_class()(schema)


def _describe(x: Any) -> str:
    return quoted(x, as_json=True) if isinstance(x, (int, float, str, bool)) or x is None else type(x).__name__


def _schema_message(err: Any) -> str:
    v, inst = err.validator, err.instance
    if v == "required":
        missing = [shown(k) for k in err.validator_value if isinstance(inst, dict) and k not in inst]
        return ngettext("missing key {keys}", "missing keys {keys}", len(missing)).format(
            keys=', '.join(repr(k) for k in missing) or '?')
    if v == "additionalProperties" and isinstance(inst, dict):
        known = set(err.schema.get("properties", {}))
        extra = next((k for k in inst if k not in known), "?")
        return _("unknown key {quoted}").format(quoted=quoted(extra)) + (_(" (keys: {join})").format(join=', '.join(sorted(known))) if known else "")
    if v == "type":
        want = err.validator_value if isinstance(err.validator_value, list) else [err.validator_value]
        return _("must be {join}, not {describe}").format(join=' or '.join(want), describe=_describe(inst))
    if v in ("const", "enum"):
        allowed = [err.validator_value] if v == "const" else list(err.validator_value)
        return _("{describe} is not allowed (allowed: {join})").format(describe=_describe(inst), join=', '.join(json.dumps(a) for a in allowed))
    if v in ("minimum", "maximum", "exclusiveMinimum"):
        return _("{describe} is out of range ({v} {validator_value})").format(describe=_describe(inst), v=v, validator_value=err.validator_value)
    if v in ("minItems", "maxItems"):
        return (_("{n} item(s): at least {limit}") if v == "minItems" else _("{n} item(s): at most {limit}")).format(
            n=len(inst), limit=err.validator_value)
    if v == "pattern":
        return _("{describe} is not of the form {validator_value}").format(describe=_describe(inst), validator_value=err.validator_value)
    if v == "propertyNames":
        return f"key {_describe(inst)} is not allowed here"
    return shown(schema_message(err))


def schema_problems(loc: Located, data: Any, name: str, kind: str | None = None) -> list[str]:
    """Every schema finding of ``data`` (against ``schema/NAME``), each positioned."""
    from jsonschema.exceptions import best_match
    out: dict[str, None] = {}  # in order, once (a missing key is one error per key)
    for e in sorted(_validator(name, kind).iter_errors(data), key=lambda e: [str(p) for p in e.absolute_path]):
        e = best_match([e])
        out[loc.at(tuple(e.absolute_path), _schema_message(e))] = None
    return list(out)


# ------------------------------------------------------------------------------ run.json
def run_fingerprint(meta: dict[str, Any]) -> str:
    """What every chunk of a run must agree on: its rulesets by content (their fingerprints, not names
    or paths), bots, matches, match lengths, seed (as text: 1 and "1" deal alike) and chunk size."""
    spec = meta["spec"]
    data = {"kind": spec["kind"], "rulesets": [r["fingerprint"] for r in spec["rulesets"]], "bots": spec["bots"],
            "matches": spec["matches"], "match_length": spec["match_length"], "seed": str(spec["seed"]),
            "chunk_size": meta["chunk_size"]}
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode("utf-8")).hexdigest()[:16]


def read_meta(path: Path) -> dict[str, Any]:
    """``path`` (a ``run.json``) checked against its schema and its fingerprint; RunError otherwise."""
    data, text = read_json(path, _("run.json of a run folder"))
    loc = Located(path, text, "run.json")
    if isinstance(data, dict) and data.get("format") in OLD_FORMATS:
        raise RunError(_("{loc}: its chunk files carry no fingerprint of "
                       "their run and cannot be checked; run it again into a new folder").format(
                           loc=loc.at(('format',), _('written by an older gouji'))))
    if isinstance(data, dict) and data.get("format") in OTHER_DEALS_FORMATS:
        raise RunError(_("{loc}: its chunks' design metrics come from every {every}th deal, and this gouji's from "
                         "every deal the native core plays: merged, they would mix the two; run it again into a new "
                         "folder").format(every=PROBE_EVERY, loc=loc.at(('format',), _('written by an older gouji'))))
    problems = schema_problems(loc, data, "run.schema.json")
    if not problems:
        spec = data["spec"]
        if isinstance(spec["bots"], list) and len(spec["bots"]) not in (1, spec["seats"][0]):
            problems.append(loc.at(("spec", "bots"), _("{n} bots for {spec} seats").format(n=len(spec['bots']), spec=spec['seats'][0])))
        if data["fingerprint"] != run_fingerprint(data):
            problems.append(loc.at(("fingerprint",), _("{data} is not the fingerprint of this spec "
                                                     "({run_fingerprint}): run.json was edited").format(
                                                         data=data['fingerprint'], run_fingerprint=run_fingerprint(data))))
    if problems:
        raise loc.error(problems)
    return data


# ------------------------------------------------------------------------------ chunk files
def _num(x: int | str) -> Fraction:
    return Fraction(x)


def _sums_problems(loc: Located, where: tuple[Any, ...], s: dict[str, Any], games: int, exact: bool = True,
                   binary: bool = False) -> list[str]:
    n, clusters, cn2 = s["n"], s["clusters"], s["cn2"]
    total, squares = _num(s["s"]), _num(s["ss"])
    out = []
    if (exact and n != games) or n > games:
        out.append(loc.at(where + ("n",), _("{n} values in a chunk of {games} games").format(n=n, games=games)))
    elif (n == 0) != (clusters == 0) or clusters > n or not (n <= cn2 <= n * n):
        out.append(loc.at(where, _("{clusters} clusters and cn2 {cn2} cannot hold {n} values").format(clusters=clusters, cn2=cn2, n=n)))
    elif binary and not (0 <= total <= n and squares == total):
        out.append(loc.at(where + ("s",), _("{s} yes of {n} games").format(s=s['s'], n=n)))
    elif n and (n * squares < total * total or _num(s["cs2"]) * n < total * total or squares < 0):
        out.append(loc.at(where, _("the sums of squares (ss {s}, cs2 {s2}) are less than {n} values summing "
                                 "to {s3} give").format(s=s['ss'], s2=s['cs2'], n=n, s3=s['s'])))
    return out


def _figure_problems(loc: Located, where: tuple[Any, ...], t: dict[str, Any], games: int) -> list[str]:
    """The sums of a side's means, flags and design facts, each within the chunk's games."""
    out = []
    for k, s in t["means"].items():
        out += _sums_problems(loc, where + ("means", k), s, games, exact=k != "first_leader_team_score")
    for k, s in t["flags"].items():
        out += _sums_problems(loc, where + ("flags", k), s, games, binary=True)
    for k, s in t.get("design", {}).items():  # (the probed deals only: fewer values than games)
        out += _sums_problems(loc, where + ("design", k), s, games, exact=False)
    return out


def _score_problems(loc: Located, where: tuple[Any, ...], t: dict[str, Any], games: int, seats: int, teams: int) -> list[str]:
    """A side's seat and team scores: one sum a seat and a team, each within the chunk's games."""
    out = []
    if len(t["seat_score"]) != seats or len(t["team_score"]) != teams:
        out.append(loc.at(where, _("{n} seat scores and {n2} team scores for "
                                 "{seats} seats in {teams} teams").format(n=len(t['seat_score']), n2=len(t['team_score']), seats=seats, teams=teams)))
    for i, s in enumerate(t["seat_score"]):
        out += _sums_problems(loc, where + ("seat_score", i), s, games)
    for i, s in enumerate(t["team_score"]):
        out += _sums_problems(loc, where + ("team_score", i), s, games)
    return out


def _place_problems(loc: Located, where: tuple[Any, ...], places: Any, games: int, seats: int) -> list[str]:
    """The table of places by seat: seats × seats, each seat placed and each place taken at most once a game."""
    out = []
    if len(places) != seats or any(len(row) != seats for row in places):
        out.append(loc.at(where + ("places",), _("not a {seats} × {seats} table of places by seat").format(seats=seats)))
        return out
    for s, row in enumerate(places):
        if sum(row) > games:
            out.append(loc.at(where + ("places", s), _("seat {s} placed {sum} times in {games} games").format(
                s=s + 1, sum=sum(row), games=games)))
    for p in range(seats):
        if sum(row[p] for row in places) > games:
            out.append(loc.at(where + ("places",), _("place {p} taken {sum} times "
                                                   "in {games} games").format(p=p + 1, sum=sum(row[p] for row in places), games=games)))
    return out


def _side_problems(loc: Located, where: tuple[Any, ...], t: dict[str, Any], games: int, seats: int,
                   teams: int) -> list[str]:
    out = []
    if t["n_seats"] != seats or t["teams"] != teams:
        return [loc.at(where, _("totals of {t} seats in {t2} teams; the run's ruleset has {seats} "
                              "seats in {teams} teams").format(t=t['n_seats'], t2=t['teams'], seats=seats, teams=teams))]
    if t["games"] != games:
        return [loc.at(where + ("games",), _("{t} games in a chunk of {games} deals").format(t=t['games'], games=games))]
    out += _figure_problems(loc, where, t, games)
    out += _score_problems(loc, where, t, games, seats, teams)
    out += _place_problems(loc, where, t["places"], games, seats)
    b = t["burn_success"]
    if b["y"] > b["x"] or b["clusters"] > games or b["xx"] < b["x"] or b["yy"] < b["y"]:
        out.append(loc.at(where + ("burn_success",), _("{b} successful burns of {b2} attempts do not add up").format(b=b['y'], b2=b['x'])))
    hist = sum(t["spread_histogram"].values())
    if hist != games:
        out.append(loc.at(where + ("spread_histogram",), _("{hist} games in the spread histogram of {games}").format(hist=hist, games=games)))
    return out


def _divergent_problems(loc: Located, t: dict[str, Any], start: int, stop: int, seed: Any, seats: int,
                        where: tuple[Any, ...] = ("totals",)) -> list[str]:
    out = []
    if len(t["divergent"]) > t["top"]:
        out.append(loc.at(where + ("divergent",), _("{n} divergent deals kept; the run keeps {t}").format(n=len(t['divergent']), t=t['top'])))
    for i, d in enumerate(t["divergent"]):
        at = where + ("divergent", i)
        if d["seed"] != str(seed) or not start <= d["index"] < stop:
            out.append(loc.at(at, _("deal {shown}:{d} is not a deal of this chunk "
                                     "({shown2}:{start}..{stop})").format(
                                         shown=shown(d['seed']), d=d['index'], shown2=shown(seed), start=start, stop=stop - 1)))
        elif any(g["index"] != d["index"] or len(g["places"]) != seats or len(g["scores"]) != seats
                 for g in (d["a"], d["b"])):
            out.append(loc.at(at, _("not the games of deal {d} at {seats} seats").format(d=d['index'], seats=seats)))
    return out


def chunk_problems(loc: Located, data: Any, key: tuple[int, int], meta: dict[str, Any]) -> list[str]:
    """What is wrong with the parsed chunk ``data`` named for deals ``key`` of the run ``meta``."""
    spec = meta["spec"]
    kind = spec["kind"]
    problems = schema_problems(loc, data, "chunk.schema.json", kind)
    if problems:
        return problems
    start, stop = data["start"], data["stop"]
    if (start, stop) != key:
        return [loc.at(("start",), _("deals {start}..{stop}, but the file is named for deals {key}..{key2}").format(
            start=start, stop=stop - 1, key=key[0], key2=key[1] - 1))]
    if data["run"] != meta["fingerprint"]:
        return [loc.at(("run",), _("a chunk of another run (fingerprint {data}; this folder's run is "
                                 "{meta}: other rulesets, bots, seed or chunk size)").format(data=data['run'], meta=meta['fingerprint']))]
    if str(data["seed"]) != str(spec["seed"]):
        return [loc.at(("seed",), _("seed {describe}, the run's is {describe2}").format(
            describe=_describe(data['seed']), describe2=_describe(spec['seed'])))]
    size = meta["chunk_size"]
    if start % size or not 0 < stop - start <= size:
        return [loc.at(("start",), _("deals {start}..{stop} are not one of the run's chunks of {size}").format(
            start=start, stop=stop - 1, size=size))]
    t = data["totals"]
    seats, teams = spec["seats"], spec["teams"]
    if kind == "single":
        return _side_problems(loc, ("totals",), t, stop - start, seats[0], teams[0])
    if kind == "sweep":
        if len(t["points"]) != len(seats) - 1:
            return [loc.at(("totals", "points"), _("{n} points; the run's grid has {m}").format(n=len(t["points"]), m=len(seats) - 1))]
        out: list[str] = []
        for i, point in enumerate(t["points"]):
            out += _pair_problems(loc, ("totals", "points", i), point, (start, stop), data["seed"], spec,
                                  (0, i + 1))
        return out
    return _pair_problems(loc, ("totals",), t, (start, stop), data["seed"], spec, (0, 1))


def _pair_problems(loc: Located, where: tuple[Any, ...], t: dict[str, Any], deals: tuple[int, int], seed: Any,
                   spec: dict[str, Any], sides: tuple[int, int]) -> list[str]:
    """What is wrong with the totals ``t`` of a pair: the run's rulesets ``sides`` (A, B) on ``deals``."""
    start, stop = deals
    games = stop - start
    seats = (spec["seats"][sides[0]], spec["seats"][sides[1]])
    teams = (spec["teams"][sides[0]], spec["teams"][sides[1]])
    out = _side_problems(loc, where + ("a",), t["a"], games, seats[0], teams[0])
    out += _side_problems(loc, where + ("b",), t["b"], games, seats[1], teams[1])
    if out:
        return out
    if t["top"] != spec["top"]:
        out.append(loc.at(where + ("top",), _("keeps {t} divergent deals; the run keeps {spec}").format(t=t['top'], spec=spec['top'])))
    for k, s in t["diffs"].items():
        out += _sums_problems(loc, where + ("diffs", k), s, games, exact=k not in _PARTIAL)
    if len(t["seat_diffs"]) != min(seats):
        out.append(loc.at(where + ("seat_diffs",), _("{n} seats; the run has {min}").format(n=len(t['seat_diffs']), min=min(seats))))
    for i, s in enumerate(t["seat_diffs"]):
        out += _sums_problems(loc, where + ("seat_diffs", i), s, games)
    for k, b in t["binary"].items():
        n = b["n11"] + b["n10"] + b["n01"] + b["n00"]
        if n != games:
            out.append(loc.at(where + ("binary", k), _("a 2×2 table of {n} deals in a chunk of {games}").format(n=n, games=games)))
        out += _sums_problems(loc, where + ("binary", k, "diff"), b["diff"], games)
    out += _sums_problems(loc, where + ("outcome_changed",), t["outcome_changed"], games, binary=True)
    out += _mirror_problems(loc, where, t, min(seats)) if not out else []
    out += _divergent_problems(loc, t, start, stop, seed, min(seats), where)
    return out


def _row_sums(t: dict[str, Any], row: str) -> dict[str, Any] | None:
    """The per-deal differences' sums of a mirror row (``seat_score.N``, a mean figure, a yes/no figure)."""
    if row.startswith("seat_score."):
        i = int(row.split(".")[1]) - 1
        return t["seat_diffs"][i] if i < len(t["seat_diffs"]) else None
    if row in t["binary"]:
        return t["binary"][row]["diff"]  # type: ignore[no-any-return]
    return t["diffs"].get(row)  # type: ignore[no-any-return]


def _mirror_problems(loc: Located, where: tuple[Any, ...], t: dict[str, Any], seats: int) -> list[str]:
    """Mirror pairs (``X|Y``) a chunk claims that its own sums deny: equal rows have equal sums, opposite
    rows opposite sums (Σ, and the same Σx²), and both rows belong to one group of the run's seats."""
    m = t.get("mirrors")
    if m is None:
        return []
    groups = Mirrors.rows(seats)
    out = []
    for kind, sign in (("same", 1), ("opposite", -1)):
        for i, pair in enumerate(m[kind]):
            x, _bar, y = pair.partition("|")
            sx, sy = _row_sums(t, x), _row_sums(t, y)
            ok = (any(x in g and y in g and g.index(x) < g.index(y) for g in groups) and sx is not None and sy is not None
                  and sx["n"] == sy["n"] and _num(sx["ss"]) == _num(sy["ss"]) and _num(sx["s"]) == sign * _num(sy["s"]))
            if not ok:
                out.append(loc.at(where + ("mirrors", kind, i), _("{pair} is not a pair of rows whose sums agree with "
                                                                  "it").format(pair=pair)))
    return out


def read_chunk(path: Path, key: tuple[int, int], meta: dict[str, Any]) -> dict[str, Any]:
    """The chunk file ``path`` (named for deals ``key``) of the run ``meta``, checked (see the module
    doc); RunError naming the file, where in it, and that removing it replays its deals."""
    data, text = read_json(path, _("chunk file"), _(HINT_REMOVE))
    loc = Located(path, text, _("chunk file"), _(HINT_REMOVE))
    if isinstance(data, dict) and data.get("format") == "gouji-chunk/1":
        raise loc.error([loc.at(("format",), _("a chunk written by an older gouji (no fingerprint of its run)"))])
    if isinstance(data, dict) and data.get("format") == "gouji-chunk/2":
        raise loc.error([loc.at(("format",), _("a chunk written by an older gouji (its design metrics come from "
                                             "every {every}th deal only)").format(every=PROBE_EVERY))])
    problems = chunk_problems(loc, data, key, meta)
    if problems:
        raise loc.error(problems)
    return data


__all__ = ["RUN_FORMAT", "CHUNK_FORMAT", "MAX_RUN_FILE_BYTES", "MAX_RUN_NESTING", "RunError", "read_json", "read_meta",
           "read_chunk", "run_fingerprint", "chunk_problems"]
