"""make crosscheck without vLLM: what it asks the judge, where it puts the judge's answers, and the
judge's own pieces run on stand-ins (an argparse parser, env getters, a config class). vLLM itself
runs only in `make crosscheck`, never here: nothing in this file imports it."""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import json
import os
import sys
from pathlib import Path

import pytest

import recipebook
from recipebook.reading import source

REPO = Path(__file__).resolve().parents[2]
RECIPES = REPO / "recipes"
SHIPPED = sorted(p for p in RECIPES.glob("*.json") if p.name != "schema.json")
RELEASE = "vLLM 0.30.0 with vllm-rbln 0.12.0"


def _module(name: str):
    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))
    return importlib.import_module(name)


@pytest.fixture(scope="module")
def commands():
    return _module("tools.crosscheck.commands")


@pytest.fixture(scope="module")
def plan(commands):
    recipes, problems = commands.load_recipes(SHIPPED)
    assert problems == []
    return commands.collect(recipes)


def test_plan_holds_every_command_of_every_selection(plan, commands) -> None:
    # the figures of the recipes read, from the engine's matrix (make validate's count) directly
    recipes = [recipebook.load(path) for path in SHIPPED]
    expansions = [expansion for recipe in recipes for expansion in recipebook.matrix(recipe)]
    served = [c for e in expansions for c in e.commands if c.launcher == "vllm serve"]
    assert plan.selections == len(expansions)
    assert plan.total_commands == len(served)  # each role and rank of each selection
    assert 0 < len(plan.commands) <= plan.total_commands  # distinct (model, arguments, env values)
    assert sum(len(c.uses) for c in plan.commands.values()) == plan.total_commands
    argvs = [c.argv for c in plan.commands.values()]
    assert {argv[0] for argv in argvs} == {c.model for c in served}  # the model comes first
    assert not any("<POD_IP>" in word for argv in argvs for word in argv)  # placeholders filled in
    names = {name for name, _ in plan.env_values}
    assert "VLLM_ENGINE_READY_TIMEOUT_S" in names and "PYTHONHASHSEED" not in names
    assert ("VLLM_NIXL_SIDE_CHANNEL_HOST", "192.0.2.10") in plan.env_values


def test_request_is_json_the_judge_reads(plan) -> None:
    request = plan.request(REPO / "_ext/recipebook/data/vllm-0.30.0.json")
    assert json.loads(json.dumps(request)) == request
    assert len(request["commands"]) == len(plan.commands) and len(request["envs"]) == len(plan.env_values)


def _answer(plan, refuse_flag: str | None = None, config_field: str | None = None, refuse_env: str | None = None):
    commands = []
    for planned in plan.commands.values():
        error, configs = None, []
        if refuse_flag and refuse_flag in planned.argv:
            error = f"vllm serve: error: argument {refuse_flag}: invalid int value: 'x'"
        if config_field and f"--{config_field.replace('_', '-')}" in planned.argv:
            configs = [
                {
                    "config": "SchedulerConfig",
                    "fields": [config_field],
                    "error": f"ValidationError: 1 validation error for SchedulerConfig\n{config_field}\n  Input should "
                    "be greater than or equal to 1 [type=greater_than_equal]\n    For further information visit x",
                }
            ]
        commands.append({"error": error, "configs": configs})
    envs = [
        {"known": True, "error": "ValueError: invalid literal for int()" if name == refuse_env else None}
        for name, _ in plan.env_values
    ]
    return {"commands": commands, "envs": envs}


def _position(path: str, pointer: str) -> tuple[int, int]:
    document, _ = source.read(path)
    assert document is not None
    return document.where(pointer)


def test_a_parser_refusal_is_located_at_the_argument_that_wrote_it(commands, plan) -> None:
    problems = commands.located(plan, _answer(plan, refuse_flag="--max-num-seqs"), RELEASE)
    assert problems, "the shipped recipes give --max-num-seqs"
    for problem in problems:
        assert problem.pointer.endswith("/args/--max-num-seqs"), problem
        assert (problem.line, problem.column) == _position(problem.file, problem.pointer)
        assert "vLLM's parser refuses it: vllm serve: error: argument --max-num-seqs" in problem.message
        assert RELEASE in problem.message and "selection" in problem.message
    assert len({(p.file, p.pointer) for p in problems}) == len(problems)  # each place once


