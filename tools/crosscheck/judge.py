"""The judge: run inside ``make crosscheck``'s venv, where vLLM and vllm-rbln import.

    .crosscheck/<venv>/bin/python -m tools.crosscheck.judge request.json answer.json

(files, not standard output: vLLM logs there.)

It imports only the standard library, vLLM, vllm-rbln and ``tools.vocabulary.crosscheck``
(never the recipe engine, whose dependencies this venv does not have). The request names
the vocabulary file and holds the commands to parse (argv and env pairs); the answer holds,
in the same order, what vLLM itself said about each:

* ``differences``: ``tools.vocabulary.crosscheck.compare`` of the vocabulary file with the
  real ``vllm serve`` parser, and of its env types with vLLM's and vllm-rbln's getters
  (each typed getter is given a value its type refuses and one it takes);
* per command: the parser's error, if any; then every config class that takes no model,
  built from the flags the command gives (pydantic checks its own limits), with its error;
* per env value: whether the name is one vLLM or vllm-rbln defines, and the getter's error.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import io
import json
import os
import sys
import time
from collections.abc import Iterator
from typing import Any

from tools.vocabulary.crosscheck import compare, real_parser

# Config classes built from a parsed command: they take no model, so they can be built here.
# Each is first built with its defaults; a class that cannot be built that way on this machine
# is left out (and counted as such), so only the command's own values can make one fail.
CONFIG_CLASSES = (
    ("vllm.config", "CacheConfig"),
    ("vllm.config", "SchedulerConfig"),
    ("vllm.config", "ParallelConfig"),
    ("vllm.config", "LoadConfig"),
    ("vllm.config", "CompilationConfig"),
    ("vllm.config", "KVTransferConfig"),
    ("vllm.config", "KVEventsConfig"),
    ("vllm.config", "ObservabilityConfig"),
    ("vllm.config", "StructuredOutputsConfig"),
    ("vllm.config", "LoRAConfig"),
    ("vllm.config", "MultiModalConfig"),
    ("vllm_rbln.config", "RBLNConfig"),
)
# Init-only values a class needs that no flag of its own gives: vLLM passes the model's. Here the
# command's --max-model-len stands for it when given, else 1 (no model is shorter), so that only
# the limits of the command's own values are judged.
INIT_VALUES = {"SchedulerConfig": {"max_model_len": 1, "is_encoder_decoder": False}}
# A value each env type refuses, and one it takes: the probe of the extracted env types.
_PROBES = {"int": ("not-a-number", "1"), "float": ("not-a-number", "1.5")}


def _parse(parser: argparse.ArgumentParser, argv: list[str]) -> tuple[argparse.Namespace | None, str | None]:
    """The namespace, or the parser's own error message (argparse prints it and exits)."""
    errors = io.StringIO()
    try:
        with contextlib.redirect_stderr(errors):
            return parser.parse_args(argv), None
    except SystemExit:
        lines = [line for line in errors.getvalue().splitlines() if line.strip()]
        return None, (lines[-1] if lines else "the parser exited")
    except Exception as error:  # a converter that raises something else
        return None, f"{type(error).__name__}: {error}"


def _given(argv: list[str], parser: argparse.ArgumentParser) -> set[str]:
    """The dests of the options a command gives itself (not the parser's defaults)."""
    by_option = {o: a.dest for a in parser._actions for o in a.option_strings}
    given = set()
    for word in argv:
        option = word.split("=", 1)[0]
        if option.startswith("--") and option.replace("_", "-") in by_option:
            given.add(by_option[option.replace("_", "-")])
        elif option in by_option:
            given.add(by_option[option])
    return given


def _config_classes() -> tuple[list[tuple[str, type]], list[str]]:
    """The classes that build with their defaults here, and the names of those that do not."""
    import importlib

    usable, skipped = [], []
    for module_name, name in CONFIG_CLASSES:
        try:
            cls = getattr(importlib.import_module(module_name), name)
            with contextlib.redirect_stderr(io.StringIO()):
                cls(**INIT_VALUES.get(name, {}))
        except Exception as error:
            skipped.append(f"{name} ({type(error).__name__})")
            continue
        usable.append((name, cls))
    return usable, skipped


