"""`gouji doc`: the printable rulebook of a ruleset (gouji_dsl.tools.doc)."""
from __future__ import annotations

import re
import textwrap

import pytest
import yaml

from gouji_dsl.resources import rules_dir
from gouji_dsl.ruleset.graph import load_graph
from gouji_dsl.ruleset.load.finding import list_bundled
from gouji_dsl.tools.cli import cli
from gouji_dsl.tools.doc import WIDTH, _width, ruleset_doc


def flat(text: str) -> str:
    """The text with line breaks and indentation folded, so wrapped sentences can be searched."""
    return " ".join(text.split())


def rules_file(name: str) -> dict:
    return yaml.safe_load((rules_dir() / f"{name}.yaml").read_text(encoding="utf-8"))


def english(says: str | dict) -> str:
    """A sentence as written: a plain string, or its English text where it is given per language."""
    return says["en"] if isinstance(says, dict) else says


def says_of(name: str, rule_id: str) -> str:
    return english(next(r["says"] for r in rules_file(name)["rules"] if r["id"] == rule_id))


def setting_says(name: str, setting: str) -> str:
    return english(rules_file(name)["settings"][setting]["says"])


def sections(text: str) -> dict[str, str]:
    """Heading -> body of a text rulebook (headings are the lines above a row of dashes)."""
    lines = text.splitlines()
    heads = [i - 1 for i, ln in enumerate(lines) if ln and set(ln) == {"-"} and i > 0]
    out = {}
    for k, h in enumerate(heads):
        end = heads[k + 1] if k + 1 < len(heads) else len(lines)
        out[lines[h]] = "\n".join(lines[h + 2:end])
    return out


@pytest.fixture(scope="module")
def qingdao() -> str:
    return ruleset_doc(load_graph("qingdao"), "text")


def test_qingdao_has_the_header_and_a_section_per_phase_in_order(qingdao):
    lines = qingdao.splitlines()
    assert lines[0] == "Qingdao rules (seed 003)" and set(lines[1]) == {"="}
    assert "Seed 003's Qingdao rules:" in lines[3]
    assert re.search(r"^Ruleset +qingdao \(.*qingdao\.yaml\)$", qingdao, re.M)
    assert re.search(r"^Source +seed 003$", qingdao, re.M)
    assert re.search(r"^Builds on +base \(.*base\.yaml\): Gouji core", qingdao, re.M)
    heads = list(sections(qingdao))
    assert heads == ["1. The cards", "2. Dealing and the first lead", "3. Between games: tribute",
                     "4. Before play: revolution and declarations", "5. Leading", "6. Answering a play",
                     "7. Burning", "8. Going out", "9. End of the game and scoring",
                     "10. What players may see", "Sources"]


def test_qingdao_the_cards(qingdao):
    cards = sections(qingdao)["1. The cards"]
    assert re.search(r"^  Players +6, in two teams of 3: seats 1, 3, 5 against 2, 4, 6$", cards, re.M)
    assert "216 cards (4 decks): 16 of each rank, 4 small jokers (小王), 4 big jokers (大王)" in flat(cards)
    assert re.search(r"^  Each player +36 cards$", cards, re.M)
    assert "3 4 5 6 7 8 9 10 J Q K A 2, then small joker (小王), big joker (大王)" in flat(cards)
    for setting in ("filler_rank", "comparison", "gouji_minimum", "deck"):
        assert flat(setting_says("base", setting)) in flat(cards), setting
    # gouji.minimum is said_by gouji_minimum: the setting's sentence states it, once
    assert says_of("base", "gouji.minimum") not in flat(cards)


