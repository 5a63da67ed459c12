"""The native play-out core (issue 24): whole games played in C over flat integer state, the
interpreter's games move for move.

Design (decided this round, the reasons below): **one compiled core, per-ruleset programs.**
The C core (``_core``, built once by ``pip install .`` from this folder's sources; see setup.py)
knows the generic game flow of a six-seat climbing game, mirroring
:mod:`gouji_dsl.engine.playout` function by function (deal, first lead, tricks, passes, yields,
burns, finishing, scramble, tribute and buying between games, matches). What a ruleset says
reaches it as a *program*: flat integer tables (seat geometry, card kinds, joker readings, cover
results per pair of joker parts, answer tables, built from the compiled graph: :mod:`.tables`,
:mod:`.program`) and a small bytecode for each hook, emitted from the same typed AST the
generator reads (settings folded, definitions inlined), checked by a verifier (every opcode,
operand, jump target and table index in range; jumps only forward, so every program ends)
before the core runs it. Hooks whose answer depends only on seat geometry (``seat ==
opposite(top.seat)``) are evaluated at program-build time into per-seat tables, so the hot
questions cost a table lookup, not a bytecode run.

Why not C emitted per ruleset and compiled at first use (cached by the ruleset's hash):
- no compiler is needed at run time: a machine that installed a built wheel, or a Dask worker
  without gcc, still plays natively, and the first use of a ruleset costs the program's
  emission (Python, milliseconds) instead of a C compile (1–3 s of gcc: the whole ≤ 3 s
  first-use budget);
- one binary to fuzz under AddressSanitizer: programs are data, so random programs and tables
  fed to the verifier and the core exercise every ruleset's code path; per-ruleset C would be a
  new, unfuzzed binary per ruleset, trusted to be memory-safe because its generator is;
- no writable cache of shared objects to lock across workers and processes, and no loading of
  a ``.so`` from a cache folder that something else could have written.
The cost is that hooks are interpreted; against the target (≤ 1,500 instructions per decision
on ``online``) the game flow is compiled C, the questions asked at every decision (follow,
yield, pass, burn order) are tables, and the rest are short straight-line programs (a guard is
5–15 operations at a few instructions of dispatch each). A hook that measurement shows to
dominate gets a fused instruction in the core: still one binary.

Random numbers: CPython's Mersenne Twister (``mt.h``) reproduced bit for bit: seeding as
``random.Random(seed)`` seeds (:func:`seed_key`: a str/bytes seed becomes the big-endian number
of its bytes followed by their SHA-512, an int its absolute value, a float its hash; the 32-bit
words of that number, least significant first, go to ``init_by_array``), ``getrandbits``,
``_randbelow`` (rejection over ``n.bit_length()`` bits), ``random()``, ``shuffle`` and
``choice``. ``tests/test_native_random.py`` compares long streams with Python's.

What is here: the generator (:class:`Random`, :func:`new_random`, :func:`from_python`), whether
the core was built (:func:`available`, :func:`unavailable_reason`), the hook programs
(:mod:`.hooks`), the play phase of random and heuristic bots on the interpreter's states and whole
games (:mod:`.flow`, ``flow.h``, ``batch.h``: one crossing per play phase or batch; the native engine,
:mod:`gouji_dsl.engine.fast`, plays every ruleset it can with it and says why not for the others). A
ruleset the core does not play yet raises :class:`Unsupported` naming what is missing, and the caller
falls back (visibly) to the interpreter.
"""
from __future__ import annotations

import hashlib
import importlib
import importlib.machinery
import importlib.util
import os
import random
import struct
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from gouji_dsl.i18n import N_, _

#: the ABI of the compiled part these wrappers expect (``_core.ABI``)
ABI = 1

_core: Any = None
#: why the core does not load: a message marked N_() and its fields (shown by unavailable_reason, in the
#: language active then)
_IMPORT_ERROR: tuple[str, dict[str, Any]] | None = None


def _stale_reason(core: Any) -> str | None:
    """Why ``core`` is not used although it loads: it was built from C sources other than the ones
    shipped beside it (its tables' layout may differ from what the wrappers write). None: it is
    the build of these sources, or the package ships no sources to compare with."""
    from gouji_dsl.engine.native._stamp import source_hash
    here = source_hash()
    if here is None or getattr(core, "SOURCE_HASH", None) == here:
        return None
    return (N_("the native core was built from other C sources than the package's (they changed after the"
               " build); rebuild it: `pip install .`, or `python setup.py build_ext --inplace` in a checkout"))


def _not_built(here: Path, path: Sequence[str]) -> tuple[str, dict[str, Any]]:
    """Why no core is beside ``here`` (this folder), as an N_() message and its fields: a source
    checkout (setup.py and pyproject.toml two floors up) where it was not built — imported in place
    of an installed copy that has it, when one on ``path`` (sys.path) does — or an installed package
    whose build found no working C compiler."""
    root = here.parents[2]
    if not ((root / "setup.py").is_file() and (root / "pyproject.toml").is_file()):
        return (N_("the native core was not built when the package was installed (no working C compiler"
                   " at `pip install .`; install one and reinstall to play natively)"), {})
    for entry in path:
        other = Path(entry or ".") / "gouji_dsl" / "engine" / "native"
        try:
            if other.resolve() == here.resolve() or not other.is_dir():
                continue
            if any((other / ("_core" + suffix)).is_file() for suffix in importlib.machinery.EXTENSION_SUFFIXES):
                return (N_("this process imports the package from the source checkout {checkout}, where the native core"
                           " is not built, in place of the installed package {installed}, which has it: run outside"
                           " the checkout, or build the core in it (`python setup.py build_ext --inplace`)"),
                        {"checkout": str(root), "installed": str(other.parents[1])})
        except OSError:
            continue
    return (N_("the native core is not built in the source checkout {checkout} this process imports the package"
               " from: `python setup.py build_ext --inplace` builds it (or `pip install .`)"), {"checkout": str(root)})


