"""The semantic rules: for each, a shipped recipe changed to break it, and the exact problem.

Each test loads a fixture recipe (tests/data/recipes), mutates a copy, writes it as <name>.json in tmp_path
and runs recipebook.check_file. The expected line and column come from the test's own
JSON writer (recipe_support.dump), not from the engine's reader.
"""

from __future__ import annotations

import copy
import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import recipebook
from recipe_support import NAMES, RECIPES, Checked, check_mutated, fixture
from recipebook.expanding.expansion import MAX_COMBINATIONS, MAX_SELECTIONS, selection_count
from recipebook.expanding.page import grid_table

GPT, AXK2 = "gpt-oss-120b", "A.X-K2"
GPT_LATENCY = "/strategies/0/options/0/grid"
GPT_THROUGHPUT = "/strategies/0/options/1/grid"
AX_DEP = "/strategies/0/options/0/grid"  # aggregated-data-expert-parallel / Latency
AX_PP = "/strategies/1/options/0/grid"  # aggregated-pipeline-parallel / Throughput (recommended null)
AX_PD = "/strategies/2/options/0/grid"  # prefill-decode-disaggregated / Latency


def grid(data, strategy: int = 0, target: int = 0) -> dict:
    return data["strategies"][strategy]["options"][target]["grid"]


def rename(mapping: dict, old: str, new: str) -> None:
    """Rename a key and keep its place."""
    items = [(new if k == old else k, v) for k, v in mapping.items()]
    mapping.clear()
    mapping.update(items)


def empty_delta(**changes) -> dict:
    return {"add_args": {}, "add_envs": {}, "del_args": [], "del_envs": [], **changes}


@pytest.mark.parametrize("name", [GPT, AXK2])
def test_shipped_recipes_have_no_problems(tmp_path, name):
    checked = check_mutated(tmp_path, name, lambda data: None)
    assert checked.problems == []
    assert isinstance(checked.recipe, recipebook.Recipe)


# Rule 1: strategy slugs unique in a recipe; targets unique within a strategy.


def test_rule1_strategy_slug_used_twice(tmp_path):
    def mutate(data):
        data["strategies"][2]["slug"] = "aggregated-pipeline-parallel"

    checked = check_mutated(tmp_path, AXK2, mutate)
    checked.expect_only("/strategies/2/slug", "strategy slug 'aggregated-pipeline-parallel' is used twice")


def test_rule1_target_used_twice_in_a_strategy(tmp_path):
    def mutate(data):
        data["strategies"][0]["options"][1]["target"] = "Latency"

    checked = check_mutated(tmp_path, GPT, mutate)
    checked.expect_only("/strategies/0/options/1/target", "target 'Latency' appears twice in strategy 'aggregated'")


def test_rule1_same_target_name_in_two_strategies_is_fine(tmp_path):
    def mutate(data):
        data["strategies"][1]["options"][0]["target"] = "Latency"

    assert check_mutated(tmp_path, AXK2, mutate).problems == []


def test_rule1_role_used_twice_in_a_grid(tmp_path):
    def mutate(data):
        g = grid(data, 2)
        g["base"][1]["role"] = "prefill"
        for per_role in g["deltas"].values():
            per_role.pop("decode")

    checked = check_mutated(tmp_path, AXK2, mutate)
    checked.expect(f"{AX_PD}/base/1/role", "role 'prefill' appears twice in grid.base")


# Rule 2: delta keys are axis=value of the grid; delta roles exist in grid.base.


def test_rule2_delta_names_an_unknown_axis(tmp_path):
    checked = check_mutated(tmp_path, GPT, lambda data: rename(grid(data)["deltas"], "lmcache=cpu", "kv_offload=cpu"))
    checked.expect_only(f"{GPT_LATENCY}/deltas/kv_offload=cpu", "delta names unknown axis 'kv_offload'", key=True)


def test_rule2_delta_names_an_unknown_value(tmp_path):
    checked = check_mutated(
        tmp_path, GPT, lambda data: rename(grid(data, 0, 1)["deltas"], "lmcache=rds", "lmcache=ssd")
    )
    problem = checked.expect_only(
        f"{GPT_THROUGHPUT}/deltas/lmcache=ssd", "delta names unknown value 'ssd' of axis 'lmcache'", key=True
    )
    assert "off, cpu, rds" in problem.message


def test_rule2_delta_names_a_role_not_in_base(tmp_path):
    def mutate(data):
        grid(data)["deltas"]["tool_calling=off"]["router"] = empty_delta()

    checked = check_mutated(tmp_path, GPT, mutate)
    checked.expect_only(
        f"{GPT_LATENCY}/deltas/tool_calling=off/router",
        "delta names role 'router', which is not in grid.base",
        key=True,
    )


def test_rule2_delta_key_must_have_the_axis_value_form(tmp_path):
    def mutate(data):
        rename(grid(data)["deltas"], "tool_calling=off", "tool_calling")

    checked = check_mutated(tmp_path, GPT, mutate)
    checked.expect_only(f"{GPT_LATENCY}/deltas/tool_calling", "key 'tool_calling' does not match", key=True)


# Rule 3: del_args and del_envs name keys present in that role's base.


def test_rule3_del_args_names_a_key_not_in_base(tmp_path):
    def mutate(data):
        grid(data)["deltas"]["tool_calling=off"]["main"]["del_args"].append("--enable-tool-choice")

    checked = check_mutated(tmp_path, GPT, mutate)
    checked.expect_only(
        f"{GPT_LATENCY}/deltas/tool_calling=off/main/del_args/2",
        "'--enable-tool-choice' is not in the base of role 'main', so it cannot be removed",
    )


