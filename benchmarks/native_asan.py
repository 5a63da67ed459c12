"""Fuzz the native core under AddressSanitizer (and UBSan): build ``_core`` from the package's
sources with ``-fsanitize=address,undefined`` into a temporary folder, then feed it random and
mutated inputs in a child process with the sanitizer runtime preloaded: generator keys, seed texts
(SHA-512) and states, deal tables, hook programs (random words, and the programs of every bundled
ruleset with words flipped), contexts (random words, and packed contexts of interpreter games),
hooks (lists of those programs as permit and value rules), and the game flow (flow.h: the flow
programs of the rulesets it plays, tables and programs mutated, run on packed play-phase states,
real and mutated; the rulesets whose rules read a play's cards per kind, cards_of, more often,
with the play on the table's code mutated; cover tables, of the cover and the positional
comparison, with entries the loader takes that fit no combination). Every input the core accepts runs; every
input it refuses must be refused with a Python exception, never a crash. A sanitizer report stops
the child with an error, and this script exits non-zero.

    python benchmarks/native_asan.py                   # 3,000 rounds, seed 0, every ruleset and variant
    python benchmarks/native_asan.py --rounds 50000 --seed 7
    python benchmarks/native_asan.py --rounds 600 --opt -O0 --rulesets online,base   # a quick subset

The cost is the sanitized build (~16 s CPU at -O1, ~3 s at -O0; the default was -O2 before 2026-12-03) and the set-up (every ruleset
loaded, its programs emitted, interpreter and generated games played for contexts and states:
~30 s CPU for all 26); a round costs ~5 ms.

Bounded: ``--rounds`` rounds, each a fixed number of calls; the child has a timeout. Used by
``tests/test_native_fuzz.py`` with a subset of the rulesets (the features of them all), -O0 and
a few hundred rounds.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CHILD = r'''
import importlib.util, random, sys
from array import array
spec = importlib.util.spec_from_file_location("gouji_dsl.engine.native._core", sys.argv[1])
core = importlib.util.module_from_spec(spec)
spec.loader.exec_module(core)
sys.modules["gouji_dsl.engine.native._core"] = core
import gouji_dsl.engine.native as native
native._core, native._IMPORT_ERROR = core, None
from gouji_dsl.engine.native import hooks, program as P
from gouji_dsl.engine.interpreter import new_game, next_game
from gouji_dsl.ruleset.game.context import Ctx
from gouji_dsl.resources import rules_dir
from gouji_dsl.ruleset.graph import load_graph

import time
t_start = time.process_time()
rounds, seed = int(sys.argv[2]), int(sys.argv[3])
rng = random.Random(seed)
from pathlib import Path
names = sorted(p.stem for p in rules_dir().glob("*.yaml")) + sorted(str(p) for p in Path(sys.argv[4]).glob("*.yaml"))
if len(sys.argv) > 5 and sys.argv[5]:  # (--rulesets: a subset, by name)
    keep = set(sys.argv[5].split(","))
    names = [n for n in names if Path(n).stem in keep]
graphs = [load_graph(n) for n in names]
progs, ctxs = [], []
for g in graphs:
    for node in g.nodes:
        for tree in node.checked.values():
            try:
                progs.append(hooks.emit(g, tree).code)
            except native.Unsupported:
                pass
    st = new_game(g, "asan")
    for i in range(400):  # (a whole game, then the next one's first moves: a previous game, its burns and places)
        if st.over and st.prev is None:
            st = next_game(st, "asan:2")
            continue
        if st.over:
            break
        if i % 10 == 0:
            for s in st.seat_list:
                ctxs.append(hooks.pack_context(g, Ctx(st, seat=s, top=st.top, play=st.top, choice="redeal", answer="redeal")))
        moves = st.legal_moves()
        st.apply_in_place(moves[rng.randrange(len(moves))], trusted=True)
words32 = lambda n: [rng.choice([rng.randrange(-3, 60), rng.randrange(-2**31, 2**31)]) for _ in range(n)]
# the game flow (flow.h): the flow programs of the rulesets it plays, and packed play-phase states of their games
from gouji_dsl.engine import fast
from gouji_dsl.engine.native import flow as F
flows = []  # (plan, [(ctx, state words)])
from gouji_dsl.engine.native import heuristic as NH
heur_words = {}  # id(plan) -> the see_count hook's words and programs (heuristic.h)
for g in graphs:
    eng = fast.engine(g)
    if eng is None or F.fallback_reason(g) is not None:
        continue
    plan = F.flow_plan(g)
    packed = []
    st = eng.new_game("asan-flow")
    for i in range(600):
        if st.phase == "over":
            break
        if st.phase == "play" and i % 3 == 0:
            sw = F._state_words(plan, st, core)
            if sw is not None:
                packed.append((F._pack(plan, st, core), sw))
        moves = eng.legal_moves(st)
        eng.apply(st, moves[rng.randrange(len(moves))], trusted=True)
    flows.append((plan, packed))
    try:
        heur_words[id(plan)] = NH.see_count_words(g)
    except native.Unsupported:
        heur_words[id(plan)] = (array("i", [0, 0, hooks.T_BOOL, 0, 0]).tobytes(), [])
counting = [f for f in flows if f[0].tables[4 * core.FLOW_PLAY_COUNTS]]  # (rules reading cards_of: vm_ctx.play_counts filled)

def attempt(fn, *args):
    try:
        return fn(*args)
    except (ValueError, TypeError, OverflowError, IndexError, RuntimeError):
        return None

accepted = ran = 0
t_setup = time.process_time()
for r in range(rounds):
    # generators: keys, states, draws
    key = [rng.randrange(2**32) for _ in range(rng.randrange(0, 40))]
    g1 = core.Random(key)
    text = bytes(rng.randrange(256) for _ in range(rng.choice([0, 1, 63, 111, 112, 127, 128, 129, rng.randrange(600)])))
    attempt(core.sha512, text)
    attempt(core.Random, None, text)
    attempt(g1.seed_text, rng.choice([text, "not bytes", None]))
    st = list(g1.getstate()[1])
    for _ in range(rng.randrange(3)):
        st[rng.randrange(625)] = rng.choice([-1, 2**32, 625, 624, 0, rng.randrange(2**33)])
    attempt(g1.setstate, (3, tuple(st), None))
    for _ in range(5):
        attempt(g1.getrandbits, rng.randrange(-2, 300))
        attempt(g1.randbelow, rng.choice([0, 1, rng.randrange(2**64 + 5)]))
    xs = list(range(rng.randrange(0, 50)))
    attempt(g1.shuffle, xs)
    attempt(g1.choice, xs)
    # deals: tables good and bad
    g = rng.choice(graphs)
    prog = P.program(g)
    kinds = bytearray(prog.deck_kinds)
    for _ in range(rng.randrange(3)):
        if kinds:
            kinds[rng.randrange(len(kinds))] = rng.randrange(256)
    if rng.random() < 0.1:
        kinds = bytearray(rng.randrange(256) for _ in range(rng.randrange(0, 2200)))
    attempt(core.deal, g1, bytes(kinds), rng.choice([prog.n_seats, rng.randrange(-2, 20)]),
            rng.choice([len(prog.kinds), rng.randrange(-2, 70)]), rng.choice([prog.n_ranks, rng.randrange(-2, 70)]),
            rng.choice([1, rng.randrange(-2, 20)]))
    # programs: random words, real ones as they are (every instruction's run on real and mutated contexts), mutated ones
    for _ in range(4):
        pick = rng.random()
        if pick < 0.3 or not progs:
            code = array("i", words32(rng.randrange(1, 30))).tobytes()
        elif pick < 0.6:
            code = rng.choice(progs)
        else:
            w = array("i")
            w.frombytes(rng.choice(progs))
            for _ in range(rng.randrange(1, 4)):
                w[rng.randrange(len(w))] = rng.choice([rng.randrange(-3, 60), rng.randrange(-2**31, 2**31)])
            code = w.tobytes()
        ok = core.vm_verify(code, rng.choice([15, 1, 64, rng.randrange(-1, 70)]))
        accepted += bool(ok)
        ctx = rng.choice(ctxs)
        if rng.random() < 0.2:
            c = array("q")
            c.frombytes(ctx)
            for _ in range(rng.randrange(1, 6)):
                c[rng.randrange(len(c))] = rng.choice([rng.randrange(-5, 70), rng.randrange(-2**62, 2**62)])
            ctx = c.tobytes()
        ran += attempt(core.vm_eval, code, ctx, rng.choice([None, g1])) is not None
    attempt(core.vm_eval, array("i", words32(3)).tobytes(), bytes(rng.randrange(0, 64)))
    # hooks: rule lists of real and mutated programs, permit and value, good and bad defaults
    if progs:
        rules = []
        for _ in range(rng.randrange(0, 6)):
            when = rng.choice([None, rng.choice(progs), array("i", words32(4)).tobytes()])
            rules.append((when, rng.choice([0, 1, 2, 3, -1, 9]), rng.choice(progs)))
        kind = rng.choice([0, 1, 2])
        attempt(core.hook_eval, kind, rules, rng.choice([0, 1, 2, 3, 4, 5, 9]), rng.choice([0, 1, -5, 2**60]),
                rng.choice(ctxs), rng.choice([None, g1]))
    # the game flow: tables and programs good and mutated; real states, mutated ones, random bots at some seats
    if flows:
        plan, packed = rng.choice(counting) if counting and rng.random() < 0.3 else rng.choice(flows)
        tables, fprogs = plan.tables, list(plan.programs)
        if rng.random() < 0.1:  # (the cards-per-kind switch either way, on any ruleset's programs)
            t = array("i")
            t.frombytes(tables)
            t[core.FLOW_PLAY_COUNTS] = rng.choice([0, 1, -1, 2**31 - 1])
            tables = t.tobytes()
        if rng.random() < 0.15:  # (cover entries the loader takes, -1..127, inconsistent with the combinations:
            t = array("i")        # the answers' enumeration, flow.h fl_answers, of both comparison models)
            t.frombytes(tables)
            n2 = len(plan.combos) ** 2
            for _ in range(rng.randrange(1, 9)):
                t[plan.cover_at + rng.randrange(n2)] = rng.choice([-1, 0, 1, 2, 3, 127, rng.randrange(-1, 128)])
            tables = t.tobytes()
        if rng.random() < 0.3:
            t = array("i")
            t.frombytes(tables)
            for _ in range(rng.randrange(1, 4)):
                t[rng.randrange(len(t))] = rng.choice([rng.randrange(-3, 300), rng.randrange(-2**31, 2**31)])
            if rng.random() < 0.2:
                t = t[:rng.randrange(len(t))]
            tables = t.tobytes()
        if rng.random() < 0.2 and fprogs:
            fprogs[rng.randrange(len(fprogs))] = rng.choice([array("i", words32(5)).tobytes(), rng.choice(progs)])
        fl = attempt(core.flow_load, tables, fprogs)
        if fl is not None and packed:
            ctx, sw = rng.choice(packed)
            if rng.random() < 0.3:
                c = array("q")
                c.frombytes(ctx)
                for _ in range(rng.randrange(1, 6)):
                    c[rng.randrange(len(c))] = rng.choice([rng.randrange(-5, 70), rng.randrange(-2**62, 2**62)])
                ctx = c.tobytes()
            if rng.random() < 0.3:
                w = array("i")
                w.frombytes(sw)
                for _ in range(rng.randrange(1, 6)):
                    w[rng.randrange(len(w))] = rng.choice([rng.randrange(-3, 70), rng.randrange(-2**31, 2**31)])
                sw = w.tobytes()
            if rng.random() < 0.2:  # the play on the table's code (rank, cards, fillers, joker combination): its cards per kind
                w = array("i")
                w.frombytes(sw)
                w[core.FLOW_TOP + rng.randrange(2, 6)] = rng.choice([-2, -1, 0, 1, 14, 15, 32767, 32768, rng.randrange(-2**31, 2**31)])
                sw = w.tobytes()
            n = plan.graph.n_seats
            picks = [None] + [core.Random([rng.randrange(2**32)]) if rng.random() < 0.9 else None for _ in range(n)]
            heur, mask = None, 0
            if rng.random() < 0.5:  # the heuristic bot (heuristic.h) at some seats: its tables good and mutated
                hw, hprogs = heur_words[id(plan)]
                vals = [rng.choice([0.0, 0.75, 3.0, 5.0, 6.0, -1.0, 1e308, float("inf"), float("nan"), rng.random() * 9])
                        for _ in range(plan.k + (rng.random() < 0.05))]
                jsum = list(NH.joker_sums(plan)) if rng.random() < 0.8 else [rng.randrange(-2, 50) for _ in plan.combos]
                if rng.random() < 0.2:
                    h = array("i")
                    h.frombytes(hw)
                    h[rng.randrange(len(h))] = rng.choice([rng.randrange(-3, 20), rng.randrange(-2**31, 2**31)])
                    hw = h.tobytes()
                if rng.random() < 0.1:
                    hprogs = [rng.choice(progs)] + list(hprogs)
                heur = attempt(core.heuristic_load, fl, vals, jsum, hw, hprogs, rng.choice([2.0, 0.0, -1.0]),
                               rng.choice([0.7, 0.0, 1.0]))
                if heur is not None:
                    mask = sum(1 << s for s in range(1, n + 1) if picks[s] is None or rng.random() < 0.3)
                    if rng.random() < 0.5:  # (every seat the heuristic's)
                        picks = [None] * (n + 1)
                        mask = sum(1 << s for s in range(1, n + 1))
            ran += attempt(fl.run, ctx, sw, picks, rng.randrange(0, 50), rng.choice([0, 5, 500, 100000]),
                           rng.choice([1024, 4096, 1 << 16]), heur, mask) is not None
        if fl is not None and rng.random() < 0.3:  # whole games (batch.h): fresh contexts good and mutated, packs good and bad
            try:
                fresh = F._fresh_context(plan, core)
                kinds, suits = F._deck(plan)
            except Exception:
                fresh, kinds, suits = bytes(8 * core.CTX_LEN), b"\0" * 10, b"\0" * 10
            if rng.random() < 0.3:
                c = array("q")
                c.frombytes(fresh)
                for _ in range(rng.randrange(1, 6)):
                    c[rng.randrange(len(c))] = rng.choice([rng.randrange(-5, 70), rng.randrange(-2**62, 2**62)])
                fresh = c.tobytes()
            if rng.random() < 0.2:
                kb = bytearray(kinds)
                kb[rng.randrange(len(kb))] = rng.randrange(256)
                kinds = bytes(kb[:rng.randrange(1, len(kb) + 1)] if rng.random() < 0.3 else kb)
            if rng.random() < 0.2:
                ub = bytearray(suits)
                ub[rng.randrange(len(ub))] = rng.randrange(256)
                suits = bytes(ub)
            seed = rng.choice([b"1", b"fuzz", "够级".encode(), bytes(rng.randrange(1, 255) for _ in range(rng.randrange(0, 210)))])
            extra: tuple = ()
            if rng.random() < 0.5 and id(plan) in heur_words:  # the heuristic bot at some or every seat (setup and play)
                from gouji_dsl.bots.heuristic import card_values
                hw, hprogs = heur_words[id(plan)]
                hb = attempt(core.heuristic_load, fl, [float(v) for v in card_values(plan.graph.model)],
                             list(NH.joker_sums(plan)), hw, hprogs, 2.0, 0.7)
                ns = plan.graph.n_seats
                hm = rng.choice([sum(1 << s for s in range(1, ns + 1)), rng.randrange(0, 2 ** (ns + 1)), rng.randrange(0, 2**32)])
                extra = (hb, hm if hb is not None else 0, *rng.choice([(1.2, 5.0), (0.0, 0.0), (1e9, -1.0), (float("nan"), 5.0)]))
            if rng.random() < 0.5:  # the teams the design metrics' lead changes count (in range, and not)
                extra = (extra or (None, 0, 1.2, 5.0)) + (rng.choice([1, 2, 3, plan.graph.n_seats, 0, -1, 2**31 - 1]),)
            # games chained into matches (tribute and returns between them: batch.h bt_between), or not
            mg = rng.choice([1, 1, 5, 2, 0, 7])
            start = rng.randrange(0, 2**40)
            if mg > 1 and rng.random() < 0.7:
                start -= start % mg
            if mg != 1 or rng.random() < 0.5:
                extra = (extra or (None, 0, 1.2, 5.0))
                extra = (extra if len(extra) == 5 else extra + (2,)) + (mg,)
            ran += attempt(fl.play_games, fresh, kinds, suits, seed, start, rng.randrange(0, 4 if mg > 1 else 3),
                           rng.choice([0, 5, 500, 100000]), *extra) is not None
print(f"rounds {rounds}: {accepted} programs (random, real, mutated) passed the verifier, {ran} ran, no sanitizer report "
      f"({len(graphs)} rulesets; CPU s: set-up {t_setup - t_start:.1f}, rounds {time.process_time() - t_setup:.1f})")
'''


def build(tmp: Path, opt: str = "-O1") -> Path:
    """The core built with the sanitizers into ``tmp`` (``opt``: -O1, as the script runs it; -O0
    compiles about 5x faster, and the sanitizers see every access the source makes)."""
    env = {**os.environ, "CFLAGS": "-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined -g",
           "GOUJI_NATIVE_CFLAGS": opt}  # (after the build's own -O2: setup.py)
    env.setdefault("LDFLAGS", "-fsanitize=address,undefined")
    res = subprocess.run([sys.executable, "setup.py", "build_ext", "--build-lib", str(tmp / "lib"), "--build-temp",
                          str(tmp / "temp")], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    built = list((tmp / "lib").rglob("_core*.so"))
    if res.returncode != 0 or not built:
        raise SystemExit(f"the sanitized build failed:\n{res.stdout[-2000:]}\n{res.stderr[-2000:]}")
    return built[0]


def runtime() -> str:
    cc = os.environ.get("CC", "gcc")
    libs = []
    for name in ("libasan.so", "libubsan.so"):
        out = subprocess.run([cc, f"-print-file-name={name}"], capture_output=True, text=True, timeout=60).stdout.strip()
        if not out or not os.path.isabs(out) or not os.path.exists(out):
            raise SystemExit(f"no {name} for {cc}: cannot run under the sanitizers")
        libs.append(out)
    return ":".join(libs)


def run(rounds: int, seed: int, timeout: float = 1200, rulesets: str = "", opt: str = "-O1") -> subprocess.CompletedProcess[str]:
    """Build the sanitized core and fuzz it for ``rounds`` rounds (``rulesets``: a comma-separated
    subset of the bundled rulesets and variants by name; every one when empty)."""
    tmp = Path(tempfile.mkdtemp(prefix="gouji-asan-"))
    try:
        t0 = time.monotonic()
        so = build(tmp, opt)
        sys.stderr.write(f"sanitized build: {time.monotonic() - t0:.1f} s\n")
        env = {**os.environ, "LD_PRELOAD": runtime(), "PYTHONMALLOC": "malloc",
               "ASAN_OPTIONS": "detect_leaks=0:abort_on_error=1", "UBSAN_OPTIONS": "print_stacktrace=1:halt_on_error=1"}
        return subprocess.run([sys.executable, "-c", CHILD, str(so), str(rounds), str(seed), str(ROOT / "examples" / "variants"),
                               rulesets],
                              env=env, capture_output=True,
                              text=True, timeout=timeout)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--rulesets", default="", help="a comma-separated subset of the bundled rulesets and variants (default: all)")
    ap.add_argument("--opt", default="-O1", choices=["-O0", "-O1", "-O2"], help="the sanitized build's optimisation level")
    a = ap.parse_args()
    res = run(a.rounds, a.seed, rulesets=a.rulesets, opt=a.opt)
    sys.stdout.write(res.stdout)
    sys.stderr.write(res.stderr[-5000:])
    sys.exit(res.returncode)


if __name__ == "__main__":
    main()