def _field_names(cls: type) -> set[str]:
    return {f.name for f in dataclasses.fields(cls) if f.init} if dataclasses.is_dataclass(cls) else set()


def _build(classes: list[tuple[str, type]], namespace: argparse.Namespace, given: set[str]) -> Iterator[dict[str, Any]]:
    """Each class built from the given options that are its fields; its error when it refuses them."""
    for name, cls in classes:
        fields = _field_names(cls)
        values = {dest: getattr(namespace, dest) for dest in given if dest in fields}
        if not values:
            continue
        extra = dict(INIT_VALUES.get(name, {}))
        length = getattr(namespace, "max_model_len", None)
        if "max_model_len" in extra and "max_model_len" in given and isinstance(length, int) and length > 0:
            extra["max_model_len"] = length
        try:
            with contextlib.redirect_stderr(io.StringIO()):
                cls(**values, **extra)
        except Exception as error:
            yield {"config": name, "fields": sorted(values), "error": f"{type(error).__name__}: {error}"}
        else:
            yield {"config": name, "fields": sorted(values), "error": None}


def _getters() -> dict[str, Any]:
    import vllm.envs

    getters = dict(vllm.envs.environment_variables)
    try:
        import vllm_rbln.envs

        getters.update(vllm_rbln.envs.environment_variables)
    except ImportError:
        pass
    return getters


@contextlib.contextmanager
def _environ(name: str, value: str | None) -> Iterator[None]:
    saved = os.environ.get(name)
    if value is None:
        os.environ.pop(name, None)
    else:
        os.environ[name] = value
    try:
        yield
    finally:
        if saved is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = saved


def _get(getters: dict[str, Any], name: str, value: str) -> str | None:
    """The getter's error for a value, or None when it takes it."""
    with _environ(name, value), contextlib.redirect_stderr(io.StringIO()):
        try:
            getters[name]()
        except Exception as error:
            return f"{type(error).__name__}: {error}"
    return None


def env_type_differences(env_types: dict[str, Any], getters: dict[str, Any]) -> Iterator[str]:
    """Where an extracted env type and vLLM's getter disagree: a value the type refuses that the
    getter takes, or one the type takes that the getter refuses."""
    for name, spec in sorted(env_types.items()):
        if name not in getters:
            yield f"{name}: typed in the vocabulary, no getter in vLLM or vllm-rbln"
            continue
        kind = spec["type"]
        if kind in _PROBES:
            bad, good = _PROBES[kind]
        else:
            choices = spec["choices"]
            bad, good = "__no_such_choice__", choices[0]
        if _get(getters, name, bad) is None:
            yield f"{name}: {kind} extracted, but vLLM's getter takes {bad!r}"
        error = _get(getters, name, good)
        if error is not None:
            yield f"{name}: {kind} extracted, but vLLM's getter refuses {good!r}: {error}"


