"""Kubernetes manifests of every offered selection (``recipebook/rendering/kubernetes.py``).

Judged as a cluster judges them: every document validates, strictly (an unknown field is an
error), against the API schemas of Kubernetes 1.34, 1.35 and 1.36 shipped by
kubernetes-validate and the pinned CRDs, offline, in both NPU modes; and reads as Kubernetes and
the router chart read it (``checking/manifests.problems``: selectors, ports, volumes, claims,
env references, int32, the router's pool, what each node must offer). Each container runs its
commands: the recipe's lines less the kinds a container drops, every rank of a merged role, the
NPUs its arguments use. Hostile recipe data aimed at names, labels, ports and numbers is
refused where it is written; the browser writes the same files as the engine for any settings.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import importlib
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import hypothesis
import jsonschema
import kubernetes_validate
import kubernetes_validate.utils
import pytest
import yaml
from hypothesis import strategies as st
from referencing import Registry, Resource

import crds
import recipebook
from recipe_support import (
    check_mutated,
    findings_planned_afresh,
    fixture,
    in_process,
    plan_classes,
    ptr,
    variants_or_refusal,
    variants_planned_afresh,
)
from recipebook import memo, shell
from recipebook.checking import manifests
from recipebook.expanding import client
from recipebook.expanding.expansion import by_role
from recipebook.expanding.page import expansion_at, page_of
from recipebook.pipeline.load import load
from recipebook.reading.model import Recipe
from recipebook.rendering import kubernetes as k8s
from recipebook.rendering import portable, yamltext
from recipebook.rendering.files import kubernetes_where, selection_files
from recipebook_sphinx.explorer import view as explorer_view

ROOT = Path(__file__).resolve().parents[2]
PATHS = sorted(p for p in (ROOT / "recipes").glob("*.json") if p.name != "schema.json")
# roles that span nodes, in every shape vLLM 0.30.0 runs (its manifests are LeaderWorkerSets)
MULTINODE = ROOT / "tests" / "data" / "multinode" / "Kimi-K2-Instruct.json"
SCRIPT = ROOT / "_ext" / "recipebook_sphinx" / "static" / "recipebook-files.js"
# what every test writes unless it says otherwise: an image, so that no <...> is left
IMAGE = {"server-image": "registry.example.com/rbln/vllm-rbln:0.12.0"}


# -- the judges ------------------------------------------------------------------------------


@functools.cache
def _validator(kind: str, api_version: str, release: str) -> jsonschema.Validator:
    """kubernetes_validate.validate's strict validator for one kind and release, built once: it
    reads the release's schema and its 5 MB of definitions on every call otherwise."""
    version = re.sub(r"^([^./]*)(?:\.[^/]*)?/", r"\1-", api_version)
    folder = f"kubernetes-json-schema/v{release}-local-strict"
    read = kubernetes_validate.utils.schema_contents
    schema = read(f"{folder}/{kind.lower()}-{version}.json", release)
    definitions = read(f"{folder}/_definitions.json", release)
    registry = Resource.from_contents(definitions) @ (Resource.from_contents(schema) @ Registry())
    return jsonschema.validators.Draft202012Validator(schema, registry=registry)


def _validate(document: dict, release: str) -> None:
    try:
        _validator(document["kind"], document["apiVersion"], release).validate(document)
    except jsonschema.ValidationError as error:
        raise kubernetes_validate.ValidationError(error, version=release) from None


def _documents(files: dict[str, str]) -> list[tuple[str, dict]]:
    return [
        (name, document)
        for name, text in files.items()
        if name.startswith(f"{k8s.FOLDER}/") and name.endswith(".yaml") and not name.startswith(f"{k8s.ROUTER_FOLDER}/")
        for document in yaml.load_all(text, Loader=yaml.CSafeLoader)
    ]


def _shape(document: dict) -> str:
    """A document with its strings' text left out: two selections whose documents differ only
    in the words of their lines have one shape, which the schemas judge alike."""

    def strip(value):
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items()}
        if isinstance(value, list):
            return [strip(v) for v in value]
        return type(value).__name__ if isinstance(value, str) else value

    shape = copy.deepcopy(document)
    for container in shape.get("spec", {}).get("template", {}).get("spec", {}).get("containers", ()):
        container["args"] = len(container["args"])
        container["env"] = [sorted(e) for e in container["env"]]
    return json.dumps(strip(shape), sort_keys=True)


def _selections(path: Path, every: int = 1):
    recipe = load(path)
    for target in page_of(recipe).targets:
        for k, chosen in enumerate(target.table.offered):
            if k % every == 0 or tuple(chosen) == target.opening:
                yield recipe, target, expansion_at(recipe, target, chosen)


def _needs(expansion, settings: dict[str, str]) -> tuple[k8s.NodeNeeds, ...]:
    steps = [cmd for _n, cmd in expansion.router]
    router = k8s.router_of(steps)
    return k8s.node_needs(k8s.plans(expansion.roles(), expansion.nodes, router), settings, router)


def test_the_cached_validator_judges_as_kubernetes_validate_does():
    _recipe, _target, expansion = next(_selections(PATHS[0]))
    _name, document = next(
        d for d in _documents(selection_files(expansion, None, IMAGE)) if d[1]["kind"] == "Deployment"
    )
    for release in k8s.KUBERNETES_RELEASES:
        kubernetes_validate.validate(document, release, strict=True)
        _validate(document, release)
    document["spec"]["template"]["spec"]["containers"][0]["npus"] = 1  # strict: an unknown field
    for release in k8s.KUBERNETES_RELEASES:
        for judge in (lambda d, r=release: kubernetes_validate.validate(d, r, strict=True), _validate):
            with pytest.raises(kubernetes_validate.ValidationError):
                judge(document, release)


def test_kubernetes_validate_has_every_release_the_manifests_target():
    """requirements.txt pins the kubernetes-validate that ships the schemas of each release."""
    for release in k8s.KUBERNETES_RELEASES:
        assert release in kubernetes_validate.utils.all_versions() or any(
            v.startswith(release) for v in kubernetes_validate.utils.all_versions()
        ), release


# -- every selection, both modes: the schemas and the semantic checks -------------------------


@pytest.mark.parametrize("mode", k8s.MODES)
@pytest.mark.parametrize("path", PATHS, ids=lambda p: p.stem)
def test_every_selections_manifests_validate_and_read_as_kubernetes_reads_them(path, mode):
    validated: set[str] = set()
    settings = {**IMAGE, "npu": mode}
    for _recipe, _target, expansion in _selections(path):
        written = selection_files(expansion, None, settings)
        found = manifests.problems(written, nodes=expansion.nodes, needs=_needs(expansion, settings))
        assert not found, (expansion.selection, found)
        for name, document in _documents(written):
            shape = _shape(document)
            if shape in validated:  # documents of one shape are judged alike: each is validated once
                continue
            validated.add(shape)
            for release in k8s.KUBERNETES_RELEASES:
                _validate(document, release)
            assert "<" not in json.dumps(document), (name, "a placeholder is left")
    assert validated


@pytest.mark.parametrize("path", PATHS, ids=lambda p: p.stem)
def test_each_container_runs_its_commands_and_asks_for_their_npus(path):
    for _recipe, target, expansion in _selections(path, every=5):
        steps = [cmd for _n, cmd in expansion.router]
        router = k8s.router_of(steps)
        drop_events = router is None or not router.kv_events
        plans = {p.role: p for p in k8s.plans(expansion.roles(), expansion.nodes, router)}
        written = selection_files(expansion, None, IMAGE)
        runs = k8s.container_names(expansion.roles(), steps, expansion.nodes)
        covered: list = []
        for _name, document in _documents(written):
            if document["kind"] != "Deployment":
                continue
            role = document["spec"]["template"]["metadata"]["labels"]["app.kubernetes.io/component"]
            plan = plans[role]
            for container in document["spec"]["template"]["spec"]["containers"]:
                commands = runs[container["name"]]
                covered += commands
                source = commands[0]
                assert container["command"] == shell.words(source.launcher)
                dropped = (
                    {"devices", "cache"}
                    | ({"kv-events"} if drop_events else set())
                    | ({"rank"} if plan.merged else set())
                )
                kept = [
                    w
                    for line in source.arg_lines
                    if k8s.line_kind("arg", line.text) not in dropped
                    for w in shell.words(line.text)
                ]
                assert container["args"][: 1 + len(kept)] == [source.model, *map(k8s.kube_text, kept)]
                extra = container["args"][1 + len(kept) :]
                if plan.merged:
                    assert extra[:2] == [
                        f"--data-parallel-size-local={len(commands)}",
                        "--data-parallel-multi-port-external-lb",
                    ]
                    assert all(client.npus(c) == client.npus(source) for c in commands)
                    ports = [client.port(c) for c in commands]
                    assert ports == list(range(ports[0], ports[0] + len(ports)))
                else:
                    assert extra == [] and len(commands) == 1
                env = {e["name"]: e for e in container["env"]}
                for line in source.env_lines:
                    name, value = k8s.env_pair(line.text)
                    if k8s.line_kind("env", line.text) not in dropped:
                        assert env[name]["value"] == k8s.kube_text(value)
                npus = sum(client.npus(c) for c in commands)
                assert env[k8s.DEVICE_ENV]["value"] == ",".join(map(str, range(npus)))
                resources = container["resources"]
                assert resources["requests"][k8s.NPU_RESOURCE] == resources["limits"][k8s.NPU_RESOURCE] == npus
                budget = container["startupProbe"]["periodSeconds"] * container["startupProbe"]["failureThreshold"]
                assert budget >= max(k8s.ready_timeout(c) for c in commands)
                if "<POD_IP>" in source.shell:
                    assert env["POD_IP"]["valueFrom"] == {"fieldRef": {"fieldPath": "status.podIP"}}
            role_npus = {p.role: p.npus for p in target.serving_at(target.index(expansion.selection)).roles}
            asked = sum(
                c["resources"]["requests"][k8s.NPU_RESOURCE] for c in document["spec"]["template"]["spec"]["containers"]
            )
            assert asked == role_npus[role]
        assert sorted(covered, key=lambda c: c.name) == sorted(expansion.commands, key=lambda c: c.name)


