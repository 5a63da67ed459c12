"""Positioned error reports: ``path:line:col: message`` with the source line, a caret and a hint.

Every user-facing failure (ruleset, scenario, record, card text) is a :class:`Diagnostic`;
functions that can fail on user input raise :class:`GoujiError` carrying one or more of them, so the
CLI and the editor can print them all and never show a traceback.
"""
from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from rich.cells import cell_len

from gouji_dsl.i18n import _, cjk_spaced


@dataclass(frozen=True, slots=True)
class SourcePos:
    """Where something was written: ``path``, 1-based ``line`` and ``col`` (0 = unknown) and, for a
    span, the 1-based ``end_line`` / ``end_col`` just after it (0 = a point). The one position type of
    the project: AST nodes, rules, settings, diagnostics and explanation reasons all carry it."""

    path: str
    line: int = 0
    col: int = 0
    end_line: int = 0
    end_col: int = 0

    def __str__(self) -> str:
        if self.line <= 0:
            return self.path
        return f"{self.path}:{self.line}:{max(self.col, 1)}"

    @property
    def short(self) -> str:
        """``path:line`` (the form shown beside a rule)."""
        return self.path if self.line <= 0 else f"{self.path}:{self.line}"

    def to_dict(self) -> dict[str, Any]:
        """``{"path", "line", "col", "end_line", "end_col"}`` (0 = unknown)."""
        return {"path": self.path, "line": self.line, "col": self.col, "end_line": self.end_line, "end_col": self.end_col}


