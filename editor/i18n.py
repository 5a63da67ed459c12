"""The app's words in the active language (语言): the gettext domain ``gouji_app``.

Every text a person reads in the app goes through :func:`_` (or :func:`ngettext`) when it is shown,
not when a module is imported: the language is chosen at run time (``--lang``, ``GOUJI_LANG``, the
locale; see :mod:`gouji_dsl.i18n`, the one place that knows which language is active). Texts that
must be written down before they are shown (key bindings' descriptions, tables of labels) are
marked with :func:`N_` (for extraction) and translated where they are shown (the footer, the
command palette, the help screen).

The catalog is ``gouji_dsl/locale/zh/LC_MESSAGES/gouji_app.po`` (English is the source language);
extract the messages with Babel: ``pybabel extract -k N_ -k ngettext:1,2 -o gouji_app.pot editor``.
"""
from __future__ import annotations

from gouji_dsl.i18n import APP_DOMAIN, catalog
from gouji_dsl.ruleset.event_words import chinese, spaced


def _(message: str) -> str:
    """``message`` (an English text of the app) in the active language."""
    return catalog(APP_DOMAIN).gettext(message) if message else message


def ngettext(singular: str, plural: str, n: int) -> str:
    """The singular or plural form of an app message for ``n``, in the active language."""
    return catalog(APP_DOMAIN).ngettext(singular, plural, n)


def N_(message: str) -> str:
    """Marks ``message`` for translation without translating it (it is translated where shown)."""
    return message


__all__ = ["N_", "_", "chinese", "ngettext", "spaced"]