def test_a_merged_role_serves_each_ranks_port_and_is_probed_where_every_rank_answers():
    path = next(p for p in PATHS if "targetPorts" in p.read_text(encoding="utf-8"))
    _recipe, _target, expansion = next(e for e in _selections(path) if e[2].router)
    plans = k8s.plans(expansion.roles(), expansion.nodes, k8s.router_of([c for _n, c in expansion.router]))
    merged = [p for p in plans if p.merged]
    assert merged, "the data-parallel decode role runs in one container"
    for plan in merged:
        (container,) = plan.containers
        ranks = dict(expansion.roles())[plan.role]
        assert container.ports == tuple(client.port(c) for c in ranks)
        assert container.health not in container.ports
        assert f"--data-parallel-supervisor-port={container.health}" in container.extra_args


# -- the router, end to end -------------------------------------------------------------------


@pytest.mark.parametrize("path", PATHS, ids=lambda p: p.stem)
def test_the_routers_pool_selects_exactly_the_prefill_and_decode_pods_on_the_ports_they_serve(path):
    checked = 0
    for _recipe, _target, expansion in _selections(path, every=3):
        router = k8s.router_of([cmd for _n, cmd in expansion.router])
        if router is None:
            continue
        written = selection_files(expansion, None, IMAGE)
        pool = manifests.pool_of(written)
        where = kubernetes_where(expansion)
        assert pool["selector"] == {**router.match_labels, **k8s.pool_labels(where, router)}
        assert pool["selector"]["app.kubernetes.io/instance"] == where.instance  # unique per deployment
        pods = [d["spec"]["template"] for _n, d in _documents(written) if d["kind"] == "Deployment"]
        chosen = [p for p in pods if pool["selector"].items() <= p["metadata"]["labels"].items()]
        assert sorted(p["metadata"]["labels"][k8s.ROLE_LABEL] for p in chosen) == ["decode", "prefill"]
        served = set()
        for pod in chosen:
            active = {int(p) for p in pod["metadata"]["annotations"][k8s.ACTIVE_PORTS].split(",")}
            ports = {
                p["containerPort"]
                for c in (*pod["spec"].get("initContainers", ()), *pod["spec"]["containers"])
                for p in c["ports"]
            }
            assert active <= ports and active <= set(pool["targetPorts"])
            served |= active
        assert served == set(pool["targetPorts"])
        install = written[f"{k8s.ROUTER_FOLDER}/install.sh"]
        assert f"helm install {where.release} " in install
        assert install.index(f"--values {router.values_name}") < install.index(f"--values {k8s.CLUSTER_VALUES}")
        assert "--namespace rbln-serving" in install
        assert shell.bash_syntax_error(install) is None
        cluster = yaml.safe_load(written[f"{k8s.ROUTER_FOLDER}/{k8s.CLUSTER_VALUES}"])
        assert cluster["httpRoute"] == {"create": True, "inferenceGatewayName": "inference-gateway"}
        assert written[f"{k8s.ROUTER_FOLDER}/{router.values_name}"] == router.values_text  # the recipe's, as written
        checked += 1
    assert bool(checked) == ("targetPorts" in path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("path", PATHS, ids=lambda p: p.stem)
def test_the_inference_pool_the_chart_renders_from_both_values_files_validates_and_selects_the_pods(path):
    """The router chart creates the InferencePool from the values files: built as its template
    builds it (tests/crds.py), it validates against the pinned CRD, keeps its ports unique (the
    CRD's CEL rule) and selects the prefill and decode pods of the selection."""
    schema = crds.crd_schema(crds.INFERENCE_POOL)[2]["properties"]["spec"]["properties"]["targetPorts"]
    assert [v["rule"] for v in schema["x-kubernetes-validations"]] == [crds.CEL_UNIQUE_PORTS]
    recipe = load(path)
    checked = 0
    for target in page_of(recipe).targets:
        if k8s.router_of([cmd for _n, cmd in target.router]) is None:
            continue
        expansion = expansion_at(recipe, target, target.opening)
        written = selection_files(expansion, None, IMAGE)
        router_files = {
            n: yaml.safe_load(t)
            for n, t in written.items()
            if n.startswith(f"{k8s.ROUTER_FOLDER}/") and n.endswith(".yaml")
        }
        cluster = router_files.pop(f"{k8s.ROUTER_FOLDER}/{k8s.CLUSTER_VALUES}")
        (values,) = router_files.values()
        merged = copy.deepcopy(values)
        merged["router"]["modelServers"]["matchLabels"].update(cluster["router"]["modelServers"]["matchLabels"])
        pool = crds.inference_pool(merged, kubernetes_where(expansion).release)
        crds.validate(crds.INFERENCE_POOL, pool)
        assert crds.unique_ports(pool)
        for _n, document in _documents(written):
            if document["kind"] == "Deployment":
                labels = document["spec"]["template"]["metadata"]["labels"]
                assert pool["spec"]["selector"]["matchLabels"].items() <= labels.items()
        checked += 1
    assert bool(checked) == ("targetPorts" in path.read_text(encoding="utf-8"))


def _with_router_values(data: dict, change) -> None:
    """Change the YAML of the first router values file of a recipe (a here-document)."""
    for strategy in data["strategies"]:
        for option in strategy["options"]:
            router = option["grid"].get("router")
            if router:
                step = router["nodes"][0]
                head, _, rest = step["cmd"].partition("\n")
                body, _, tail = rest.rpartition("\nEOF")
                step["cmd"] = f"{head}\n{change(body)}\nEOF{tail}"
                return
    raise AssertionError("no router")


def _router_recipe() -> str:
    return next(p.stem for p in PATHS if "targetPorts" in p.read_text(encoding="utf-8"))


def _router_pointer(data: dict) -> str:
    for s, strategy in enumerate(data["strategies"]):
        for o, option in enumerate(strategy["options"]):
            if option["grid"].get("router"):
                return ptr("strategies", s, "options", o, "grid", "router", "nodes", 0, "cmd")
    raise AssertionError("no router")


def _with_kv_events(data: dict, endpoint: str) -> None:
    """Every --kv-events-config of a recipe sent to one endpoint."""
    for strategy in data["strategies"]:
        for option in strategy["options"]:
            for role in option["grid"]["base"]:
                for owner in (role, *(role.get("ranks") or ())):
                    text = owner["args"].get("--kv-events-config")
                    if text:
                        owner["args"]["--kv-events-config"] = re.sub(
                            r'"endpoint": "[^"]*"', f'"endpoint": "{endpoint}"', text
                        )


READER = "        - type: queue-scorer\n        - type: precise-prefix-cache-producer\n"


def test_kv_events_are_sent_only_where_the_endpoint_picker_reads_them(tmp_path):
    name = _router_recipe()
    recipe = load(ROOT / "recipes" / f"{name}.json")
    target = next(t for t in page_of(recipe).targets if t.router)
    expansion = expansion_at(recipe, target, target.opening)
    has_events = any(k8s.line_kind("arg", a) == "kv-events" for c in expansion.commands for a in c.args)
    assert has_events, "the shipped P/D commands publish KV events"
    router = k8s.router_of([c for _n, c in expansion.router])
    assert not router.kv_events
    written = selection_files(expansion, None, IMAGE)
    assert "--kv-events-config" not in json.dumps({n: t for n, t in written.items() if n.startswith("kubernetes/")})
    add_reader = lambda body: body.replace("        - type: queue-scorer\n", READER)  # noqa: E731
    # a reader that reads each pod (its default): a server that sends to the picker is refused at its line
    checked = check_mutated(tmp_path, name, lambda data: _with_router_values(data, add_reader))
    assert checked.recipe is None
    assert any(
        "must bind tcp://*:5557" in p.message and p.pointer.endswith("/--kv-events-config") for p in checked.problems
    )

    # servers that bind the picker's port: every container keeps its events, one container per role
    def bind(data):
        _with_router_values(data, add_reader)
        _with_kv_events(data, "tcp://*:5557")
        data["placeholders"].pop("EPP_HOST")  # no command names the picker's host any more

    checked = check_mutated(tmp_path, name, bind)
    assert checked.recipe is not None, checked.problems
    reader = next(t for t in page_of(checked.recipe).targets if t.router)
    assert k8s.router_of([c for _n, c in reader.router]).kv_events
    written = selection_files(expansion_at(checked.recipe, reader, reader.opening), None, IMAGE)
    assert not manifests.problems(written)
    for _n, document in _documents(written):
        if document["kind"] == "Deployment":
            for container in document["spec"]["template"]["spec"]["containers"]:
                assert "--kv-events-config" in container["args"]
    # a picker that binds its own endpoint: the servers reach it on a port its Service opens
    own = "          parameters:\n            kvEventsConfig:\n              discoverPods: false\n              zmqEndpoint: tcp://*:5557\n"

    def central(data, opened):
        _with_router_values(
            data,
            lambda body: (
                body.replace("        - type: queue-scorer\n", READER + own)
                + ("\n  extraServicePorts:\n  - name: kv-events\n    port: 5557\n    protocol: TCP" if opened else "")
            ),
        )
        _with_kv_events(data, "tcp://<EPP_HOST>:5557")

    closed = check_mutated(tmp_path, name, lambda data: central(data, False))
    assert any("opens no port" in p.message for p in closed.problems), closed.problems
    opened = check_mutated(tmp_path, name, lambda data: central(data, True))
    assert opened.recipe is not None, opened.problems


# -- hostile recipe data: names, labels, ports, numbers ---------------------------------------


@pytest.mark.parametrize(
    ("yaml_text", "fragment"),
    [
        ("example.com/flag: true", "not text: quote it"),  # a bool the chart writes "true", Python True
        ("example.com/zero: 010", "not text: quote it"),  # YAML 1.1 reads 8
        ("example.com/none: null", "not text"),
        ("example.com/words: 'two words'", "label value"),
        ("'bad key': x", "label key"),
        ("llm-d.ai/role: decode", "selects one role only"),
        ("app.kubernetes.io/name: anything", "selects its own pods by it"),
        ("app.kubernetes.io/instance: other", "selects its own pods by it"),
        ("{}", "selects no pods"),
    ],
)
def test_router_labels_that_would_select_the_wrong_pods_are_refused_at_the_values_file(tmp_path, yaml_text, fragment):
    name = _router_recipe()

    def labels(body: str) -> str:
        if yaml_text == "{}":
            return re.sub(r"matchLabels:\n(?:      .*\n)+", "matchLabels: {}\n", body + "\n").rstrip("\n")
        return body.replace("    matchLabels:\n", f"    matchLabels:\n      {yaml_text}\n", 1)

    checked = check_mutated(tmp_path, name, lambda data: _with_router_values(data, labels))
    assert checked.recipe is None
    pointer = _router_pointer(fixture(name))
    found = [p for p in checked.problems if p.pointer == pointer and fragment in p.message]
    assert found, "\n".join(map(str, checked.problems))


def test_quoted_router_label_values_stay_strings_on_the_pods(tmp_path):
    name = _router_recipe()
    checked = check_mutated(
        tmp_path,
        name,
        lambda data: _with_router_values(
            data,
            lambda body: body.replace(
                "    matchLabels:\n",
                "    matchLabels:\n      example.com/flag: 'true'\n      example.com/zero: '010'\n",
                1,
            ),
        ),
    )
    assert checked.recipe is not None, checked.problems
    target = next(t for t in page_of(checked.recipe).targets if t.router)
    written = selection_files(expansion_at(checked.recipe, target, target.opening), None, IMAGE)
    assert not manifests.problems(written)
    for _n, document in _documents(written):
        if document["kind"] == "Deployment":
            labels = document["spec"]["template"]["metadata"]["labels"]
            assert labels["example.com/flag"] == "true" and labels["example.com/zero"] == "010"
    assert manifests.pool_of(written)["selector"]["example.com/zero"] == "010"


def test_a_values_file_outside_the_router_folder_is_refused(tmp_path):
    name = _router_recipe()

    def rename(data):
        for strategy in data["strategies"]:
            for option in strategy["options"]:
                for step in (option["grid"].get("router") or {}).get("nodes", ()):
                    step["cmd"] = step["cmd"].replace("router-values.yaml", "../../escape.yaml")

    checked = check_mutated(tmp_path, name, rename)
    assert checked.recipe is None
    assert any("plain file name" in p.message and p.pointer == _router_pointer(fixture(name)) for p in checked.problems)


def test_a_long_recipe_name_gives_distinct_valid_names_for_every_role(tmp_path):
    """A 100-character name once made prefill and decode share one Deployment: each name keeps
    its first characters and a hash of the whole."""
    name = _router_recipe()
    long = "M" + "x" * 99
    checked = check_mutated(tmp_path, name, lambda data: data.update(name=long), file_name=f"{long}.json")
    assert checked.recipe is not None, checked.problems
    for target in page_of(checked.recipe).targets:
        written = selection_files(expansion_at(checked.recipe, target, target.opening), None, IMAGE)
        assert not manifests.problems(written)
        names = [d["metadata"]["name"] for _n, d in _documents(written) if d["kind"] == "Deployment"]
        assert len(names) == len(set(names)) == len(target.roles)
        assert all(len(n) <= 63 for n in names)
        for _n, document in _documents(written):
            for release in k8s.KUBERNETES_RELEASES[:1]:
                _validate(document, release)


def test_names_two_roles_would_share_are_refused_at_the_role():
    where = k8s.Where(recipe="r", strategy="s", target="t", skus=("RBLN-CR13",))
    findings = k8s.name_findings(where, [("a_b", []), ("a__b", [])])
    assert findings and findings[0].at == ("role", "a__b")
    assert "would both be" in findings[0].message


def test_a_sku_that_is_not_a_label_value_is_refused_at_the_sku():
    """The schema keeps SKUs to RBLN-...; the manifests check them again where they use them (a
    node label value and a CEL string)."""
    where = k8s.Where(recipe="r", strategy="s", target="t", skus=("RBLN-CR13", 'RBLN"]'))
    (finding,) = k8s.name_findings(where, [("main", [])])
    assert finding.at == ("sku", 1) and "label value" in finding.message


def test_a_ready_timeout_beyond_int32_is_refused_at_its_line(tmp_path):
    def huge(data):
        data["strategies"][0]["options"][0]["grid"]["base"][0]["envs"]["VLLM_ENGINE_READY_TIMEOUT_S"] = (
            "VLLM_ENGINE_READY_TIMEOUT_S=99999999999"
        )

    checked = check_mutated(tmp_path, "gpt-oss-120b", huge)
    pointer = ptr("strategies", 0, "options", 0, "grid", "base", 0, "envs", "VLLM_ENGINE_READY_TIMEOUT_S")
    assert any(
        p.pointer == pointer and "int32" not in p.message and "largest number" in p.message for p in checked.problems
    ), checked.problems


def test_a_port_the_reader_fills_in_is_the_port_the_container_serves(tmp_path):
    """``--port '<SERVE_PORT>'``: the container declares the reader's port (an int once filled in),
    and its probes and Service call it by name."""

    def port(data):
        args = data["strategies"][0]["options"][0]["grid"]["base"][0]["args"]
        args["--port"] = "--port '<SERVE_PORT>'"
        data["placeholders"] = {"SERVE_PORT": {"scope": "shared"}}

    checked = check_mutated(tmp_path, "gpt-oss-120b", port)
    assert checked.recipe is not None, checked.problems
    target = page_of(checked.recipe).targets[0]
    expansion = expansion_at(checked.recipe, target, target.opening)
    written = selection_files(expansion, {"SERVE_PORT": "9123"}, IMAGE)
    assert not manifests.problems(written)
    (deployment,) = [d for _n, d in _documents(written) if d["kind"] == "Deployment"]
    (container,) = deployment["spec"]["template"]["spec"]["containers"]
    assert container["ports"][0]["containerPort"] == 9123
    assert container["startupProbe"]["httpGet"]["port"] == container["ports"][0]["name"]
    assert "$(SERVE_PORT)" in container["args"]
    (service,) = [d for _n, d in _documents(written) if d["kind"] == "Service"]
    assert service["spec"]["ports"][0]["targetPort"] == container["ports"][0]["name"]
    for release in k8s.KUBERNETES_RELEASES:
        _validate(deployment, release)


# -- settings ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("namespace", "Has_Caps"),
        ("namespace", "x" * 64),
        ("npu", "gpu"),
        ("server-image", "image with space"),
        ("server-image", "quote'd"),
        ("storage-class", "../x"),
        ("cpu", "0"),
        ("cpu", "1.5"),
        ("memory", "460GB"),
        ("shm", "-1Gi"),
        ("hf-secret", "$(x)"),
        ("gateway", "a\nb"),
        ("unknown", "x"),
    ],
)
def test_a_setting_that_cannot_be_used_is_refused(name, value):
    assert k8s.setting_problem(name, value)
    with pytest.raises(ValueError):
        k8s.settings_of({name: value}, {})