class Code(StrEnum):
    """Stable diagnostic codes (codenames, like miniwdl's lint names). Tests and tools match on these,
    never on message text. Add a member for every new kind of problem; never rename one. Each helper
    area keeps its members in its own block below (the values are the codes users see)."""

    UNSPECIFIED = "Unspecified"
    INTERNAL_ERROR = "InternalError"  # an unexpected exception (a bug): the CLI saves a crash report

    # -- files and the loader (gouji_dsl.ruleset.load) ---------------------------------------------
    UNREADABLE = "Unreadable"  # the file cannot be read (missing, a folder, no permission)
    NOT_TEXT = "NotText"  # not UTF-8 text
    NOT_A_RULESET = "NotARuleset"  # a file that is not a ruleset (refused before any of its text is shown)
    RULESET_NOT_FOUND = "RulesetNotFound"  # no bundled ruleset / file of that name
    PATH_NOT_ALLOWED = "PathNotAllowed"  # an absolute path or `..` leaving the allowed folders
    FILE_TOO_LARGE = "FileTooLarge"
    YAML_SYNTAX = "YamlSyntax"
    YAML_ALIAS = "YamlAlias"  # anchors/aliases (`&a` / `*a`) are not allowed in rulesets
    YAML_TAG = "YamlTag"  # `!!timestamp`, `!!binary`, custom tags ...
    YAML_MERGE_KEY = "YamlMergeKey"  # `<<:`
    TOO_DEEP = "TooDeep"  # nesting deeper than the loader's limit
    NUMBER_TOO_LARGE = "NumberTooLarge"
    TOO_MANY_RULES = "TooManyRules"
    EMPTY_FILE = "EmptyFile"
    DUPLICATE_KEY = "DuplicateKey"
    UNKNOWN_KEY = "UnknownKey"  # a key the file format does not have (structure; settings' keys: see lang's block)
    MISSING_KEY = "MissingKey"
    WRONG_TYPE = "WrongType"  # a value of the wrong YAML kind (text where a list is expected ...)
    INVALID_NAME = "InvalidName"  # a rule id, setting or definition name that is not a valid name
    DUPLICATE_ENTRY = "DuplicateEntry"  # the same item twice in a list
    EMPTY_VALUE = "EmptyValue"
    VALUE_NOT_ALLOWED = "ValueNotAllowed"  # a value outside its allowed set (lists the allowed values)
    SCHEMA_VIOLATION = "SchemaViolation"  # any other JSON Schema finding
    NO_EFFECT = "NoEffect"
    MANY_EFFECTS = "ManyEffects"
    MISPLACED_KEY = "MisplacedKey"  # target / amount / giver on an effect that does not use it
    DUPLICATE_RULE_ID = "DuplicateRuleId"
    DUPLICATE_DEFINITION = "DuplicateDefinition"
    EXPRESSION_SYNTAX = "ExpressionSyntax"
    EXTENDS_NOT_FOUND = "ExtendsNotFound"
    EXTENDS_CYCLE = "ExtendsCycle"
    REMOVE_UNKNOWN = "RemoveUnknown"  # `remove:` names no inherited rule
    LIKELY_MISSPELT_OVERRIDE = "LikelyMisspeltOverride"  # a new rule id close to a parent's (warning)
    OVERRIDE_CHANGES_HOOK = "OverrideChangesHook"  # a rule replacing a parent's answers another question (warning)
    UNREAD_SETTING = "UnreadSetting"  # a setting (or key) nothing reads (warning)
    OUT_OF_RANGE = "OutOfRange"  # seats, decks ... beyond what the engine supports
    # texts per language (gouji_dsl.ruleset.languages, issue 26; helper "zhrules")
    UNKNOWN_LANGUAGE = "UnknownLanguage"  # a language code that is not one of gouji_dsl.i18n.Language
    LANGUAGE_NOT_DECLARED = "LanguageNotDeclared"  # a text in a language the ruleset's `languages:` lacks
    EMPTY_TEXT = "EmptyText"  # a says / title / description / word that is empty
    MISSING_LANGUAGE = "MissingLanguage"  # validate --strict: a text not given in every declared language (warning)

    # -- card and move text, scenarios, rules failing while a game runs (helper "fidelity") ---------
    UNKNOWN_CARD = "UnknownCard"          #: a character that is no card (`j`, `1`, `X`) or a card the ruleset lacks
    BAD_MOVE = "BadMove"                  #: a move line of the wrong shape
    BAD_SEAT = "BadSeat"                  #: a seat that is not 1..N written in digits
    UNKNOWN_MOVE = "UnknownMove"          #: a verb that is not a move (`plya`)
    SCENARIO_FILE = "ScenarioFile"        #: a scenario file that cannot be read (missing, not UTF-8, not YAML)
    SCENARIO_KEY = "ScenarioKey"          #: an unknown key in a scenario file, case or expect
    SCENARIO_VALUE = "ScenarioValue"      #: a scenario value of the wrong kind or out of range
    SCENARIO_RULESET = "ScenarioRuleset"  #: a scenario's ruleset that cannot be found or does not load
    SCENARIO_FAILED = "ScenarioFailed"    #: a case whose expectation does not hold
    RULE_FAILED = "RuleFailed"            #: a rule failed, or answered outside its allowed values, while a game ran

    # -- expressions, setting types, the rule graph and lint (helper "lang") -----------------------
    # (ExpressionSyntax, ValueNotAllowed, MissingKey and UnreadSetting above are shared with the loader)
    EXPRESSION_TOO_LONG = "ExpressionTooLong"
    EXPRESSION_TOO_DEEP = "ExpressionTooDeep"
    INTEGER_TOO_LARGE = "IntegerTooLarge"  # a number in an expression with too many digits
    UNKNOWN_NAME = "UnknownName"
    UNKNOWN_FUNCTION = "UnknownFunction"
    UNKNOWN_SETTING = "UnknownSetting"  # settings.NAME that no file sets
    SAID_BY_NOT_READ = "SaidByNotRead"  # a rule's said_by names a setting the rule does not read
    UNKNOWN_ATTRIBUTE = "UnknownAttribute"  # play.X that a play does not have
    NAME_NOT_AVAILABLE = "NameNotAvailable"  # a name not known where it is used (seat in `on: gouji`, ...)
    WRONG_ARGUMENT_COUNT = "WrongArgumentCount"
    TYPE_MISMATCH = "TypeMismatch"  # an expression of the wrong type
    NOT_A_CARD = "NotACard"  # a quoted rank that is not a card kind of the ruleset ('Z', '10')
    DIVISION_BY_ZERO = "DivisionByZero"
    DEFINITION_CYCLE = "DefinitionCycle"
    UNKNOWN_HOOK = "UnknownHook"
    WRONG_EFFECT = "WrongEffect"  # an effect the hook's kind does not take (allow on a value question)
    UNKNOWN_RULE_REFERENCE = "UnknownRuleReference"  # before/after naming no rule
    RULE_CYCLE = "RuleCycle"  # before/after between rules form a cycle
    TYPE_SYNTAX = "TypeSyntax"  # a setting's `type:` in a wrong notation
    UNKNOWN_SETTING_KEY = "UnknownSettingKey"  # a key a setting's type does not have (any depth)
    MISSING_SETTING_KEY = "MissingSettingKey"  # a record setting without one of its keys
    SETTING_TYPE_MISMATCH = "SettingTypeMismatch"  # a setting value of the wrong type
    SETTING_HAS_NO_EFFECT = "SettingHasNoEffect"  # another setting disables it (warning)
    TYPE_CHANGED = "TypeChanged"  # a child declares another type for an inherited setting
    CARD_MODEL = "CardModel"  # card settings that do not make a pack (a kind twice, removing too many...)
    RULE_NEVER_FIRES = "RuleNeverFires"  # lint (warning)
    RULE_SHADOWED = "RuleShadowed"  # lint: a later value rule always answers instead (warning)
    RULES_CONTRADICT = "RulesContradict"  # lint (warning)
    NO_WAY_OUT = "NoWayOut"  # lint: the game cannot end / go on (error) or a question has no rule (warning)
    STALE_SENTENCE = "StaleSentence"  # lint: a changed setting keeps its parent's sentence (warning)
    STALE_WORD = "StaleWord"  # a word of the game renamed while inherited sentences keep the old word (warning)
    NEVER_CHANGES = "NeverChanges"  # lint: a rule reads a flag or counter no rule sets (warning)
    UNLIKELY_TO_END = "UnlikelyToEnd"  # lint: a setting makes a game unlikely to start or end (warning)

    # -- game records (gouji_dsl.engine.records, `gouji replay`; helper "harden") ------------------
    # (a record also uses NotText, FileTooLarge, TooDeep, NumberTooLarge, UnknownKey, MissingKey,
    # WrongType, ValueNotAllowed, OutOfRange, BadSeat, BadMove, UnknownMove, UnknownCard above)
    JSON_SYNTAX = "JsonSyntax"  # not valid JSON
    NOT_A_RECORD = "NotARecord"  # valid JSON that is not a gouji record (an array, another format)
    ILLEGAL_RECORDED_MOVE = "IllegalRecordedMove"  # a recorded move the ruleset refuses on replay
    RECORD_DIFFERS = "RecordDiffers"  # the replay deals, decides or scores otherwise than the record says
    TOO_MANY_KEYS = "TooManyKeys"  # an object of more keys than a record may have (MAX_RECORD_KEYS)

    # -- one-line overrides (gouji_dsl.ruleset.overrides, `--set KEY=VALUE`; helper "designers") ----
    # (a bad key or value of an override gets the code a variant file's setting would: UnreadSetting,
    # SettingTypeMismatch, OutOfRange, ...)
    BAD_OVERRIDE = "BadOverride"  # a --set option that is not KEY=VALUE (no '=', an empty key part)

    # -- bots from outside (gouji_dsl.bots.outside.BotFailed: exec:CMD, plug-ins; helper "fixbots") --
    ILLEGAL_BOT_MOVE = "IllegalBotMove"  # an answer that is no legal move now (or no move line)
    BOT_TIMEOUT = "BotTimeout"  # no answer within the time limit (exec@SECONDS:CMD)
    BOT_EXITED = "BotExited"  # the bot's process exited, or could not be started
    BOT_BAD_OUTPUT = "BotBadOutput"  # an answer line that is not JSON, has no "move", a key twice, too long (a banner or log line: read in order)
    BOT_ERROR = "BotError"  # a plug-in bot raised an exception