def spellings(parser: argparse.ArgumentParser, keys: list[str]) -> dict[str, dict[str, Any]]:
    """What vLLM's parser makes of each arg key: vLLM's own conversion (``FlexibleArgumentParser.parse_args``
    up to the point where it hands argparse the words), then argparse's lookup of the option (abbreviations
    included). ``{"option": the option string found, or None, "error": why not}``."""
    answers: dict[str, dict[str, Any]] = {}
    handed: list[list[str]] = []

    def capture(self: argparse.ArgumentParser, args: list[str] | None = None, namespace: Any = None) -> Any:
        handed.append(list(args or []))
        return argparse.Namespace()

    original = argparse.ArgumentParser.parse_args
    argparse.ArgumentParser.parse_args = capture  # type: ignore[method-assign]
    try:
        for key in keys:
            handed.clear()
            errors = io.StringIO()
            try:
                with contextlib.redirect_stderr(errors):
                    type(parser).parse_args(parser, [key, "1"])
                    words = handed[-1]
                    option = next(w for w in words if w.startswith("-")).split("=", 1)[0]
                    found = parser._parse_optional(option)
                found = found[0] if isinstance(found, list) and found else found
                action = found[0] if found else None
                name = found[1] if found and action is not None else None
                if action is not None and name not in action.option_strings:
                    name = next((o for o in action.option_strings if o.startswith("--")), action.option_strings[0])
                answers[key] = {"option": name, "error": None if name else "not an option"}
            except SystemExit:
                lines = [line for line in errors.getvalue().splitlines() if line.strip()]
                answers[key] = {"option": None, "error": lines[-1] if lines else "refused"}
            except Exception as error:  # a conversion that raises
                answers[key] = {"option": None, "error": f"{type(error).__name__}: {error}"}
    finally:
        argparse.ArgumentParser.parse_args = original  # type: ignore[method-assign]
    return answers


# What vLLM itself makes of a rank started with --data-parallel-rank (external load balancing),
# written out so that a namespace parsed from a rank's own command and one vLLM's supervisor
# derives compare alike: serve.py counts a rank as externally balanced with one API server,
# EngineArgs gives it one local rank; the supervisor's own settings are read in no other mode.
_SUPERVISOR_ONLY = ("data_parallel_supervisor_port", "dp_supervisor_probe_interval_s",
                    "dp_supervisor_probe_timeout_s", "dp_supervisor_probe_failure_threshold")  # fmt: skip


