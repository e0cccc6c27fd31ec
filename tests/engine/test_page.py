"""The page model (recipebook.expanding.page) and the one flag-and-values parser (shell.flag_values).

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
from recipebook.expanding.page import build_page
from recipebook.reading import sharing

ROOT = Path(__file__).resolve().parents[2]
PATHS = sorted(p for p in (ROOT / "recipes").glob("*.json") if p.name != "schema.json")


def grids(data: dict) -> list[dict]:
    return [option["grid"] for strategy in data["strategies"] for option in strategy["options"]]


def omni(grid: dict) -> bool:
    """A grid whose commands vLLM hands to vLLM-Omni (--omni): its flags are not vLLM's."""
    return any("--omni" in role["args"] for role in grid["base"])


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
    data = sharing.written_out(json.loads(path.read_text(encoding="utf-8")))  # grids written once: in full
    view = build_page(load(path))
    # every flag of any args mapping, base, rank or delta, each once, sorted (vLLM's: not vLLM-Omni's)
    used = {key for grid in grids(data) if not omni(grid) for m in mappings(grid, ("args", "add_args")) for key in m}
    assert [f.name for f in view.flags] == sorted(used)
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
    # placeholders: every <NAME> in any text of the target (and the router's address when it
    # has a router; a server's own node's address when it runs on several), each once, with
    # the scope the recipe gives it
    scopes = {name: p["scope"] for name, p in data.get("placeholders", {}).items()}
    strategies = [s for s in data["strategies"] for _o in s["options"]]
    for grid, strategy, target in zip(grids(data), strategies, view.targets, strict=True):
        texts = [t for m in mappings(grid, ("args", "add_args", "envs", "add_envs")) for t in m.values()]
        texts += [step["cmd"] for step in (grid["router"] or {}).get("nodes", [])]
        names = set(re.findall(r"<([A-Z][A-Z0-9_]*)>", "\n".join(texts)))
        if grid["router"]:
            names.add("ROUTER_HOST")
        if int(strategy["nodes"] or 1) > 1:
            names.add("POD_IP")
        assert {p.name for p in target.placeholders} == names
        assert all(p.scope == scopes.get(p.name, "shared") for p in target.placeholders)
        assert target.wrong == ()
        # nodes: one role per node in recipe order on a multi-node strategy, else all on node 1
        roles = [role["role"] for role in grid["base"]]
        count = int(strategy["nodes"] or 1)
        expected = {role: (min(i + 1, count) if count > 1 else 1) for i, role in enumerate(roles)}
        assert {role: target.node_of(role) for role in roles} == expected


@pytest.mark.parametrize("path", PATHS, ids=lambda p: p.stem)
def test_strategy_subtitles_never_repeat_their_label(path: Path) -> None:
    data = sharing.written_out(json.loads(path.read_text(encoding="utf-8")))  # grids written once: in full
    view = build_page(load(path))
    for strategy, page in zip(data["strategies"], view.strategies, strict=True):
        if strategy["tag"].casefold() in strategy["label"].casefold():
            assert page.subtitle is None
        else:
            assert page.subtitle == strategy["tag"]


@pytest.mark.parametrize("path", PATHS, ids=lambda p: p.stem)
def test_serving_groups_cover_every_selection_once(path: Path) -> None:
    """Each offered selection belongs to exactly one serving group, whose client request
    and health checks are those of that selection's own commands."""
    from recipebook.expanding import client
    from recipebook.expanding.table import admits

    view = build_page(load(path))
    for target in view.targets:
        for chosen in target.table.offered:
            groups = [g for g in target.serving if not g.when or any(admits(p, chosen) for p in g.when)]
            assert len(groups) == 1
            commands = target.commands_at(chosen)
            assert groups[0].client == client.client_for(commands[0], bool(target.router))
            ports = [p for plan in groups[0].roles for p in plan.ports]
            assert ports == [client.port(c) for c in commands]


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
