"""Keys in the order they were typed.

Textual hands a key to the focused widget; a key the widget does not use itself travels up the DOM
one message queue at a time, and only at the app are the bindings run (cursor movement, Enter in an
input, the screen's keys). Characters typed right after such a key are handled by the widget before
the binding runs when keys arrive in a burst (a loaded machine, a paste, tmux ``send-keys``):
Down, End, Q gave ``gouQji_minimum``. :func:`run_binding_now` runs the binding of a key at once,
in the widget's own turn, so every key takes effect in the order it was typed.
"""
from __future__ import annotations

from collections.abc import Container

from textual import events
from textual.widget import Widget


async def run_binding_now(widget: Widget, event: events.Key, own: Container[str] = ()) -> bool:
    """Run the binding ``event``'s key has for the focused ``widget`` now: exactly the check the app
    makes when the key reaches it (the widget's bindings, then its ancestors', then the app's; an
    action that does not apply, such as scrolling what cannot scroll, passes the key on). Returns
    True when a binding took the key (the event is then stopped). Keys in ``own`` and keys the
    widget consumes itself (characters) are left alone; priority bindings ran before the widget saw
    the key. (``App._check_bindings`` is Textual's own; the version is pinned in pyproject.toml.)"""
    if event.key in own or widget.check_consume_key(event.key, event.character):
        return False
    if widget.screen.focused is not widget:
        return False
    if not await widget.app._check_bindings(event.key):
        return False
    event.stop()
    event.prevent_default()
    return True


__all__ = ["run_binding_now"]
