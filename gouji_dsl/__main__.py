"""``python -m gouji_dsl``: the library commands (validate, simulate, show, test, diff)."""
from .cli import main

main()
