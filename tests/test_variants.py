"""The variant cookbook (examples/variants): each file compiles, plays whole games, and does what
its RULES.md §11 line says."""
from pathlib import Path

import pytest

from gouji_dsl.engine.interpreter import new_game
from gouji_dsl.ruleset.game.cards import parse_cards
from gouji_dsl.ruleset.graph import load_graph
from gouji_dsl.tools.simulate import play_game

VARIANTS = sorted((Path(__file__).parent.parent / "examples" / "variants").glob("*.yaml"))


@pytest.mark.parametrize("path", VARIANTS, ids=[p.stem for p in VARIANTS])
def test_variant_compiles_and_plays(path):
    g = load_graph(path)
    for i in range(2):
        res, st = play_game(g, "cookbook", i)
        assert st.over and sorted(res.places.values()) == list(range(1, 7))


def _g(name):
    return load_graph(Path(__file__).parent.parent / "examples" / "variants" / f"{name}.yaml")


def test_deck_198():
    assert sum(_g("deck-198").model.deck_counts) == 198


def test_hidden_counts_and_open_teammate_hands():
    g = _g("hidden-counts")
    st = new_game(g, 1)
    v = st.view(1)
    assert "count" not in v["others"]["2"] and "hand" in v["others"]["3"] and "hand" not in v["others"]["2"]


def test_revolution_needs_no_aces():
    g = _g("revolution-no-aces")
    hands = {s: parse_cards(t) for s, t in {1: "A 5", 2: "2 6", 3: "7 8", 4: "2 9", 5: "2 T", 6: "2 J"}.items()}
    st = new_game(g, 0, hands=hands)
    assert st.to_act == 3 and st.setup_queue == [3]   # seat 1 holds an ace: no revolution offered


def test_redeal_weak_hands_always_ends_with_strong_hands():
    g = _g("redeal-weak-hands")
    st = new_game(g, 10)
    st.decline_setup()
    assert any(e["type"] == "redeal" for e in st.record)  # seed 10: the first deal is weak
    ranks_from_j = g.model.kinds.index("J")
    assert all(sum(st.dealt[s][ranks_from_j:]) >= 11 for s in st.seat_list)


def _soak_module():
    import importlib.util
    spec = importlib.util.spec_from_file_location("soak", Path(__file__).parent.parent / "benchmarks" / "soak.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_every_variant_at_once_plays_without_an_error():
    """issue 10: a variant combining every examples/variants file's change at once (the benchmark
    runs it for 5,000 games: python benchmarks/soak.py --combined-only --games 5000)."""
    soak = _soak_module()
    g = soak.combined_variant()
    assert g.model.kinds[-1] == "R" and sum(g.model.deck_counts) == 198  # deck-198 + positional + ...
    decisions, failures = soak.soak(g, 8, 3)
    assert failures == [] and decisions > 0


def test_the_readme_house_rules_simulate(tmp_path):
    """The README's "Writing a variant" example loads and plays (and tests/scenarios/rulesets/house.yaml,
    whose scenarios exercise it, is the same ruleset)."""
    import re

    import yaml
    readme = (Path(__file__).parent.parent / "README.md").read_text(encoding="utf-8")
    block = next(b for b in re.findall(r"```yaml\n(.*?)```", readme, re.S) if "ruleset: house" in b)
    (tmp_path / "house.yaml").write_text(block, encoding="utf-8")
    g = load_graph(tmp_path / "house.yaml")
    for i in range(6):
        res, st = play_game(g, "house", i, engine="interpreter")
        assert st.over and sorted(res.places.values()) == list(range(1, 7))
    copy = Path(__file__).parent / "scenarios" / "rulesets" / "house.yaml"
    assert yaml.safe_load(copy.read_text(encoding="utf-8")) == yaml.safe_load(block)
    # the example a ruleset author copies is clean under `gouji validate --strict`
    from gouji_dsl.ruleset.check import check
    result = check(tmp_path / "house.yaml", strict=True)
    assert not result.diagnostics, [d.short() for d in result.diagnostics]
