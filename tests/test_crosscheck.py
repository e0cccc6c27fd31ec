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

REPO = Path(__file__).resolve().parents[1]
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
