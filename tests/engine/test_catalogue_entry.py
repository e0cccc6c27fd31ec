"""The catalogue entry of the page model says how a recipe's strategies serve and which features
some selection turns on, read from the recipe file: on the generated recipes of bench/portal.py
(every kind and feature mix the generator makes)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from recipebook import load
from recipebook.expanding.page import build_page, catalogue_of

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
import portal  # noqa: E402

ITEMS = portal.plan(2 + 20)


def flags(data: dict) -> set[str]:
    found = set()
    for strategy in data["strategies"]:
        for option in strategy["options"]:
            grid = option["grid"]
            for role in grid["base"]:
                found |= set(role["args"])
            for delta in grid["deltas"].values():
                for change in delta.values():
                    found |= set(change.get("add_args", {}))
    return found


@pytest.mark.parametrize("item", ITEMS, ids=lambda item: item.name)
def test_kinds_and_features_match_the_recipe_file(tmp_path: Path, item: portal.Generated) -> None:
    data = portal.recipe(item)
    recipe = load_item(tmp_path, item)
    entry = catalogue_of(recipe)
    assert build_page(recipe, only_default=True).catalogue == entry  # what the page model holds
    roles = [{r["role"] for r in o["grid"]["base"]} for s in data["strategies"] for o in s["options"]]
    expected_kinds = {"disaggregated" if {"prefill", "decode"} <= r else "aggregated" for r in roles}
    assert set(entry.kinds) == expected_kinds
    used = flags(data)
    assert ("speculative-decoding" in entry.features) == ("--speculative-config" in used)
    assert ("kv-offload" in entry.features) == ("--kv-transfer-config" in used)


def test_the_generator_makes_every_mix_the_filters_offer(tmp_path: Path) -> None:
    entries = [catalogue_of(load_item(tmp_path, item)) for item in ITEMS]
    assert {("aggregated",), ("disaggregated",), ("aggregated", "disaggregated")} <= {e.kinds for e in entries}
    assert {("speculative-decoding", "kv-offload"), ("kv-offload",), ("speculative-decoding",)} <= {
        e.features for e in entries
    }


def load_item(folder: Path, item: portal.Generated):
    path = folder / f"{item.name}.json"
    path.write_text(json.dumps(portal.recipe(item)), encoding="utf-8")
    (folder / "schema.json").write_bytes((ROOT / "recipes" / "schema.json").read_bytes())
    return load(path)
