"""Resolving ``extends``: a ruleset and its ancestors loaded past their problems (:func:`load_chain`, a
:class:`Chain`) and merged from the root down into one :class:`~gouji_dsl.ruleset.spec.ResolvedRuleset`
(:func:`resolve`, :func:`resolve_text`); see docs/ruleset-format.md, "Inheritance".

Each file of the chain is read and checked (:mod:`~gouji_dsl.ruleset.load.checking`), its parent found by the path
policy (:mod:`~gouji_dsl.ruleset.load.finding`); the broken parts of a file are left out of the merge and reported.
The merge: a child's setting replaces its parent's (mappings merged key by key, every value keeping where it was
written), definitions likewise, a rule with an inherited id replaces it (a likely misspelt override is warned about),
``remove:`` drops inherited rules; ``languages`` and ``words`` are inherited unless given.

Every problem with user input is raised as one :class:`~gouji_dsl.diagnostics.GoujiError` carrying
all :class:`~gouji_dsl.diagnostics.Diagnostic` s found in every file of the chain, sorted by
position, each with a stable :class:`~gouji_dsl.diagnostics.Code`; :func:`load_chain` never raises, for
``gouji validate`` and the editor.
"""
from __future__ import annotations

import copy
import difflib
import os
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from gouji_dsl.diagnostics import Code, Diagnostic, GoujiError, Severity, SourcePos, did_you_mean
from gouji_dsl.i18n import Language, _
from gouji_dsl.ruleset import languages
from gouji_dsl.ruleset.load.checking import (
    DEFINITION_KEY,
    Skip,
    check_text,
    is_setting_long_form,
    raise_errors,
    sorted_diagnostics,
    syntax_diagnostics,
    unique_diagnostics,
)
from gouji_dsl.ruleset.load.finding import Places, Refused, check_is_ruleset, find_referenced, real_path, ruleset_path
from gouji_dsl.ruleset.load.reading import Loc, RawRuleset, file_diag, read_text
from gouji_dsl.ruleset.spec import (
    EFFECT_KEYS,
    DefinitionSpec,
    ResolvedRuleset,
    RuleSpec,
    Sentence,
    SettingSpec,
    Text,
    Wording,
)

__all__ = ["Chain", "ChainFile", "load_chain", "resolve", "resolve_text", "OVERRIDE_SIMILARITY"]


@dataclass
class ChainFile:
    """One file of an ``extends`` chain as loaded: its raw data (None when it could not be read or
    parsed), its own problems, and the parts of it left out of the merge because they are broken."""

    path: str
    raw: RawRuleset | None
    diagnostics: list[Diagnostic]
    skip: Skip = field(default_factory=Skip)


@dataclass
class Chain:
    """A ruleset and its ancestors (``files[0]`` is the one asked for), loaded past their problems.

    ``diagnostics`` holds every problem of every file (structure, limits, ``extends``, ``remove``)
    and the warnings of the merge (a likely misspelt override), sorted by position;
    ``resolved`` is the merge of what could be used (None when a file of the chain could not be
    read at all, or when the parent could not be found)."""

    files: list[ChainFile]
    diagnostics: list[Diagnostic]
    resolved: ResolvedRuleset | None

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == Severity.ERROR]

    @property
    def paths(self) -> list[str]:
        return [f.path for f in self.files]

    def remerge(self, drop_settings: dict[str, set[str]]) -> ResolvedRuleset | None:
        """The merge again, leaving out the settings ``drop_settings[path]`` of each file (settings
        found broken later, e.g. of the wrong type): the problems of the rest can then be found."""
        return _merge_chain(self.files, drop_settings)[0]


