"""Grids written once (recipebook/reading/sharing.py): a recipe's ``grids`` and the grids that extend them.

The written-out form of a recipe is made here by ``inline``, a plain statement of the sharing
rules of its own (not the engine's), and every selection of a recipe with shared parts must
expand to the commands of that written-out form.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import recipebook
from recipe_support import GPT_NAME, NAMES, RECIPES, dump, fixture, write
from recipebook.checking import schema
from recipebook.expanding import expansion
from recipebook.reading import sharing, source
from recipebook.reading.model import Recipe

SHARING = Path(__file__).resolve().parents[1] / "roots" / "sharing"
SHARED = SHARING / "recipes" / "shared-model.json"
WRITTEN = SHARING / "written" / "shared-model.json"
GRID_FIELDS = ["model", "base", "modes", "options", "option_base", "deltas", "excluded", "recommended", "router"]


def inline(data: dict) -> dict:
    """The recipe with every target's grid written out in full, by hand."""
    data = copy.deepcopy(data)
    parts = data.pop("grids", {})

    def full(grid: dict) -> dict:
        if "extends" not in grid:
            return {field: grid[field] for field in GRID_FIELDS if field in grid}
        out = copy.deepcopy(full(parts[grid["extends"]]))
        for field in GRID_FIELDS:
            if field in grid:
                out[field] = copy.deepcopy(grid[field])
        for role in out.get("base", []):
            change = grid.get("change_base", {}).get(role["role"], {})
            for kind in ("args", "envs"):
                kept = {k: v for k, v in role[kind].items() if k not in change.get("del_" + kind, [])}
                for key, text in change.get("add_" + kind, {}).items():
                    kept[key] = text
                role[kind] = kept
        if "add_deltas" in grid or "del_deltas" in grid:
            deltas = {k: v for k, v in out.get("deltas", {}).items() if k not in grid.get("del_deltas", [])}
            deltas.update(copy.deepcopy(grid.get("add_deltas", {})))
            out["deltas"] = deltas
        if "add_excluded" in grid or "del_excluded" in grid:
            kept = [e for e in out.get("excluded", []) if e not in grid.get("del_excluded", [])]
            out["excluded"] = kept + copy.deepcopy(grid.get("add_excluded", []))
        if "add_router_steps" in grid or "del_router_steps" in grid:
            nodes = [n for n in out["router"]["nodes"] if n["node"] not in grid.get("del_router_steps", [])]
            out["router"]["nodes"] = nodes + copy.deepcopy(grid.get("add_router_steps", []))
        return out

    for strategy in data["strategies"]:
        for target in strategy["options"]:
            target["grid"] = {field: full(target["grid"])[field] for field in GRID_FIELDS}
    return data


def commands(recipe: Recipe) -> dict:
    """Every offered selection of every target, with its commands by the delta rules."""
    return {
        (strategy.slug, target.target, tuple(sorted(selection.items()))): [
            command for role in target.grid.base for command in expansion.reference_role(target.grid, role, selection)
        ]
        for strategy, target in recipe.targets()
        for selection in expansion.offered(target.grid)
    }


