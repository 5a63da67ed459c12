"""Text renderings of a resolved ruleset and of its rule graph (pure functions returning strings).

Used by ``gouji show`` and by the editor's side panel:

- :func:`resolved_text` — the ruleset after inheritance: header, settings (each value and each key
  of a merged map tagged with the ``file:line`` that set it; inherited ones marked), definitions,
  rules grouped by phase.
- :func:`graph_text`, :func:`graph_mermaid`, :func:`graph_dot` — the compiled
  :class:`~gouji_dsl.ruleset.graph.RuleGraph`: phases → hooks → rules, phase order, overrides and
  before/after edges.

Nothing here prints or imports a UI toolkit. With ``markup=True`` :func:`resolved_text` and
:func:`graph_text` wrap inherited lines in ``[dim]...[/dim]`` (Rich / Textual markup) and escape
square brackets in the text; without it the output is plain text.
"""
from __future__ import annotations

import json
import os
from collections.abc import Iterable
from typing import Any

from gouji_dsl.diagnostics import SourcePos
from gouji_dsl.i18n import N_, _, display_width
from gouji_dsl.resources import display_path
from gouji_dsl.ruleset.game.vocabulary import HOOKS, PHASES
from gouji_dsl.ruleset.lint import chain_files, no_effect, setting_sentences, stale_says
from gouji_dsl.ruleset.overrides import is_layer
from gouji_dsl.ruleset.settings import normalize_setting
from gouji_dsl.ruleset.spec import ResolvedRuleset, RuleSpec, said

__all__ = ["resolved_text", "graph_text", "graph_mermaid", "graph_dot", "INHERITED"]

INHERITED = N_("(inherited)")
"""The marker put after the ``file:line`` tag of a value, definition or rule set by a parent file."""


# ------------------------------------------------------------------------------ helpers
def _where(origin: SourcePos | None) -> str:
    """``path:line`` of a file; of a one-line option (``--set[1]``), ``--set[1]:1:COL``."""
    if origin is None:
        return ""
    if is_layer(origin.path) and origin.col > 0:
        return f"{origin.path}:{origin.line}:{origin.col}"
    return f"{display_path(origin.path)}:{origin.line}"


def _value(v: Any) -> str:
    """A compact YAML-flow-like rendering of a setting value."""
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return str(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k}: {_value(x)}" for k, x in v.items()) + "}"
    return str(v)


def _esc(s: str, markup: bool) -> str:
    return s.replace("[", r"\[") if markup else s


class _Lines:
    """Collects output lines; a line may carry a right-aligned tag and be marked inherited."""

    def __init__(self, markup: bool, width: int = 64):
        self.markup = markup
        self.width = width
        self.out: list[str] = []

    def add(self, text: str = "", tag: str = "", inherited: bool = False) -> None:
        if tag:
            tag = f"{tag} {_(INHERITED)}" if inherited else tag
            pad = max(self.width - display_width(text), 2)
            text = f"{text}{' ' * pad}{tag}"
        line = _esc(text, self.markup)
        if self.markup and inherited:
            line = f"[dim]{line}[/dim]"
        self.out.append(line)

    def text(self) -> str:
        return "\n".join(self.out).rstrip() + "\n"


def _short(text: str, limit: int = 200) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _phase_of(rule: RuleSpec) -> str:
    hook = HOOKS.get(rule.on.text)
    return hook.phase if hook is not None else "?"


def _rule_sort_key(hook_name: str) -> tuple[int, int]:
    hook = HOOKS.get(hook_name)
    if hook is None:
        return (len(PHASES), len(HOOKS))
    return (PHASES.index(hook.phase) if hook.phase in PHASES else len(PHASES), list(HOOKS).index(hook_name))


def _group_by_phase(items: Iterable[Any], hook_of) -> list[tuple[str, list[Any]]]:
    """Items grouped by phase in :data:`PHASES` order; within a phase by hook order (stable, so the
    effective order of rules answering the same hook is kept)."""
    ordered = sorted(items, key=lambda x: _rule_sort_key(hook_of(x)))
    groups: dict[str, list[Any]] = {}
    for x in ordered:
        hook = HOOKS.get(hook_of(x))
        groups.setdefault(hook.phase if hook else "?", []).append(x)
    return list(groups.items())