class _Resolver:
    def __init__(self, places: Places):
        self.places = places

    def load(self, path: str, text: str | None, *, gate: bool) -> tuple[list[ChainFile], Diagnostic | None]:
        """The chain from ``path`` up. ``gate``: refuse ``path`` if it is not a ruleset (a file the
        user did not name). Returns the files and, when ``path`` itself was refused, why."""
        files: list[ChainFile] = []
        seen: dict[Path, str] = {}
        at_ref: tuple[ChainFile, str] | None = None  # the file whose extends led here, and the ref
        while True:
            try:
                if text is None:
                    text = read_text(path)
                if gate:
                    check_is_ruleset(path, text)
            except (GoujiError, Refused) as e:
                d = e.diagnostics[0] if isinstance(e, GoujiError) else file_diag(path, e.message, e.hint, code=e.code)
                if at_ref is None:
                    return files, d
                child = at_ref[0]
                assert child.raw is not None
                child.diagnostics.append(child.raw.diag(("extends",), d.message, d.hint, code=d.code))
                child.skip.keys.add("extends")
                files.append(ChainFile(path, None, []))  # the parent is unusable: nothing to merge
                return files, None
            seen[real_path(Path(path))] = path
            skip = Skip()
            raw, diags = check_text(text, path, skip)
            if raw is not None:
                diags = diags + syntax_diagnostics(raw, skip)
            f = ChainFile(path, raw, list(diags), skip)
            files.append(f)
            ref = raw.get(("extends",)) if raw is not None and not skip.whole else None
            if not isinstance(ref, str) or not ref or "extends" in skip.keys:
                return files, None
            folder = Path(path).parent
            try:
                parent = find_referenced(self.places, folder, ref, me=real_path(Path(path)), what=_("parent ruleset"))
            except Refused as e:
                f.diagnostics.append(raw.diag(("extends",), e.message, e.hint,  # type: ignore[union-attr]
                                              code=Code.EXTENDS_NOT_FOUND if e.code == Code.RULESET_NOT_FOUND else e.code))
                f.skip.keys.add("extends")
                files.append(ChainFile("", None, []))
                return files, None
            real = real_path(parent)
            if real in seen:
                shown = [g.path for g in files[list(seen).index(real):]] + [seen[real]]
                f.diagnostics.append(raw.diag(("extends",), _("extends cycle: ") + " -> ".join(shown),  # type: ignore[union-attr]
                                              _("a ruleset cannot (indirectly) extend itself"), code=Code.EXTENDS_CYCLE))
                f.skip.keys.add("extends")
                files.append(ChainFile("", None, []))
                return files, None
            path, text, gate, at_ref = os.path.normpath(str(parent)), None, True, (f, ref)


def _merge_chain(files: Sequence[ChainFile], drop_settings: dict[str, set[str]] | None = None
                 ) -> tuple[ResolvedRuleset | None, list[Diagnostic]]:
    """Merge the chain from its root down; None when a file could not be read."""
    parent: ResolvedRuleset | None = None
    diags: list[Diagnostic] = []
    for f in reversed(files):
        if f.raw is None or f.skip.whole:
            return None, diags
        skip = f.skip
        if drop_settings and drop_settings.get(f.path):
            skip = replace(skip, settings=skip.settings | drop_settings[f.path])
        parent, found = _merge(f.raw, parent, skip)
        diags.extend(found)
    return parent, diags


def load_chain(name_or_path: str | os.PathLike[str], *, text: str | None = None,
               search: Sequence[str | os.PathLike[str]] = (), referrer: str | os.PathLike[str] | None = None,
               layers: Sequence[tuple[str, str]] = ()) -> Chain:
    """Load a ruleset and its ``extends`` chain past their problems (for ``gouji validate`` and the
    editor): every file's problems are collected, and what could be used is merged.

    ``text``: an unsaved buffer to use as the file ``name_or_path`` (which need not exist).
    ``referrer``: the file that named this ruleset (a scenario, a record); then the reference must
    obey :func:`find_ruleset`'s rules. Without it the user named the file: it is read wherever it is.
    ``layers``: (path, text) of files that are not on disk, each extending the one before it and the
    first extending ``name_or_path`` (the generated variants of ``--set KEY=VALUE``,
    :mod:`gouji_dsl.ruleset.overrides`): checked and merged exactly as files of the chain.
    Never raises for bad input: a file that cannot be found is a diagnostic of the chain."""
    s = os.fspath(name_or_path)
    try:
        if text is not None:
            path, home = s, Path(s).parent
        elif referrer is not None:
            home = Path(os.fspath(referrer)).parent
            path = str(find_referenced(Places(home, search), home, s))
        else:
            found = ruleset_path(name_or_path, search=search)
            path, home = os.fspath(found), found.parent
    except GoujiError as e:
        return Chain([], list(e.diagnostics), None)
    except Refused as e:
        return Chain([], [file_diag(os.fspath(referrer or s), e.message, e.hint, code=e.code)], None)
    resolver = _Resolver(Places(home, search))
    files, refused = resolver.load(path, text, gate=referrer is not None)
    if refused is not None:
        return Chain(files, [refused], None)
    for layer_path, layer_text in layers:
        skip = Skip()
        raw, diags = check_text(layer_text, layer_path, skip)
        if raw is not None:
            diags = diags + syntax_diagnostics(raw, skip)
        files.insert(0, ChainFile(layer_path, raw, list(diags), skip))
    resolved, merge_diags = _merge_chain(files)
    all_diags = [d for f in files for d in f.diagnostics] + merge_diags
    if resolved is not None:
        all_diags += list(resolved.warnings)
    order = [f.path for f in files]
    return Chain(files, sorted_diagnostics(unique_diagnostics(all_diags), order), resolved)


