"""The recipe view (recipebook.view) and the one flag-and-values parser (shell.flag_values).

Expectations are read from the recipe JSON with plain dictionary walks, not through the
engine's model, so a third recipe dropped into recipes/ is covered as well.
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from recipebook import load, shell
from recipebook.view import recipe_view

ROOT = Path(__file__).resolve().parents[1]
PATHS = sorted(p for p in (ROOT / "recipes").glob("*.json") if p.name != "schema.json")


def grids(data: dict) -> list[dict]:
    return [option["grid"] for strategy in data["strategies"] for option in strategy["options"]]


def mappings(data: object, names: tuple[str, ...]) -> list[dict]:
    """Every mapping stored under one of the given keys, anywhere in the JSON."""
    found = []
    if isinstance(data, dict):
        for key, value in data.items():
            if key in names and isinstance(value, dict):
                found.append(value)
            found += mappings(value, names)
    elif isinstance(data, list):
        for item in data:
            found += mappings(item, names)
    return found


@pytest.mark.parametrize("path", PATHS, ids=lambda p: p.stem)
def test_view_facts_match_the_recipe_file(path: Path) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    view = recipe_view(load(path))
    # every flag of any args mapping, base, rank or delta
    assert view.flags == {key for m in mappings(data, ("args", "add_args")) for key in m}
    # the longest --max-model-len of a base command, written "--max-model-len N"
    lengths = [
        int(role["args"]["--max-model-len"].split()[-1])
        for grid in grids(data)
        for role in grid["base"]
        if "--max-model-len" in role["args"]
    ]
    assert view.context_length == max(lengths, default=None)
    modes = [grid["modes"] for grid in grids(data)]
    assert view.install.suffix == any("suffix" in m.get("spec_decode", []) for m in modes)
    assert view.install.offload == any(
        v != "off" for m in modes for axis in ("lmcache", "kv_connector") for v in m.get(axis, [])
    )
    assert view.install.disaggregated == any(
        {"prefill", "decode"} <= {role["role"] for role in grid["base"]} for grid in grids(data)
    )
    # placeholders: every <NAME> in any text of the target, each once
    for grid, target in zip(grids(data), view.targets, strict=True):
        texts = [t for m in mappings(grid, ("args", "add_args", "envs", "add_envs")) for t in m.values()]
        texts += [step["cmd"] for step in (grid["router"] or {}).get("nodes", [])]
        names = set(re.findall(r"<([A-Z][A-Z0-9_]*)>", "\n".join(texts)))
        assert {p.name for p in target.placeholders} == names
        assert target.wrong == ()


FLAG = st.from_regex(r"--[a-z][a-z0-9-]{0,12}", fullmatch=True)
VALUE = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), min_size=1, max_size=12)


@given(FLAG, st.lists(VALUE, max_size=3))
def test_flag_values_reads_spaced_and_equals_forms(flag: str, values: list[str]) -> None:
    spaced = " ".join([flag, *map(shlex.quote, values)])
    assert shell.flag_values(spaced) == (flag, values)
    if values:
        joined = f"{flag}={shlex.quote(values[0])} " + " ".join(map(shlex.quote, values[1:]))
        assert shell.flag_values(joined) == (flag, values)


def test_flag_values_refuses_text_that_is_not_shell_words() -> None:
    with pytest.raises(ValueError):
        shell.flag_values("--x 'unbalanced")
    with pytest.raises(ValueError):
        shell.flag_values("   ")
