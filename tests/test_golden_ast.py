"""Golden files of the checked expression trees (one per bundled ruleset): every definition and
every part of every rule, dumped with types, resolutions and spans (gouji_dsl.lang.ast.dump;
offsets into the expression text, so the files do not change when lines are added above).

Regenerate after an intended change with ``GOUJI_UPDATE_GOLDEN=1 python -m pytest tests/test_golden_ast.py``
and review the diff."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from gouji_dsl.lang.ast import dump
from gouji_dsl.ruleset.graph import load_graph
from gouji_dsl.ruleset.load.finding import list_bundled

GOLDEN = Path(__file__).resolve().parent / "golden" / "ast"


def render(name: str) -> str:
    g = load_graph(name)
    out = [f"# checked expression trees of {name} (tests/test_golden_ast.py)"]
    for dname, info in g.definitions.items():
        params = f"({', '.join(info.params)})" if info.params else ""
        out.append(f"definition {dname}{params} : {info.type}  [{Path(info.pos.path).name}]")
        if info.body is not None:
            out.append(_indent(dump(info.body, spans=True)))
    for n in g.nodes:
        for part, tree in n.checked.items():
            out.append(f"rule {n.id} {part} ({n.hook}{', pruned' if n.id in g.pruned else ''})  [{Path(tree.pos.path).name}]")
            out.append(_indent(dump(tree, spans=True)))
    return "\n".join(out) + "\n"


def _indent(text: str) -> str:
    return "\n".join("    " + line for line in text.splitlines())


@pytest.mark.parametrize("name", list_bundled())
def test_ast_golden(name):
    text = render(name)
    path = GOLDEN / f"{name}.txt"
    if os.environ.get("GOUJI_UPDATE_GOLDEN"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"no golden file {path}: run with GOUJI_UPDATE_GOLDEN=1"
    assert text == path.read_text(encoding="utf-8"), f"{name}: the checked trees changed; see the module doc"
