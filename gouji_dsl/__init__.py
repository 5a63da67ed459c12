"""gouji-dsl: a rules-as-data engine for Gouji (够级).

Public API (see README): :func:`load_ruleset`, :func:`compile_ruleset`, :class:`Game`,
:func:`legal_moves`, :func:`apply`, :func:`explain`.
"""
__version__ = "0.1.0"
