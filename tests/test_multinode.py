"""A role that spans nodes: one vLLM server run as a head and followers (issue 39 item 3).

The fixture recipe (tests/data/multinode) holds every shape vLLM 0.30.0 runs across nodes:
tensor parallel and tensor + pipeline parallel with --nnodes (the second from the first's shared
grid, through change_base), data + expert parallel with every node serving (hybrid load
balancing), data parallel with a --headless follower, and prefill/decode with the decode pool
across two nodes. Each rule test breaks one thing in a copy and expects exactly its problem,
at the line and column the test's own JSON writer put the value (recipe_support.dump).
"""

from __future__ import annotations

import copy
import json
import re
import shlex
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import recipebook
from recipe_support import Checked, write
from recipebook import load
from recipebook.checking import spanning
from recipebook.expanding import client, memory
from recipebook.expanding.expansion import reference_role
from recipebook.expanding.page import expansion_at, page_of
from recipebook.reading.model import Grid
from recipebook.rendering import files

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "tests" / "data" / "multinode" / "Kimi-K2-Instruct.json"
TP = "/grids/tp_nodes/base/0"  # tensor parallel over 2 nodes (shared by two targets and, changed, TP x PP)
TP_PP = "/strategies/1/options/0/grid/change_base/main"  # its 4 nodes, given whole
DP = "/strategies/2/options/0/grid/base/0"  # data + expert parallel, every node serving
DP_HEADLESS = "/strategies/3/options/0/grid/base/0"
DECODE = "/strategies/4/options/0/grid/base/1"  # the decode pool of prefill/decode, over nodes 2-3


def fixture() -> dict:
    return json.loads(FIXTURE.read_text(encoding="utf-8"))


def at(data: dict, pointer: str):
    for token in pointer.split("/")[1:]:
        data = data[int(token)] if isinstance(data, list) else data[token]
    return data


def check(tmp_path: Path, mutate) -> Checked:
    data = copy.deepcopy(fixture())
    data["$schema"] = "schema.json"
    mutate(data)
    (tmp_path / "schema.json").write_bytes((ROOT / "recipes" / "schema.json").read_bytes())
    path, dumped = write(tmp_path, data)
    recipe, problems = recipebook.check_file(path)
    return Checked(path=path, dumped=dumped, recipe=recipe, problems=problems)


# -- the format and the model ---------------------------------------------------------------


def test_the_fixture_of_every_shape_is_valid(tmp_path):
    checked = check(tmp_path, lambda data: None)
    assert checked.problems == []


def test_each_node_runs_its_own_command_on_its_own_node():
    recipe = load(FIXTURE)
    page = page_of(recipe)
    nodes = {(t.strategy.slug, t.target.target): t for t in page.targets}
    tp = nodes[("tp-across-nodes", "Latency")].opening_commands()
    assert [(c.role, c.rank, c.node, c.name) for c in tp] == [
        ("main", 0, 1, "main-node1"),
        ("main", 1, 2, "main-node2"),
    ]
    assert "--node-rank 0" in tp[0].args and "--headless" not in tp[0].args
    assert "--node-rank 1" in tp[1].args and "--headless" in tp[1].args
    # the shared grid's nodes, replaced whole by change_base: four nodes
    pp = nodes[("tp-pp-across-nodes", "Throughput")]
    assert [c.node for c in pp.opening_commands()] == [1, 2, 3, 4]
    assert all("--nnodes 4" in c.args and "--pipeline-parallel-size 4" in c.args for c in pp.opening_commands())
    assert [n.number for n in pp.nodes] == [1, 2, 3, 4]
    # prefill on node 1, the decode pool on nodes 2 and 3, its head first
    pd = nodes[("pd-across-nodes", "Latency")]
    assert [(c.role, c.node) for c in pd.opening_commands()] == [("prefill", None), ("decode", 2), ("decode", 3)]
    assert [(n.number, n.roles) for n in pd.nodes] == [(1, ("prefill",)), (2, ("decode",)), (3, ("decode",))]
    assert pd.role_nodes == {"prefill": 1, "decode": 2} and pd.nodes_of("decode") == (2, 3)