def test_rule3_del_envs_names_a_key_not_in_base(tmp_path):
    def mutate(data):
        grid(data, 2)["deltas"]["prefix_caching=on"]["decode"]["del_envs"] = ["VLLM_RBLN_SUB_BLOCK_CACHE"]

    checked = check_mutated(tmp_path, AXK2, mutate)
    checked.expect_only(
        f"{AX_PD}/deltas/prefix_caching=on/decode/del_envs/0",
        "'VLLM_RBLN_SUB_BLOCK_CACHE' is not in the base of role 'decode'",
    )


def test_rule3_a_key_that_only_ranks_set_cannot_be_removed(tmp_path):
    def mutate(data):
        grid(data, 2)["deltas"]["tool_calling=off"]["decode"]["del_args"].append("--port")

    checked = check_mutated(tmp_path, AXK2, mutate)
    checked.expect(f"{AX_PD}/deltas/tool_calling=off/decode/del_args/2", "'--port' is not in the base of role")


# Rule 4: texts start with their key, split as shell words, and quoted JSON parses.


@pytest.mark.parametrize(
    ("key", "text", "fragment"),
    [
        ("--block-size", "--blocksize 4096", "text must start with its key '--block-size'"),
        ("--block-size", "--block-size4096", "text must start with its key '--block-size'"),
        ("--max-model-len", "--max-model-len '131072", "unbalanced ' quote"),
        ("--max-num-seqs", "--max-num-seqs 1; rm -rf /", "';' outside quotes would change the command"),
        ("--max-num-seqs", "--max-num-seqs $SEQS", "'$' outside quotes would be expanded"),
        ("--max-num-seqs", '--max-num-seqs "$SEQS"', "'$' inside double quotes would be expanded"),
        # single quotes alone would pass the literal '$SEQS' to vLLM: the placeholder form is offered
        ("--max-num-seqs", "--max-num-seqs $SEQS", "write the placeholder '<SEQS>' in single quotes"),
        ("--max-num-seqs", '--max-num-seqs "${seqs}"', "write the placeholder '<SEQS>' in single quotes"),
        ("--model-impl", "--model-impl vllm # the default", "'#' at the start of a word starts a comment"),
        ("--model-impl", "--model-impl *", "file-name pattern"),
        ("--model-impl", "--model-impl ~/impl", "home directory"),
        ("--model-impl", "--model-impl {vllm,hf}", "brace-expanded"),
        ("--model-impl", "--model-impl vllm!", "history expansion"),
        ("--model-impl", "--model-impl vllm\nhf", "newline outside quotes"),
    ],
)
def test_rule4_bad_arg_texts(tmp_path, key, text, fragment):
    def mutate(data):
        grid(data)["base"][0]["args"][key] = text

    checked = check_mutated(tmp_path, GPT, mutate)
    checked.expect_only(f"{GPT_LATENCY}/base/0/args/{key}", fragment)


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("9600", "text must be VLLM_ENGINE_READY_TIMEOUT_S=VALUE"),
        ("VLLM_ENGINE_READY_TIMEOUT=9600", "text must be VLLM_ENGINE_READY_TIMEOUT_S=VALUE"),
        ("VLLM_ENGINE_READY_TIMEOUT_S=96 00", "must be one shell word"),
        ("VLLM_ENGINE_READY_TIMEOUT_S='9600", "unbalanced ' quote"),
    ],
)
def test_rule4_bad_env_texts(tmp_path, text, fragment):
    def mutate(data):
        grid(data)["base"][0]["envs"]["VLLM_ENGINE_READY_TIMEOUT_S"] = text

    checked = check_mutated(tmp_path, GPT, mutate)
    checked.expect_only(f"{GPT_LATENCY}/base/0/envs/VLLM_ENGINE_READY_TIMEOUT_S", fragment)


def test_rule4_quoted_json_in_an_arg_must_parse(tmp_path):
    def mutate(data):
        add = grid(data)["deltas"]["spec_decode=eagle3"]["main"]["add_args"]
        add["--speculative-config"] = add["--speculative-config"].replace('"num_speculative_tokens": 3', '"n": 3,')

    checked = check_mutated(tmp_path, GPT, mutate)
    checked.expect_only(
        f"{GPT_LATENCY}/deltas/spec_decode=eagle3/main/add_args/--speculative-config",
        "its JSON value does not parse: trailing comma: JSON allows no comma before '}'; remove it (line 4,",
    )


def test_rule4_quoted_json_in_an_env_must_parse(tmp_path):
    def mutate(data):
        add = grid(data, 2)["deltas"]["lmcache=rds"]["prefill"]["add_envs"]
        add["LMCACHE_EXTRA_CONFIG"] = add["LMCACHE_EXTRA_CONFIG"].replace('"RDSBackend",', '"RDSBackend"')

    checked = check_mutated(tmp_path, AXK2, mutate)
    checked.expect_only(
        f"{AX_PD}/deltas/lmcache=rds/prefill/add_envs/LMCACHE_EXTRA_CONFIG", "its JSON value does not parse"
    )


def test_rule4_rank_texts_are_checked_too(tmp_path):
    def mutate(data):
        grid(data, 2)["base"][1]["ranks"][5]["args"]["--port"] = "--port 8205 &"

    checked = check_mutated(tmp_path, AXK2, mutate)
    checked.expect_only(f"{AX_PD}/base/1/ranks/5/args/--port", "'&' outside quotes would change the command")