def test_qingdao_sentences_with_their_sources(qingdao):
    secs = sections(qingdao)
    sources = dict(re.findall(r"^  \[(\d+)\] +(.*)$", secs["Sources"], re.M))
    # qingdao's own rules and settings, in the sections where they belong, with their sources
    where = {("yield.answer-only-by-opposite", "6. Answering a play"), ("view.teammates-advise", "10. What players may see")}
    for rule_id, heading in where:
        said = says_of("qingdao", rule_id)
        body = flat(secs[heading])
        m = re.search(re.escape(said) + r" \[(\d+)\]", body)
        assert m, (rule_id, body)
        source = next(r["source"] for r in rules_file("qingdao")["rules"] if r["id"] == rule_id)
        assert sources[m.group(1)] == (source["en"] if isinstance(source, dict) else source)  # (per language: issue 26)
    assert flat(setting_says("qingdao", "tribute")) in flat(secs["3. Between games: tribute"])
    assert flat(setting_says("qingdao", "stuck_rank")) in flat(secs["5. Leading"])
    assert flat(setting_says("qingdao", "match_games")) in flat(secs["9. End of the game and scoring"])
    # base's rules
    for rule_id, heading in (("trick.next-leader", "6. Answering a play"), ("finish.next-leads", "6. Answering a play"),
                             ("burn.failure-last", "7. Burning"),
                             ("end.one-left", "9. End of the game and scoring")):
        assert says_of("base", rule_id) in flat(secs[heading]), rule_id
    # tribute.fall / return-fall are said_by tribute's keys: qingdao's tribute sentence, with its numbers
    for rule_id in ("tribute.fall", "tribute.return-fall"):
        assert says_of("base", rule_id) not in flat(secs["3. Between games: tribute"]), rule_id
    # lead.show-threes is said_by first_lead: the setting's sentence in its place, not both
    assert flat(setting_says("base", "first_lead")) in flat(secs["2. Dealing and the first lead"])
    assert says_of("base", "lead.show-threes") not in flat(secs["2. Dealing and the first lead"])
    # Chinese terms as written
    for term in ("挑牌", "接风", "够死级", "诈烧", "落贡"):
        assert term in qingdao
    # every item cites a source in the list; every source in the list is cited
    items = re.split(r" (?=\d+\.\d+ )", flat("\n".join(b for h, b in secs.items() if h != "Sources")))
    items = [i for i in items if re.match(r"\d+\.\d+ ", i)]
    assert len(items) > 50  # each point once (said_by): 55 since issue 23, 64 with the pairs
    marks = [re.search(r" \[(\d+)\]$", i) for i in items]
    assert all(marks), [i for i, m in zip(items, marks) if not m]
    assert {m.group(1) for m in marks} == set(sources)
    assert len(set(sources.values())) == len(sources)
    assert "seed 003 (对让牌人顺的牌唯有对头才有上牌权)" in sources.values()


def test_qingdao_leaves_out_rules_that_cannot_fire(qingdao):
    text = flat(qingdao)
    # buy.ranks is empty: no buying at all
    for rule_id in ("buy.three-agree", "buy.three-pay", "buy.three-from-seller", "buy.three-from-teammate",
                    "buy.four-agree", "buy.four-from-teammate"):
        assert says_of("base", rule_id) not in text, rule_id
    assert setting_says("base", "buy") not in text
    assert "buying" not in text.lower()
    # point_rank is null (no 点四), resist_team / resist_self are null (no 抗贡)
    assert says_of("base", "point.fours-need-point") not in text
    assert setting_says("base", "point_rank") not in text
    assert says_of("base", "tribute.resist") not in text


def test_rulesets_without_tribute_have_no_tribute_section():
    for name in ("online", "six-deck-eagle", "base"):
        doc = ruleset_doc(load_graph(name))
        assert "Between games" not in doc and "tribute" not in flat(doc).lower().replace("(串三户)", ""), name
        assert says_of("base", "tribute.match") not in flat(doc)  # a one-game match says nothing


def test_qingdao_classic_keeps_only_the_fall_tribute():
    doc = flat(ruleset_doc(load_graph("qingdao-classic")))
    assert says_of("base", "tribute.fall") in doc and says_of("base", "tribute.return-fall") in doc
    for rule_id in ("tribute.point", "tribute.burn", "tribute.stuck", "stuck.last-play-only", "stuck.when-beaten"):
        assert says_of("base", rule_id) not in doc, rule_id
    assert setting_says("qingdao-classic", "stuck_rank") in doc  # the file says there is no 憋三
    assert "Builds on qingdao (" in doc and "which builds on base (" in doc


