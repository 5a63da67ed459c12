"""gouji's terminal app (Textual): browse, author and validate rulesets. Entry point: gouji_app.entry:main.

A client of the gouji_dsl library's public API only; the library never imports this package.
"""
