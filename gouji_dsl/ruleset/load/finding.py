"""Finding rulesets: the path policy, where a ruleset may come from and which file a name or path means.

A ruleset the user named (:func:`ruleset_path`): a bundled name, a name in a ``--rules-path`` folder, or a path read
wherever it is. A ruleset named inside a file (an ``extends:``, a scenario's or record's ``ruleset:``,
:func:`find_ruleset`): a bundled name; a ``NAME`` or relative ``.yaml`` path inside the referring file's folder (or
below); or a file in a folder the user named (``--rules-path DIR`` / the :data:`RULES_PATH_ENV` environment variable,
see :func:`rules_path`). Absolute paths and ``..`` leaving those folders are refused, and a file without a
``ruleset:`` line is refused before any of its text is read into a message. :class:`Places` holds the folders of one
load; :func:`find_referenced` is the one lookup of a reference written in a file.
"""
from __future__ import annotations

import contextvars
import os
import re
from collections.abc import Iterable, Sequence
from pathlib import Path

from gouji_dsl import resources
from gouji_dsl.diagnostics import Code, GoujiError, did_you_mean
from gouji_dsl.i18n import N_, _
from gouji_dsl.ruleset.load.reading import file_diag, join_hints, read_text

__all__ = [
    "MAX_REFERENCE_CHARS", "RULES_PATH_ENV", "RULESET_SUFFIXES",
    "ruleset_path", "find_ruleset", "allowed_place", "rules_path", "use_rules_path", "list_bundled",
    "Places", "Refused", "find_referenced", "check_is_ruleset", "real_path",
]

RULESET_SUFFIXES: tuple[str, ...] = (".yaml", ".yml")
"""How the name of a ruleset file ends."""

MAX_REFERENCE_CHARS = 255
"""Longest ruleset reference (an ``extends:`` name or path, a scenario's or record's ruleset)."""

RULES_PATH_ENV = "GOUJI_RULES_PATH"
"""Environment variable: folders (separated by ``os.pathsep``) rulesets may be read from and names
are looked up in, like ``--rules-path DIR``."""

_RULESET_LINE = re.compile(r"^ruleset[ \t]*:", re.MULTILINE)


def _bundled_dir() -> Path | None:
    try:
        return resources.rules_dir()
    except FileNotFoundError:
        return None


def list_bundled() -> list[str]:
    """Names of the bundled rulesets (stems of ``rules/*.yaml``), sorted; ``[]`` when there are none."""
    try:
        return resources.bundled_names()
    except FileNotFoundError:
        return []


_rules_path_var: contextvars.ContextVar[tuple[str, ...]] = contextvars.ContextVar("gouji_rules_path", default=())


def use_rules_path(folders: Iterable[str | os.PathLike[str]]) -> None:
    """Add ``folders`` (``gouji --rules-path DIR``) to :func:`rules_path` for this context."""
    _rules_path_var.set(_rules_path_var.get() + tuple(os.fspath(f) for f in folders))


def rules_path() -> list[Path]:
    """The folders the user named for rulesets: ``--rules-path`` (:func:`use_rules_path`) then the
    :data:`RULES_PATH_ENV` environment variable (``os.pathsep``-separated). Names are looked up in
    them and files in them (or below) may be read."""
    env = [p for p in os.environ.get(RULES_PATH_ENV, "").split(os.pathsep) if p.strip()]
    return [Path(p) for p in (*_rules_path_var.get(), *env)]


def _looks_like_path(s: str) -> bool:
    return s.endswith(RULESET_SUFFIXES) or "/" in s or os.sep in s or (os.altsep or "/") in s


def _known_names(folders: Iterable[Path]) -> list[str]:
    names: set[str] = set(list_bundled())
    for d in folders:
        try:
            names.update(p.stem for p in d.glob("*.yaml"))
        except OSError:
            pass
    return sorted(names)


def _names_hint(name: str, names: Sequence[str]) -> str:
    listing = _("bundled rulesets: ") + (", ".join(list_bundled()) or _("(none)"))
    return join_hints([did_you_mean(name, names), listing]) or listing


def _is_file(p: Path) -> bool:
    try:
        return p.is_file()
    except (OSError, ValueError):
        return False


def real_path(p: Path) -> Path:
    try:
        return Path(os.path.realpath(p))
    except (OSError, ValueError):
        return p.absolute()


def _inside(p: Path, folders: Iterable[Path]) -> bool:
    return any(p == f or p.is_relative_to(f) for f in folders)