if importlib.util.find_spec(__name__ + "._core") is None:
    _IMPORT_ERROR = _not_built(Path(__file__).resolve().parent, sys.path)
else:
    try:
        _core = importlib.import_module(__name__ + "._core")
    except ImportError as _e:
        _IMPORT_ERROR = (N_("the native core is built but does not load ({error}); reinstall the package"),
                         {"error": str(_e)})
    else:
        if getattr(_core, "ABI", None) != ABI:
            _IMPORT_ERROR = (N_("the native core was built from other sources (ABI {abi}, expected {expected});"
                                " reinstall the package"), {"abi": getattr(_core, "ABI", None), "expected": ABI})
            _core = None
        else:
            _stale = _stale_reason(_core)  # (an N_() message without fields)
            if _stale is not None:
                _IMPORT_ERROR = (_stale, {})
                _core = None

#: set to a non-empty value to play without the native core even where it is built
DISABLE_ENV = "GOUJI_NO_NATIVE"


class Unsupported(Exception):
    """Something in the ruleset the native core does not play yet (the message names it); the
    caller plays with the interpreter, and says so. A message marked with
    N_() (and its ``fields``) is shown in the language active when it is shown (``str()``)."""

    def __init__(self, message: str, **fields: Any):
        super().__init__(message)
        self.fields = fields

    def __str__(self) -> str:
        text = _(str(self.args[0])) if self.args else ""
        return text.format(**self.fields) if self.fields else text

    def __reduce__(self) -> tuple[Any, ...]:
        return (_unsupported, (self.args[0] if self.args else "", self.fields))


def _unsupported(message: str, fields: dict[str, Any]) -> Unsupported:
    return Unsupported(message, **fields)


def unavailable_reason() -> str | None:
    """Why the native core cannot be used in this process (None: it can), in the active language."""
    if os.environ.get(DISABLE_ENV):
        return _("the native core is switched off ({var} is set)").format(var=DISABLE_ENV)
    if _IMPORT_ERROR is None:
        return None
    text, fields = _IMPORT_ERROR
    return _(text).format(**fields)


def available() -> bool:
    """Whether the native core is built and not switched off."""
    return unavailable_reason() is None


def _core_module() -> Any:
    reason = unavailable_reason()
    if reason is not None:
        raise Unsupported(reason)
    return _core


def seed_key(seed: Any) -> list[int]:
    """The 32-bit words (least significant first) that ``random.Random(seed)`` hands to
    ``init_by_array``: CPython's ``Random.seed`` (version 2) and ``random_seed``. ``None`` (seed
    from the OS) has no key: use :func:`from_python`."""
    if isinstance(seed, (str, bytes, bytearray)):
        raw = seed.encode() if isinstance(seed, str) else bytes(seed)
        n = int.from_bytes(raw + hashlib.sha512(raw).digest(), "big")
    elif isinstance(seed, int):
        n = abs(int(seed))
    elif isinstance(seed, float):
        n = hash(seed) & ((1 << (8 * struct.calcsize("N"))) - 1)  # (Py_hash_t cast to size_t)
    elif seed is None:
        raise ValueError("a None seed draws from the OS: seed a random.Random and use from_python()")
    else:
        raise TypeError("The only supported seed types are: None,\nint, float, str, bytes, and bytearray.")
    words = max(1, (n.bit_length() + 31) // 32)
    data = n.to_bytes(4 * words, "little")
    return [int.from_bytes(data[4 * i:4 * i + 4], "little") for i in range(words)]


def new_random(seed: Any) -> Any:
    """A native generator in the state of ``random.Random(seed)``."""
    core = _core_module()
    if seed is None:
        return from_python(random.Random())
    if isinstance(seed, (str, bytes, bytearray)):  # (the SHA-512 and the key in C: the common case, made cheap)
        return core.Random(text=seed.encode() if isinstance(seed, str) else bytes(seed))
    return core.Random(seed_key(seed))


def from_python(rng: random.Random) -> Any:
    """A native generator in the state of ``rng`` (which is left as it is)."""
    core = _core_module()
    out = core.Random()
    out.setstate(rng.getstate())
    return out


def to_python(native_rng: Any, rng: random.Random) -> None:
    """Put ``rng`` (a random.Random) in the state of the native generator, so that Python code
    goes on drawing where the native core stopped."""
    state = native_rng.getstate()
    rng.setstate((state[0], state[1], rng.getstate()[2]))


def __getattr__(name: str) -> Any:
    if name == "Random":
        return _core_module().Random
    raise AttributeError(name)
