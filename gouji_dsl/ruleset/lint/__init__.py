"""The ruleset lint behind ``gouji validate --strict``: problems a ruleset can have although every
expression compiles, each found by one *finding*, a small class registered by name.

**To add a finding**, write one class in the module of its theme below (``rules``, ``way_out``,
``settings``, ``sentences``; a new module for a new theme, imported here), decorated with
``@a_finding``, a subclass of :class:`~gouji_dsl.ruleset.lint.registry.Finding`: its name (the class
name in snake case) is the finding's name, its docstring says what it finds, ``code = Code.X`` is its
stable code (``severity = Severity.ERROR`` when the game cannot end or go on), and its
``run(self, c)`` yields ``(position, message, hint)`` for each problem, from what the
:class:`~gouji_dsl.ruleset.lint.registry.Context` ``c`` holds (the graph, this file's rules and
settings, the parent ruleset, the :class:`~gouji_dsl.ruleset.analysis.Analysis`). Give it a code of
:class:`~gouji_dsl.diagnostics.Code` (a new one there if no code says it), a test in
tests/test_lint.py matching that code, and the code in docs/ruleset-format.md ("Diagnostics").
:func:`lint` (:mod:`~gouji_dsl.ruleset.lint.registry`, which holds the base class, the registry
and the runner) runs every registered finding (:data:`FINDINGS`) and returns all their diagnostics
at once, sorted, each at the ``file:line:col`` of the rule or setting concerned. What the rules can
do under the settings (which rules can never fire and why, which flags are set, which settings are
read) is :mod:`gouji_dsl.ruleset.analysis`.

The modules, by theme (each opens with the findings it holds):

- :mod:`~gouji_dsl.ruleset.lint.registry`: :class:`Finding`, :func:`a_finding`, :data:`FINDINGS`,
  :class:`Context`, :func:`lint`, :func:`quick_warnings`;
- :mod:`~gouji_dsl.ruleset.lint.rules`: rules that never fire or never decide;
- :mod:`~gouji_dsl.ruleset.lint.way_out`: games that cannot end or go on;
- :mod:`~gouji_dsl.ruleset.lint.settings`: settings nothing reads, lookups that fail, settings that
  do nothing;
- :mod:`~gouji_dsl.ruleset.lint.sentences`: stale sentences, missing languages, renamed words, and
  which sentences of a setting are in effect (for ``gouji doc`` and ``gouji show``).

The findings (severity ``"warning"``; ``"error"`` when the game cannot end or go on):

- **rules that can never fire** (``RuleNeverFires``): a guard, or the effect of a permit rule, that
  is constant once the settings are folded in (``play.rank == settings.stuck_rank`` with
  ``stuck_rank: null``; ``'3' in settings.buy.ranks`` with no ranks to buy); a guard that needs a
  flag no ``mark`` rule (nor the engine) ever sets; a rule on a between-game question when there is
  no tribute; and a rule that reads a flag or counter nothing sets (``NeverChanges``);
- **two rules deciding the same question for the same state** (``RuleShadowed``,
  ``RulesContradict``): a value rule followed by another on the same hook whose guard is the same
  (or absent), so the earlier one never decides; two permit rules with the same guard and
  contradictory effects;
- **no way out** (``NoWayOut``): no rule ends the game, every play forbidden, no rule for the first
  leader, the order of answers, the next leader or what a gouji play is; a choice nobody is asked;
- **settings nothing reads** (``UnreadSetting``: no rule, no definition a rule uses, not the
  engine), keys of map settings nothing reads, tribute kinds no tribute rule asks about;
- **lookups that fail for some keys** (``MissingKey``): a map setting without every word of the
  enumerated key a rule looks it up by;
- **stale sentences** (``StaleSentence``): a setting changed without its own ``says``, keeping a
  parent's sentence or losing it; an inherited rule whose sentence states a number that a setting
  it reads had in the parent and no longer has;
- **settings that do nothing** (``SettingHasNoEffect``): another setting disables them (found by
  :mod:`gouji_dsl.ruleset.settings` when the graph is built), or only rules of a question never
  asked read them;
- **games unlikely to start** (``UnlikelyToEnd``): redeal rules voiding most deals. This finding
  plays sample deals, so it lives on the engine floor (:mod:`gouji_dsl.engine.bounds`, registered
  in its own :data:`~gouji_dsl.engine.bounds.PLAYED`) and runs when the caller passes it
  (``lint(graph, also=PLAYED.values())``; :func:`gouji_dsl.check` and ``gouji validate --strict`` do);
- **texts missing a language** (``MissingLanguage``): a sentence, title, description or word of
  this file not given in every language the ruleset declares (``languages:``,
  :mod:`gouji_dsl.ruleset.languages`);
- **renamed words still used** (``StaleWord``, shown without ``--strict`` too): a word of the game
  this file renames (``words:``) while inherited sentences the rulebook prints keep the parent's.

Only problems in the file being checked are reported: an inherited mechanic that this ruleset's
settings switch off is the design (``base`` holds every mechanic, children switch them with
settings), and a rule of the file switched off by the same file's own setting is a default-off
mechanic.
"""
from __future__ import annotations

# the findings by theme: importing a module registers its findings (lint runs them in this order)
from gouji_dsl.ruleset.lint import rules, sentences, settings, way_out
from gouji_dsl.ruleset.lint.registry import FINDINGS, Context, Finding, Found, a_finding, finding, lint, quick_warnings
from gouji_dsl.ruleset.lint.sentences import chain_files, no_effect, setting_sentences, stale_says

__all__ = ["lint", "quick_warnings", "stale_says", "setting_sentences", "no_effect", "chain_files",
           "a_finding", "finding", "Finding", "FINDINGS", "Context", "Found", "rules", "sentences", "settings", "way_out"]