def test_rule4_the_forms_of_an_arg_that_are_allowed(tmp_path):
    def mutate(data):
        args = grid(data)["base"][0]["args"]
        args["--max-model-len"] = "--max-model-len=131072"
        args["--model-impl"] = "--model-impl 'vllm'"
        args["--block-size"] = '--block-size "4096"'

    assert check_mutated(tmp_path, GPT, mutate).problems == []


# Rule 5: mode axes and their values have labels; modes/options values are non-empty and unique.


def test_rule5_mode_axis_without_a_label(tmp_path):
    def mutate(data):
        data["axes"] = [a for a in data["axes"] if a["axis"] != "spec_decode"]

    checked = check_mutated(tmp_path, GPT, mutate)
    first = checked.expect(
        f"{GPT_LATENCY}/modes/spec_decode", "axis 'spec_decode' has no title and labels in the recipe's axes", key=True
    )
    second = checked.expect(f"{GPT_THROUGHPUT}/modes/spec_decode", "has no title and labels", key=True)
    assert checked.ours == [first, second]


def test_rule5_mode_value_without_a_label(tmp_path):
    def mutate(data):
        spec = next(a for a in data["axes"] if a["axis"] == "spec_decode")
        spec["options"] = [o for o in spec["options"] if o["value"] != "suffix"]

    checked = check_mutated(tmp_path, GPT, mutate)
    first = checked.expect(
        f"{GPT_LATENCY}/modes/spec_decode/2", "value 'suffix' of axis 'spec_decode' has no label in the recipe's axes"
    )
    second = checked.expect(f"{GPT_THROUGHPUT}/modes/spec_decode/2", "value 'suffix'")
    assert checked.ours == [first, second]


def test_rule5_option_axis_needs_no_label(tmp_path):
    # tool_calling and reasoning_parser are options without catalogue entries in the shipped recipes
    recipe = recipebook.load(check_mutated(tmp_path, AXK2, lambda data: None).path)
    assert "tool_calling" not in recipe.axes and "reasoning_parser" not in recipe.axes


def test_rule5_unknown_option_axis_needs_a_label(tmp_path):
    def mutate(data):
        g = grid(data)
        g["options"]["streaming"] = ["off", "on"]
        g["option_base"]["streaming"] = "on"
        g["recommended"]["streaming"] = "on"
        g["deltas"]["streaming=off"] = {"main": empty_delta(add_envs={"STREAM": "STREAM=0"})}

    checked = check_mutated(tmp_path, GPT, mutate)
    checked.expect_only(f"{GPT_LATENCY}/options/streaming", "axis 'streaming' has no title and labels", key=True)


def test_rule5_value_listed_twice(tmp_path):
    def mutate(data):
        grid(data)["modes"]["lmcache"].append("cpu")

    checked = check_mutated(tmp_path, GPT, mutate)
    checked.expect_only(f"{GPT_LATENCY}/modes/lmcache/3", "value 'cpu' is listed twice")


def test_rule5_option_value_listed_twice(tmp_path):
    def mutate(data):
        grid(data, 1)["options"]["tool_calling"].insert(0, "on")

    checked = check_mutated(tmp_path, AXK2, mutate)
    checked.expect_only(f"{AX_PP}/options/tool_calling/2", "value 'on' is listed twice")


def test_rule5_values_are_non_empty(tmp_path):
    def mutate(data):
        grid(data)["modes"]["lmcache"] = []
        for key in ("lmcache=cpu", "lmcache=rds"):
            del grid(data)["deltas"][key]
        del grid(data)["recommended"]["lmcache"]

    checked = check_mutated(tmp_path, GPT, mutate)
    checked.expect_only(f"{GPT_LATENCY}/modes/lmcache", "should be non-empty")


def test_rule5_value_is_not_empty_text(tmp_path):
    def mutate(data):
        grid(data)["modes"]["spec_decode"].append("")

    checked = check_mutated(tmp_path, GPT, mutate)
    checked.expect_only(
        f"{GPT_LATENCY}/modes/spec_decode/3", "is not a lower-case name made of letters, digits and underscores"
    )


def test_rule5_axis_catalogued_twice(tmp_path):
    def mutate(data):
        data["axes"].append({"axis": "lmcache", "title": "Again", "options": [{"value": "off", "label": "Off"}]})

    checked = check_mutated(tmp_path, GPT, mutate)
    checked.expect_only("/axes/6/axis", "axis 'lmcache' is catalogued twice")


def test_rule5_catalogue_value_labelled_twice(tmp_path):
    def mutate(data):
        data["axes"][0]["options"].append({"value": "cpu", "label": "CPU again"})

    checked = check_mutated(tmp_path, GPT, mutate)
    checked.expect_only("/axes/0/options/3/value", "value 'cpu' of axis 'lmcache' is labelled twice")


def test_rule5_axis_both_mode_and_option(tmp_path):
    def mutate(data):
        g = grid(data)
        g["options"]["lmcache"] = ["off"]
        g["option_base"]["lmcache"] = "off"

    checked = check_mutated(tmp_path, GPT, mutate)
    checked.expect(f"{GPT_LATENCY}/options/lmcache", "axis 'lmcache' is both a mode and an option", key=True)


# Rule 6: recommended, option_base and excluded name valid axes and values.


