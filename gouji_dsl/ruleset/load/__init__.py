"""Loading a ruleset: from a name or a path to a :class:`~gouji_dsl.ruleset.spec.ResolvedRuleset`, one module a step.

- :mod:`~gouji_dsl.ruleset.load.locating`: positions inside a file's text (the line breaks YAML knows; where the
  character at an offset of a scalar's value was written, for the carets of expression errors).

The modules import each other one way (the acyclic contract of pyproject.toml); this package re-exports nothing:
import from the module that owns a name.
"""
