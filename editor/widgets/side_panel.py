"""The editor's side panel: the resolved ruleset or the rule graph, as trees.

Resolved: every setting (and each key of a mapping setting), definition and rule with the file and
line that set it; values inherited from a parent are dimmed. Graph: the phases in order, each with
its rules; a rule that overrides a parent's is marked. Enter on a line written in the edited file
moves the cursor there.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Static, TabbedContent, TabPane, Tree
from textual.widgets.tree import TreeNode

from gouji_dsl.diagnostics import SourcePos
from gouji_dsl.ruleset.game.vocabulary import PHASES
from gouji_dsl.ruleset.graph import RuleGraph
from gouji_dsl.ruleset.spec import ResolvedRuleset, said

from ..i18n import N_, _
from ..skeleton import flow
from ..validation import same_file

VALUE_WIDTH = 48
OWN = "bold"
INHERITED = "dim"


#: the rule graph's phases (gouji_dsl.ruleset.game.vocabulary.PHASES) in words
PHASE_WORDS = {"cards": N_("cards"), "deal": N_("deal"), "tribute": N_("tribute"), "setup": N_("setup"), "lead": N_("lead"),
               "trick": N_("trick"), "burn": N_("burn"), "finish": N_("finish"), "end": N_("end"), "view": N_("view")}


def _short(value: Any, width: int = VALUE_WIDTH) -> str:
    text = flow(value)
    return text if len(text) <= width else text[: width - 1] + "…"


def where(origin: SourcePos | None) -> str:
    if origin is None:
        return ""
    return f"{Path(origin.path).name}:{origin.line}"


@dataclass(frozen=True)
class NodeData:
    key: str
    origin: SourcePos | None = None


class OriginTree(Tree[NodeData]):
    """A tree whose nodes remember where their value was written."""

    @dataclass
    class Jump(Message):
        origin: SourcePos

    def __init__(self, label: str, **kwargs) -> None:
        super().__init__(label, data=NodeData("root"), **kwargs)
        self.show_root = False
        self.guide_depth = 2

    def expanded_keys(self) -> set[str]:
        keys: set[str] = set()

        def walk(node: TreeNode[NodeData]) -> None:
            for child in node.children:
                if child.is_expanded and child.data is not None:
                    keys.add(child.data.key)
                walk(child)
        walk(self.root)
        return keys

    def on_tree_node_selected(self, event: Tree.NodeSelected[NodeData]) -> None:
        event.stop()
        data = event.node.data
        if data is not None and data.origin is not None:
            self.post_message(self.Jump(data.origin))


def _label(name: str, value: str, origin: SourcePos | None, inherited: bool, extra: Text | None = None) -> Text:
    t = Text(no_wrap=True, overflow="ellipsis")
    style = INHERITED if inherited else OWN
    t.append(name, style=style)
    if value:
        t.append(" = ", style="dim")
        t.append(value, style="dim" if inherited else "")
    if extra is not None:
        t.append(" ")
        t.append_text(extra)
    if origin is not None:
        t.append(f"  {where(origin)}", style="dim italic")
    return t


def fill_resolved(tree: OriginTree, resolved: ResolvedRuleset, own_path: str) -> None:
    expanded = tree.expanded_keys()
    first = not expanded and not tree.root.children
    tree.clear()
    root = tree.root
    chain = " → ".join(Path(p).stem for p in resolved.chain[1:])
    head = Text(resolved.name, style="bold")
    if chain:
        head.append("  " + _("extends {chain}").format(chain=chain), style="dim")
    root.add_leaf(head, NodeData("head", SourcePos(resolved.path, 1, 1)))
    if resolved.title:
        root.add_leaf(Text(said(resolved.title), style="italic"), NodeData("title"))

    def own(origin: SourcePos) -> bool:
        return same_file(origin.path, own_path)

    settings = root.add(_("Settings ({n})").format(n=len(resolved.settings)), NodeData("settings"))
    for name, s in resolved.settings.items():
        key = f"s:{name}"
        inherited = not own(s.origin)
        if isinstance(s.value, dict) and s.value:
            node = settings.add(_label(name, _short(s.value), s.origin, inherited), NodeData(key, s.origin))
            for k, v in s.value.items():
                o = s.key_origins.get(k, s.origin)
                node.add_leaf(_label(str(k), _short(v), o, not own(o)), NodeData(f"{key}.{k}", o))
            if key in expanded:
                node.expand()
        else:
            settings.add_leaf(_label(name, _short(s.value), s.origin, inherited), NodeData(key, s.origin))
    defs = root.add(_("Definitions ({n})").format(n=len(resolved.definitions)), NodeData("definitions"))
    for name, d in resolved.definitions.items():
        label = f"{name}({', '.join(d.params)})" if d.params else name
        defs.add_leaf(_label(label, _short(d.expr.text), d.origin, not own(d.origin)),
                      NodeData(f"d:{name}", d.origin))
    rules = root.add(_("Rules ({n})").format(n=len(resolved.rules)), NodeData("rules"))
    for r in resolved.rules:
        extra = Text(f"on {r.on.text} · {r.effect}", style="dim")
        if r.overrides is not None:
            extra.append("  ⟲ " + _("overrides {where}").format(where=where(r.overrides)), style="yellow")
        rules.add_leaf(_label(r.id, "", r.origin, not own(r.origin), extra), NodeData(f"r:{r.id}", r.origin))
    groups = [settings, defs, rules]
    if resolved.removed:
        removed = root.add(_("Removed ({n})").format(n=len(resolved.removed)), NodeData("removed"))
        for rid in resolved.removed:
            removed.add_leaf(Text(rid, style="strike"), NodeData(f"x:{rid}"))
        groups.append(removed)
    for node in groups:
        if (first and node is settings) or (node.data is not None and node.data.key in expanded):
            node.expand()


def fill_graph(tree: OriginTree, graph: RuleGraph, own_path: str) -> None:
    expanded = tree.expanded_keys()
    first = not expanded and not tree.root.children
    tree.clear()
    root = tree.root
    own_count = sum(1 for n in graph.nodes if same_file(n.origin.path, own_path))
    overrides = sum(1 for n in graph.nodes if n.overrides is not None)
    head = Text(_("{name}: {n} rules").format(name=graph.name, n=len(graph.nodes)), style="bold")
    head.append("  " + _("({n} in this file, {m} overriding)").format(n=own_count, m=overrides), style="dim")
    root.add_leaf(head, NodeData("head"))
    by_phase: dict[str, list] = {}
    for n in graph.nodes:
        by_phase.setdefault(n.phase, []).append(n)
    for phase in [p for p in PHASES if p in by_phase] + [p for p in by_phase if p not in PHASES]:
        nodes = by_phase[phase]
        said = _(PHASE_WORDS[phase]) if phase in PHASE_WORDS else phase
        pnode = root.add(Text.assemble((said, "bold cyan"), ("  " + _("{n} rules").format(n=len(nodes)), "dim")),
                         NodeData(f"p:{phase}"))
        for n in nodes:
            inherited = not same_file(n.origin.path, own_path)
            t = Text(no_wrap=True, overflow="ellipsis")
            t.append("⟲ " if n.overrides is not None else "  ", style="yellow")
            t.append(n.id, style=INHERITED if inherited else OWN)
            t.append(f"  {n.hook} → {n.effect}", style="dim")
            if n.overrides is not None:
                t.append("  " + _("overrides {where}").format(where=where(n.overrides)), style="yellow")
            t.append(f"  {where(n.origin)}", style="dim italic")
            rnode = pnode.add(t, NodeData(f"r:{n.id}", n.origin))
            if n.when:
                rnode.add_leaf(Text.assemble(("when ", "dim"), n.when), NodeData(f"r:{n.id}:when", n.origin))
            rnode.add_leaf(Text.assemble((f"{n.effect} ", "dim"), n.expr), NodeData(f"r:{n.id}:expr", n.origin))
            if n.says:
                rnode.add_leaf(Text(n.sentence(), style="italic"), NodeData(f"r:{n.id}:says", n.origin))
            if f"r:{n.id}" in expanded:
                rnode.expand()
        if first or f"p:{phase}" in expanded:
            pnode.expand()


class SidePanel(Vertical):
    """Resolved view and rule-graph view in two tabs; F2 switches between them.

    Trees are rebuilt only when seen: data for a hidden panel or tab waits until it is shown."""

    BORDER_TITLE = "Ruleset"

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self._pending: dict[str, tuple] = {}

    def compose(self) -> ComposeResult:
        yield Static("", id="panel-note")
        with TabbedContent(initial="resolved-tab", id="panel-tabs"):
            with TabPane(_("Resolved"), id="resolved-tab"):
                yield OriginTree("resolved", id="resolved-tree")
            with TabPane(_("Rule graph"), id="graph-tab"):
                yield OriginTree("graph", id="graph-tree")

    def on_mount(self) -> None:
        self.query_one("#panel-note", Static).display = False

    @property
    def view(self) -> str:
        return "graph" if self.query_one(TabbedContent).active == "graph-tab" else "resolved"

    def toggle_view(self) -> str:
        tabs = self.query_one(TabbedContent)
        tabs.active = "resolved-tab" if tabs.active == "graph-tab" else "graph-tab"
        self._flush()
        return self.view

    def set_visible(self, visible: bool) -> None:
        self.display = visible
        if visible:
            self._flush()

    def on_tabbed_content_tab_activated(self, _event: TabbedContent.TabActivated) -> None:
        self._flush()

    def show(self, resolved: ResolvedRuleset | None, graph: RuleGraph | None, own_path: str | os.PathLike[str],
             *, stale: str = "") -> None:
        """Show ``resolved`` / ``graph`` (either may be None: that view is left as it was)."""
        own = os.fspath(own_path)
        note = self.query_one("#panel-note", Static)
        note.update(Text(stale, style="yellow") if stale else "")
        note.display = bool(stale)
        if resolved is not None:
            self._pending["resolved"] = (resolved, own)
        if graph is not None:
            self._pending["graph"] = (graph, own)
        self._flush()

    def _flush(self) -> None:
        if not self.display or not self.is_mounted:
            return
        view = self.view
        data = self._pending.pop(view, None)
        if data is None:
            return
        if view == "resolved":
            fill_resolved(self.query_one("#resolved-tree", OriginTree), *data)
        else:
            fill_graph(self.query_one("#graph-tree", OriginTree), *data)

    def view_is_empty(self, view: str) -> bool:
        """True when ``view`` has never been filled and nothing waits for it."""
        tree = self.query_one(f"#{view}-tree", OriginTree)
        return not tree.root.children and view not in self._pending