def lines(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


# ------------------------------------------------------------------ the fixture: four targets, two strategies


def test_written_out_fixture_is_the_shared_one_inlined():
    shared = json.loads(SHARED.read_text(encoding="utf-8"))
    written = json.loads(WRITTEN.read_text(encoding="utf-8"))
    assert written == inline(shared)
    assert sum(len(s["options"]) for s in shared["strategies"]) == 4 and len(shared["strategies"]) == 2
    assert all("extends" in t["grid"] for s in shared["strategies"] for t in s["options"])


def _grid_lines(data: dict) -> int:
    grids = [data.get("grids", {})] + [t["grid"] for s in data["strategies"] for t in s["options"]]
    return sum(len(json.dumps(grid, indent=2).splitlines()) for grid in grids)


def test_shared_fixture_is_under_half_of_its_written_out_form():
    # the file: 361 against 776 lines; its grids: 193 against 608, about a third
    assert lines(SHARED) * 2 < lines(WRITTEN), (lines(SHARED), lines(WRITTEN))
    shared, written = (json.loads(p.read_text(encoding="utf-8")) for p in (SHARED, WRITTEN))
    assert _grid_lines(shared) * 3 < _grid_lines(written) * 1.1, (_grid_lines(shared), _grid_lines(written))


def test_shared_fixture_and_its_written_out_form_expand_alike():
    shared, problems = recipebook.check_file(SHARED)
    assert problems == []
    written, problems = recipebook.check_file(WRITTEN)
    assert problems == []
    assert commands(shared) == commands(written)
    same_path = dataclasses.replace(written, path=shared.path)
    assert recipebook.page_of(shared) == recipebook.page_of(same_path)


# ------------------------------------------------------------------ the shipped recipes stay as they are


@pytest.mark.parametrize("name", NAMES)
def test_shipped_recipes_share_nothing_and_read_unchanged(name):
    data = fixture(name)
    document, _ = source.read(RECIPES / f"{name}.json")
    assert schema.check(document) == []
    assert inline(data) == data
    assert recipebook.check_file(RECIPES / f"{name}.json")[1] == []


# ------------------------------------------------------------------ property: sharing changes no command


_BASE = fixture(GPT_NAME)
_GRID = _BASE["strategies"][0]["options"][0]["grid"]
_ARGS = list(_GRID["base"][0]["args"])
_DELTAS = list(_GRID["deltas"])
_EXTRA_ARGS = {
    "--max-num-seqs": ["--max-num-seqs 8", "--max-num-seqs 32"],
    "--block-size": ["--block-size 1024"],
    "--tensor-parallel-size": ["--tensor-parallel-size 2"],
    "--enforce-eager": ["--enforce-eager"],
}
_EXCLUDABLE = [{"lmcache": "rds", "spec_decode": "suffix"}, {"prefix_caching": "off", "lmcache": "cpu"}]


@st.composite
def changes(draw) -> dict:
    """A random part of a grid: changes to what it extends, and maybe a whole field."""
    part: dict = {}
    add = draw(st.dictionaries(st.sampled_from(list(_EXTRA_ARGS)), st.integers(0, 1), max_size=2))
    removed = draw(st.lists(st.sampled_from(_ARGS), unique=True, max_size=2))
    if add or removed:
        main = {}
        if add:
            main["add_args"] = {k: _EXTRA_ARGS[k][i % len(_EXTRA_ARGS[k])] for k, i in add.items()}
        if removed:
            main["del_args"] = removed
        if draw(st.booleans()):
            main["add_envs"] = {"VLLM_ENGINE_READY_TIMEOUT_S": "VLLM_ENGINE_READY_TIMEOUT_S=600"}
        part["change_base"] = {"main": main}
    dropped = draw(st.lists(st.sampled_from(_DELTAS), unique=True, max_size=2))
    if dropped:
        part["del_deltas"] = dropped
    if draw(st.booleans()):
        key = draw(st.sampled_from(_DELTAS))
        part["add_deltas"] = {
            key: {
                "main": {
                    "add_args": {"--block-size": "--block-size 2048"},
                    "add_envs": {},
                    "del_args": [],
                    "del_envs": [],
                }
            }
        }
    excluded = draw(st.lists(st.sampled_from(_EXCLUDABLE), unique_by=json.dumps, max_size=2))
    if excluded:
        part["add_excluded"] = excluded
    if draw(st.booleans()):
        part["recommended"] = None if draw(st.booleans()) else dict(_GRID["recommended"])
    return part


@st.composite
def shared_recipes(draw) -> dict:
    data = copy.deepcopy(_BASE)
    whole = copy.deepcopy(_GRID)
    fields = draw(st.sets(st.sampled_from(["deltas", "excluded", "recommended", "router"])))
    first = {k: v for k, v in whole.items() if k not in fields}  # a part may leave fields out ...
    second = {"extends": "first", **{k: whole[k] for k in fields}, **draw(changes())}  # ... that another gives
    data["grids"] = {"first": first, "second": second}
    if draw(st.booleans()):
        data["grids"]["third"] = {"extends": "second", **draw(changes())}
    names = [n for n in data["grids"] if n != "first" or not fields]
    strategy = data["strategies"][0]
    facts = {k: v for k, v in strategy["options"][0].items() if k != "grid"}
    targets = []
    for i, name in enumerate(names):
        for j in range(draw(st.integers(1, 2))):
            targets.append({**facts, "target": f"T{i}x{j}", "grid": {"extends": name, **draw(changes())}})
    strategy["options"] = targets
    return data


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(shared_recipes())
def test_every_selection_expands_as_if_written_out(data):
    document, problems = source.parse(dump(data).text, "shared.json")
    assert problems == [] and schema.check(document) == []
    _written, problems = sharing.resolve(document)
    # a change that names what its grid no longer has (a key an earlier part removed) is refused
    assume(problems == [])
    shared, written = Recipe.from_json(data, "shared.json"), Recipe.from_json(inline(data), "shared.json")
    assert commands(shared) == commands(written)
    assert shared == written


# ------------------------------------------------------------------ problems: once, where written, naming targets


def _check(tmp_path: Path, mutate) -> tuple[list, object]:
    data = json.loads(SHARED.read_text(encoding="utf-8"))
    data.pop("$schema")
    mutate(data)
    path, dumped = write(tmp_path, data)
    _recipe, problems = recipebook.check_file(path)
    return problems, dumped


def test_a_problem_in_a_shared_part_is_reported_once_there_naming_its_targets(tmp_path):
    def mutate(data):
        data["grids"]["agg"]["deltas"]["spec_decode=medusa"] = data["grids"]["agg"]["deltas"]["spec_decode=suffix"]

    problems, dumped = _check(tmp_path, mutate)
    at = "/grids/agg/deltas/spec_decode=medusa"
    found = [p for p in problems if p.pointer == at]
    assert len(found) == 1, "\n".join(map(str, problems))
    assert (found[0].line, found[0].column) == dumped.keys[at]
    assert "unknown value 'medusa'" in found[0].message
    assert found[0].message.endswith(
        "(shared by targets Latency, Throughput of strategy aggregated; Latency, Throughput of strategy aggregated-tp2)"
    )
    assert all(not p.pointer.startswith("/strategies/") for p in problems)


def test_a_problem_in_a_targets_own_change_is_reported_at_the_change(tmp_path):
    def mutate(data):
        main = data["strategies"][0]["options"][1]["grid"]["change_base"]["main"]
        main["add_args"]["--max-num-seqs"] = "--max-num-seqs $SEQS"

    problems, dumped = _check(tmp_path, mutate)
    at = "/strategies/0/options/1/grid/change_base/main/add_args/--max-num-seqs"
    assert [p.pointer for p in problems] == [at], "\n".join(map(str, problems))
    assert (problems[0].line, problems[0].column) == dumped.values[at]
    assert "'$' outside quotes" in problems[0].message and "shared by" not in problems[0].message


@pytest.mark.parametrize(
    ("mutate", "pointer", "fragment"),
    [
        (
            lambda d: d["strategies"][1]["options"][0]["grid"].update(extends="tp3"),
            "/strategies/1/options/0/grid/extends",
            "'tp3' is not a grid",
        ),
        (lambda d: d["grids"]["agg"].update(extends="tp2"), "/grids/agg/extends", "cycle: agg → tp2 → agg"),
        (
            lambda d: d["grids"]["tp2"]["change_base"]["main"].update(del_args=["--no-such-flag"]),
            "/grids/tp2/change_base/main/del_args/0",
            "'--no-such-flag' is not in role 'main' of grid 'agg'",
        ),
        (lambda d: d["grids"].update(spare={"model": "a/b"}), "/grids/spare", "extended by no target"),
        (
            lambda d: d["grids"]["agg"].update(change_base={}),
            "/grids/agg/change_base",
            "it has no 'extends'",
        ),
    ],
)
def test_sharing_mistakes_are_located(tmp_path, mutate, pointer, fragment):
    problems, dumped = _check(tmp_path, mutate)
    found = [p for p in problems if p.pointer == pointer and fragment in p.message]
    assert len(found) == 1, "\n".join(map(str, problems))
    assert (found[0].line, found[0].column) in (dumped.values[pointer], dumped.keys.get(pointer))


def test_shared_fixture_builds_the_page_of_its_written_out_form(make_app, rootdir, tmp_path):
    pages = {}
    for form in ("recipes", "written"):
        srcdir = tmp_path / form
        shutil.copytree(rootdir / "test-recipes", srcdir)
        app = make_app("html", srcdir=srcdir, confoverrides={"recipebook_dir": str(SHARING / form)})
        app.build()
        assert "[recipebook" not in app._warning.getvalue(), app._warning.getvalue()
        pages[form] = Path(app.outdir, "shared-model.html").read_text(encoding="utf-8")
    assert pages["recipes"] == pages["written"]
    assert "tensor-parallel-size" in pages["recipes"] and "max-num-seqs" in pages["recipes"]
