"""``python -m gouji_dsl``: the library commands (validate, simulate, show, test, diff)."""
from gouji_dsl.tools.cli import main

main()