# ------------------------------------------------------------------------------ resolved ruleset
def resolved_text(resolved: ResolvedRuleset, *, markup: bool = False) -> str:
    """The resolved ruleset as text (see module docstring). Values, definitions and rules that come
    from a parent file carry the :data:`INHERITED` marker (and are dimmed with ``markup``)."""
    out = _Lines(markup)
    _add_header(out, resolved)
    _add_settings(out, resolved)
    _add_definitions(out, resolved)
    out.add()
    out.add(_("rules ({n}) by phase").format(n=len(resolved.rules)))
    for phase, rules in _group_by_phase(resolved.rules, lambda r: r.on.text):
        out.add(_("  phase {phase}").format(phase=phase))
        for r in rules:
            _add_rule(out, r)
    if resolved.removed:
        out.add()
        out.add(_("removed rules: ") + ", ".join(resolved.removed))
    return out.text()


def _add_header(out: _Lines, resolved: ResolvedRuleset) -> None:
    title = f" — {said(resolved.title)}" if resolved.title else ""
    out.add(_("ruleset {name}").format(name=resolved.name) + title)
    head = [(_("file:"), display_path(resolved.path))]
    if len(resolved.chain) > 1:
        head.append((_("chain:"), " → ".join(display_path(p) for p in resolved.chain)))
    if resolved.source:
        head.append((_("source:"), said(resolved.source)))
    if resolved.description:
        head.append((_("about:"), _short(str(said(resolved.description)), 400)))
    w = max(9, max(display_width(label) for label, _v in head) + 2)  # (English: 9 columns, as ever)
    for label, value in head:
        out.add(label + " " * (w - display_width(label)) + value)
    out.add(_("values tagged {inherited} were set by a parent file").format(inherited=_(INHERITED)))


def _add_settings(out: _Lines, resolved: ResolvedRuleset) -> None:
    own = os.path.normpath(resolved.path)

    def inherited(origin: SourcePos | None) -> bool:
        return origin is not None and os.path.normpath(origin.path) != own

    sentences, stale = _sentences_in_effect(resolved)
    out.add()
    out.add(_("settings ({n})").format(n=len(resolved.settings)))
    for name, s in resolved.settings.items():
        is_map = isinstance(s.value, dict) and bool(s.value)
        out.add(f"  {name}:" if is_map else f"  {name}: {_value(s.value)}", _where(s.origin), s.inherited)
        for text in sentences.get(name, ()):
            out.add("      " + _("says: {text}").format(text=_short(text)), inherited=s.inherited)
        if s.source and name not in stale:  # (a stale sentence's source cites what is no longer said: as gouji doc)
            out.add("      " + _("source: {text}").format(text=said(s.source)), inherited=s.inherited)
        if is_map:
            for key, v in s.value.items():
                ko = s.key_origins.get(str(key), s.origin)
                out.add(f"    {key}: {_value(v)}", _where(ko), inherited(ko))


def _sentences_in_effect(resolved: ResolvedRuleset) -> tuple[dict[str, list[str]], set[str]]:
    """Each setting's sentences in effect, as ``gouji doc`` has them (:func:`setting_sentences`); a
    setting whose value was changed without a sentence has a line saying so instead of the inherited
    sentence, which no longer describes the value; and the names of those settings (their source, the
    stale sentence's, is not shown)."""
    stale = stale_says(resolved)
    off = no_effect({k: normalize_setting(s.value) for k, s in resolved.settings.items()})
    files = chain_files(resolved)
    out: dict[str, list[str]] = {}
    for name, s in resolved.settings.items():
        out[name] = [text for _keys, text, _source in setting_sentences(s, stale, off, files)]
        if name in stale:
            out[name] = [_("none in effect: {where} changed the value without one, so the inherited sentence no longer "
                           "describes it").format(where=display_path(s.origin.path))]
    return out, set(stale) & set(resolved.settings)


def _add_definitions(out: _Lines, resolved: ResolvedRuleset) -> None:
    if resolved.definitions:
        out.add()
        out.add(_("definitions ({n})").format(n=len(resolved.definitions)))
        for d in resolved.definitions.values():
            params = f"({', '.join(d.params)})" if d.params else ""
            out.add(f"  {d.name}{params} = {d.expr.text}", _where(d.origin), d.inherited)
            if d.says:
                out.add("      " + _("says: {text}").format(text=_short(said(d.says))), inherited=d.inherited)