def _files_command(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "recipebook", "files", *args],
        capture_output=True, text=True, cwd=ROOT, env={"PATH": "/usr/bin:/bin"},
    )  # fmt: skip


def test_the_command_line_takes_settings_and_refuses_a_bad_one_in_one_line(tmp_path, capsys):
    """files from a real process with good settings; each bad one by its main in this process (its
    exit status 2 is seen from a real process in test_hostile_round4.py)."""
    path = ROOT / "recipes" / f"{_router_recipe()}.json"
    recipe = load(path)
    target = next(t for t in page_of(recipe).targets if t.router)
    where = ["--strategy", target.strategy.slug, "--target", target.target.target]
    result = _files_command(
        str(path), *where, "--out", str(tmp_path / "out"),
        "--set-k8s", "npu=dra", "--set-k8s", "namespace=serving", "--set-k8s", "storage-class=fast",
        "--set-k8s", "server-image=registry.example.com/v:1",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    folder = tmp_path / "out" / "kubernetes"
    documents = [d for f in sorted(folder.glob("*.yaml")) for d in yaml.safe_load_all(f.read_text())]
    kinds = [d["kind"] for d in documents]
    assert kinds[0] == "Namespace" and "ResourceClaimTemplate" in kinds
    assert {d["metadata"].get("namespace", d["metadata"]["name"]) for d in documents} == {"serving"}
    assert all(d["spec"]["storageClassName"] == "fast" for d in documents if d["kind"] == "PersistentVolumeClaim")
    assert (folder / "router" / "install.sh").exists()
    for bad, words in (
        ("shm=900Gi", "less than memory"),
        ("namespace=A", "DNS-1123"),
        ("size=1", "not a setting"),
        ("npu", "NAME=VALUE"),
    ):
        result = in_process(capsys, "files", str(path), *where, "--out", str(tmp_path / "bad"), "--set-k8s", bad)
        assert result.returncode == 2 and words in result.stderr, result.stderr
        assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr


def test_the_default_storage_class_leaves_the_field_out_and_a_named_one_puts_it_in():
    _recipe, _target, expansion = next(_selections(PATHS[0]))
    for settings, expected in (({}, None), ({"storage-class": "fast-nvme"}, "fast-nvme")):
        written = selection_files(expansion, None, {**IMAGE, **settings})
        claims = [d for _n, d in _documents(written) if d["kind"] == "PersistentVolumeClaim"]
        assert claims and all(d["spec"].get("storageClassName") == expected for d in claims)


def test_a_document_is_written_once_and_a_lookalike_of_another_type_for_itself(monkeypatch):
    written: list[object] = []
    real = yamltext.dump

    def spy(data, dumper, *, width=None):
        written.append(data)
        return real(data, dumper, width=width)

    monkeypatch.setattr(yamltext, "dump", spy)
    recipebook.forget()
    claim = {"apiVersion": "v1", "spec": {"resources": {"requests": {"storage": "8Gi"}}, "ports": [8000, "http"]}}
    assert k8s.dump(copy.deepcopy(claim)) == k8s.dump(copy.deepcopy(claim)) == real(claim, k8s._Dumper)
    assert written == [claim]  # the second, an equal document of other objects, was not written again
    # equal in Python, or alike in their items, but written differently: each document its own text,
    # whichever came first
    lookalikes = [
        {"port": "<PORT>"}, {"port": k8s._Hole("<PORT>")}, {"port": "8000"}, {"port": 8000}, {"port": 1}, {"port": True},
        {"port": 0.0}, {"port": -0.0}, {"port": None}, {"port": "null"}, {"port": ["a", "b"]},
        {"port": {"a": "b"}}, {"port": [["a", "b"]]}, {"port": [{"a": "b"}]}, ["port", "8000"],
    ]  # fmt: skip
    texts = [k8s.dump(d) for d in lookalikes]
    assert texts == [real(d, k8s._Dumper) for d in lookalikes]
    assert len(set(texts)) == len(lookalikes)
    assert k8s.dump(lookalikes[0]) == "port: '<PORT>'\n" and k8s.dump(lookalikes[1]) == "port: <PORT>\n"
    recipebook.forget()


def test_dra_claims_the_npus_of_the_targets_product_and_a_nic_on_their_numa_node_for_prefill_decode():
    for path in PATHS:
        for _recipe, target, expansion in _selections(path, every=10**9):
            written = selection_files(expansion, None, {**IMAGE, "npu": "dra"})
            templates = {
                d["metadata"]["name"]: d for _n, d in _documents(written) if d["kind"] == "ResourceClaimTemplate"
            }
            for _n, document in _documents(written):
                if document["kind"] != "Deployment":
                    continue
                pod = document["spec"]["template"]["spec"]
                (claim,) = pod["resourceClaims"]
                devices = templates[claim["resourceClaimTemplateName"]]["spec"]["spec"]["devices"]
                npu = [r for r in devices["requests"] if r["exactly"]["deviceClassName"] == k8s.NPU_DEVICE_CLASS]
                asked = sum(r["exactly"]["count"] for r in npu)
                role = document["spec"]["template"]["metadata"]["labels"]["app.kubernetes.io/component"]
                assert asked == next(
                    p.npus for p in target.serving_at(target.index(expansion.selection)).roles if p.role == role
                )
                for request in npu:
                    (selector,) = request["exactly"]["selectors"]
                    assert all(f'"{sku}"' in selector["cel"]["expression"] for sku in target.target.skus)
                for container in pod["containers"]:
                    assert k8s.NPU_RESOURCE not in container["resources"]["requests"]
                    assert container["resources"]["claims"][0]["name"] == claim["name"]
                nic = [r for r in devices["requests"] if r["exactly"]["deviceClassName"] == k8s.NIC_DEVICE_CLASS]
                if target.router and role in k8s.DISAGGREGATED:
                    assert len(nic) == 1
                    assert devices["constraints"] == [
                        {"requests": [r["name"] for r in devices["requests"]], "matchAttribute": k8s.NUMA_ATTRIBUTE}
                    ]
                else:
                    assert not nic


def test_the_model_cache_is_sized_from_the_checkpoint_facts():
    for path in PATHS:
        recipe = load(path)
        for target in page_of(recipe).targets:
            checkpoint = recipe.facts.checkpoint(target.target.grid.model) if recipe.facts else None
            expansion = expansion_at(recipe, target, target.opening)
            written = selection_files(expansion, None, IMAGE)
            sizes = {
                d["spec"]["resources"]["requests"]["storage"]
                for _n, d in _documents(written)
                if d["kind"] == "PersistentVolumeClaim"
            }
            if checkpoint is None:
                assert sizes == {"<MODEL_CACHE_SIZE>", "<COMPILE_CACHE_SIZE>"}
                continue
            (size,) = sizes
            gib = int(size.removesuffix("Gi"))
            assert checkpoint.total <= gib * 2**30 <= checkpoint.total * 1.1 + 2**30


# -- the semantic checks find what they look for ----------------------------------------------


def _mutations():
    def deployment(docs):
        return next(d for d in docs if d["kind"] == "Deployment")

    def container(docs):
        return deployment(docs)["spec"]["template"]["spec"]["containers"][0]

    yield (
        "selector",
        lambda docs: deployment(docs)["spec"]["selector"]["matchLabels"].update({"x": "y"}),
        "does not select its own pods",
    )
    yield "probe", lambda docs: container(docs)["readinessProbe"]["httpGet"].update(port=1), "does not serve"
    yield (
        "mount",
        lambda docs: container(docs)["volumeMounts"].append({"name": "gone", "mountPath": "/x"}),
        "no volume for",
    )
    yield "env", lambda docs: container(docs)["args"].append("$(NOWHERE)"), "its env does not set"
    yield (
        "env-order",
        lambda docs: container(docs)["env"].insert(0, {"name": "A", "value": "$(POD_IP)"}),
        "no earlier env entry",
    )
    yield "int32", lambda docs: deployment(docs)["spec"].update(progressDeadlineSeconds=2**31), "outside int32"
    yield (
        "claim",
        lambda docs: deployment(docs)["spec"]["template"]["spec"]["volumes"][0]["persistentVolumeClaim"].update(
            claimName="nope"
        ),
        "do not create",
    )
    yield "label", lambda docs: deployment(docs)["metadata"]["labels"].update({"k": True}), "not text"
    yield "requests", lambda docs: container(docs)["resources"]["requests"].update(cpu="41"), "limited to"
    yield "twice", lambda docs: docs.append(copy.deepcopy(deployment(docs))), "share the name"
    yield (
        "shm",
        lambda docs: deployment(docs)["spec"]["template"]["spec"]["volumes"][-1]["emptyDir"].update(sizeLimit="999Gi"),
        "not smaller",
    )


@pytest.mark.parametrize(("what", "mutate", "fragment"), list(_mutations()), ids=[m[0] for m in _mutations()])
def test_each_semantic_check_finds_what_it_looks_for(what, mutate, fragment):
    _recipe, _target, expansion = next(_selections(PATHS[0]))
    written = selection_files(expansion, None, IMAGE)
    assert not manifests.problems(written)
    name = next(n for n, t in written.items() if n.startswith("kubernetes/") and "kind: Deployment" in t)
    documents = list(yaml.safe_load_all(written[name]))
    mutate(documents)
    broken = {**written, name: yaml.safe_dump_all(documents, sort_keys=False)}
    found = manifests.problems(broken)
    assert any(fragment in p for p in found), (what, found)


def _plan_arguments(k: int) -> tuple:
    """manifests._plan_problems' arguments for the k-th offered selection of the shipped recipe's
    last target, made from the recipe read afresh (new objects, equal values)."""
    recipe = load(PATHS[0])
    target = page_of(recipe).targets[-1]
    expansion = expansion_at(recipe, target, target.table.offered[k])
    steps = tuple(cmd for _n, cmd in expansion.router)
    nodes = manifests._nodes(target.strategy, target.target)
    roles = tuple((role, tuple(commands)) for role, commands in expansion.roles())
    plans = tuple(k8s.plans(roles, nodes, k8s.router_of(steps)))
    return manifests._where(recipe, target.strategy, target.target), roles, plans, tuple(nodes.items()), steps


def test_a_plans_problems_are_remembered_by_value_and_another_plan_is_read_afresh():
    """manifests._plan_problems (rules 19 and 28: a plan's files read in both modes) keeps what it
    found by the value of its arguments: equal arguments made again from the recipe read again
    give what was found before, without reading the files again; arguments that differ in any
    one of them are read afresh; and what was kept is what reading afresh finds."""

    def size() -> int:
        return memo.remembered_sizes()["recipebook.checking.manifests._plan_problems"]

    first, again, last = _plan_arguments(0), _plan_arguments(0), _plan_arguments(-1)
    assert again[1][0][1][0] is not first[1][0][1][0]  # another command, of equal value
    where, roles, plans, placed, steps = first
    _where, other_roles, other_plans, _placed, _steps = last
    assert other_roles != roles and other_plans != plans
    # plans that say a node needs one NPU more than its pods ask for: its files have a problem
    container = plans[0].containers[0]
    bumped = dataclasses.replace(container, npus=container.npus + 1)
    more = dataclasses.replace(plans[0], containers=(bumped, *plans[0].containers[1:]))
    variants = [
        (where, roles, (more, *plans[1:]), placed, steps),
        (dataclasses.replace(where, target=f"{where.target}-2"), roles, plans, placed, steps),
        (where, other_roles, plans, placed, steps),
        (where, roles, other_plans, placed, steps),
        (where, roles, plans, tuple((role, node + 1) for role, node in placed), steps),
        (where, roles, plans, placed, (*steps, "true")),
    ]
    recipebook.forget()  # (reading the recipe checked it)
    found = manifests._plan_problems(*first)
    assert size() == 1
    assert manifests._plan_problems(*again) is found and size() == 1
    for n, arguments in enumerate(variants, 2):
        manifests._plan_problems(*arguments)
        assert size() == n, arguments[1:]
    kept = [manifests._plan_problems(*arguments) for arguments in (first, *variants)]
    assert size() == 1 + len(variants)
    recipebook.forget()
    assert [manifests._plan_problems(*arguments) for arguments in (first, *variants)] == kept
    assert any(kept), "no variant's files have a problem: the comparison would prove little"


def test_a_text_read_again_gives_the_documents_read_before_unchanged():
    """manifests.documents keeps what it read by the text: an equal text (another string) gives
    the documents read before, as PyYAML reads them, and ``problems`` leaves them as they were
    (they are shared: a change would reach every later reading of the text); another text is
    read afresh."""
    _recipe, _target, expansion = next(_selections(PATHS[0]))
    written = selection_files(expansion, None, IMAGE)
    name = next(n for n, t in written.items() if n.startswith("kubernetes/") and "kind: Deployment" in t)
    text = written[name]
    read = manifests.documents(text)
    assert list(read) == [d for d in yaml.load_all(text, Loader=yaml.CSafeLoader) if d is not None]
    again = text[:1] + text[1:]
    assert again is not text and manifests.documents(again) is read
    before = copy.deepcopy(read)
    assert not manifests.problems(written, nodes=expansion.nodes, needs=_needs(expansion, IMAGE))
    assert manifests.documents(text) == before
    other = text.replace("kind: Deployment", "kind: Deployment\n# another text", 1)
    assert manifests.documents(other) is not read and manifests.documents(other) == before


def _pd_grid(data: dict) -> dict:
    return next(o["grid"] for s in data["strategies"] for o in s["options"] if o["grid"].get("router"))


def _budget_of_one_value(data: dict) -> None:
    """Decode's start-up budget beyond int32 with prefix caching on alone: found in some selections."""
    envs = _pd_grid(data)["deltas"]["prefix_caching=on"]["decode"]["add_envs"]
    envs["VLLM_ENGINE_READY_TIMEOUT_S"] = "VLLM_ENGINE_READY_TIMEOUT_S=99999999999"


def _npus_of_one_value(data: dict) -> None:
    """Prefill's pipeline (its NPUs) a quarter with tool calling off alone: an argument of every
    rank that a plan reads, which differs between selections."""
    args = _pd_grid(data)["deltas"]["tool_calling=off"]["prefill"]["add_args"]
    args["--pipeline-parallel-size"] = "--pipeline-parallel-size 2"


def _two_decode_roles(data: dict) -> None:
    grid = _pd_grid(data)
    grid["base"].append(copy.deepcopy(next(r for r in grid["base"] if r["role"] == "decode")))


@pytest.mark.parametrize(
    "mutate",
    [None, _budget_of_one_value, _npus_of_one_value, _two_decode_roles],
    ids=["shipped", "budget", "npus", "two-roles"],
)
def test_a_targets_findings_are_those_of_each_selection_planned_afresh(mutate):
    """Rules 19 and 28 make each role's plan key once per set of the lines its plan reads that a
    selection shows (k8s.plan_lines), not once per selection: what they find is what planning
    every selection afresh finds (a P/D target, a value that breaks only some selections, two
    roles of one name, roles that span nodes, the shipped recipes; the import's sample:
    tests/engine/test_import.py)."""
    data = copy.deepcopy(fixture(_router_recipe()))
    if mutate is not None:
        mutate(data)
    recipes = [Recipe.from_json(data, f"{data['name']}.json")]
    if mutate is None:
        recipes += [load(MULTINODE), *(load(path) for path in PATHS)]
    compared = 0
    for recipe in recipes:
        for strategy in recipe.strategies:
            for target in strategy.targets:
                made = manifests._findings_of_target(recipe, strategy, target, None)
                assert made == findings_planned_afresh(recipe, strategy, target), (strategy.slug, target.target)
                compared += bool(made[0] or made[1])
        for page in page_of(recipe).targets:  # the page's skeletons and the selections sharing them
            args = (k8s.where_of(page, recipe), page.table, page.role_nodes, [cmd for _n, cmd in page.router])
            assert variants_or_refusal(k8s.variants, *args) == variants_or_refusal(variants_planned_afresh, *args)
    assert (compared > 0) == (mutate not in (None, _npus_of_one_value))
    # each selection's plan key is the one of every selection that shows the same lines it reads
    joined, _groups = plan_classes(recipes[0], every=True)
    assert joined


def test_a_flag_a_plan_reads_is_listed_where_plan_lines_finds_it():
    """plan_lines counts the lines of the flags PLAN_FLAGS lists (with client's and the kinds of
    line a container drops): a plan that read another flag would share its key between
    selections that differ in it, so _flag refuses to read one that is not listed."""
    _recipe, _target, expansion = next(_selections(PATHS[0]))
    command = expansion.commands[0]
    flag, value = next(arg.split(maxsplit=1) for arg in command.args if arg.split()[0] in k8s.PLAN_FLAGS)
    assert k8s._flag(command, flag) == value  # a listed flag is read
    with pytest.raises(ValueError, match="not listed in PLAN_FLAGS"):
        k8s._flag(command, "--max-model-len")


def test_the_pool_check_finds_a_pool_that_selects_one_role_or_misses_a_port():
    path = next(p for p in PATHS if "targetPorts" in p.read_text(encoding="utf-8"))
    _recipe, _target, expansion = next(e for e in _selections(path) if e[2].router)
    written = selection_files(expansion, None, IMAGE)
    assert not manifests.problems(written)
    cluster = f"{k8s.ROUTER_FOLDER}/{k8s.CLUSTER_VALUES}"
    one_role = written[cluster].replace("    matchLabels:\n", "    matchLabels:\n      llm-d.ai/role: decode\n")
    assert any("not the prefill and decode pods" in p for p in manifests.problems({**written, cluster: one_role}))
    prefill = "kubernetes/prefill.yaml"
    unserved = written[prefill].replace(f"{k8s.ACTIVE_PORTS}: '", f"{k8s.ACTIVE_PORTS}: '8001,")
    assert any("does not serve" in p for p in manifests.problems({**written, prefill: unserved}))


def test_the_node_check_finds_requests_beyond_what_the_page_says():
    _recipe, _target, expansion = next(_selections(PATHS[0]))
    written = selection_files(expansion, None, IMAGE)
    needs = _needs(expansion, {})
    assert not manifests.problems(written, nodes=expansion.nodes, needs=needs)
    fewer = tuple(k8s.NodeNeeds(node=n.node, roles=n.roles, npus=n.npus, cpu=n.cpu - 2, memory=n.memory) for n in needs)
    assert any("the page says" in p for p in manifests.problems(written, nodes=expansion.nodes, needs=fewer))


# -- the custom resources: pinned CRDs, strictly (tests/data/crds/SOURCE.md) ----------------


def test_the_crds_are_the_pinned_release_files_their_source_note_names():
    note = (crds.FOLDER / "SOURCE.md").read_text(encoding="utf-8")
    for name in (crds.LWS, crds.INFERENCE_POOL):
        row = next(line for line in note.splitlines() if line.startswith(f"| `{name}`"))
        assert crds.digest(name) in row, name
        assert "Apache-2.0" in note


def test_crd_validation_is_strict():
    pool = crds.inference_pool({"router": {"modelServers": {"matchLabels": {"app": "x"}}}}, "router")
    crds.validate(crds.INFERENCE_POOL, pool)
    for place in (pool["spec"], pool["spec"]["endpointPickerRef"], pool["spec"]["targetPorts"][0]):
        place["unknownField"] = 1
        with pytest.raises(jsonschema.ValidationError):
            crds.validate(crds.INFERENCE_POOL, pool)
        del place["unknownField"]


# the fixture has no checkpoint facts: the cache sizes are given
SPANNING = {**IMAGE, "model-cache": "1200Gi", "compile-cache": "1200Gi"}


def _groups(written: dict[str, str]) -> list[dict]:
    return [d for _n, d in _documents(written) if d["kind"] == "LeaderWorkerSet"]


def _as_deployment(template: dict) -> dict:
    """A LeaderWorkerSet's pod template in a Deployment, for the Kubernetes schemas to judge."""
    labels = template["metadata"]["labels"]
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "pod"},
        "spec": {"selector": {"matchLabels": labels}, "template": template},
    }