class Severity(StrEnum):
    """How bad a :class:`Diagnostic` is: an error stops a load; a warning is reported and the file loads."""

    ERROR = "error"
    WARNING = "warning"


_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
"""What a terminal may act on instead of showing: C0 controls but tab and newline (ESC starts colours,
OSC window titles and clipboard writes, BEL rings), DEL, the C1 controls (U+009B is a CSI of its own),
line and paragraph separators, and the bidirectional overrides and isolates (they reorder what
follows them on the line)."""
_CONTROL_LINE = re.compile(_CONTROL.pattern[:-1] + "\t\n]")


def _escape_char(m: re.Match[str]) -> str:
    c = ord(m.group())
    return f"\\x{c:02x}" if c < 0x100 else f"\\u{c:04x}"


def printable(text: Any, *, lines: bool = False) -> str:
    """``text`` (a name from a file, a message quoting one) safe for a terminal: every control
    character written as its Python escape (``\\x1b``, ``\\x9b``, ``\\u202e``), so a file can neither
    colour the output, set the window title, write the clipboard (OSC 52) nor ring the bell. Tabs
    and newlines are escaped too unless ``lines`` (a multi-line message or report). Not Rich markup
    escaping (:func:`gouji_dsl.tools.exits.shown_markup`)."""
    return (_CONTROL if lines else _CONTROL_LINE).sub(_escape_char, str(text))