def test_a_config_refusal_is_located_at_the_field_s_flag(commands, plan) -> None:
    problems = commands.located(plan, _answer(plan, config_field="max_num_batched_tokens"), RELEASE)
    assert problems
    for problem in problems:
        assert problem.pointer.endswith("/args/--max-num-batched-tokens"), problem
        assert "SchedulerConfig refuses it: ValidationError" in problem.message
        assert "For further information" not in problem.message


def test_an_env_refusal_is_located_at_the_env(commands, plan) -> None:
    problems = commands.located(plan, _answer(plan, refuse_env="VLLM_ENGINE_READY_TIMEOUT_S"), RELEASE)
    assert problems
    for problem in problems:
        assert problem.pointer.endswith("/envs/VLLM_ENGINE_READY_TIMEOUT_S"), problem
        assert (problem.line, problem.column) == _position(problem.file, problem.pointer)
        assert "vLLM's getter refuses it" in problem.message


def test_nothing_refused_means_no_problem(commands, plan) -> None:
    assert commands.located(plan, _answer(plan), RELEASE) == []


def test_venv_with_a_matching_stamp_is_used_as_it_is(tmp_path, monkeypatch) -> None:
    venv = _module("tools.crosscheck.venv")
    python = tmp_path / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text("", encoding="utf-8")
    (tmp_path / venv.STAMP).write_text(venv.stamp_text("0.30.0", "0.12.0", []), encoding="utf-8")

    def refuse(*args, **kwargs):
        raise AssertionError(f"nothing may be installed: {args}")

    monkeypatch.setattr(venv.subprocess, "run", refuse)
    assert venv.ensure(tmp_path, "0.30.0", "0.12.0") == python


def test_venv_setup_follows_the_four_steps(tmp_path, monkeypatch) -> None:
    """pip install vllm; pip install --no-deps vllm-rbln; uninstall what does not import; the stand-in."""
    venv = _module("tools.crosscheck.venv")
    ran: list[list[str]] = []
    site = tmp_path / "site"

    class Done:
        def __init__(self, code: int = 0, out: str = "") -> None:
            self.returncode, self.stdout = code, out

    def run(command, **kwargs):
        ran.append([str(c) for c in command])
        if command[1:3] == ["-m", "venv"]:
            (Path(command[3]) / "bin").mkdir(parents=True)
            (Path(command[3]) / "bin" / "python").write_text("", encoding="utf-8")
        if "sysconfig" in " ".join(map(str, command)):
            return Done(out=str(site))
        if command[1:3] == ["-c", "import torchvision"]:
            return Done(1)  # it does not match the torch vLLM pins
        return Done()

    monkeypatch.setattr(venv.subprocess, "run", run)
    venv.ensure(tmp_path / "v", "0.30.0", "0.12.0")
    pips = [c for c in ran if "pip" in c]
    assert any(c[-1] == "vllm==0.30.0" and "--no-deps" not in c for c in pips)
    assert any(c[-1] == "vllm-rbln==0.12.0" and "--no-deps" in c for c in pips)
    assert any("uninstall" in c and c[-1] == "torchvision" for c in pips)
    assert not any("uninstall" in c and c[-1] == "torchaudio" for c in pips)  # it imports: kept
    assert (site / "rebel" / "__init__.py").is_file()
    assert (tmp_path / "v" / venv.STAMP).read_text(encoding="utf-8").startswith("vllm==0.30.0\nvllm-rbln==0.12.0\n")


def test_stand_in_rebel_provides_what_the_platform_calls() -> None:
    path = REPO / "tools/crosscheck/standin/rebel/__init__.py"
    namespace: dict = {}
    exec(compile(path.read_text(encoding="utf-8"), str(path), "exec"), namespace)
    assert namespace["get_npu_name"](0) == "RBLN-CA25"
    assert namespace["manual_seed"](42) is None


# --------------------------------------------------------------------------- the judge's pieces


@pytest.fixture(scope="module")
def judge():
    return _module("tools.crosscheck.judge")


def test_judge_reports_the_parser_s_own_message(judge) -> None:
    parser = argparse.ArgumentParser(prog="vllm serve")
    parser.add_argument("model")
    parser.add_argument("--max-num-seqs", type=int)
    namespace, error = judge._parse(parser, ["m", "--max-num-seqs", "eight"])
    assert namespace is None and "argument --max-num-seqs: invalid int value: 'eight'" in error
    namespace, error = judge._parse(parser, ["m", "--max_num_seqs=8"])
    assert error is not None  # plain argparse does not read underscores; vLLM's parser does
    namespace, error = judge._parse(parser, ["m", "--max-num-seqs", "8"])
    assert error is None and namespace.max_num_seqs == 8
    assert judge._given(["m", "--max-num-seqs", "8"], parser) == {"max_num_seqs"}