@pytest.mark.parametrize("mode", k8s.MODES)
def test_a_role_that_spans_nodes_is_a_leader_worker_set_that_validates_and_reads_as_kubernetes_reads_it(mode):
    """Every selection of the multi-node fixture: each role that spans nodes is one
    LeaderWorkerSet (size: its nodes, group restart, the leader created first, caches per pod),
    valid against the pinned CRD and, its templates as pods, against the Kubernetes schemas;
    the semantic checks pass (a Service selects the leader only, the claims templates are
    mounted, LWS_* references resolve) and each node asks for what the page says."""
    settings = {**SPANNING, "npu": mode}
    seen = 0
    for _recipe, _target, expansion in _selections(MULTINODE):
        written = selection_files(expansion, {"IFACE_NAME": "eth0"}, settings)
        found = manifests.problems(written, nodes=expansion.nodes, needs=_needs(expansion, settings))
        assert not found, (expansion.selection, found)
        spanning = {c.role: c for c in expansion.commands if c.node is not None and c.rank == 0}
        groups = _groups(written)
        assert sorted(g["metadata"]["labels"]["app.kubernetes.io/component"] for g in groups) == sorted(spanning)
        assert not any(
            d["kind"] == "Deployment"
            and d["spec"]["template"]["metadata"]["labels"]["app.kubernetes.io/component"] in spanning
            for _n, d in _documents(written)
        )
        for group in groups:
            crds.validate(crds.LWS, group)
            role = group["metadata"]["labels"]["app.kubernetes.io/component"]
            nodes = [c for c in expansion.commands if c.role == role]
            spec = group["spec"]["leaderWorkerTemplate"]
            assert spec["size"] == len(nodes)
            assert spec["restartPolicy"] == "RecreateGroupOnPodRestart"
            assert group["spec"]["startupPolicy"] == "LeaderCreated"
            assert [c["metadata"]["name"] for c in spec["volumeClaimTemplates"]] == ["models", "compile"]
            for part in ("leaderTemplate", "workerTemplate"):
                assert [v["name"] for v in spec[part]["spec"]["volumes"]] == ["shm"]  # the caches are claims per pod
                for release in k8s.KUBERNETES_RELEASES:
                    _validate(_as_deployment(spec[part]), release)
            assert "<" not in json.dumps(group), "a placeholder is left"
            seen += 1
        for document in (d for _n, d in _documents(written) if d["kind"] == "Service"):
            if document["metadata"]["labels"]["app.kubernetes.io/name"].endswith(tuple(f"-{r}" for r in spanning)):
                assert document["spec"]["selector"][k8s.LWS_INDEX_LABEL] == "0"
    assert seen