def test_pack_size_comes_from_the_card_model():
    rulebook = flat(ruleset_doc(load_graph("rulebook")))
    assert "196 cards (4 decks): 16 of each rank except 6 of 3 and 4" in rulebook
    assert "32 or 33 cards (196 ÷ 6: the first 4 players in dealing order get 33)" in rulebook
    assert "none: every card of a group has its rank" in rulebook
    eagle = flat(ruleset_doc(load_graph("six-deck-eagle")))
    assert "312 cards (6 decks): 24 of each rank except 6 of 3" in eagle and "6 eagles (鹰)" in eagle
    assert "Each player 52 cards" in eagle
    assert "the number of cards may differ" in eagle
    # six-deck-eagle's score rule no longer reads sweep_multiplier: base's "doubles" is not printed
    assert setting_says("base", "sweep_multiplier") not in eagle
    # an override that says no on purpose is a rule of the book
    assert says_of("rulebook", "revolution.opposite-chooses") in rulebook


@pytest.mark.parametrize("name", list_bundled())
def test_text_wraps_at_88_columns(name):
    text = ruleset_doc(load_graph(name), "text")
    assert all(_width(line) <= WIDTH for line in text.splitlines()), name
    assert text.endswith("\n") and "\n\n\n\n" not in text


def test_markdown_has_headings_lists_and_a_table():
    md = ruleset_doc(load_graph("qingdao"), "markdown")
    lines = md.splitlines()
    assert lines[0] == "# Qingdao rules (seed 003)"
    assert "## 1. The cards" in lines and "## 3. Between games: tribute" in lines and "## Sources" in lines
    assert "| --- | --- |" in lines
    assert any(ln.startswith("| Pack | 216 cards") for ln in lines)
    assert any(ln.startswith("| Each player | 36 cards") for ln in lines)
    item = next(ln for ln in lines if says_of("qingdao", "yield.answer-only-by-opposite") in ln)
    m = re.fullmatch(r"- \*\*6\.\d+\*\* .* \[(\d+)\]", item)
    assert m, item
    assert f"{m.group(1)}. seed 003 (对让牌人顺的牌唯有对头才有上牌权)" in lines
    assert "- **Builds on:** `base`" in md


def test_a_workspace_ruleset(tmp_path):
    path = tmp_path / "town.yaml"
    path.write_text(textwrap.dedent("""
        ruleset: town
        extends: online
        settings:
          show_count_at:
            value: 5
            says: "A player with 5 cards or fewer shows the count."
            source: "our club"
        rules:
          - id: town.lucky-sevens
            on: play
            when: "leading and play.rank == '7'"
            require: "play.count >= 2"
            says: "Sevens are led in pairs or more."
            source: "our club, 2024"
    """).lstrip(), encoding="utf-8")
    doc = ruleset_doc(load_graph(str(path)))
    assert doc.splitlines()[0] == "town" and "Builds on online (" in flat(doc)
    body = flat(sections(doc).get("5. Leading", doc))
    assert "Sevens are led in pairs or more. [" in body
    assert "our club, 2024" in sections(doc)["Sources"]
    assert "A player with 5 cards or fewer shows the count." in flat(doc)


def test_unknown_format():
    with pytest.raises(ValueError):
        ruleset_doc(load_graph("online"), "html")


# ------------------------------------------------------------------------------ the CLI
def test_cli_doc_text_markdown_and_file(runner, tmp_path):
    res = runner.invoke(cli, ["doc", "qingdao"])
    assert res.exit_code == 0, res.stderr
    assert res.stdout == ruleset_doc(load_graph("qingdao"), "text")
    res = runner.invoke(cli, ["doc", "qingdao", "--format", "markdown"])
    assert res.exit_code == 0 and res.stdout.startswith("# Qingdao rules")
    out = tmp_path / "book.md"
    res = runner.invoke(cli, ["doc", "qingdao", "--format", "markdown", "-o", str(out)])
    assert res.exit_code == 0 and res.stdout == ""
    assert out.read_text(encoding="utf-8") == ruleset_doc(load_graph("qingdao"), "markdown")