def test_rule6_recommended_value_unknown(tmp_path):
    def mutate(data):
        grid(data)["recommended"]["lmcache"] = "ssd"

    checked = check_mutated(tmp_path, GPT, mutate)
    checked.expect_only(f"{GPT_LATENCY}/recommended/lmcache", "'ssd' is not a value of axis 'lmcache'")


def test_rule6_recommended_axis_unknown(tmp_path):
    def mutate(data):
        grid(data, 0, 1)["recommended"]["kv_connector"] = "off"

    checked = check_mutated(tmp_path, GPT, mutate)
    checked.expect_only(f"{GPT_THROUGHPUT}/recommended/kv_connector", "unknown axis 'kv_connector'", key=True)


def test_rule6_recommended_misses_an_axis(tmp_path):
    def mutate(data):
        del grid(data)["recommended"]["tool_calling"]

    checked = check_mutated(tmp_path, GPT, mutate)
    checked.expect_only(f"{GPT_LATENCY}/recommended", "must give a value for every axis; missing: tool_calling")


def test_rule6_recommended_is_excluded(tmp_path):
    def mutate(data):
        grid(data)["excluded"] = [{"lmcache": "rds", "spec_decode": "eagle3"}]

    checked = check_mutated(tmp_path, GPT, mutate)
    checked.expect_only(f"{GPT_LATENCY}/recommended", "the recommended selection is excluded by grid.excluded")


def test_rule6_option_base_value_unknown(tmp_path):
    def mutate(data):
        grid(data)["option_base"]["tool_calling"] = "auto"

    checked = check_mutated(tmp_path, GPT, mutate)
    checked.expect_only(f"{GPT_LATENCY}/option_base/tool_calling", "'auto' is not a value of option 'tool_calling'")


def test_rule6_option_base_missing_an_axis(tmp_path):
    def mutate(data):
        del grid(data)["option_base"]["reasoning_parser"]

    checked = check_mutated(tmp_path, AXK2, mutate)
    checked.expect_only(f"{AX_DEP}/option_base", "option axis 'reasoning_parser' needs its base value")


def test_rule6_option_base_names_a_mode(tmp_path):
    def mutate(data):
        grid(data)["option_base"]["lmcache"] = "off"

    checked = check_mutated(tmp_path, GPT, mutate)
    checked.expect_only(f"{GPT_LATENCY}/option_base/lmcache", "'lmcache' is not an option axis", key=True)


def test_rule6_excluded_names_an_unknown_axis(tmp_path):
    def mutate(data):
        grid(data)["excluded"] = [{"lmcache": "cpu", "kv_connector": "off"}]

    checked = check_mutated(tmp_path, GPT, mutate)
    checked.expect_only(f"{GPT_LATENCY}/excluded/0/kv_connector", "unknown axis 'kv_connector'", key=True)


def test_rule6_excluded_names_an_unknown_value(tmp_path):
    def mutate(data):
        grid(data, 1)["excluded"] = [{"spec_decode": "mtp"}]

    checked = check_mutated(tmp_path, AXK2, mutate)
    checked.expect_only(f"{AX_PP}/excluded/0/spec_decode", "'mtp' is not a value of axis 'spec_decode'")


def test_rule6_recommended_null_needs_a_neutral_value(tmp_path):
    def mutate(data):
        grid(data, 1)["deltas"]["lmcache=off"] = {"main": empty_delta(add_envs={"LMCACHE_OFF": "LMCACHE_OFF=1"})}

    checked = check_mutated(tmp_path, AXK2, mutate)
    checked.expect_only(
        f"{AX_PP}/recommended", "recommended is null, but axis 'lmcache' has no value that leaves the base command"
    )


def test_rule6_recommended_null_and_base_selection_excluded(tmp_path):
    def mutate(data):
        grid(data, 1)["excluded"] = [{"lmcache": "off", "tool_calling": "on"}]

    checked = check_mutated(tmp_path, AXK2, mutate)
    checked.expect_only(f"{AX_PP}/recommended", "recommended is null and the base command's selection is excluded")


def test_rule6_valid_exclusions_reduce_the_offered_selections(tmp_path):
    def mutate(data):
        grid(data)["excluded"] = [{"lmcache": "cpu", "spec_decode": "suffix"}, {"prefix_caching": "off"}]

    checked = check_mutated(tmp_path, GPT, mutate)
    assert checked.problems == []
    latency = checked.recipe.strategies[0].targets[0]
    offered = list(recipebook.offered(latency.grid))
    assert len(offered) == 54 - 6 - 18 + 2  # 2 selections match both entries
    assert all(s["prefix_caching"] != "off" for s in offered)


# Rule 7: no offered selection has two axes that set or remove the same key of a role.


def test_rule7_two_axes_change_the_same_key(tmp_path):
    def mutate(data):
        grid(data)["deltas"]["spec_decode=eagle3"]["main"]["add_envs"]["PYTHONHASHSEED"] = "PYTHONHASHSEED=0"

    checked = check_mutated(tmp_path, GPT, mutate)
    pointer = f"{GPT_LATENCY}/deltas/spec_decode=eagle3/main"
    cpu = checked.expect(pointer, "lmcache=cpu and spec_decode=eagle3 both change env 'PYTHONHASHSEED' of role 'main'")
    rds = checked.expect(pointer, "lmcache=rds and spec_decode=eagle3 both change env 'PYTHONHASHSEED'")
    assert checked.ours == [cpu, rds]