def test_judge_builds_config_classes_from_the_given_fields_only(judge) -> None:
    @dataclasses.dataclass
    class DemoConfig:
        max_num_seqs: int = 4
        block_size: int = 16

        def __post_init__(self) -> None:
            if self.max_num_seqs < 1:
                raise ValueError("max_num_seqs must be at least 1")

    built = list(
        judge._build([("DemoConfig", DemoConfig)], argparse.Namespace(max_num_seqs=0, block_size=8), {"max_num_seqs"})
    )
    assert built == [
        {"config": "DemoConfig", "fields": ["max_num_seqs"], "error": "ValueError: max_num_seqs must be at least 1"}
    ]
    assert list(judge._build([("DemoConfig", DemoConfig)], argparse.Namespace(other=1), {"other"})) == []


def test_judge_probes_each_extracted_env_type_against_the_getter(judge, monkeypatch) -> None:
    getters = {
        "VLLM_A": lambda: int(os.environ.get("VLLM_A", "0")),
        "VLLM_B": lambda: os.environ.get("VLLM_B", "x"),  # takes any text
        "VLLM_C": lambda: {"fork": 1, "spawn": 2}[os.environ.get("VLLM_C", "fork")],
    }
    types = {
        "VLLM_A": {"type": "int"},
        "VLLM_B": {"type": "int"},
        "VLLM_C": {"type": "choice", "choices": ["fork", "spawn"]},
        "VLLM_D": {"type": "float"},
    }
    found = list(judge.env_type_differences(types, getters))
    assert found == [
        "VLLM_B: int extracted, but vLLM's getter takes 'not-a-number'",
        "VLLM_D: typed in the vocabulary, no getter in vLLM or vllm-rbln",
    ]
    assert "VLLM_A" not in os.environ  # each probe restores the environment
    assert judge._get(getters, "VLLM_A", "9600s").startswith("ValueError")


def test_cross_check_knows_choices_the_platform_adds() -> None:
    crosscheck = _module("tools.vocabulary.crosscheck")
    entry = {
        "takes_value": "yes",
        "type": "str",
        "choices": ["auto", "cpu"],
        "aliases": [],
        "platform_choices": {"attribute": "device_type", "unless": ["", "cpu"], "values": ["rbln"]},
    }
    data = {"flags": {"--device": entry}}

    def parser_with(choices):
        parser = argparse.ArgumentParser()
        parser.add_argument("--device", choices=choices)
        return parser

    class Platform:
        device_type = "cpu"

    assert list(crosscheck.compare(data, parser_with(["auto", "cpu"]), Platform)) == []
    Platform.device_type = "rbln"
    assert list(crosscheck.compare(data, parser_with(["auto", "cpu", "rbln"]), Platform)) == []
    assert list(crosscheck.compare(data, parser_with(["auto", "cpu"]), Platform)) == [
        "--device: choices ['auto', 'cpu', 'rbln'] extracted (on this platform), ['auto', 'cpu'] in vLLM's parser"
    ]
    Platform.device_type = "xpu"
    assert "not one of ['rbln']" in list(crosscheck.compare(data, parser_with(["auto", "cpu", "xpu"]), Platform))[-1]


def test_make_crosscheck_runs_in_ci_after_make_test() -> None:
    ci = (REPO / ".ci/run").read_text(encoding="utf-8")
    assert ci.index("make test") < ci.index("make crosscheck")
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    assert "\ncrosscheck: $(STAMP)\n\t$(BIN)/python -m tools.crosscheck" in makefile
    assert ".crosscheck/" in (REPO / ".gitignore").read_text(encoding="utf-8").splitlines()


def test_the_engine_side_never_imports_vllm(commands) -> None:
    assert "vllm" not in sys.modules and "torch" not in sys.modules


# --------------------------------------------------------------------------- the Kubernetes containers


@pytest.fixture(scope="module")
def containers():
    return _module("tools.crosscheck.containers")


@pytest.fixture(scope="module")
def pairings(containers, commands):
    recipes, problems = commands.load_recipes(SHIPPED)
    assert problems == []
    return containers.collect(recipes)