def _add_rule(out: _Lines, r: RuleSpec) -> None:
    inh = r.inherited
    out.add(f"    {r.id}", _where(r.origin), inh)
    out.add(f"        on {r.on.text} · {r.effect}: {r.effect_expr.text}", inherited=inh)
    if r.when is not None:
        out.add(f"        when: {r.when.text}", inherited=inh)
    if r.target is not None:
        out.add(f"        target: {r.target.text}", inherited=inh)
    if r.amount is not None:
        out.add(f"        amount: {r.amount.text}", inherited=inh)
    if r.says:
        out.add("        " + _("says: {text}").format(text=_short(said(r.says))), inherited=inh)
    if r.source:
        out.add("        " + _("source: {text}").format(text=said(r.source)), inherited=inh)
    if r.said_by:
        out.add("        " + _("said by (gouji doc): {names}").format(names=", ".join(r.said_by)), inherited=inh)
    if r.before:
        out.add(f"        before: {', '.join(r.before)}", inherited=inh)
    if r.after:
        out.add(f"        after: {', '.join(r.after)}", inherited=inh)
    if r.overrides is not None:
        out.add(_("        overrides {where}").format(where=_where(r.overrides)), inherited=inh)


# ------------------------------------------------------------------------------ rule graph
def _hook_groups(graph) -> list[tuple[str, list[tuple[str, list[Any]]]]]:
    """[(phase, [(hook, [nodes])])] in phase and hook order (phases without rules left out)."""
    out = []
    for phase, nodes in _group_by_phase(graph.nodes, lambda n: n.hook):
        hooks: dict[str, list[Any]] = {}
        for n in nodes:
            hooks.setdefault(n.hook, []).append(n)
        out.append((phase, list(hooks.items())))
    return out


def _override_edges(graph):
    return [e for e in graph.edges if e.kind == "overrides"]


def _order_edges(graph):
    return [e for e in graph.edges if e.kind == "before"]


def _override_target(graph, edge) -> str:
    """``file:line`` of the parent rule an override edge points at."""
    node = graph.node(edge.src)
    if node is not None and node.overrides is not None:
        return _where(node.overrides)
    return edge.dst


def graph_text(graph, *, markup: bool = False) -> str:
    """The rule graph as indented text: phases → hooks → rules (id, effect, file:line, what the rule
    reads), then phase order, override edges and before/after edges."""
    out = _Lines(markup)
    out.add(_("rule graph of {name}: {n} rules, {n2} edges").format(name=graph.name, n=len(graph.nodes), n2=len(graph.edges)))
    groups = _hook_groups(graph)
    for phase, hooks in groups:
        out.add(_("phase {phase}").format(phase=phase))
        for hook, nodes in hooks:
            h = HOOKS.get(hook)
            kind = f" ({h.kind})" if h else ""
            out.add(f"  on {hook}{kind}")
            for n in nodes:
                out.add(f"    {n.id}  [{n.effect}]", _where(n.origin), n.inherited)
                reads = sorted(n.reads)
                if reads:
                    out.add(f"        reads: {', '.join(reads)}", inherited=n.inherited)
    phase_edges = [e for e in graph.edges if e.kind == "phase"]
    out.add()
    if phase_edges:
        chain = [phase_edges[0].src] + [e.dst for e in phase_edges]
        out.add(_("phase order: ") + " → ".join(p.removeprefix("phase:") for p in chain))
    else:
        out.add(_("phase order: ") + " → ".join(p for p, _ in groups))
    ov = _override_edges(graph)
    out.add(_("overrides ({n})").format(n=len(ov)) + (":" if ov else ""))
    for e in ov:
        node = graph.node(e.src)
        out.add(_("  {src} ({where}) overrides {override_target}").format(
            src=e.src, where=_where(node.origin) if node else '?', override_target=_override_target(graph, e)))
    order = _order_edges(graph)
    out.add(_("before/after ({n})").format(n=len(order)) + (":" if order else ""))
    for e in order:
        out.add(f"  {e.src} → {e.dst}")
    return out.text()


def _mm(s: str) -> str:
    """Text safe inside a quoted mermaid label."""
    return (s.replace("&", "#amp;").replace('"', "#quot;").replace("<", "#lt;").replace(">", "#gt;")
            .replace("[", "#91;").replace("]", "#93;"))


def _ident(s: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in s)


def _mermaid_phases(graph, ids: dict[str, str]) -> tuple[list[str], list[str]]:
    """The phases as mermaid subgraphs, a nested one per hook with its rules; and the phases' ids."""
    lines: list[str] = []
    phases = []
    for phase, hooks in _hook_groups(graph):
        pid = f"phase_{_ident(phase)}"
        phases.append(pid)
        lines.append(f'  subgraph {pid}["phase {_mm(phase)}"]')
        lines.append("    direction TB")
        for hook, nodes in hooks:
            lines.append(f'    subgraph {pid}__{_ident(hook)}["on {_mm(hook)}"]')
            for n in nodes:
                label = f"{_mm(n.id)}<br/>{_mm(n.effect)} · {_mm(_where(n.origin))}"
                lines.append(f'      {ids[n.id]}["{label}"]')
            lines.append("    end")
        lines.append("  end")
    return lines, phases


