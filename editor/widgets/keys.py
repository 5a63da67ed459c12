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
    """Run the binding ``event``'s key has for the focused ``widget`` now (the same binding Textual
    would find: the widget's, then its ancestors', then the app's). Returns True when one ran (the
    event is then stopped). Keys in ``own`` and keys the widget consumes itself (characters) are
    left alone, and so are priority bindings (the app runs those before the widget sees the key)."""
    if event.key in own or widget.check_consume_key(event.key, event.character):
        return False
    if widget.screen.focused is not widget:
        return False
    active = widget.screen.active_bindings.get(event.key)
    if active is None or active.binding.priority or not active.enabled:
        return False
    event.stop()
    event.prevent_default()
    await widget.app.run_action(active.binding.action, active.node)
    return True


__all__ = ["run_binding_now"]
