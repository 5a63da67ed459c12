"""Loading a ruleset: from a name or a path to a :class:`~gouji_dsl.ruleset.spec.ResolvedRuleset`, one module a step.

- :mod:`~gouji_dsl.ruleset.load.locating`: positions inside a file's text (the line breaks YAML knows; where the
  character at an offset of a scalar's value was written, for the carets of expression errors).
- :mod:`~gouji_dsl.ruleset.load.reading`: one file read: its text from disk, then plain data with the position of every
  value and key (:class:`~gouji_dsl.ruleset.load.reading.RawRuleset`), within the limits; YAML's errors in our words.
- :mod:`~gouji_dsl.ruleset.load.checking`: one file checked: the schema and what it cannot say, expression syntax;
  :func:`~gouji_dsl.ruleset.load.checking.load_file` / ``load_text`` read and check one file (no ``extends``).
- :mod:`~gouji_dsl.ruleset.load.finding`: the path policy: which file a name or path means, and where rulesets may
  be read from (bundled, beside the referring file or below, ``--rules-path``); everything else is refused.
- :mod:`~gouji_dsl.ruleset.load.resolving`: ``extends``: the chain of files loaded past their problems
  (:func:`~gouji_dsl.ruleset.load.resolving.load_chain`, for ``gouji validate``) and merged from the root down
  (:func:`~gouji_dsl.ruleset.load.resolving.resolve` / ``resolve_text``: ``gouji_dsl.load`` / ``load_text``).

The modules import each other one way, in the order resolving > checking | finding > reading > locating (the
``load-steps`` contract of pyproject.toml). This package re-exports nothing: import from the module that owns a name.
"""