def _resolved_or_raise(chain: Chain) -> ResolvedRuleset:
    if chain.errors or chain.resolved is None:
        # the whole picture: add the expression syntax of rules the merge kept (the compiler would)
        extra = [d for f in chain.files if f.raw is not None for d in syntax_diagnostics(f.raw)]
        raise_errors(chain.errors + extra if chain.errors else extra, chain.paths)
        if chain.resolved is None:  # pragma: no cover - an unreadable file always has an error
            raise GoujiError(file_diag(chain.paths[0] if chain.paths else "?", _("cannot load the ruleset"),
                                        code=Code.UNSPECIFIED))
    return chain.resolved


def resolve(name_or_path: str | os.PathLike[str], *, search: Sequence[str | os.PathLike[str]] = (),
            referrer: str | os.PathLike[str] | None = None) -> ResolvedRuleset:
    """Load a ruleset by bundled name or path and resolve its ``extends`` chain.

    ``search``: extra folders where names (the argument and ``extends:`` names) are looked up, after
    the sibling ``NAME.yaml`` and before the bundled rulesets (with :func:`rules_path`). Parents
    are found as documented in docs/ruleset-format.md; a workspace ``NAME.yaml`` may extend the
    bundled ``NAME``. ``referrer``: see :func:`load_chain`.

    Returns a :class:`ResolvedRuleset` (``chain`` = file paths from this ruleset to the root;
    ``inherited`` flags are relative to this ruleset; ``warnings`` the merge's warnings). Raises
    :class:`GoujiError` with every problem of every file of the chain: unreadable file, YAML
    syntax, limits, schema violations, duplicate ids, missing, refused or cyclic ``extends`` (at the
    ``extends:`` value), unknown ``remove`` ids."""
    return _resolved_or_raise(load_chain(name_or_path, search=search, referrer=referrer))


def resolve_text(text: str, path: str | os.PathLike[str], *,
                 search: Sequence[str | os.PathLike[str]] = ()) -> ResolvedRuleset:
    """Resolve an unsaved buffer ``text`` as if it were the file ``path`` (which need not exist);
    parents are read from disk relative to ``path``. Same result and errors as :func:`resolve`."""
    return _resolved_or_raise(load_chain(path, text=text, search=search))


# -- the merge of one file onto its parent