def test_placement_takes_nodes_in_recipe_order():
    assert client.placement([1], None) == ((1,),)
    assert client.placement([1, 1], None) == ((1,), (1,))  # prefill and decode on one node
    assert client.placement([1, 1], 2) == ((1,), (2,))
    assert client.placement([1, 1, 1], 2) == ((1,), (2,), (2,))  # the last node takes further roles
    assert client.placement([2], 2) == ((1, 2),)
    assert client.placement([1, 3], 4) == ((1,), (2, 3, 4))
    assert client.placement([2, 2], 4) == ((1, 2), (3, 4))


def test_the_health_check_and_the_client_go_to_the_head_only():
    recipe = load(FIXTURE)
    page = page_of(recipe)
    for target in page.targets:
        for group in target.serving:
            for plan in group.roles:
                if not plan.spans:
                    continue
                assert plan.nodes[0] == plan.node == target.role_nodes[plan.role]
                assert len(plan.wait) == 1 and plan.servers == len(plan.nodes)
                assert plan.wait[0].startswith(f"curl -sf 'http://{client.NODE_HOST}:")
        if target.router:
            continue
        for group in target.serving:
            assert group.endpoint.host == client.NODE_HOST and group.endpoint.node == 1
            assert f"http://{client.NODE_HOST}:8000" in group.client


def test_npus_per_node_are_the_nodes_share():
    recipe = load(FIXTURE)
    page = page_of(recipe)
    per_node = {(t.strategy.slug, p.role): p.npus_per_server for t in page.targets for g in t.serving for p in g.roles}
    assert per_node[("tp-across-nodes", "main")] == (8, 8)  # TP16 over 2 nodes
    assert per_node[("tp-pp-across-nodes", "main")] == (8, 8, 8, 8)  # TP8 x PP4 over 4 nodes
    assert per_node[("dp-ep-across-nodes", "main")] == (8, 8)  # DP16, 8 ranks a node
    assert per_node[("pd-across-nodes", "decode")] == (4, 4)  # DP8, 4 ranks a node
    assert per_node[("pd-across-nodes", "prefill")] == (8,)


def test_a_head_placeholder_is_filled_from_the_heads_own_address():
    recipe = load(FIXTURE)
    target = page_of(recipe).target("tp-across-nodes", "Latency")
    names = {p.name: p for p in target.placeholders}
    assert names["HEAD_IP"].scope == "head" and names["HEAD_IP"].of == "POD_IP"
    assert names["POD_IP"].scope == "node"
    values = {"POD_IP@1": "10.0.0.1", "POD_IP@2": "10.0.0.2", "IFACE_NAME": "eth0"}
    written = files.selection_files(expansion_at(recipe, target, target.opening), values)
    assert "VLLM_HOST_IP='10.0.0.1'" in written["main-node1.env"]
    assert "VLLM_HOST_IP='10.0.0.2'" in written["main-node2.env"]
    for name in ("main-node1.yaml", "main-node2.yaml"):
        assert "master-addr: '10.0.0.1'" in written[name]  # the head's, on every node
    assert "<" not in written["serve.sh"].split("set -euo pipefail")[1]


def test_serve_sh_runs_each_nodes_command_and_says_to_start_the_head_first(tmp_path):
    recipe = load(FIXTURE)
    target = page_of(recipe).target("dp-headless", "Throughput")
    expansion = expansion_at(recipe, target, target.opening)
    script = files.serve_sh(expansion, {"POD_IP@1": "10.0.0.1", "POD_IP@2": "10.0.0.2"})
    assert (
        "# main spans nodes 1-2: start ./serve.sh main node1 on node 1 (the head) first, "
        "then ./serve.sh main node2 on node 2" in script
    )
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "vllm").write_text('#!/bin/sh\nprintf "%s\\n" "$@"\n')
    (bin_dir / "vllm").chmod(0o755)
    (tmp_path / "serve.sh").write_text(script)
    for command in expansion.commands:
        out = subprocess.run(
            ["bash", str(tmp_path / "serve.sh"), "main", f"node{command.node}"],
            capture_output=True,
            text=True,
            check=True,
            env={"PATH": f"{bin_dir}:/usr/bin:/bin"},
        )
        words = [w for text in command.args for w in recipebook.shell.words(text)]
        filled = [w.replace("<POD_IP>", f"10.0.0.{command.node}").replace("<HEAD_IP>", "10.0.0.1") for w in words]
        assert out.stdout.splitlines() == ["serve", command.model, *filled]