class Refused(Exception):
    """A ruleset reference that cannot be followed: ``code``, message and hint."""

    def __init__(self, code: str, message: str, hint: str | None = None):
        super().__init__(message)
        self.code, self.message, self.hint = code, message, hint


_ALLOW_HINT = N_("or allow its folder with `--rules-path DIR` (or the environment variable GOUJI_RULES_PATH)")


class Places:
    """Where one load may read rulesets: the folder of the file the user named (``home``), the
    folders of :func:`rules_path` and ``search``, and the bundled rulesets."""

    def __init__(self, home: Path | None, search: Sequence[str | os.PathLike[str]]):
        self.search = [Path(d) for d in search] + rules_path()
        bundled = _bundled_dir()
        roots = ([home] if home is not None else []) + self.search + ([bundled] if bundled else [])
        self.roots = [real_path(r) for r in roots]

    def candidates(self, folder: Path, ref: str) -> list[Path]:
        """Files a name or relative path ``ref`` written in a file in ``folder`` may mean, in order."""
        if _looks_like_path(ref):
            return [Path(ref) if os.path.isabs(ref) else folder / ref]
        bundled = _bundled_dir()
        return [folder / f"{ref}.yaml"] + [d / f"{ref}.yaml" for d in self.search] + ([bundled / f"{ref}.yaml"] if bundled else [])

    def check(self, ref: str) -> None:
        """Refuse a reference that is too long or not text a path can hold."""
        if len(ref) > MAX_REFERENCE_CHARS:
            raise Refused(Code.RULESET_NOT_FOUND, _("ruleset reference too long ({n} characters; "
                           "at most {max_reference_chars})").format(
                               n=len(ref), max_reference_chars=MAX_REFERENCE_CHARS), _("name a bundled ruleset or a .yaml file beside this one"))
        if "\x00" in ref or not ref.strip():
            raise Refused(Code.RULESET_NOT_FOUND, _("{ref!r} is not a ruleset name or path").format(ref=ref),
                           _("name a bundled ruleset or a .yaml file beside this one"))

    def allowed(self, ref: str, cand: Path) -> Path:
        """``cand`` (a file ``ref`` may mean) if it may be read, else :class:`Refused` saying why."""
        real = real_path(cand)
        if not _inside(real, self.roots):
            if os.path.isabs(ref):
                raise Refused(Code.PATH_NOT_ALLOWED, _("absolute paths are not allowed here: {ref!r}").format(ref=ref),
                               _("write a path relative to this file's folder (or a bundled name), ") + _(_ALLOW_HINT))
            raise Refused(Code.PATH_NOT_ALLOWED, _("{ref!r} leaves the folders rulesets may be read from").format(ref=ref),
                           _("keep to this file's folder and below (no `..` out of it), ") + _(_ALLOW_HINT))
        if not cand.name.endswith(RULESET_SUFFIXES):
            raise Refused(Code.NOT_A_RULESET, _("{ref!r} is not a ruleset file").format(ref=ref), _("a ruleset file's name ends in .yaml"))
        return cand


def check_is_ruleset(path: str, text: str) -> None:
    """Refuse a file without a ``ruleset:`` line (before any of its text is shown)."""
    if _RULESET_LINE.search(text) is None:
        raise Refused(Code.NOT_A_RULESET, _("{path} is not a ruleset file (no `ruleset:` line)").format(path=path),
                       _("a ruleset file starts with `ruleset: NAME`"))


def ruleset_path(name_or_path: str | os.PathLike[str], *, search: Sequence[str | os.PathLike[str]] = ()) -> Path:
    """The file of a ruleset the user named: a bundled name (``"online"``), a name found in a
    ``search`` folder or :func:`rules_path`, or a path (``"my/rules.yaml"``, read wherever it is:
    the user named it).

    A value ending in ``.yaml``/``.yml`` or containing a path separator (or a ``PathLike``) is a path;
    otherwise ``NAME.yaml`` is looked up in each ``search`` folder, then among the bundled rulesets.
    Raises :class:`GoujiError` when nothing is found (hint: the bundled names, did-you-mean). For a
    ruleset named inside a file (a scenario, a record), use :func:`find_ruleset`."""
    s = os.fspath(name_or_path)
    places = Places(None, search)
    try:
        places.check(s)
    except Refused as e:
        raise GoujiError(file_diag(s[:MAX_REFERENCE_CHARS], e.message, e.hint, code=e.code)) from None
    if not isinstance(name_or_path, str) or _looks_like_path(s):
        p = Path(s)
        if _is_file(p):
            return p
        if os.path.exists(p):
            read_text(s)  # raises: a folder, a device ...
        raise GoujiError(file_diag(s, _("no such ruleset file: {s}").format(s=s), _names_hint(Path(s).stem, list_bundled()),
                                    code=Code.RULESET_NOT_FOUND))
    for cand in places.candidates(Path("."), s)[1:]:  # not the current folder: a name is a search name
        if _is_file(cand):
            return cand
    here = next((f"./{s}{ext}" for ext in ("", ".yaml", ".yml") if _is_file(Path(s + ext))), None)
    hint = _names_hint(s, _known_names(places.search))
    if here is not None:  # a file of the current folder is named by its path, never by its name alone
        hint = _("the file in this folder is written as a path: {path}").format(path=here) + _("; ") + hint
    raise GoujiError(file_diag(s, _("unknown ruleset {s!r}").format(s=s), hint, code=Code.RULESET_NOT_FOUND))