def _deep_merge(parent: dict[str, Any], child: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(parent)
    for k, v in child.items():
        if isinstance(v, dict) and isinstance(out.get(k), dict):
            out[k] = _deep_merge(out[k], v)
        else:
            out[k] = copy.deepcopy(v)
    return out


def _setting_positions(raw: RawRuleset) -> dict[str, tuple[dict[tuple[str | int, ...], SourcePos], dict[tuple[str | int, ...], SourcePos]]]:
    """For each setting of the file: where every value below its value was written, and every key,
    by path relative to the value (one pass over the file's nodes)."""
    out: dict[str, tuple[dict[tuple[str | int, ...], SourcePos], dict[tuple[str | int, ...], SourcePos]]] = {}
    settings = raw.get(("settings",))
    if not isinstance(settings, dict):
        return out
    long_form = {name for name, w in settings.items() if is_setting_long_form(w)}
    for i, table in enumerate((raw.values, raw.keys)):
        for loc in table:
            if len(loc) < 3 or loc[0] != "settings":
                continue
            name = loc[1]
            skip = 3 if name in long_form else 2
            if name in long_form and loc[2] != "value" or len(loc) <= skip:
                continue
            out.setdefault(name, ({}, {}))[i][loc[skip:]] = raw.origin(loc, key=bool(i))
    return out


def _own_settings(raw: RawRuleset, parent: ResolvedRuleset | None, skip: Skip,
                  langs: Sequence[Language] = languages.DEFAULT_LANGUAGES) -> dict[str, SettingSpec]:
    out = {name: replace(s, inherited=True) for name, s in (parent.settings.items() if parent else ())}
    written_all = raw.get(("settings",)) if "settings" not in skip.keys else None
    all_positions = _setting_positions(raw)
    for name, written in (written_all if isinstance(written_all, dict) else {}).items():
        if name in skip.settings:
            continue
        loc: Loc = ("settings", name)
        raw_name = name
        if name in skip.renamed:  # its name is reported (invisible characters); its value is checked under the meant name
            if isinstance(written_all, dict) and skip.renamed[name] in written_all:
                continue
            name = skip.renamed[name]
        says = source = None
        value = written
        type_decl: tuple[Text, ...] = ()
        if is_setting_long_form(written):
            value = written["value"]
            source = languages.wording(written.get("source"), langs, raw.origin(loc + ("source",)))
            says = languages.wording(written.get("says"), langs, raw.origin(loc + ("says",)))
            if isinstance(written.get("type"), str):
                type_decl = (raw.text_at(loc + ("type",)),)
            loc = loc + ("value",)
        origin = raw.origin(loc)
        name_origin = raw.origin(("settings", raw_name), key=True)
        own_keys = {str(k): raw.origin(loc + (k,)) for k, v in value.items() if v is not None} \
            if isinstance(value, dict) else {}
        positions, key_positions = all_positions.get(raw_name, ({}, {}))
        prev = out.get(name)
        ruleset = raw.get(("ruleset",)) if isinstance(raw.get(("ruleset",)), str) else Path(raw.path).stem
        if prev is not None and isinstance(prev.value, dict) and isinstance(value, dict):
            key_origins = {k: o for k, o in prev.key_origins.items() if value.get(k, ...) is not None}
            key_origins.update(own_keys)
            sentences = prev.sentences
            if says is not None:  # about the keys written here, unless they are all of the map's
                keys = () if set(map(str, value)) >= set(map(str, prev.value)) else tuple(map(str, value))
                sentences = (sentences if keys else ()) + (Sentence(says, source, ruleset, keys),)
            merged_positions = {p: o for p, o in prev.positions.items() if _still_there(value, p)}
            merged_positions.update(positions)
            merged_keys = {p: o for p, o in prev.key_positions.items() if _still_there(value, p)}
            merged_keys.update(key_positions)
            out[name] = SettingSpec(name, _deep_merge(prev.value, value), origin,
                                    says if says is not None else prev.says,
                                    # a sentence of this file is sourced by this file (or by nothing)
                                    source if source is not None or says is not None else prev.source,
                                    key_origins, inherited=False, sentences=sentences,
                                    type_decls=prev.type_decls + type_decl,
                                    first_value=prev.first_value, first_origin=prev.first_origin,
                                    positions=merged_positions, key_positions=merged_keys, name_origin=name_origin)
        else:
            first = prev is None
            out[name] = SettingSpec(name, copy.deepcopy(value), origin, says, source, own_keys, inherited=False,
                                    sentences=(Sentence(says, source, ruleset),) if says is not None else (),
                                    type_decls=(prev.type_decls if prev is not None else ()) + type_decl,
                                    first_value=copy.deepcopy(value) if first else prev.first_value,  # type: ignore[union-attr]
                                    first_origin=origin if first else prev.first_origin,  # type: ignore[union-attr]
                                    positions=positions, key_positions=key_positions, name_origin=name_origin)
    return out


def _still_there(child: dict[str, Any], path: tuple[str | int, ...]) -> bool:
    """A parent's position at ``path`` still describes the merged value (the child did not replace
    the value above it by something that is not a mapping)."""
    cur: Any = child
    for part in path:
        if not isinstance(cur, dict) or part not in cur:
            return True  # the child left it to the parent
        cur = cur[part]
        if not isinstance(cur, dict):
            return False  # the child replaced it
    return True


def _own_definitions(raw: RawRuleset, parent: ResolvedRuleset | None, skip: Skip,
                     langs: Sequence[Language] = languages.DEFAULT_LANGUAGES) -> dict[str, DefinitionSpec]:
    out = {name: replace(d, inherited=True) for name, d in (parent.definitions.items() if parent else ())}
    written_all = raw.get(("definitions",)) if "definitions" not in skip.keys else None
    for key, written in (written_all if isinstance(written_all, dict) else {}).items():
        m = DEFINITION_KEY.match(key)
        if key in skip.definitions or m is None:
            continue
        name = m.group(1)
        params = tuple(p.strip() for p in m.group(2).split(",") if p.strip()) if m.group(2) else ()
        loc: Loc = ("definitions", key)
        says = source = None
        if isinstance(written, dict):
            says = languages.wording(written.get("says"), langs, raw.origin(loc + ("says",)))
            source = languages.wording(written.get("source"), langs, raw.origin(loc + ("source",)))
            expr = raw.text_at(loc + ("expr",))
        else:
            expr = raw.text_at(loc)
        out[name] = DefinitionSpec(name, params, expr, raw.origin(loc, key=True), says, source, inherited=False)
    return out


def _rule_spec(raw: RawRuleset, index: int, langs: Sequence[Language] = languages.DEFAULT_LANGUAGES) -> RuleSpec:
    loc: Loc = ("rules", index)
    rule: dict[str, Any] = raw.get(loc)
    effect = next(k for k in rule if k in EFFECT_KEYS)

    def opt(key: str) -> Text | None:
        return raw.text_at(loc + (key,)) if key in rule else None

    return RuleSpec(
        id=rule["id"], on=raw.text_at(loc + ("on",)), effect=effect, effect_expr=raw.text_at(loc + (effect,)),
        origin=raw.origin(loc + ("id",)), when=opt("when"), target=opt("target"), amount=opt("amount"),
        giver=opt("giver"),
        says=languages.wording(rule.get("says"), langs, raw.origin(loc + ("says",))),
        source=languages.wording(rule.get("source"), langs, raw.origin(loc + ("source",))),
        before=tuple(rule.get("before") or ()), after=tuple(rule.get("after") or ()), file=raw.path,
        said_by=_names(rule.get("said_by")), said_by_origin=raw.origin(loc + ("said_by",)) if "said_by" in rule else None,
        relation_origins=tuple((name, raw.origin(loc + (key, i))) for key in ("before", "after")
                               for i, name in enumerate(rule.get(key) or ()) if isinstance(name, str)),
    )


def _names(value: Any) -> tuple[str, ...]:
    """A name or a list of names (``said_by:``) as a tuple."""
    if value is None:
        return ()
    return (str(value),) if isinstance(value, str) else tuple(str(v) for v in value)


OVERRIDE_SIMILARITY = 0.85
"""How close (difflib ratio) a new rule id must be to an inherited id of the same hook to be warned
about as a likely misspelt override."""


def _removals(raw: RawRuleset, parent: ResolvedRuleset | None, skip: Skip,
              inherited_ids: Sequence[str]) -> tuple[list[str], list[Diagnostic]]:
    """The inherited rule ids the file's ``remove:`` drops (in the order written), and the problems of the ids
    no inherited rule has."""
    removing = raw.get(("remove",)) if "remove" not in skip.keys else None
    drop: list[str] = []
    diags: list[Diagnostic] = []
    for i, rid in enumerate(removing if isinstance(removing, list) else ()):
        if i in skip.remove or not isinstance(rid, str):
            continue
        if rid in inherited_ids:
            drop.append(rid)
        else:
            hint = did_you_mean(rid, inherited_ids) if parent else _("this ruleset has no `extends:`, so nothing to remove")
            diags.append(raw.diag(("remove", i), _("cannot remove {rid!r}: no inherited rule has this id").format(rid=rid), hint,
                                  code=Code.REMOVE_UNKNOWN))
    return drop, diags


def _merge(raw: RawRuleset, parent: ResolvedRuleset | None, skip: Skip) -> tuple[ResolvedRuleset, list[Diagnostic]]:
    """Merge one file onto its parent (leaving out ``skip``); returns the result and the problems
    of the merge (``remove:`` of unknown ids). Linear in the number of rules."""
    warnings: list[Diagnostic] = []
    rules: list[RuleSpec] = [replace(r, inherited=True) for r in (parent.rules if parent else ())]
    drop, diags = _removals(raw, parent, skip, [r.id for r in rules])
    removed = list(parent.removed if parent else ()) + drop
    if drop:
        dropped = set(drop)
        rules = [r for r in rules if r.id not in dropped]
    at = {r.id: n for n, r in enumerate(rules)}
    own = raw.get(("rules",)) if "rules" not in skip.keys else None
    langs = _languages(raw, parent, skip)
    diags.extend(languages.check_declared(raw, langs))
    specs = [_rule_spec(raw, i, langs) for i in range(len(own) if isinstance(own, list) else 0) if i not in skip.rules]
    own_ids = {s.id for s in specs}
    by_hook: dict[str, list[str]] = {}
    for r in rules:
        if r.id not in own_ids:  # an inherited rule this file does not replace
            by_hook.setdefault(r.on.text, []).append(r.id)
    for i, spec in zip((i for i in range(len(own) if isinstance(own, list) else 0) if i not in skip.rules), specs):
        n = at.get(spec.id)
        if n is None:
            rules.append(spec)
            candidates = [c for c in by_hook.get(spec.on.text, ()) if abs(len(c) - len(spec.id)) <= 3]
            if candidates:
                close = difflib.get_close_matches(spec.id, candidates, n=1, cutoff=OVERRIDE_SIMILARITY)
                if close:
                    warnings.append(raw.diag(
                        ("rules", i, "id"), _("rule {id!r} is new: no inherited rule has this id").format(id=spec.id),
                        _("did you mean {close!r}? (a rule with an inherited id replaces it; "
                        "this one is added beside it)").format(close=close[0]), code=Code.LIKELY_MISSPELT_OVERRIDE, severity=Severity.WARNING))
        else:
            was = rules[n].on.text
            if was != spec.on.text:
                warnings.append(raw.diag(
                    ("rules", i, "on"), _("rule {id!r} replaces the inherited rule of this id, which answers "
                    "{was!r}, with one that answers {text!r}: {was!r} loses that rule").format(id=spec.id, was=was, text=spec.on.text),
                    _("to add a rule, give it a new id; to replace the parent's, keep `on: {was}`").format(was=was),
                    code=Code.OVERRIDE_CHANGES_HOOK, severity=Severity.WARNING))
            rules[n] = replace(spec, overrides=rules[n].origin)
    ids = {r.id for r in rules}
    data = raw.data
    name = data.get("ruleset") if "ruleset" not in skip.keys else None

    return ResolvedRuleset(
        name=name if isinstance(name, str) else Path(raw.path).stem, path=raw.path,
        chain=(raw.path,) + (parent.chain if parent else ()),
        title=_top_text(raw, "title", skip, langs), description=_top_text(raw, "description", skip, langs),
        source=_top_text(raw, "source", skip, langs),
        settings=_own_settings(raw, parent, skip, langs), definitions=_own_definitions(raw, parent, skip, langs),
        rules=tuple(rules), removed=tuple(dict.fromkeys(r for r in removed if r not in ids)), text=raw.text,
        warnings=tuple(warnings), languages=tuple(langs), words=_words(raw, parent, skip, langs),
    ), diags


def _top_text(raw: RawRuleset, key: str, skip: Skip, langs: Sequence[Language]) -> Wording | None:
    """The file's own ``title``, ``description`` or ``source``."""
    return None if key in skip.keys else languages.wording(raw.get((key,)), langs, raw.origin((key,)))


def _languages(raw: RawRuleset, parent: ResolvedRuleset | None, skip: Skip) -> tuple[Language, ...]:
    """The languages of the file's texts: its own ``languages:``, else its parent's, else English."""
    own = languages.declared(raw.data) if "languages" not in skip.keys else None
    return own or (parent.languages if parent else languages.DEFAULT_LANGUAGES)


def _words(raw: RawRuleset, parent: ResolvedRuleset | None, skip: Skip,
           langs: Sequence[Language]) -> dict[str, dict[str, Wording]]:
    """The words of the game (``words:``): the parent's, each entry this file gives replacing its."""
    out = {group: dict(entries) for group, entries in (parent.words.items() if parent else ())}
    written = raw.get(("words",)) if "words" not in skip.keys else None
    for group in languages.WORD_GROUPS:
        entries = written.get(group) if isinstance(written, dict) else None
        for key, value in (entries.items() if isinstance(entries, dict) else ()):
            w = languages.wording(value, langs, raw.origin(("words", group, key)))
            if w is not None:
                out.setdefault(group, {})[str(key)] = w
    return out
