"""Widgets of the gouji editor."""
from .diagnostics import DiagnosticsList
from .rules_text_area import RulesTextArea
from .side_panel import SidePanel

__all__ = ["DiagnosticsList", "RulesTextArea", "SidePanel"]