def test_cli_doc_bad_input(runner, tmp_path):
    res = runner.invoke(cli, ["doc", "no-such-ruleset"])
    assert res.exit_code == 1 and "no-such-ruleset" in res.stderr and "Traceback" not in res.stderr
    res = runner.invoke(cli, ["doc", "online", "-o", str(tmp_path / "missing" / "book.txt")])
    assert res.exit_code == 1 and "cannot write" in res.stderr
    res = runner.invoke(cli, ["doc", "online", "--format", "pdf"])
    assert res.exit_code == 2


def test_a_childs_says_on_one_key_of_a_map_replaces_the_parents_sentence():
    # rulebook.yaml changes only the "2" key of gouji_minimum, with its own sentence: base's sentence
    # ("... one 2 ...") describes the old value and is replaced, not printed beside it (issue 23 item 8).
    text = flat(ruleset_doc(load_graph("rulebook")))
    base, child = setting_says("base", "gouji_minimum"), setting_says("rulebook", "gouji_minimum")
    assert flat(child) in text and flat(base) not in text
    assert "Changed in" not in text


def test_a_child_rewriting_a_whole_map_replaces_its_sentence(tmp_path):
    from gouji_dsl.ruleset.graph import compile_ruleset
    from gouji_dsl.ruleset.load.resolving import resolve
    p = tmp_path / "town.yaml"
    p.write_text(textwrap.dedent("""
        ruleset: town
        extends: online
        settings:
          gouji_minimum:
            value: {T: 6, J: 5, Q: 4, K: 3, A: 3, "2": 2}
            says: "A gouji play here: six 10s, five Js, four Qs, three Ks or As, two 2s."
    """), encoding="utf-8")
    text = flat(ruleset_doc(compile_ruleset(resolve(p))))
    assert "A gouji play here: six 10s" in text and flat(setting_says("base", "gouji_minimum")) not in text
    assert "Changed in town" not in text


def test_the_rulebook_does_not_state_a_setting_another_setting_disables(tmp_path):
    # comparison.joker_cover.equal_many has no effect while comparison.same_count is true (online's
    # value): `gouji doc` must not print "2 equal jokers beat one".
    pytest.importorskip("gouji_dsl.ruleset.settings")
    from gouji_dsl.ruleset.graph import compile_ruleset
    from gouji_dsl.ruleset.load.resolving import resolve
    p = tmp_path / "cover.yaml"
    p.write_text(textwrap.dedent("""
        ruleset: cover
        extends: online
        settings:
          comparison: {joker_cover: {equal_many: 2}}
    """), encoding="utf-8")
    text = flat(ruleset_doc(compile_ruleset(resolve(p))))
    assert "equal jokers beat one" not in text
    assert "2 equal jokers beat one" in flat(ruleset_doc(load_graph("six-deck-eagle")))  # same_count: false


@pytest.mark.parametrize("variant, says", [
    ("jokers-equal-cover", "of a higher rank; attached jokers must be covered by higher or equal jokers"),
    ("positional-jokers", "the same number of cards; card by card, strongest first: each card higher than the card it meets"),
])
def test_the_beating_row_follows_the_comparison_settings(variant, says):
    # The summary row said "covered by higher jokers" whatever the model: wrong for an equal cover
    # (B TTT beats B 999 there) and for the card-by-card model (B TTT does not).
    from pathlib import Path

    from gouji_dsl.ruleset.graph import compile_ruleset
    from gouji_dsl.ruleset.load.resolving import resolve
    path = Path(__file__).resolve().parents[1] / "examples" / "variants" / f"{variant}.yaml"
    graph = compile_ruleset(resolve(path))
    text = flat(ruleset_doc(graph))
    assert says in text
    m = graph.model
    beats = m.beats(m.classify(m.parse("B999")), m.classify(m.parse("BTTT")))
    assert beats is (variant == "jokers-equal-cover")
    assert "covered by higher jokers" not in text