def test_the_memory_figures_count_a_server_across_nodes_once():
    """A server across nodes is one server: its data-parallel ranks and pipeline stages are
    counted once, not once per node (a data-parallel node counts its local ranks from its start
    rank; with --nnodes the head's flags give the whole of it and the followers add nothing)."""
    recipe = load(FIXTURE)
    facts = load(ROOT / "recipes" / "A.X-K2.json").facts  # any model's facts: the ranks are the question
    page = page_of(recipe)
    dp = page.target("dp-ep-across-nodes", "Throughput").opening_commands()
    assert [memory.Flags.of(c).processes_ranks for c in dp] == [tuple(range(8)), tuple(range(8, 16))]
    fit = memory.fit(facts, ["RBLN-CR13"], dp)
    assert sorted(r.dp_rank for r in fit.ranks) == list(range(16))
    pp = memory.fit(facts, ["RBLN-CR13"], page.target("tp-pp-across-nodes", "Throughput").opening_commands())
    assert [(r.dp_rank, r.pp_rank, r.tp_size) for r in pp.ranks] == [(0, stage, 8) for stage in range(4)]


# -- rule 23: the roles fill the strategy's nodes --------------------------------------------


def test_rule23_a_role_that_spans_nodes_in_a_strategy_of_one_node(tmp_path):
    checked = check(tmp_path, lambda data: data["strategies"][3].update(nodes=None))
    problem = checked.expect_only("/strategies/3/nodes", "the strategy's nodes is null (one node), but target")
    assert problem.message.endswith(
        "needs 2: role 'main' spans 2 nodes of its own (main on nodes 1-2); set nodes to \"2\""
    )


def test_rule23_fewer_nodes_than_a_role_spans(tmp_path):
    checked = check(tmp_path, lambda data: data["strategies"][4].update(nodes="2"))
    problem = checked.expect_only("/strategies/4/nodes", "needs 3: role 'decode' spans 2 nodes of its own")
    assert "prefill on node 1; decode on nodes 2-3" in problem.message


def test_rule23_a_node_beyond_the_roles(tmp_path):
    checked = check(tmp_path, lambda data: data["strategies"][2].update(nodes="3"))
    checked.expect_only("/strategies/2/nodes", "the strategy spans 3 nodes but target 'Throughput' runs on 2")


def test_rule23_a_target_runs_on_at_most_64_nodes(tmp_path):
    checked = check(tmp_path, lambda data: data["strategies"][2].update(nodes="9999"))
    checked.expect_only("/strategies/2/nodes", "would run on 9999 nodes; a target runs on at most 64")


# -- rule 8: a role that spans nodes counts them ---------------------------------------------


def test_rule8_a_role_that_spans_nodes_has_no_ranks(tmp_path):
    def mutate(data):
        at(data, DP)["ranks"] = [{"args": {}, "envs": {}}]

    checked = check(tmp_path, mutate)
    checked.expect_only(f"{DP}/ranks", "a role that spans nodes runs one command per node")


def test_rule8_the_scale_of_a_role_that_spans_nodes_counts_nodes(tmp_path):
    checked = check(tmp_path, lambda data: at(data, DP).update(scale="2 ranks"))
    checked.expect_only(f"{DP}/scale", 'a role with nodes needs scale "2 nodes"')


# -- rule 24: one server across nodes, as vLLM reads its flags --------------------------------