def test_a_leader_worker_sets_pods_run_the_head_and_the_followers_commands():
    """The leader's container runs the head's command; the worker's runs the first follower's
    less its node rank, which it reads from LWS_WORKER_INDEX; the head's address is
    LWS_LEADER_ADDRESS in every pod; a headless follower has no probes (nothing answers)."""
    recipe = load(MULTINODE)
    for target in page_of(recipe).targets:
        expansion = expansion_at(recipe, target, target.opening)
        written = selection_files(expansion, None, SPANNING)
        for group in _groups(written):
            spec = group["spec"]["leaderWorkerTemplate"]
            role = group["metadata"]["labels"]["app.kubernetes.io/component"]
            head, *followers = [c for c in expansion.commands if c.role == role]
            (leader,) = spec["leaderTemplate"]["spec"]["containers"]
            (worker,) = spec["workerTemplate"]["spec"]["containers"]
            dropped = {"devices", "cache", "kv-events"}
            kept = [
                w
                for line in head.arg_lines
                if k8s.line_kind("arg", line.text) not in dropped
                for w in shell.words(line.text)
            ]
            assert leader["args"] == [head.model, *map(k8s.kube_text, kept)]
            first = followers[0]
            kept = [
                w
                for line in first.arg_lines
                if k8s.line_kind("arg", line.text) not in dropped | {"node-rank"}
                for w in shell.words(line.text)
            ]
            extra = worker["args"][1 + len(kept) :]
            assert worker["args"][: 1 + len(kept)] == [first.model, *map(k8s.kube_text, kept)]
            if "--node-rank" in first.shell:
                assert extra == [f"--node-rank=$({k8s.LWS_WORKER_INDEX})"]
            else:
                assert extra == []
            for container in (leader, worker):
                env = {e["name"]: e for e in container["env"]}
                for name in recipe.placeholder_heads:
                    if f"<{name}>" in head.shell:
                        assert env[name]["value"] == f"$({k8s.LWS_LEADER_ADDRESS})"
            assert ("startupProbe" in worker) == client.serves(first)
            assert "startupProbe" in leader


