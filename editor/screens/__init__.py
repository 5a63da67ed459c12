"""Screens of the gouji editor."""
from .dialogs import Choice, ConfirmScreen
from .editor import EditorScreen
from .help import HelpScreen
from .home import HomeScreen
from .new_variant import NewVariantScreen
from .picker import PickerScreen

__all__ = ["Choice", "ConfirmScreen", "EditorScreen", "HelpScreen", "HomeScreen", "NewVariantScreen",
           "PickerScreen"]
