"""The app in Chinese for tests (issue 26): the ``gouji_app`` catalog compiled from its .po in memory
(a build compiles it to a .mo beside it; a test must not depend on a build being fresh), and the
active language set for the length of a test."""
from __future__ import annotations

import gettext
import io
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

from gouji_dsl import i18n
from gouji_dsl.i18n import APP_DOMAIN, LOCALE_DIR, Language

APP_PO = LOCALE_DIR / "zh" / "LC_MESSAGES" / f"{APP_DOMAIN}.po"
EDITOR = Path(__file__).resolve().parent.parent / "editor"


def compiled(po: Path = APP_PO) -> gettext.GNUTranslations:
    """The catalog of ``po``, compiled (Babel) in memory."""
    with po.open("rb") as f:
        catalog = read_po(f, locale="zh")
    buf = io.BytesIO()
    write_mo(buf, catalog)
    buf.seek(0)
    return gettext.GNUTranslations(buf)


@contextmanager
def speaking(lang: Language) -> Iterator[None]:
    """The process speaks ``lang`` (the app's catalog from its .po) inside the block, then what it spoke before."""
    before, cached = i18n.current(), dict(i18n._catalogs)
    if lang is Language.ZH:
        i18n._catalogs[(APP_DOMAIN, Language.ZH)] = compiled()
    i18n.use(lang)
    try:
        yield
    finally:
        i18n.use(before)
        i18n._catalogs.clear()
        i18n._catalogs.update(cached)