def test_rule24_a_follower_without_headless(tmp_path):
    def without_headless(role: str):
        def mutate(data):
            at(data, f"{role}/nodes/1/args").pop("--headless")
            at(data, role)["varies"].remove("--headless")

        return mutate

    checked = check(tmp_path, without_headless(DP_HEADLESS))
    # without --headless the follower serves its own API (hybrid load balancing): vLLM runs that too
    assert checked.problems == []
    checked = check(tmp_path, without_headless(TP))
    problem = checked.expect(f"{TP}/nodes/1", "follower 1 (node 2) has no --headless: with --nnodes only the head")
    assert "shared by targets Latency, Throughput of strategy tp-across-nodes" in problem.message


def test_rule24_node_ranks_count_the_nodes_from_the_head(tmp_path):
    checked = check(tmp_path, lambda data: at(data, f"{TP}/nodes/1/args").update({"--node-rank": "--node-rank 2"}))
    checked.expect(f"{TP}/nodes/1/args/--node-rank", "--node-rank 2 on follower 1 (node 2)")
    checked.expect(f"{TP}/nodes/1/args/--node-rank", "so this node is --node-rank 1")


def test_rule24_reads_a_flag_as_vllm_reads_its_key(tmp_path):
    """``-r`` is vLLM's alias of --node-rank: a follower that gives ``-r 0`` claims the head's rank."""

    def mutate(data):
        args = at(data, f"{TP}/nodes/1/args")
        args.pop("--node-rank")
        args["-r"] = "-r 0"
        at(data, TP)["varies"].append("-r")

    checked = check(tmp_path, mutate)
    checked.expect(f"{TP}/nodes/1/args/-r", "--node-rank 0 on follower 1 (node 2)")
    ranks = [p for p in checked.ours if "node-rank" in p.message]
    assert {p.pointer for p in ranks} == {f"{TP}/nodes/1/args/-r"}, checked.ours


def test_rule24_the_head_is_not_headless(tmp_path):
    def mutate(data):
        at(data, f"{DP_HEADLESS}/nodes/0/args")["--headless"] = "--headless"
        at(data, DP_HEADLESS)["varies"].remove("--headless")

    checked = check(tmp_path, mutate)
    checked.expect_only(f"{DP_HEADLESS}/nodes/0/args/--headless", "the head runs --headless, so no node would serve")


def test_rule24_every_node_meets_on_the_same_ports(tmp_path):
    """--master-port and --data-parallel-rpc-port may be left out, but a node that gives another
    port than the head's would wait at a port nothing opens."""

    def other_port(role: str, flag: str):
        def mutate(data):
            entry = at(data, f"{role}/nodes/1/args")
            entry[flag] = f"{flag} 29501"
            at(data, role)["varies"].append(flag)

        return mutate

    checked = check(tmp_path, other_port(DP, "--data-parallel-rpc-port"))
    checked.expect_only(
        f"{DP}/nodes/1/args/--data-parallel-rpc-port",
        "--data-parallel-rpc-port 29501 on follower 1 (node 2), but 13345 on the head",
    )
    checked = check(tmp_path, other_port(TP, "--master-port"))
    checked.expect(
        f"{TP}/nodes/1/args/--master-port", "--master-port 29501 on follower 1 (node 2), but 29500 on the head"
    )


def test_rule24_a_follower_without_its_node_rank(tmp_path):
    checked = check(tmp_path, lambda data: at(data, f"{TP_PP}/nodes/2/args").pop("--node-rank"))
    checked.expect(f"{TP_PP}/nodes/2", "follower 2 (node 3) gives no --node-rank: write --node-rank 2")


def test_rule24_a_data_parallel_start_rank_that_does_not_follow_the_local_sizes(tmp_path):
    def mutate(data):
        at(data, f"{DP}/nodes/1/args")["--data-parallel-start-rank"] = "--data-parallel-start-rank 4"

    checked = check(tmp_path, mutate)
    checked.expect_only(f"{DP}/nodes/1/args/--data-parallel-start-rank", "write --data-parallel-start-rank 8")


