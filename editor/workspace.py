"""The editor's view of rulesets on disk: the bundled ones and those of a workspace folder.

A *workspace* is a folder of ruleset files (``./rules`` by default). Its files may extend each other
by name and extend the bundled rulesets; new variants are created in it. Bundled rulesets are shown
read-only, unless the workspace *is* the bundled folder (working on the project itself).
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field, replace
from pathlib import Path

import yaml

from gouji_dsl import resources
from gouji_dsl.diagnostics import Diagnostic
from gouji_dsl.i18n import Language
from gouji_dsl.ruleset.load import checking, finding
from gouji_dsl.ruleset.spec import Wording
from gouji_dsl.ruleset.words import game_words

from .i18n import N_
from .validation import Validation, validate_file

SUFFIXES = (".yaml", ".yml")


def display_path(path: str | os.PathLike[str], cwd: str | os.PathLike[str] | None = None) -> str:
    """``path`` relative to the current folder when it is inside it, else with ``~`` for home."""
    p = Path(path).absolute()
    here = Path(cwd or os.getcwd()).absolute()
    try:
        rel = p.relative_to(here)
        return str(rel) if str(rel) != "." else "."
    except ValueError:
        pass
    home = Path.home()
    try:
        return "~/" + str(p.relative_to(home))
    except ValueError:
        return str(p)


def name_pattern() -> re.Pattern[str]:
    """The pattern a ruleset name must match (taken from the schema)."""
    return re.compile(checking.schema()["properties"]["ruleset"]["pattern"])


def name_rule() -> str:
    """The schema's sentence explaining valid ruleset names."""
    return checking.schema()["properties"]["ruleset"].get("patternErrorMessage", "invalid name")


@dataclass(frozen=True)
class RulesetEntry:
    """One ruleset file as listed on the home screen."""

    name: str
    path: Path
    bundled: bool
    read_only: bool
    title: str | None = None
    description: str | None = None
    extends: str | None = None
    chain: tuple[str, ...] = ()          # ancestor names, nearest first (after validation)
    status: str = "pending"              # pending | valid | invalid
    problems: tuple[Diagnostic, ...] = field(default=(), repr=False)
    warnings: tuple[Diagnostic, ...] = field(default=(), repr=False)
    rule_count: int = 0
    words: tuple[str, ...] = ()          # the ruleset's words of the game (after validation): never cut by a line break

    @property
    def key(self) -> str:
        return str(self.path)

    @property
    def kind(self) -> str:
        """The kind shown on the home screen (in English: the screen translates it)."""
        if self.bundled and self.read_only:
            return N_("bundled, read-only")
        return N_("bundled") if self.bundled else N_("workspace")

    @property
    def parents(self) -> str:
        """``online → base`` (the chain once validated, else what ``extends:`` says)."""
        if self.chain:
            return " → ".join(self.chain)
        return self.extends or ""

    def with_validation(self, v: Validation) -> RulesetEntry:
        if v.resolved is not None:
            chain = tuple(Path(p).stem for p in v.resolved.chain[1:])
            title = v.resolved.title if v.resolved.title is not None else self.title
            description = v.resolved.description if v.resolved.description is not None else self.description
        else:
            chain, title, description = self.chain, self.title, self.description
        return replace(self, chain=chain, title=title, description=description, words=_words(v.resolved),
                       status="valid" if v.ok else "invalid", problems=tuple(v.errors), warnings=tuple(v.warnings),
                       rule_count=len(v.graph.nodes) if v.graph is not None else 0)


def _words(resolved) -> tuple[str, ...]:
    """The words of the game of ``resolved`` (places, terms, cards) in the active language, or none."""
    if resolved is None:
        return ()
    named = game_words(resolved)
    said = [named.place(int(p)) for p in named.places] + [w.in_lang(None) for w in (*named.terms.values(), *named.cards.values())]
    return tuple(w for w in said if w)


def _header(path: Path) -> dict:
    """A quick, forgiving read of a file's name, title, description and extends (no validation)."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8-sig"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return {}
    return data if isinstance(data, dict) else {}


def _text(value) -> str | None:
    """A header text: a string, or a text per language (``title: {en: ..., zh: ...}``) as a
    :class:`~gouji_dsl.ruleset.spec.Wording` (shown in the active language with ``said``)."""
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, dict):
        texts = {lang: v.strip() for lang in Language for k, v in value.items() if k == lang.value and isinstance(v, str)}
        return Wording(texts, next(iter(texts))) if texts else None
    return None


class Workspace:
    """A folder of ruleset files plus the bundled rulesets."""

    def __init__(self, folder: str | os.PathLike[str]):
        self.folder = Path(folder).absolute()

    @property
    def bundled_folder(self) -> Path | None:
        try:
            return resources.rules_dir().resolve()
        except FileNotFoundError:
            return None

    @property
    def is_bundled_folder(self) -> bool:
        """True when the workspace is the bundled rules folder itself (a project checkout)."""
        b = self.bundled_folder
        return b is not None and self.folder.exists() and self.folder.resolve() == b

    @property
    def search(self) -> list[str]:
        """Folders where ``extends:`` names are looked up (after the sibling file)."""
        return [str(self.folder)]

    @property
    def display(self) -> str:
        return display_path(self.folder)

    def is_bundled(self, path: str | os.PathLike[str]) -> bool:
        b = self.bundled_folder
        return b is not None and Path(path).absolute().resolve().parent == b

    def is_read_only(self, path: str | os.PathLike[str]) -> bool:
        """Bundled files are read-only, except when the workspace is the bundled folder."""
        return self.is_bundled(path) and not self.is_bundled_folder

    def workspace_files(self) -> list[Path]:
        if not self.folder.is_dir():
            return []
        return sorted((p for p in self.folder.iterdir() if p.suffix in SUFFIXES and p.is_file()
                       and not p.name.startswith(".")), key=lambda p: (p.stem, p.suffix))

    def bundled_files(self) -> list[Path]:
        out = []
        for name in finding.list_bundled():
            try:
                out.append(finding.ruleset_path(name))
            except Exception:
                continue
        return out

    def entries(self) -> list[RulesetEntry]:
        """Bundled rulesets first, then the workspace's own (header data only; not validated)."""
        out: list[RulesetEntry] = []
        if not self.is_bundled_folder:
            for p in self.bundled_files():
                out.append(self._entry(p, bundled=True, read_only=True))
        for p in self.workspace_files():
            out.append(self._entry(p, bundled=self.is_bundled(p), read_only=False))
        return out

    def _entry(self, path: Path, *, bundled: bool, read_only: bool) -> RulesetEntry:
        h = _header(path)
        return RulesetEntry(name=path.stem, path=path, bundled=bundled, read_only=read_only,
                            title=_text(h.get("title")), description=_text(h.get("description")),
                            extends=_text(h.get("extends")))

    def names(self) -> list[str]:
        """Every ruleset name a new variant may extend (bundled and workspace), without repeats."""
        seen: dict[str, None] = {}
        for e in self.entries():
            seen.setdefault(e.name, None)
        return list(seen)

    def parent_path(self, name: str) -> Path:
        """The file a new variant's ``extends: name`` will resolve to (the workspace's first)."""
        return finding.ruleset_path(name, search=self.search)

    def variant_path(self, name: str) -> Path:
        return self.folder / f"{name}.yaml"

    def validate(self, entry: RulesetEntry) -> RulesetEntry:
        return entry.with_validation(validate_file(entry.path, search=self.search))