@pytest.mark.parametrize("path", [*PATHS, MULTINODE], ids=lambda p: p.stem)
def test_the_panels_node_figures_are_what_each_nodes_pods_ask_for(path):
    """What the panel says each node must offer (the figures recipebook-files.js recomputes from
    each node's containers per pod) is what the engine says its pods ask for: a worker's node
    of a LeaderWorkerSet included (it had no pods, so the page said NaN CPUs)."""
    recipe = load(path)
    settings = k8s.settings_of(None, {})
    for target in page_of(recipe).targets:
        view = explorer_view.explorer_view(
            target,
            recipe=recipe.name,
            gid="g",
            axis_text=lambda axis: (axis.name, {v: v for v in axis.values}),
            _=lambda t: t,
            files_href="f/",
            source=recipe,
        )
        assert view.manifests is not None
        for variant in view.manifests.variants:
            for need in variant.nodes:
                assert need.pods, (target.strategy.slug, need.words)
                text = explorer_view.view_needs(
                    view.manifests.node_words, need.npus, need.pods, need.sidecars, settings
                )
                assert not re.search(r"NaN|(?<!\d)0 CPUs", text), text
        chosen = target.opening
        steps = [cmd for _n, cmd in target.router]
        router = k8s.router_of(steps)
        plans = k8s.plans(by_role(target.commands_at(chosen)), target.role_nodes, router)
        needs = {n.node: n for n in k8s.node_needs(plans, settings, router)}
        (opening,) = [v for v in view.manifests.variants if v.opening][:1]
        for shown, need in zip(opening.nodes, needs.values(), strict=True):
            cpu = sum(n * int(k8s.share("cpu", settings["cpu"], n)) for n in shown.pods) + shown.sidecars
            assert (shown.npus, cpu) == (need.npus, need.cpu), shown.words