def _mermaid_edges(graph, ids: dict[str, str], phases: list[str]) -> list[str]:
    """The mermaid edges: next phase, overrides, before."""
    lines: list[str] = []
    phase_edges = [e for e in graph.edges if e.kind == "phase"]
    for e in phase_edges:
        a, b = f"phase_{_ident(e.src.removeprefix('phase:'))}", f"phase_{_ident(e.dst.removeprefix('phase:'))}"
        if a in phases and b in phases:
            lines.append(f"  {a} ==> {b}")
    for i, e in enumerate(_override_edges(graph)):
        if e.src in ids:
            lines.append(f'  o{i}["{_mm("overridden: " + e.src + " @ " + _override_target(graph, e))}"]')
            lines.append(f"  {ids[e.src]} -. overrides .-> o{i}")
    for e in _order_edges(graph):
        if e.src in ids and e.dst in ids:
            lines.append(f"  {ids[e.src]} -->|before| {ids[e.dst]}")
    return lines


def graph_mermaid(graph) -> str:
    """The rule graph as a mermaid ``flowchart`` (phases and hooks as nested subgraphs)."""
    ids = {n.id: f"r{i}" for i, n in enumerate(graph.nodes)}
    subgraphs, phases = _mermaid_phases(graph, ids)
    lines = ["flowchart TD"] + subgraphs + _mermaid_edges(graph, ids, phases)
    inherited = [ids[n.id] for n in graph.nodes if n.inherited]
    if inherited:
        lines.append("  classDef inherited fill:#eee,stroke:#999,color:#555")
        lines.append(f"  class {','.join(inherited)} inherited")
    return "\n".join(lines) + "\n"


def _dq(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _dot_clusters(graph, ids: dict[str, str]) -> tuple[list[str], dict[str, str]]:
    """A DOT cluster per phase (with an anchor node), a nested cluster per hook with its rules; and the
    phases' anchors."""
    lines: list[str] = []
    anchors: dict[str, str] = {}
    for phase, hooks in _hook_groups(graph):
        pid = _ident(phase)
        anchors[phase] = f"phase_{pid}"
        lines.append(f"  subgraph cluster_{pid} {{")
        lines.append(f"    label={_dq('phase ' + phase)}; style=rounded;")
        lines.append(f'    phase_{pid} [label={_dq(phase)}, shape=plaintext, fontsize=12];')
        for hook, nodes in hooks:
            lines.append(f"    subgraph cluster_{pid}__{_ident(hook)} {{")
            lines.append(f"      label={_dq('on ' + hook)}; style=dashed;")
            for n in nodes:
                label = f"{n.id}\n{n.effect} · {_where(n.origin)}"
                extra = ', style=filled, fillcolor="#eeeeee", fontcolor="#555555"' if n.inherited else ""
                lines.append(f"      {ids[n.id]} [label={_dq(label)}{extra}];")
            lines.append("    }")
        lines.append("  }")
    return lines, anchors


def _dot_edges(graph, ids: dict[str, str], anchors: dict[str, str]) -> list[str]:
    """The DOT edges: next phase, overrides, before."""
    lines: list[str] = []
    for e in graph.edges:
        if e.kind != "phase":
            continue
        a, b = e.src.removeprefix("phase:"), e.dst.removeprefix("phase:")
        if a in anchors and b in anchors:
            lines.append(f"  {anchors[a]} -> {anchors[b]} [style=bold, label=\"next phase\"];")
    for i, e in enumerate(_override_edges(graph)):
        if e.src in ids:
            lines.append(f"  o{i} [label={_dq('overridden: ' + e.src + chr(10) + _override_target(graph, e))}, "
                         "shape=note, style=dashed];")
            lines.append(f'  {ids[e.src]} -> o{i} [style=dashed, label="overrides"];')
    for e in _order_edges(graph):
        if e.src in ids and e.dst in ids:
            lines.append(f'  {ids[e.src]} -> {ids[e.dst]} [label="before"];')
    return lines


def graph_dot(graph) -> str:
    """The rule graph in Graphviz DOT: a cluster per phase, a nested cluster per hook."""
    ids = {n.id: f"r{i}" for i, n in enumerate(graph.nodes)}
    lines = [f"digraph {_dq(graph.name)} {{",
             "  rankdir=TB; compound=true;",
             '  node [shape=box, fontname="Helvetica", fontsize=10];',
             '  edge [fontname="Helvetica", fontsize=9];']
    clusters, anchors = _dot_clusters(graph, ids)
    lines += clusters + _dot_edges(graph, ids, anchors)
    lines.append("}")
    return "\n".join(lines) + "\n"