def test_rule24_local_sizes_that_do_not_add_up(tmp_path):
    def mutate(data):
        at(data, f"{DECODE}/args")["--data-parallel-size"] = "--data-parallel-size 12"

    checked = check(tmp_path, mutate)
    checked.expect_only(f"{DECODE}/args/--data-parallel-size", "add up to 4 + 4 = 8")


def test_rule24_a_follower_without_the_heads_address(tmp_path):
    def mutate(data):
        role = at(data, DP_HEADLESS)
        address = role["args"].pop("--data-parallel-address")
        role["nodes"][0]["args"]["--data-parallel-address"] = address
        role["varies"].append("--data-parallel-address")

    checked = check(tmp_path, mutate)
    checked.expect_only(f"{DP_HEADLESS}/nodes/1", "gives no --data-parallel-address")


def test_rule24_the_head_may_give_its_own_address_as_its_node_placeholder(tmp_path):
    """The head writes --data-parallel-address '<POD_IP>' (its own address), the follower
    '<HEAD_IP>' (that address, filled from the head's <POD_IP>): the same address, taken;
    another is refused."""
    flag = "--data-parallel-address"

    def mutate(follower: str):
        def change(data):
            role = at(data, DP_HEADLESS)
            role["args"].pop(flag)
            role["nodes"][0]["args"][flag] = f"{flag} '<POD_IP>'"
            role["nodes"][1]["args"][flag] = f"{flag} '{follower}'"
            role["varies"].append(flag)

        return change

    assert check(tmp_path, mutate("<HEAD_IP>")).problems == []
    checked = check(tmp_path, mutate("<IFACE_NAME>"))
    checked.expect_only(
        f"{DP_HEADLESS}/nodes/1/args/{flag}", "but <POD_IP> on the head: every node gives the same head"
    )


def test_rule24_a_loopback_head_address(tmp_path):
    checked = check(tmp_path, lambda data: at(data, f"{TP}/args").update({"--master-addr": "--master-addr 127.0.0.1"}))
    checked.expect(f"{TP}/args/--master-addr", "127.0.0.1 is a loopback or unspecified address")


def test_rule24_nnodes_must_be_the_roles_nodes(tmp_path):
    checked = check(tmp_path, lambda data: at(data, f"{TP}/args").update({"--nnodes": "--nnodes 3"}))
    checked.expect(f"{TP}/args/--nnodes", "--nnodes 3, but the role spans 2 nodes")


def test_rule24_the_world_size_divides_among_the_nodes(tmp_path):
    def mutate(data):
        change = at(data, TP_PP)
        change["add_args"]["--tensor-parallel-size"] = "--tensor-parallel-size 5"
        change["add_args"]["--pipeline-parallel-size"] = "--pipeline-parallel-size 3"

    checked = check(tmp_path, mutate)
    checked.expect(f"{TP_PP}/add_args/--nnodes", "world size (tensor x pipeline x data parallel: 15)")


def test_rule24_a_headless_follower_cannot_ask_for_hybrid_load_balancing(tmp_path):
    checked = check(tmp_path, lambda data: at(data, f"{DP}/nodes/1/args").update({"--headless": "--headless"}))
    checked.expect(f"{DP}/args/--data-parallel-hybrid-lb", "runs --headless and asks for --data-parallel-hybrid-lb")


def test_rule24_no_ray(tmp_path):
    def mutate(data):
        at(data, f"{DP_HEADLESS}/args")["--distributed-executor-backend"] = "--distributed-executor-backend ray"

    checked = check(tmp_path, mutate)
    checked.expect_only(f"{DP_HEADLESS}/args/--distributed-executor-backend", "(mp; no Ray cluster)")


def test_rule24_nodes_that_do_not_say_how_they_meet(tmp_path):
    def mutate(data):
        role = at(data, DP_HEADLESS)
        for key in ("--data-parallel-size-local", "--data-parallel-address", "--data-parallel-rpc-port"):
            role["args"].pop(key)
        role["nodes"][1]["args"].pop("--data-parallel-start-rank")
        role["varies"].remove("--data-parallel-start-rank")

    checked = check(tmp_path, mutate)
    checked.expect_only(f"{DP_HEADLESS}/nodes", "no command says how they make one server")