def _three_nodes(locals_: tuple[int, int, int] = (8, 8, 8)) -> dict:
    """The fixture's data-parallel strategy over three nodes of the given local ranks: the
    followers start where the nodes before them end."""
    data = json.loads(MULTINODE.read_text(encoding="utf-8"))
    strategy = next(s for s in data["strategies"] if s["slug"] == "dp-headless")
    strategy["nodes"] = "3"
    (role,) = strategy["options"][0]["grid"]["base"]
    role["args"]["--data-parallel-size"] = f"--data-parallel-size {sum(locals_)}"
    del role["args"]["--data-parallel-size-local"]
    role["nodes"] = [
        {
            "args": {
                **({"--headless": "--headless"} if k else {}),
                "--data-parallel-size-local": f"--data-parallel-size-local {n}",
                **({"--data-parallel-start-rank": f"--data-parallel-start-rank {sum(locals_[:k])}"} if k else {}),
            }
        }
        for k, n in enumerate(locals_)
    ]
    role["varies"] = ["--headless", "--data-parallel-start-rank"] + (
        ["--data-parallel-size-local"] if len(set(locals_)) > 1 else []
    )
    role["scale"] = "3 nodes"
    strategy["options"][0]["npus"] = sum(locals_)
    return data


def _pairs(words: list[str]) -> list[tuple[str, ...]]:
    """A command's words as (flag, value) pairs in order of flags, however each is spelt."""
    out, i = [], 0
    while i < len(words):
        word = words[i]
        if word.startswith("--") and "=" in word:
            out.append(tuple(word.split("=", 1)))
        elif word.startswith("--") and i + 1 < len(words) and not words[i + 1].startswith("--"):
            out.append((word, words[i + 1]))
            i += 1
        else:
            out.append((word,))
        i += 1
    return sorted(out)


@pytest.mark.parametrize("locals_", [(8, 8, 8), (4, 2, 6)])
def test_each_worker_adds_its_own_per_node_lines_as_its_follower_says(tmp_path, locals_):
    """With more than one worker whose start ranks (or local sizes) differ, /bin/sh in front of
    the launcher adds worker k's own, chosen by LWS_WORKER_INDEX: run by the real shell with
    each index, the worker's argv says what follower k's command says. The workers ask for the
    most NPUs a follower uses; the files read as Kubernetes reads them, in both NPU modes."""
    path = tmp_path / "Kimi-K2-Instruct.json"
    path.write_text(json.dumps(_three_nodes(locals_)), encoding="utf-8")
    recipe = load(path)
    target = page_of(recipe).target("dp-headless", "Throughput")
    expansion = expansion_at(recipe, target, target.opening)
    followers = [c for c in expansion.commands if c.role == "main"][1:]
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    containers = importlib.import_module("tools.crosscheck.containers")
    for mode in k8s.MODES:
        settings = {**SPANNING, "npu": mode}
        written = selection_files(expansion, None, settings)
        assert not manifests.problems(written, nodes=expansion.nodes, needs=_needs(expansion, settings))
        (group,) = _groups(written)
        crds.validate(crds.LWS, group)
        (worker,) = group["spec"]["leaderWorkerTemplate"]["workerTemplate"]["spec"]["containers"]
        assert worker["command"][:2] == ["/bin/sh", "-c"] and "LWS_WORKER_INDEX" in worker["command"][2]
        if mode == "device-plugin":
            assert worker["resources"]["requests"][k8s.NPU_RESOURCE] == max(locals_[1:])
        for k, follower in enumerate(followers, start=1):
            env = containers.resolved_env(
                worker["env"], {k8s.LWS_LEADER_ADDRESS: "10.0.0.1", k8s.LWS_WORKER_INDEX: str(k)}
            )
            launcher, argv = containers.worker_argv(worker, env)
            assert list(launcher) == shell.words(follower.launcher)
            words = [w.replace("<HEAD_IP>", "10.0.0.1") for t in follower.args for w in shell.words(t)]
            assert _pairs(list(argv)) == _pairs([follower.model, *words]), k
        # an index the group does not have stops the worker instead of running another's command
        env = containers.resolved_env(worker["env"], {k8s.LWS_WORKER_INDEX: "7"})
        with pytest.raises(subprocess.CalledProcessError):
            containers.worker_argv(worker, env)
    changes = {d.what for d in k8s.differences(k8s.plans(expansion.roles(), expansion.nodes, None), None)}
    assert ("spare" in changes) == (len(set(locals_[1:])) > 1)


def test_followers_one_template_cannot_run_are_refused_at_their_line():
    """A LeaderWorkerSet runs every worker from one template: followers that differ in a line
    other than their node rank and start rank are refused (rule 28), never written."""
    data = json.loads(MULTINODE.read_text(encoding="utf-8"))
    strategy = next(s for s in data["strategies"] if s["slug"] == "tp-pp-across-nodes")
    nodes = strategy["options"][0]["grid"]["change_base"]["main"]["nodes"]
    nodes[2]["args"]["--node-rank"], nodes[3]["args"]["--node-rank"] = "--node-rank 3", "--node-rank 2"
    found = k8s.group_findings("main", _spanning_commands(data, "tp-pp-across-nodes"))
    assert found == []  # rule 24 refuses node ranks out of order (checking/spanning.py), once
    data = json.loads(MULTINODE.read_text(encoding="utf-8"))
    strategy = next(s for s in data["strategies"] if s["slug"] == "tp-pp-across-nodes")
    strategy["options"][0]["grid"]["change_base"]["main"]["nodes"][3]["args"]["--max-num-seqs"] = "--max-num-seqs 4"
    found = k8s.group_findings("main", _spanning_commands(data, "tp-pp-across-nodes"))
    assert [f.at for f in found] == [("role", "main")]
    assert "one template" in found[0].message


def _spanning_commands(data: dict, slug: str) -> list:
    recipe = Recipe.from_json(data, "Kimi-K2-Instruct.json")
    target = page_of(recipe).targets[[t.strategy.slug for t in page_of(recipe).targets].index(slug)]
    return [c for c in target.commands_at(target.opening) if c.role == "main"]


def test_an_inference_pool_the_crd_refuses_is_refused():
    good = {"router": {"modelServers": {"matchLabels": {"llm-d.ai/guide": "pd"}, "targetPorts": [{"number": 8000}]}}}
    crds.validate(crds.INFERENCE_POOL, crds.inference_pool(good, "router"))
    for servers in (
        {"matchLabels": {}},  # selects nothing: minProperties 1
        {"matchLabels": {"app": "not a label value"}},
        {"matchLabels": {"app": "x"}, "targetPorts": [{"number": 0}]},
        {"matchLabels": {"app": "x"}, "targetPorts": [{"number": 8000 + i} for i in range(9)]},  # maxItems 8
    ):
        with pytest.raises(jsonschema.ValidationError):
            crds.validate(crds.INFERENCE_POOL, crds.inference_pool({"router": {"modelServers": servers}}, "router"))


# -- the browser writes what the engine writes, with any settings ---------------------------

RUNNER = """
const files = require(process.argv[2]);
let input = "";
process.stdin.on("data", (chunk) => { input += chunk; });
process.stdin.on("end", () => {
  const job = JSON.parse(input);
  const out = job.cases.map(([t, selection, settings]) =>
    files.build({ recipe: job.recipe, target: job.targets[t] }, selection, {}, settings));
  process.stdout.write(JSON.stringify(out));
});
"""

SETTINGS = [
    {},
    {"npu": "dra", "storage-class": "fast-nvme", "namespace": "serving", "server-image": "r.example.com/v:1"},
    {"cpu": "48", "memory": "300Gi", "shm": "16Gi", "model-cache": "1Ti", "compile-cache": "600Gi", "gateway": "gw"},
    {
        "sidecar-image": "r.example.com/proxy@sha256:" + "a" * 64,
        "hf-secret": "token.v2",
        "cpu": "7",
        "memory": "1000Mi",
        "shm": "1Mi",
    },
]