SHOWN_VALUE_CHARS = 60
"""How much of a long value a message quotes: its first 60 characters, then ``…`` and its length (a
1 MB string where a number belongs was printed whole)."""


def shortened(text: str) -> str:
    """``text`` (a value as a message quotes it) whole when it is short (up to
    :data:`SHOWN_VALUE_CHARS` and 20 more characters), else its first :data:`SHOWN_VALUE_CHARS`
    characters, ``…`` and its length: ``'xxxx…' (1,000,002 characters)``. The one place messages
    shorten what they quote."""
    if len(text) <= SHOWN_VALUE_CHARS + 20:
        return text
    return _("{start}… ({n:,} characters)").format(start=text[:SHOWN_VALUE_CHARS], n=len(text))


def quoted(value: Any, *, as_json: bool = False) -> str:
    """A value from a file as a message quotes it: its ``repr`` (``as_json``: its JSON text, for the
    JSON formats), :func:`shortened`, with its control characters escaped (:func:`printable`)."""
    if as_json:
        import json
        try:
            text = json.dumps(value, ensure_ascii=False)
        except (TypeError, ValueError):
            text = repr(value)
    else:
        text = repr(value)
    return printable(shortened(text))


@dataclass(frozen=True)
class Diagnostic:
    """One problem at one place.

    ``line`` and ``col`` are 1-based; 0 means unknown; ``end_line`` / ``end_col`` (0 = a point) end the
    span. :attr:`pos` gives all of it as a :class:`SourcePos`; build one from a position with
    :meth:`at`. ``source_line`` is the offending line of text (without newline) used to draw the
    caret; ``hint`` is an optional suggestion shown after it. ``severity`` is a :class:`Severity`
    (``"error"`` or ``"warning"``); ``code`` a :class:`Code`.
    """

    path: str
    line: int
    col: int
    message: str
    hint: str | None = None
    source_line: str | None = None
    severity: str = Severity.ERROR
    code: str = Code.UNSPECIFIED
    end_line: int = 0
    end_col: int = 0

    @classmethod
    def at(cls, pos: SourcePos, message: str, *, hint: str | None = None, source_line: str | None = None,
           severity: str = Severity.ERROR, code: str = Code.UNSPECIFIED) -> Diagnostic:
        """A diagnostic at ``pos``."""
        return cls(pos.path, pos.line, pos.col, message, hint, source_line, severity, code, pos.end_line, pos.end_col)

    @property
    def pos(self) -> SourcePos:
        """Where the problem is."""
        return SourcePos(self.path, self.line, self.col, self.end_line, self.end_col)

    @property
    def location(self) -> str:
        """``path:line:col`` (line/col omitted when unknown)."""
        return str(self.pos)

    def short(self) -> str:
        """One line: ``path:line:col: message``."""
        prefix = _("warning: ") if self.severity == Severity.WARNING else ""
        return f"{self.location}: {prefix}{cjk_spaced(self.message)}"

    def format(self) -> str:
        """Several lines: the short form with the stable code (``[UnknownSettingKey]``), the source
        line with a caret, and the hint."""
        out = [f"{self.short()} [{self.code}]"]
        if self.source_line is not None and self.line > 0:
            text, caret = _window(self.source_line.rstrip("\n"), max(self.col - 1, 0))
            # a control character of the file is shown as its escape: the caret moves with it; the caret
            # is placed by display width (a Chinese character takes two columns of a terminal)
            caret = cell_len(printable(text[:caret], lines=True))
            out.append(f"    {printable(text, lines=True)}")
            out.append("    " + " " * caret + "^")
        if self.hint:
            out.append("    " + _("hint: {hint}").format(hint=cjk_spaced(self.hint)))
        return "\n".join(out)

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (``gouji validate --format json``): code, severity, message, hint and position
        (path, line, col, end_line, end_col; 0 = unknown)."""
        return {"code": str(self.code), "severity": str(self.severity), "message": self.message,
                "hint": self.hint, "position": self.pos.to_dict()}

    def sort_key(self) -> tuple[str, int, int]:
        """Order by file, then position."""
        return (self.path, self.line, self.col)


SOURCE_LINE_WIDTH = 160
"""Longest source line shown under a diagnostic; a longer one is cut around the caret with ``…``."""


def _window(text: str, caret: int) -> tuple[str, int]:
    """``text`` cut to :data:`SOURCE_LINE_WIDTH` characters around index ``caret``, and the caret's
    index in the cut text."""
    if len(text) <= SOURCE_LINE_WIDTH:
        return text, caret
    start = max(0, min(caret - SOURCE_LINE_WIDTH // 3, len(text) - SOURCE_LINE_WIDTH))
    end = start + SOURCE_LINE_WIDTH
    cut = ("…" if start > 0 else "") + text[start:end] + ("…" if end < len(text) else "")
    return cut, caret - start + (1 if start > 0 else 0)


class GoujiError(Exception):
    """Raised for bad user input; carries every :class:`Diagnostic` found (at least one)."""

    def __init__(self, diagnostics: Sequence[Diagnostic] | Diagnostic):
        if isinstance(diagnostics, Diagnostic):
            diagnostics = [diagnostics]
        self.diagnostics: list[Diagnostic] = list(diagnostics)
        super().__init__("\n".join(d.short() for d in self.diagnostics))

    def format(self) -> str:
        """All diagnostics, each in its long form."""
        return "\n".join(d.format() for d in self.diagnostics)

    def __reduce__(self):  # picklable across worker processes
        return (GoujiError, (self.diagnostics,))


def did_you_mean(word: str, candidates: Iterable[str]) -> str | None:
    """A ``did you mean 'x'?`` hint for the closest candidate, or None when nothing is close."""
    matches = difflib.get_close_matches(word, list(candidates), n=1, cutoff=0.6)
    return _("did you mean {name!r}?").format(name=matches[0]) if matches else None


def line_of(text: str, line: int) -> str | None:
    """The 1-based ``line`` of ``text`` or None when out of range."""
    lines = text.splitlines()
    if 1 <= line <= len(lines):
        return lines[line - 1]
    return None


@dataclass
class DiagnosticBag:
    """Collects diagnostics while a whole file is checked, so all problems are reported at once."""

    items: list[Diagnostic] = field(default_factory=list)

    def add(self, diag: Diagnostic) -> None:
        self.items.append(diag)

    def extend(self, diags: Iterable[Diagnostic]) -> None:
        self.items.extend(diags)

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.items if d.severity == Severity.ERROR]

    def raise_if_errors(self) -> None:
        if self.errors:
            raise GoujiError(sorted(self.errors, key=Diagnostic.sort_key))