def test_rule24_every_offered_selection_is_checked(tmp_path):
    """A delta that changes the flags of one value only: that selection's nodes are judged too."""

    def mutate(data):
        delta = at(data, "/strategies/2/options/0/grid/deltas/batch=large/main")
        delta["add_args"]["--data-parallel-size"] = "--data-parallel-size 32"

    checked = check(tmp_path, mutate)
    checked.expect_only(
        "/strategies/2/options/0/grid/deltas/batch=large/main/add_args/--data-parallel-size", "add up to 8 + 8 = 16"
    )


# -- real data: vLLM Recipes' own multi-node commands ---------------------------------------

REAL = json.loads((ROOT / "tests" / "data" / "vllm-recipes-multinode.json").read_text(encoding="utf-8"))
_SHELL_VARIABLE = re.compile(r"\$\{?([A-Z][A-Z0-9_]*)\}?")


def _role_of(argvs: list[list[str]]) -> tuple[Grid, list]:
    """Their nodes' argvs (vllm serve MODEL ...) as one role that spans nodes: the lines every node
    shares in the role, the others in each node's entry; their $HEAD_IP written '<HEAD_IP>'. Each
    flag is paired with the word after it, as their builder prints a command."""

    def word(text: str) -> str:
        found = _SHELL_VARIABLE.fullmatch(text)
        return f"'<{found.group(1)}>'" if found else shlex.quote(text)

    per_node = []
    for argv in argvs:
        lines, args = {}, argv[3:]
        i = 0
        while i < len(args):
            flag, value = args[i], args[i + 1] if i + 1 < len(args) else None
            paired = value is not None and not value.startswith("-")
            lines[flag] = f"{flag} {word(value)}" if paired else flag
            i += 2 if paired else 1
        per_node.append(lines)
    shared = {k: v for k, v in per_node[0].items() if all(lines.get(k) == v for lines in per_node)}
    nodes = [{"args": {k: v for k, v in lines.items() if k not in shared}} for lines in per_node]
    role = {
        "role": "main",
        "launcher": "vllm serve",
        "args": shared,
        "envs": {},
        "ranks": None,
        "nodes": nodes,
        "scale": f"{len(nodes)} nodes",
        "varies": sorted({k for entry in nodes for k in entry["args"]}),
    }
    data = {"model": argvs[0][2], "base": [role], "modes": {}, "options": {}, "option_base": {}, "deltas": {}}
    grid = Grid.from_json({**data, "excluded": [], "recommended": None, "router": None}, "/grid")
    return grid, reference_role(grid, grid.base[0], {})


@pytest.mark.parametrize("deployment", REAL["accepted"], ids=lambda d: f"{d['strategyName']}-{d['nodes']}")
def test_rule24_takes_what_vllm_recipes_builds(deployment):
    """Every shape vLLM Recipes' builder writes across nodes (commit in the data file) keeps rule 24."""
    grid, commands = _role_of(deployment["argvs"])
    assert [c.node for c in commands] == list(range(1, deployment["nodes"] + 1))
    assert list(spanning.node_problems(grid, grid.base[0], commands)) == []


def test_rule24_refuses_what_vllm_refuses_in_vllm_recipes():
    """Their TP2 over three nodes: vLLM 0.30.0 refuses it (--nnodes must evenly divide the world
    size), and so does rule 24, at --nnodes."""
    (deployment,) = REAL["refused"]
    grid, commands = _role_of(deployment["argvs"])
    found = list(spanning.node_problems(grid, grid.base[0], commands))
    assert found == [("/grid/base/0/args/--nnodes", found[0][1])]
    assert "does not divide evenly among 3 nodes" in found[0][1]


# -- rule 14: head placeholders ---------------------------------------------------------------