@pytest.mark.parametrize("path", [*PATHS, MULTINODE], ids=lambda p: p.stem)
def test_the_browser_writes_the_engines_manifests_for_any_settings(tmp_path, path):
    """The page's script writes the engine's files for any settings: Deployments and, for the
    multi-node fixture, LeaderWorkerSets."""
    node = shutil.which("node")
    assert node, "make test installs nodejs (tools/system-packages)"
    recipe = load(path)
    document = json.loads(json.dumps(portable.recipe_document(page_of(recipe))))
    cases, expected = [], []
    for t, target in enumerate(page_of(recipe).targets):
        for k, chosen in enumerate(target.table.offered):
            if k % 4 and tuple(chosen) != target.opening:
                continue
            settings = SETTINGS[k % len(SETTINGS)]
            expansion = expansion_at(recipe, target, chosen)
            cases.append([t, dict(expansion.selection), settings])
            expected.append(
                {n: v for n, v in selection_files(expansion, None, settings).items() if n.startswith("kubernetes/")}
            )
    runner = tmp_path / "runner.js"
    runner.write_text(RUNNER)
    job = {"recipe": recipe.name, "targets": document["targets"], "cases": cases}
    result = subprocess.run(
        [node, str(runner), str(SCRIPT)], input=json.dumps(job), capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    got = json.loads(result.stdout)
    for case, mine, theirs in zip(cases, got, expected, strict=True):
        mine = {n: v for n, v in mine.items() if n.startswith("kubernetes/")}
        assert list(mine) == list(theirs), case
        for name in theirs:
            assert mine[name] == theirs[name], (case, name)


def test_the_api_document_as_a_script_files_the_same_document_under_its_name(tmp_path):
    node = shutil.which("node")
    assert node
    recipe = load(PATHS[0])
    document = portable.recipe_document(page_of(recipe))
    script = tmp_path / "doc.js"
    script.write_text(portable.document_script(recipe.name, document))
    probe = f"global.window = global; require({json.dumps(str(script))}); process.stdout.write(JSON.stringify(window.RecipeDocuments))"
    result = subprocess.run([node, "-e", probe], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {recipe.name: json.loads(json.dumps(document))}


# -- where readers get them: the page, its .md view ---------------------------------------------

LANGUAGES = ("en", "ko")


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_page_and_its_view_say_what_the_manifests_target(site: Path, language: str) -> None:
    from bs4 import BeautifulSoup

    for path in PATHS:
        html = (site / language / "recipes" / f"{path.stem}.html").read_text(encoding="utf-8")
        panel = " ".join(p.get_text() for p in BeautifulSoup(html, "html.parser").select("section.rb-k8s-panel"))
        view = (site / language / "recipes" / f"{path.stem}.md").read_text(encoding="utf-8")
        for text in (panel, view):
            assert k8s.APPLY in text
            for version in (k8s.KUBERNETES, k8s.DEVICE_PLUGIN, k8s.LLM_D, k8s.NPU_RESOURCE):
                assert version in text, (path.stem, language, version)


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_panel_follows_roles_and_nodes_and_is_linked_from_it(site: Path, language: str) -> None:
    from bs4 import BeautifulSoup

    for path in PATHS:
        soup = BeautifulSoup(
            (site / language / "recipes" / f"{path.stem}.html").read_text(encoding="utf-8"), "html.parser"
        )
        for form in soup.select("form.rb-grid"):
            panel = form.select_one("section.rb-k8s-panel")
            assert panel is not None
            serving = form.select("div.rb-serving")
            assert serving and all(
                s.sourceline < panel.sourceline or (s.sourceline == panel.sourceline and s.sourcepos < panel.sourcepos)
                for s in serving
            )
            links = form.select("a.rb-k8s-link")
            assert links and {a["href"] for a in links} == {f"#{panel['id']}"}
            operator = panel.select_one(".rb-k8s-note a")["href"]
            assert (site / language / "recipes" / operator).resolve() == (site / language / "kubernetes.html").resolve()


def _with_settings_line_by_line(text: str, settings: dict) -> str:
    """with_settings as it was written, line by line: the reference."""

    def value(match: re.Match[str]) -> str:
        name, parts = match.group(1), int(match.group(2) or 1)
        return k8s.share(name, settings.get(name) or "", parts) or k8s.UNSET.get(name, "")

    def line(row: str) -> str | None:
        match = re.fullmatch(r" *[A-Za-z]+: '@\{([a-z-]+)\}'", row)
        setting = k8s.SETTING.get(match.group(1)) if match else None
        if setting is not None and setting.empty and not settings.get(setting.name):
            return None
        return k8s._SETTING.sub(value, row)

    rows = (line(row) for row in text.split("\n"))
    return "\n".join(row for row in rows if row is not None)


_ROWS = st.sampled_from(
    [
        "",
        "  storageClassName: '@{storage-class}'",
        "storageClassName: '@{storage-class}'",
        "  namespace: '@{namespace}'",
        "  cpu: '@{cpu/3}'",
        "  memory: '@{memory/2}' '@{storage-class}'",
        "  name: '@{nothing}'",
        " a b: '@{storage-class}'",
        "kind: Deployment",
        "  image: '@{server-image}'",
    ]
)


@hypothesis.settings(max_examples=200, deadline=None)
@hypothesis.given(rows=st.lists(_ROWS, max_size=8), given_class=st.booleans())
def test_settings_go_into_a_skeleton_as_line_by_line(rows, given_class):
    """with_settings reads the skeleton at once (a line whose only value is an empty setting's
    marker left out with its newline, the markers then replaced): what it writes is what reading
    it line by line writes, whatever line comes last and whether the text ends in a newline."""
    chosen = k8s.settings_of({"storage-class": "fast"} if given_class else {}, {"model-cache": "10Gi"})
    for text in ("\n".join(rows), "\n".join(rows) + "\n"):
        assert k8s.with_settings(text, chosen) == _with_settings_line_by_line(text, chosen)


def test_every_skeleton_takes_its_settings_as_line_by_line():
    """The skeletons of every target of a shipped recipe (P/D and aggregated), in both modes,
    with the default settings and with a storage class: with_settings writes what reading them
    line by line does."""
    recipe = load(ROOT / "recipes" / f"{_router_recipe()}.json")
    for page in page_of(recipe).targets:
        for _products, files in k8s.target_files(page, recipe):
            for mode, texts in files.items():
                for chosen_here in ({"npu": mode}, {"npu": mode, "storage-class": "fast"}):
                    chosen = k8s.settings_of(chosen_here, {"model-cache": "10Gi", "compile-cache": "20Gi"})
                    for text in texts.values():
                        assert k8s.with_settings(text, chosen) == _with_settings_line_by_line(text, chosen)


def _typed(value):
    """A read document as a value that equals another only when both hold the same types and
    values in the same order (1, 1.0 and True apart; nan equal to nan)."""
    if isinstance(value, dict):
        return ("dict", [(_typed(k), _typed(v)) for k, v in value.items()])
    if isinstance(value, list):
        return ("list", [_typed(v) for v in value])
    return (type(value).__name__, repr(value))


def _read_as_pyyaml(text: str):
    try:
        return [_typed(d) for d in yaml.load_all(text, Loader=yaml.CSafeLoader) if d is not None]
    except Exception as error:  # a YAML error, or a constructor's (!!float x)
        return ("error", type(error).__name__, str(error))


def _read_by_documents(text: str):
    try:  # the remembered function's own reading: the text is read afresh
        return [_typed(d) for d in manifests.documents.__wrapped__(text)]
    except Exception as error:
        return ("error", type(error).__name__, str(error))


# pieces of YAML: what manifests are made of, and what the fast reading leaves to PyYAML's loader
_SCALAR_TEXTS = st.sampled_from(
    [
        "x", "'x'", '"x"', "8000", "'8000'", "0x1F", "0o17", "017", "1_000", "190:20:30", "-0", "+12",
        "1.5", ".inf", "-.Inf", ".nan", "1e3", "true", "False", "yes", "No", "on", "OFF", "y", "~", "null",
        "''", "2026-12-07", "2026-12-07 11:00:00", "<<", "=", "!!str 1", "!!int '7'", "!!float 1",
        "!custom x", "!!binary aGk=", "&a x", "*a", "'a: b'", '"\\u00e9"', "- x", "{a: 1}", "[1, 2]",
        "? [a]", "@x", "'unclosed", "'$(POD_IP)'", "a b c", "",
    ]
)  # fmt: skip


@st.composite
def _yaml_texts(draw):
    rows = []
    for _ in range(draw(st.integers(1, 8))):
        indent = "  " * draw(st.integers(0, 2))
        form = draw(st.sampled_from(["key", "item", "marker", "end", "plain"]))
        value = draw(_SCALAR_TEXTS)
        key = draw(st.sampled_from(["name", "port", "1", "true", "<<", "'q'", "? k", "&k a"]))
        rows.append(
            {
                "key": f"{indent}{key}: {value}",
                "item": f"{indent}- {value}",
                "marker": "---",
                "end": "...",
                "plain": f"{indent}{value}",
            }[form]
        )
    return "\n".join(rows) + draw(st.sampled_from(["", "\n"]))


@hypothesis.settings(max_examples=300, deadline=None)
@hypothesis.given(text=_yaml_texts())
def test_documents_are_read_as_pyyamls_safe_loader_reads_them(text):
    """manifests.documents reads a text of mappings, sequences and untagged scalars from the
    parser's events, and leaves any other (an anchor, an alias, a tag, a complex or merge key, a
    float, a timestamp, an error) to PyYAML's safe loader: what it gives is what the loader
    gives, types and order included, or the loader's own error."""
    assert _read_by_documents(text) == _read_as_pyyaml(text)


def test_every_selections_files_are_read_as_pyyamls_safe_loader_reads_them():
    """Every Kubernetes file of the shipped recipes' selections (both modes): documents gives
    what PyYAML's safe loader gives, and reads the manifests (not the router's values, which
    the recipe writes) from the parser's events, not leaving them to the loader."""
    read = 0
    for path in PATHS:
        for _recipe, _target, expansion in _selections(path, every=7):
            for mode in k8s.MODES:
                for name, text in selection_files(expansion, None, {**IMAGE, "npu": mode}).items():
                    if name.startswith("kubernetes/") and name.endswith(".yaml"):
                        assert _read_by_documents(text) == _read_as_pyyaml(text), name
                        read += not name.startswith(k8s.ROUTER_FOLDER)
                        if not name.startswith(k8s.ROUTER_FOLDER):  # the manifests: read from the events
                            manifests._plain_documents(text)
    assert read