def test_every_server_command_runs_in_some_container(pairings, plan) -> None:
    ranks = {rank for p in pairings.values() for rank in p.ranks}
    assert {planned.argv for planned in plan.commands.values()} <= ranks  # every distinct command
    for pairing in pairings.values():
        assert all("$(" not in word for word in pairing.container)  # Kubernetes' references read as run
        if pairing.merged:
            assert len(pairing.ranks) > 1
            assert "--data-parallel-multi-port-external-lb" in pairing.container
        else:
            assert len(pairing.ranks) == 1


def test_a_containers_reference_reads_as_the_commands_placeholder(containers) -> None:
    assert containers.from_kubernetes("$(POD_IP):$(EPP_HOST) $$(literal)") == "192.0.2.10:placeholder $(literal)"


def _dp_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="vllm serve")
    parser.add_argument("model")
    parser.add_argument("--port", type=int, default=8000)
    for flag in ("--data-parallel-size", "--data-parallel-size-local", "--data-parallel-rank"):
        parser.add_argument(flag, type=int)
    parser.add_argument("--data-parallel-multi-port-external-lb", action="store_true")
    parser.add_argument("--kv-events-config")
    parser.add_argument("--api-server-count", type=int)
    parser.add_argument("--data-parallel-external-lb", action="store_true")
    parser.add_argument("--tensor-parallel-size", type=int, default=1)
    parser.add_argument("--pipeline-parallel-size", type=int, default=1)
    return parser


@pytest.fixture
def supervisor(monkeypatch):
    """A stand-in of vLLM's node-local supervisor (vllm/entrypoints/launchers/dp_supervisor.py):
    it derives rank i's arguments as vLLM's does (port + i, rank start + i, one local rank, one
    API server, its own device), and refuses what vLLM refuses that these cases use."""
    import types

    module = types.ModuleType("vllm.entrypoints.launchers.dp_supervisor")

    def validate(args):
        if args.data_parallel_rank is not None:
            raise ValueError(
                "--data-parallel-multi-port-external-lb manages child --data-parallel-rank values internally"
            )

    def child(args, i):
        out = argparse.Namespace(**vars(args))
        out.port, out.data_parallel_rank, out.data_parallel_size_local = args.port + i, i, 1
        out.data_parallel_external_lb, out.data_parallel_multi_port_external_lb, out.api_server_count = True, False, 1
        out.device_ids = [i]
        return out

    module.validate_multi_port_external_lb_args = validate
    module._build_vllm_dp_server_args = child
    for name in ("vllm", "vllm.entrypoints", "vllm.entrypoints.launchers"):
        monkeypatch.setitem(sys.modules, name, types.ModuleType(name))
    monkeypatch.setitem(sys.modules, module.__name__, module)
    sys.modules["vllm.entrypoints.launchers"].dp_supervisor = module
    return module


def test_the_judge_compares_each_rank_the_supervisor_derives_with_its_command(judge, supervisor) -> None:
    parser = _dp_parser()
    container = ["m", "--port", "8200", "--data-parallel-size", "2", "--data-parallel-size-local", "2",
                 "--data-parallel-multi-port-external-lb"]  # fmt: skip

    def rank(r: int, port: int, *more: str) -> list[str]:
        return ["m", "--port", str(port), "--data-parallel-size", "2", "--data-parallel-rank", str(r), *more]

    same = {"container": container, "ranks": [rank(0, 8200), rank(1, 8201)], "merged": True, "kv_events_dropped": True}
    assert judge.judge_containers(parser, [same]) == [{"error": None, "differences": []}]
    # a rank whose command listens elsewhere than the supervisor would start it
    moved = {**same, "ranks": [rank(0, 8200), rank(1, 8300)]}
    (answer,) = judge.judge_containers(parser, [moved])
    assert answer["differences"] == ["rank 1: port is 8300 in the command, 8201 in the container"]
    # KV events: left out on purpose only when nothing reads them
    events = {**same, "ranks": [rank(0, 8200, "--kv-events-config", "{}"), rank(1, 8201, "--kv-events-config", "{}")]}
    assert judge.judge_containers(parser, [events])[0]["differences"] == []
    kept = judge.judge_containers(parser, [{**events, "kv_events_dropped": False}])[0]["differences"]
    assert kept and all("kv_events_config" in d for d in kept)
    # what vLLM's supervisor refuses is the answer
    refused = {**same, "container": [*container, "--data-parallel-rank", "0"]}
    assert "supervisor refuses" in judge.judge_containers(parser, [refused])[0]["error"]