def test_rule7_removing_and_setting_the_same_key_conflict(tmp_path):
    def mutate(data):
        add = grid(data, 0, 1)["deltas"]["spec_decode=suffix"]["main"]["add_args"]
        add["--tool-call-parser"] = "--tool-call-parser hermes"

    checked = check_mutated(tmp_path, GPT, mutate)
    checked.expect_only(
        f"{GPT_THROUGHPUT}/deltas/tool_calling=off/main",
        "spec_decode=suffix and tool_calling=off both change arg '--tool-call-parser' of role 'main'",
    )


def test_rule7_an_excluded_combination_does_not_conflict(tmp_path):
    def mutate(data):
        g = grid(data)
        g["deltas"]["spec_decode=eagle3"]["main"]["add_envs"]["PYTHONHASHSEED"] = "PYTHONHASHSEED=0"
        g["excluded"] = [{"lmcache": "cpu", "spec_decode": "eagle3"}]

    checked = check_mutated(tmp_path, GPT, mutate)
    checked.expect_only(f"{GPT_LATENCY}/deltas/spec_decode=eagle3/main", "lmcache=rds and spec_decode=eagle3")


# Rule 12: two values of one axis never give identical commands in an offered selection.


def _offered_pair(data_grid: dict) -> tuple[str, str, str, dict] | None:
    """An axis, two of its values and a selection of the other axes under which both are
    offered, worked out from the JSON alone."""
    axes = {**data_grid["modes"], **data_grid["options"]}
    names = list(axes)

    def excluded(selection: dict) -> bool:
        return any(all(selection.get(a) == v for a, v in e.items()) for e in data_grid["excluded"])

    for axis in names:
        values = axes[axis]
        others = [a for a in names if a != axis]
        for combo in itertools.product(*(axes[a] for a in others)):
            rest = dict(zip(others, combo, strict=True))
            offered = [v for v in values if not excluded({**rest, axis: v})]
            if len(offered) >= 2:
                return axis, offered[0], offered[1], rest
    return None


@pytest.mark.parametrize("name", NAMES)
def test_rule12_a_copied_delta_gives_identical_commands(tmp_path, name):
    data = fixture(name)
    where = next(
        (s, t, pair)
        for s, strategy in enumerate(data["strategies"])
        for t, option in enumerate(strategy["options"])
        if (pair := _offered_pair(option["grid"])) is not None
    )
    s, t, (axis, first, second, rest) = where

    def mutate(data):
        deltas = grid(data, s, t)["deltas"]
        if f"{axis}={first}" in deltas:
            deltas[f"{axis}={second}"] = copy.deepcopy(deltas[f"{axis}={first}"])
        else:
            deltas.pop(f"{axis}={second}", None)  # the first value is the base command

    checked = check_mutated(tmp_path, name, mutate)
    kind = "modes" if axis in grid(data, s, t)["modes"] else "options"
    values = grid(data, s, t)[kind][axis]
    found = checked.expect(
        f"/strategies/{s}/options/{t}/grid/{kind}/{axis}/{values.index(second)}",
        f"{axis}={first} and {axis}={second} give identical commands in the offered selection",
    )
    assert checked.recipe is None
    # the message names a whole selection of the other axes under which both values are offered
    named = dict(
        pair.split("=", 1) for pair in found.message.split("offered selection ", 1)[1].split(";")[0].split(", ")
    )
    g = grid(data, s, t)
    axes = {**g["modes"], **g["options"]}
    assert set(named) == set(axes) - {axis}
    assert all(named[a] in axes[a] for a in named)
    for value in (first, second):
        chosen = {**named, axis: value}
        assert not any(all(chosen.get(a) == v for a, v in e.items()) for e in g["excluded"])
    assert set(rest) == set(named)


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_rule12_any_copied_delta_is_found(tmp_path, data):
    """Property: in any grid of a shipped recipe, giving one value of an axis another value's
    delta is reported at that value whenever the two are offered with the same other values."""
    name = data.draw(st.sampled_from(NAMES))
    recipe = fixture(name)
    grids = [(s, t) for s, strategy in enumerate(recipe["strategies"]) for t in range(len(strategy["options"]))]
    s, t = data.draw(st.sampled_from(grids))
    g = grid(recipe, s, t)
    axes = {**g["modes"], **g["options"]}
    axis = data.draw(st.sampled_from(sorted(a for a, values in axes.items() if len(values) > 1)))
    first, second = data.draw(st.permutations(axes[axis]))[:2]
    others = [a for a in axes if a != axis]

    def excluded(selection: dict) -> bool:
        return any(all(selection.get(a) == v for a, v in e.items()) for e in g["excluded"])

    together = any(
        not excluded({**dict(zip(others, combo, strict=True)), axis: first})
        and not excluded({**dict(zip(others, combo, strict=True)), axis: second})
        for combo in itertools.product(*(axes[a] for a in others))
    )

    def mutate(copy_of):
        deltas = grid(copy_of, s, t)["deltas"]
        if f"{axis}={first}" in deltas:
            deltas[f"{axis}={second}"] = copy.deepcopy(deltas[f"{axis}={first}"])
        else:
            deltas.pop(f"{axis}={second}", None)

    checked = check_mutated(tmp_path, name, mutate)
    kind = "modes" if axis in g["modes"] else "options"
    pointer = f"/strategies/{s}/options/{t}/grid/{kind}/{axis}/"
    found = [p for p in checked.problems if "identical commands" in p.message and p.pointer.startswith(pointer)]
    if together:
        assert any(f"{axis}={min(first, second, key=axes[axis].index)}" in p.message for p in found), checked.problems
    else:
        assert not found