def find_ruleset(ref: str, *, referrer: str | os.PathLike[str], search: Sequence[str | os.PathLike[str]] = ()) -> Path:
    """The ruleset file that ``ref``, written in the file ``referrer`` (a scenario's ``ruleset:``,
    a record's ruleset), may mean: a bundled name; ``NAME`` or a relative ``.yaml`` path in the
    referrer's folder or below; or a file in a ``search`` folder or :func:`rules_path`.

    Absolute paths and ``..`` leaving those folders are refused (:attr:`Code.PATH_NOT_ALLOWED`, the
    hint says how to allow a folder), as is a file that is not a ruleset (:attr:`Code.NOT_A_RULESET`)
    — before any of its text is shown. Raises :class:`GoujiError` (no position: place it at the
    reference yourself with :meth:`GoujiError.diagnostics`)."""
    folder = Path(os.fspath(referrer)).parent
    places = Places(folder, search)
    try:
        # the referrer itself is never the ruleset it names (tests/scenarios/online.yaml names online)
        found = find_referenced(places, folder, ref, me=real_path(Path(os.fspath(referrer))))
        check_is_ruleset(ref, read_text(str(found)))
    except Refused as e:
        raise GoujiError(file_diag(os.fspath(referrer), e.message, e.hint, code=e.code)) from None
    except GoujiError as e:
        d = e.diagnostics[0]
        raise GoujiError(file_diag(os.fspath(referrer), _("cannot read {ref!r}: ").format(ref=ref) + d.message.removeprefix(
            _("cannot read ruleset: ")), d.hint, code=d.code)) from None
    return found


def allowed_place(path: str | os.PathLike[str], *, referrer: str | os.PathLike[str],
                  search: Sequence[str | os.PathLike[str]] = ()) -> bool:
    """True when a file named inside ``referrer`` may be read at ``path`` (see :func:`find_ruleset`):
    it is in the referrer's folder or below, in a ``search`` / :func:`rules_path` folder, or bundled."""
    places = Places(Path(os.fspath(referrer)).parent, search)
    return _inside(real_path(Path(os.fspath(path))), places.roots)


def find_referenced(places: Places, folder: Path, ref: str, me: Path | None = None, what: str = "") -> Path:
    """The file ``ref`` (written in a file in ``folder``) means, or :class:`Refused`. ``me``: the
    real path of the referring file, skipped (a workspace NAME.yaml may extend the bundled NAME)."""
    places.check(ref)
    found_self = False
    for cand in places.candidates(folder, ref):
        if not _is_file(cand):
            if _looks_like_path(ref):
                places.allowed(ref, cand)  # say "not allowed" rather than "not found" for ../../etc/x
            continue
        if me is not None and real_path(cand) == me:
            found_self = True
            continue
        return places.allowed(ref, cand)
    if found_self:
        raise Refused(Code.EXTENDS_CYCLE, _("extends cycle: {ref!r} extends itself").format(ref=ref), _("a ruleset cannot extend itself"))
    looked = [os.path.normpath(str(c)) for c in places.candidates(folder, ref)]
    names = _known_names([folder, *places.search])
    hint = join_hints([did_you_mean(Path(ref).stem if _looks_like_path(ref) else ref, names),
                  _("looked for ") + ", ".join(looked),
                  _("bundled rulesets: ") + (", ".join(list_bundled()) or _("(none)"))])
    raise Refused(Code.RULESET_NOT_FOUND, _("cannot find {what} {ref!r}").format(what=what or _("ruleset"), ref=ref), hint)