def test_rule14_a_head_placeholder_names_a_node_placeholder(tmp_path):
    checked = check(tmp_path, lambda data: data["placeholders"]["HEAD_IP"].update(of="IFACE_NAME"))
    checked.expect_only("/placeholders/HEAD_IP/of", "<IFACE_NAME> is not a node placeholder")


def test_rule14_a_head_placeholder_only_in_a_role_that_spans_nodes(tmp_path):
    def mutate(data):
        at(data, "/strategies/4/options/0/grid/base/0/envs")["VLLM_HOST_IP"] = "VLLM_HOST_IP='<DECODE_HEAD_IP>'"

    checked = check(tmp_path, mutate)
    checked.expect_only("/strategies/4/options/0/grid/base/0/envs/VLLM_HOST_IP", "role 'prefill' spans no nodes")


def test_a_head_placeholder_needs_its_of(tmp_path):
    checked = check(tmp_path, lambda data: data["placeholders"]["HEAD_IP"].pop("of"))
    checked.expect_only("/placeholders/HEAD_IP", "'of' is required")


# -- properties ------------------------------------------------------------------------------


@st.composite
def data_parallel_nodes(draw):
    """A data-parallel role over 2-6 nodes with local sizes of 1-8 ranks, written correctly."""
    local = draw(st.lists(st.integers(1, 8), min_size=2, max_size=6))
    nodes, start = [], 0
    for k, size in enumerate(local):
        args = {"--data-parallel-size-local": f"--data-parallel-size-local {size}"}
        if k:
            args["--data-parallel-start-rank"] = f"--data-parallel-start-rank {start}"
        start += size
        nodes.append({"args": args})
    headless = draw(st.booleans())
    if headless:
        for entry in nodes[1:]:
            entry["args"]["--headless"] = "--headless"
    return local, nodes, headless


def _role_with(nodes: list[dict], total: int) -> dict:
    varies = sorted({key for entry in nodes for key in entry["args"]})
    return {
        "role": "main",
        "launcher": "vllm serve",
        "args": {
            "--data-parallel-size": f"--data-parallel-size {total}",
            "--data-parallel-address": "--data-parallel-address '<HEAD_IP>'",
            "--enable-expert-parallel": "--enable-expert-parallel",
            "--trust-remote-code": "--trust-remote-code",
            "--enable-auto-tool-choice": "--enable-auto-tool-choice",
            "--tool-call-parser": "--tool-call-parser kimi_k2",
        },
        "envs": {"VLLM_HOST_IP": "VLLM_HOST_IP='<POD_IP>'"},
        "ranks": None,
        "nodes": nodes,
        "scale": f"{len(nodes)} nodes",
        "varies": [key for key in varies if len({e["args"].get(key) for e in nodes}) > 1],
    }


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(shape=data_parallel_nodes(), wrong=st.integers(1, 5), by=st.integers(1, 3))
def test_any_data_parallel_layout_is_taken_and_one_wrong_start_rank_is_found(tmp_path, shape, wrong, by):
    local, nodes, _headless = shape

    def layout(entries):
        def mutate(data):
            strategy = data["strategies"][3]
            strategy["nodes"] = str(len(entries))
            strategy["options"][0]["npus"] = sum(local)
            at(data, "/strategies/3/options/0/grid/base")[0] = _role_with(entries, sum(local))

        return mutate

    checked = check(tmp_path, layout(nodes))
    assert checked.ours == [], "\n".join(map(str, checked.problems))
    k = 1 + wrong % (len(nodes) - 1)
    broken = copy.deepcopy(nodes)
    start = sum(local[:k])
    broken[k]["args"]["--data-parallel-start-rank"] = f"--data-parallel-start-rank {start + by}"
    checked = check(tmp_path, layout(broken))
    checked.expect(
        f"{DP_HEADLESS}/nodes/{k}/args/--data-parallel-start-rank", f"write --data-parallel-start-rank {start}"
    )
    assert all("start-rank" in p.message or "varies" in p.message for p in checked.ours), checked.ours