def test_rule12_forgotten_delta_of_an_on_off_option(tmp_path):
    """The issue's case: a value whose delta was removed shows the other value's commands."""

    def mutate(data):
        deltas = grid(data, 2)["deltas"]
        deltas["prefix_caching=on_sub_block"] = copy.deepcopy(deltas["prefix_caching=on"])

    checked = check_mutated(tmp_path, AXK2, mutate)
    found = checked.expect(
        f"{AX_PD}/modes/prefix_caching/2", "prefix_caching=on and prefix_caching=on_sub_block give identical commands"
    )
    assert "lmcache=" in found.message and "tool_calling=" in found.message  # the selection is named
    assert [p.pointer for p in checked.problems].count(found.pointer) == 1  # once per pair, not per selection


def test_rule12_excluded_selections_are_not_compared(tmp_path):
    def mutate(data):
        g = grid(data, 2)
        g["deltas"]["prefix_caching=on_sub_block"] = copy.deepcopy(g["deltas"]["prefix_caching=on"])
        g["excluded"].append({"prefix_caching": "on"})
        g["recommended"]["prefix_caching"] = "on_sub_block"

    checked = check_mutated(tmp_path, AXK2, mutate)
    assert not [p for p in checked.problems if "identical commands" in p.message], checked.problems


# Rule 8: ranks: scale agrees with the number of ranks; varies is exactly what differs.


def test_rule8_scale_disagrees_with_ranks(tmp_path):
    def mutate(data):
        grid(data, 2)["base"][1]["scale"] = "7 ranks"

    checked = check_mutated(tmp_path, AXK2, mutate)
    checked.expect_only(f"{AX_PD}/base/1/scale", "scale says 7 but the role has 8 ranks")


def test_rule8_scale_missing_for_ranks(tmp_path):
    def mutate(data):
        grid(data, 2)["base"][0]["scale"] = None

    checked = check_mutated(tmp_path, AXK2, mutate)
    checked.expect_only(f"{AX_PD}/base/0/scale", 'a role with ranks needs scale "1 ranks"')


def test_rule8_varies_misses_a_key_that_differs(tmp_path):
    def mutate(data):
        grid(data, 2)["base"][1]["varies"].remove("--port")

    checked = check_mutated(tmp_path, AXK2, mutate)
    checked.expect_only(f"{AX_PD}/base/1/varies", "'--port' differs between ranks but is not listed in varies")


def test_rule8_varies_lists_a_key_that_is_the_same(tmp_path):
    def mutate(data):
        grid(data, 2)["base"][1]["varies"].append("VLLM_NIXL_SIDE_CHANNEL_HOST")

    checked = check_mutated(tmp_path, AXK2, mutate)
    checked.expect_only(
        f"{AX_PD}/base/1/varies", "'VLLM_NIXL_SIDE_CHANNEL_HOST' is listed in varies but is the same in every rank"
    )


def test_rule8_a_key_set_by_some_ranks_only_varies(tmp_path):
    def mutate(data):
        grid(data, 2)["base"][1]["ranks"][7]["envs"]["RBLN_PROFILE"] = "RBLN_PROFILE=1"

    checked = check_mutated(tmp_path, AXK2, mutate)
    checked.expect_only(f"{AX_PD}/base/1/varies", "'RBLN_PROFILE' differs between ranks")


def test_rule8_scale_and_varies_need_ranks(tmp_path):
    def mutate(data):
        role = grid(data)["base"][0]
        role["scale"] = "1 ranks"
        role["varies"] = []

    checked = check_mutated(tmp_path, GPT, mutate)
    scale = checked.expect(f"{GPT_LATENCY}/base/0/scale", "scale must be null for a role without ranks")
    varies = checked.expect(f"{GPT_LATENCY}/base/0/varies", "varies must be null for a role without ranks")
    assert checked.ours == [scale, varies]


def test_rule8_a_delta_must_not_change_a_rank_key(tmp_path):
    def mutate(data):
        grid(data, 2)["deltas"]["lmcache=cpu"]["prefill"]["add_args"]["--port"] = "--port 9000"

    checked = check_mutated(tmp_path, AXK2, mutate)
    checked.expect_only(
        f"{AX_PD}/deltas/lmcache=cpu/prefill", "changes arg '--port', which the ranks of role 'prefill' set"
    )


# Rule 9: text has en and ko with the same keys; text fields hold only allowed inline markup.


def test_rule9_korean_text_misses_a_field(tmp_path):
    checked = check_mutated(tmp_path, GPT, lambda data: data["text"]["ko"].pop("strategyNote"))
    checked.expect_only("/text/ko", "'strategyNote' is required")


def test_rule9_a_language_is_missing(tmp_path):
    checked = check_mutated(tmp_path, GPT, lambda data: data["text"].pop("ko"))
    checked.expect_only("/text", "'ko' is required")


def test_rule9_an_extra_field_in_one_language(tmp_path):
    checked = check_mutated(tmp_path, GPT, lambda data: data["text"]["en"].__setitem__("title", "x"))
    checked.expect_only("/text/en/title", "unknown key 'title'", key=True)