def test_a_containers_env_keeps_every_line_of_its_ranks(containers) -> None:
    pairing = containers.Pairing(
        container=("m",),
        env=(("VLLM_NIXL_SIDE_CHANNEL_PORT", "5600"), ("A", "1"), ("RBLN_VISIBLE_DEVICES", "0,1")),
        ranks=(("m",), ("m",)),
        rank_envs=(
            (("VLLM_NIXL_SIDE_CHANNEL_PORT", "5600"), ("A", "1"), ("RBLN_VISIBLE_DEVICES", "0")),
            (("VLLM_NIXL_SIDE_CHANNEL_PORT", "5601"), ("A", "1"), ("RBLN_VISIBLE_DEVICES", "1")),
        ),
        merged=True,
        kv_events_dropped=True,
    )
    assert containers.env_differences(pairing) == []  # rank 0's port, the container's own devices
    changed = dataclasses.replace(pairing, env=(("VLLM_NIXL_SIDE_CHANNEL_PORT", "5600"), ("A", "2")))
    assert containers.env_differences(changed) == [
        "rank 0: A='1' in the command, '2' in the container",
        "rank 1: A='1' in the command, '2' in the container",
    ]


def test_the_charts_pool_and_route_are_judged_against_the_files(commands) -> None:
    helm = _module("tools.crosscheck.helm")
    from recipebook.expanding.page import expansion_at, page_of
    from recipebook.rendering import kubernetes
    from recipebook.rendering.files import kubernetes_where, selection_files

    path = next(p for p in SHIPPED if "targetPorts" in p.read_text(encoding="utf-8"))
    recipe = recipebook.load(path)
    target = next(t for t in page_of(recipe).targets if t.router)
    expansion = expansion_at(recipe, target, target.opening)
    written = selection_files(expansion)
    release = kubernetes_where(expansion).release
    pool_labels = {**kubernetes.router_of([c for _n, c in expansion.router]).match_labels}
    cluster = written[f"{kubernetes.ROUTER_FOLDER}/{kubernetes.CLUSTER_VALUES}"]
    import yaml

    pool_labels.update(yaml.safe_load(cluster)["router"]["modelServers"]["matchLabels"])
    ports = sorted({p for t in (kubernetes.router_of([c for _n, c in expansion.router]),) for p in t.target_ports})

    def rendered(labels, gateway="inference-gateway", backend=release):
        pool = {"apiVersion": "inference.networking.k8s.io/v1", "kind": "InferencePool", "metadata": {"name": release},
                "spec": {"selector": {"matchLabels": labels}, "targetPorts": [{"number": p} for p in ports]}}  # fmt: skip
        route = {"apiVersion": "gateway.networking.k8s.io/v1", "kind": "HTTPRoute", "metadata": {"name": release},
                 "spec": {"parentRefs": [{"name": gateway}],
                          "rules": [{"backendRefs": [{"kind": "InferencePool", "name": backend}]}]}}  # fmt: skip
        return {"epp.yaml": yaml.safe_dump(pool), "httproute.yaml": yaml.safe_dump(route)}

    assert helm.pool_problems(rendered(pool_labels), written, "inference-gateway") == []
    one_role = {**pool_labels, kubernetes.ROLE_LABEL: "decode"}
    assert any("misses the pods" in p for p in helm.pool_problems(rendered(one_role), written, "inference-gateway"))
    assert any(
        "not the Gateway" in p for p in helm.pool_problems(rendered(pool_labels, "other"), written, "inference-gateway")
    )
    assert any(
        "not the pool" in p
        for p in helm.pool_problems(rendered(pool_labels, backend="x"), written, "inference-gateway")
    )


def test_a_command_vllm_hands_to_vllm_omni_is_not_parsed_as_vllm_serve_s(commands) -> None:
    """vLLM's vllm command runs vllm_omni's entry point for a command line holding --omni before
    parsing it: vllm serve's parser would refuse --omni, so such a command is counted, not judged."""
    data = json.loads((RECIPES / "gpt-oss-120b.json").read_text(encoding="utf-8"))
    recipe = recipebook.Recipe.from_json(data, "omni.json")
    before = commands.collect([("omni.json", recipe)])
    role = data["strategies"][0]["options"][0]["grid"]["base"][0]
    role["args"]["--omni"] = "--omni"
    omni = commands.collect([("omni.json", recipebook.Recipe.from_json(data, "omni.json"))])
    assert before.omni == 0 and omni.omni > 0
    assert omni.total_commands == before.total_commands - omni.omni
    assert not any("--omni" in c.argv for c in omni.commands.values())