def _comparable(value: Any) -> Any:
    """A parsed value as two parses of one text give it: a config object as its fields, less the
    id vLLM draws at random for each (KVTransferConfig.engine_id)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _comparable(getattr(value, f.name)) for f in dataclasses.fields(value) if f.name != "engine_id"}
    if isinstance(value, dict):
        return {k: _comparable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_comparable(v) for v in value]
    return value


def _as_run(namespace: argparse.Namespace) -> dict[str, Any]:
    values = {key: _comparable(value) for key, value in vars(namespace).items()}
    if values.get("data_parallel_rank") is not None:
        values["data_parallel_external_lb"] = True
        values["api_server_count"] = values.get("api_server_count") or 1
        values["data_parallel_size_local"] = values.get("data_parallel_size_local") or 1
        for key in _SUPERVISOR_ONLY:
            values.pop(key, None)
    return values


def judge_containers(parser: argparse.ArgumentParser, pairs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """For each Kubernetes server container: vLLM's parser on its argv; for one that runs every
    data-parallel rank, vLLM's own supervisor checks the arguments and derives each rank's
    (``dp_supervisor``); each rank's namespace then equals the one parsed from the recipe's
    command for that rank, but for the device (a count here: the container numbers its own) and
    KV events left out when nothing reads them."""
    from vllm.entrypoints.launchers import dp_supervisor

    answers = []
    for pair in pairs:
        namespace, error = _parse(parser, pair["container"])
        if namespace is None:
            answers.append({"error": f"vLLM's parser refuses the container: {error}", "differences": []})
            continue
        if pair["merged"]:
            try:
                with contextlib.redirect_stderr(io.StringIO()):
                    dp_supervisor.validate_multi_port_external_lb_args(namespace)
                    children = [
                        dp_supervisor._build_vllm_dp_server_args(namespace, i)
                        for i in range(namespace.data_parallel_size_local)
                    ]
            except Exception as failure:
                answers.append({"error": f"vLLM's supervisor refuses the container: {failure}", "differences": []})
                continue
        else:
            children = [namespace]
        differences = []
        if len(children) != len(pair["ranks"]):
            differences.append(f"it runs {len(children)} rank(s), the commands are {len(pair['ranks'])}")
        for rank, (child, argv) in enumerate(zip(children, pair["ranks"], strict=False)):
            own, error = _parse(parser, argv)
            if own is None:
                differences.append(f"rank {rank}: vLLM's parser refuses the command: {error}")
                continue
            mine, theirs = _as_run(child), _as_run(own)
            for key in sorted(set(mine) | set(theirs)):
                if key == "device_ids":
                    continue  # compared below: the container numbers its own devices
                if key == "kv_events_config" and pair["kv_events_dropped"]:
                    continue
                if mine.get(key) != theirs.get(key):
                    differences.append(
                        f"rank {rank}: {key} is {theirs.get(key)!r} in the command, {mine.get(key)!r} in the container"
                    )
            devices = mine.get("device_ids")
            if devices is not None and len(devices) != own.tensor_parallel_size * own.pipeline_parallel_size:
                differences.append(f"rank {rank}: {len(devices)} device(s) in the container, a rank of the command uses "
                                   f"{own.tensor_parallel_size * own.pipeline_parallel_size}")  # fmt: skip
        answers.append({"error": None, "differences": differences})
    return answers


def chat_templates() -> list[str]:
    """The chat templates the installed vLLM ships (looked up by name when a path does not open)."""
    from vllm.transformers_utils.chat_templates.registry import CHAT_TEMPLATES_DIR

    return sorted(p.name for p in CHAT_TEMPLATES_DIR.glob("*.jinja"))


def judge(request: dict[str, Any]) -> dict[str, Any]:
    start = time.monotonic()
    with open(request["vocabulary"], encoding="utf-8") as f:
        vocabulary = json.load(f)
    with contextlib.redirect_stderr(io.StringIO()):
        parser = real_parser()
        from vllm.platforms import current_platform

    getters = _getters()
    differences = list(compare(vocabulary, parser, current_platform))
    differences += env_type_differences(vocabulary.get("env_types", {}), getters)
    classes, skipped = _config_classes() if request.get("configs", True) else ([], [])
    commands = []
    for command in request["commands"]:
        namespace, error = _parse(parser, command["argv"])
        built = [] if namespace is None else list(_build(classes, namespace, _given(command["argv"], parser)))
        commands.append({"error": error, "configs": built})
    # rule 30's cases (tools/crosscheck/scheduling.py): each built as SchedulerConfig only
    scheduling = [(name, cls) for name, cls in classes if name == "SchedulerConfig"]
    scheduler = []
    for argv in request.get("scheduler_cases", []):
        namespace, error = _parse(parser, argv)
        built = [] if namespace is None else list(_build(scheduling, namespace, _given(argv, parser)))
        scheduler.append({"error": error, "configs": built})
    envs = []
    for name, value in request.get("envs", []):
        if name not in getters:
            envs.append({"known": False, "error": None})
        else:
            envs.append({"known": True, "error": _get(getters, name, value)})
    answered_spellings = spellings(parser, request.get("spellings", []))
    containers = judge_containers(parser, request.get("containers", []))
    import vllm

    try:
        import vllm_rbln

        rbln = getattr(vllm_rbln, "__version__", None)
    except ImportError:
        rbln = None
    return {
        "vllm": vllm.__version__,
        "vllm_rbln": rbln,
        "platform": type(current_platform).__name__,
        "options": sum(1 for a in parser._actions for o in a.option_strings if o.startswith("--")),
        "env_names": len(getters),
        "differences": differences,
        "config_classes": [name for name, _ in classes],
        "config_classes_skipped": skipped,
        "commands": commands,
        "scheduler": scheduler,
        "envs": envs,
        "spellings": answered_spellings,
        "containers": containers,
        "chat_templates": chat_templates(),
        "seconds": round(time.monotonic() - start, 1),
    }


def main(argv: list[str] | None = None) -> int:
    request_path, answer_path = argv if argv is not None else sys.argv[1:]
    with open(request_path, encoding="utf-8") as f:
        request = json.load(f)
    answer = judge(request)
    with open(answer_path, "w", encoding="utf-8") as f:
        json.dump(answer, f)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