@pytest.mark.parametrize(
    ("markup", "fragment"),
    [
        ("<script>alert(1)</script>", "<script> is not allowed"),
        ('<strong onclick="alert(1)">x</strong>', "attribute 'onclick' on <strong> is not allowed"),
        ('<a href="javascript:alert(1)">x</a>', "link scheme 'javascript' is not allowed"),
        ('<img src="x.png">', "<img> is not allowed"),
        ("<em>never closed", "<em> is never closed"),
        ("<!-- hidden -->", "HTML comments are not allowed"),
        ("<a>no target</a>", "<a> needs an href"),
        ("<![foo[bar]]>", "cannot read the markup"),
    ],
)
def test_rule9_markup_that_is_not_allowed(tmp_path, markup, fragment):
    def mutate(data):
        data["text"]["en"]["sub"] += " " + markup

    checked = check_mutated(tmp_path, GPT, mutate)
    checked.expect("/text/en/sub", fragment)
    assert {p.pointer for p in checked.problems} == {"/text/en/sub"}  # an <img src> is two problems


def test_rule9_target_note_is_checked(tmp_path):
    def mutate(data):
        data["strategies"][1]["options"][0]["note"] = 'Read <a href="https://example.com" onmouseover="x()">this</a>.'

    checked = check_mutated(tmp_path, AXK2, mutate)
    checked.expect_only("/strategies/1/options/0/note", "attribute 'onmouseover' on <a> is not allowed")


def test_rule9_allowed_markup(tmp_path):
    def mutate(data):
        data["text"]["ko"]["sub"] = (
            '<strong>굵게</strong>, <em>기울임</em>, <code>--flag</code>, <a href="/guide">링크</a>'
        )
        data["strategies"][0]["options"][0]["note"] = '<a href="https://rebellions.ai">RBLN</a> &amp; more'

    assert check_mutated(tmp_path, GPT, mutate).problems == []


# Rule 10: router steps pass bash -n.


def test_rule10_router_step_does_not_parse(tmp_path):
    def mutate(data):
        grid(data, 2)["router"]["nodes"][1]["cmd"] = "helm install router (llm-d-router-gateway"

    checked = check_mutated(tmp_path, AXK2, mutate)
    problem = checked.expect_only(f"{AX_PD}/router/nodes/1/cmd", "does not pass bash -n: line 1: syntax error")
    assert "\n" not in problem.message and "/bash" not in problem.message


def test_rule10_here_document_without_its_end(tmp_path):
    def mutate(data):
        node = grid(data, 2)["router"]["nodes"][0]
        node["cmd"] = node["cmd"].removesuffix("\nEOF")

    checked = check_mutated(tmp_path, AXK2, mutate)
    checked.expect_only(f"{AX_PD}/router/nodes/0/cmd", "here-document at line 1 delimited by end-of-file")


def test_rule10_router_role_is_router(tmp_path):
    checked = check_mutated(tmp_path, AXK2, lambda data: grid(data, 2)["router"].__setitem__("role", "proxy"))
    checked.expect_only(f"{AX_PD}/router/role", 'must be "router"')


# Rule 11: the number of offered selections per target is capped.


def _many_values(count: int, excluded: int = 0):
    def mutate(data):
        values = [f"v{i}" for i in range(count)]
        data["axes"].append(
            {"axis": "batch", "title": "Batch", "options": [{"value": v, "label": v.upper()} for v in values]}
        )
        g = grid(data)
        g["modes"]["batch"] = values
        g["recommended"]["batch"] = values[-1]
        g["excluded"] = [{"batch": v} for v in values[:excluded]]
        for i, v in enumerate(values):  # each value its own command (rule 12)
            g["deltas"][f"batch={v}"] = {"main": empty_delta(add_envs={"BATCH": f"BATCH={i}"})}

    return mutate


def test_rule11_too_many_offered_selections(tmp_path):
    checked = check_mutated(tmp_path, GPT, _many_values(80))  # 54 * 80 = 4320
    checked.expect_only(GPT_LATENCY, f"4320 offered selections is more than the limit of {MAX_SELECTIONS}")


def test_rule11_exclusions_count(tmp_path):
    checked = check_mutated(tmp_path, GPT, _many_values(80, excluded=5))  # 54 * 75 = 4050
    assert checked.problems == []
    assert sum(1 for _ in recipebook.matrix(checked.recipe)) == 4050 + 54


def test_rule11_far_too_many_combinations(tmp_path):
    checked = check_mutated(tmp_path, GPT, _many_values(1300))  # 54 * 1300 = 70200
    found = checked.expect(GPT_LATENCY, f"the axes combine into 70200 selections, more than the {MAX_COMBINATIONS}")
    # besides: the axis itself is past recipebook.checking.bounds.MAX_AXIS_VALUES (in the catalogue and the grid)
    assert [p for p in checked.ours if "an axis offers at most" not in p.message] == [found]


@pytest.mark.parametrize("count", [80, 1300])  # 4320 offered; 70200 combined
def test_rule11_a_refused_target_is_counted_not_walked(tmp_path, monkeypatch, count):
    """A target rule 11 refuses is never gone through selection by selection by another rule
    (the manifests' rules 19 and 28, rule 12, the spanning rule 24): a hostile grid costs the
    counting, not tens of thousands of expansions (70,200 took 80 s before)."""

    def walked(grid, memo=None):
        assert selection_count(grid) <= MAX_SELECTIONS, "a refused target's selections were gone through"
        return grid_table(grid, memo)

    for module in (recipebook.checking.manifests, recipebook.checking.rules, recipebook.checking.spanning):
        monkeypatch.setattr(module, "grid_table", walked)
    checked = check_mutated(tmp_path, GPT, _many_values(count))
    assert any("selections" in p.message and p.pointer == GPT_LATENCY for p in checked.ours), checked.ours


# Rules the engine adds.


def test_file_name_must_match_name(tmp_path):
    checked = check_mutated(tmp_path, GPT, lambda data: None, file_name="gpt-oss.json")
    checked.expect_only("/name", "name 'gpt-oss-120b' must match the file name 'gpt-oss'.json")


def test_verified_must_be_a_calendar_date(tmp_path):
    checked = check_mutated(
        tmp_path, GPT, lambda data: data["strategies"][0]["options"][1].update(verified="2026-02-30")
    )
    checked.expect_only("/strategies/0/options/1/verified", "'2026-02-30' is not a calendar date")


# Several problems in one file: all reported, sorted by place.


def test_every_problem_of_a_file_is_reported_in_order(tmp_path):
    def mutate(data):
        data["strategies"][2]["slug"] = "aggregated-data-expert-parallel"  # rule 1
        grid(data, 2)["base"][1]["scale"] = "9 ranks"  # rule 8
        grid(data)["recommended"]["spec_decode"] = "mtp"  # rule 6
        grid(data, 1)["base"][0]["args"]["--max-num-seqs"] = "--max-num-seqs 8 | tee"  # rule 4
        data["text"]["en"]["tag"] = "<b>bold</b>"  # rule 9
        data["strategies"][1]["options"][0]["verified"] = "2026-13-01"

    checked: Checked = check_mutated(tmp_path, AXK2, mutate)
    expected = [
        checked.expect(f"{AX_DEP}/recommended/spec_decode", "'mtp' is not a value of axis 'spec_decode'"),
        checked.expect(f"{AX_PP}/base/0/args/--max-num-seqs", "'|' outside quotes"),
        checked.expect("/strategies/1/options/0/verified", "is not a calendar date"),
        checked.expect(f"{AX_PD}/base/1/scale", "scale says 9 but the role has 8 ranks"),
        checked.expect("/strategies/2/slug", "is used twice"),
        checked.expect("/text/en/tag", "<b> is not allowed"),
    ]
    assert checked.ours == expected
    assert [(p.line, p.column) for p in checked.problems] == sorted((p.line, p.column) for p in checked.problems)


def test_schema_problems_are_all_reported_before_rules_run(tmp_path):
    def mutate(data):
        data["badges"].append(7)
        grid(data, 0, 1)["base"][0]["launcher"] = "VLLM serve"
        data["strategies"][0]["options"][0]["npus"] = 0

    checked = check_mutated(tmp_path, GPT, mutate)
    expected = [
        checked.expect("/badges/6", "must be of type 'string' or 'object'"),
        checked.expect("/strategies/0/options/0/npus", "0 is less than the minimum of 1"),
        checked.expect(f"{GPT_THROUGHPUT}/base/0/launcher", '"VLLM serve" does not match the pattern'),
    ]
    assert checked.ours == expected


def test_forget_drops_what_the_engine_remembers_of_texts():
    # every bounded memo of the engine (functools.cache ones hold files, such as the schema)
    import importlib
    import pkgutil

    from recipebook import shell
    from recipebook.rendering import files, kubernetes

    modules = [
        importlib.import_module(m.name)
        for m in pkgutil.walk_packages(recipebook.__path__, "recipebook.")
        if m.name != "recipebook.__main__"
    ]
    caches = {
        f"{module.__name__}.{name}": value
        for module in modules
        for name, value in vars(module).items()
        if hasattr(value, "cache_parameters")
        and value.__module__ == module.__name__  # not an imported one (urllib's urlsplit)
        and value.cache_parameters()["maxsize"] is not None
    }
    for name in NAMES:
        recipebook.page_of(recipebook.load(RECIPES / f"{name}.json"))  # its serving groups read every command
    shell.bash_syntax_error("true")
    kubernetes.line_fragment("arg", "--port 8000")
    files.config_entry("--port 8000")  # the files writer's, which a page model does not call
    assert len(caches) >= 5 and all(cache.cache_info().currsize > 0 for cache in caches.values()), caches
    recipebook.forget()
    assert {name: cache.cache_info().currsize for name, cache in caches.items()} == dict.fromkeys(caches, 0)


def test_a_value_for_an_axis_that_breaks_the_pattern_names_the_axis_values(tmp_path):
    """A recommended value that is not even a value name gets the axis's values, not a regex."""

    def mutate(data):
        grid(data)["recommended"]["spec_decode"] = "eagle-3"

    checked = check_mutated(tmp_path, GPT, mutate)
    values = grid(fixture(GPT))["modes"]["spec_decode"]
    found = checked.expect_only(f"{GPT_LATENCY}/recommended/spec_decode", "is not a value of axis 'spec_decode'")
    assert found.message.endswith("choose from: " + ", ".join(values)) and "^" not in found.message


def test_rule14_a_placeholder_each_node_fills_in_stays_out_of_router_steps(tmp_path):
    def mutate(data):
        data["placeholders"] = {"POD_IP": {"scope": "node"}, "NEVER_USED": {"scope": "shared"}}
        router = grid(data, 2, 0)["router"]
        router["nodes"][0]["cmd"] = "echo '<POD_IP>'"

    checked = check_mutated(tmp_path, AXK2, mutate)
    checked.expect("/strategies/2/options/0/grid/router/nodes/0/cmd", "<POD_IP> has a value per node")
    checked.expect("/placeholders/NEVER_USED", "<NEVER_USED> appears in no command or router step", key=True)
