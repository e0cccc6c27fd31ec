"""Kubernetes manifests of every offered selection (``recipebook/rendering/kubernetes.py``).

Every manifest validates, strictly (an unknown field is an error), against the Kubernetes API
schemas of the pinned release shipped by kubernetes-validate, offline; each container runs
exactly the command ``expand`` gives for its rank, asks for the NPUs its arguments use, and
for prefill/decode the pods carry the router values' labels and serve on its targetPorts. A
recipe whose router misses its servers is refused at the router's targetPorts.
"""

from __future__ import annotations

import functools
import re
import subprocess
import sys
from pathlib import Path

import jsonschema
import kubernetes_validate
import kubernetes_validate.utils
import pytest
import yaml
from referencing import Registry, Resource

import crds
from recipebook import shell
from recipebook.expanding import client
from recipebook.expanding.page import expansion_at, page_of
from recipebook.pipeline.load import check_file, load
from recipebook.rendering import kubernetes
from recipebook.rendering.files import selection_files
from test_browser_explorer import open_tabs

ROOT = Path(__file__).resolve().parents[1]
PATHS = sorted(p for p in (ROOT / "recipes").glob("*.json") if p.name != "schema.json")


def _expected_word(word: str) -> str:
    """What a container must hold for a word of the command: Kubernetes' $(NAME) for <NAME>."""
    out = word.replace("$(", "$$(")
    for name in shell.placeholders(word):
        out = out.replace(f"<{name}>", f"$({name})")
    return out


@functools.cache
def _validator(kind: str, api_version: str) -> jsonschema.Validator:
    """kubernetes_validate.validate's strict validator for one kind, built once: it reads the
    release's schema and its 5 MB of definitions on every call otherwise."""
    version = re.sub(r"^([^./]*)(?:\.[^/]*)?/", r"\1-", api_version)
    folder = f"kubernetes-json-schema/v{kubernetes.KUBERNETES_SCHEMAS}-local-strict"
    read = kubernetes_validate.utils.schema_contents
    schema = read(f"{folder}/{kind.lower()}-{version}.json", kubernetes.KUBERNETES_SCHEMAS)
    definitions = read(f"{folder}/_definitions.json", kubernetes.KUBERNETES_SCHEMAS)
    registry = Resource.from_contents(definitions) @ (Resource.from_contents(schema) @ Registry())
    return jsonschema.validators.Draft202012Validator(schema, registry=registry)


def _validate(manifest: dict) -> None:
    try:
        _validator(manifest["kind"], manifest["apiVersion"]).validate(manifest)
    except jsonschema.ValidationError as error:
        raise kubernetes_validate.ValidationError(error, version=kubernetes.KUBERNETES) from None


def test_the_cached_validator_judges_as_kubernetes_validate_does():
    path = next(p for p in PATHS if "targetPorts" in p.read_text(encoding="utf-8"))
    _recipe, _target, expansion = next(_selections(path))
    manifest = next(iter(_manifests(expansion).values()))
    kubernetes_validate.validate(manifest, kubernetes.KUBERNETES_SCHEMAS, strict=True)
    _validate(manifest)
    manifest["spec"]["template"]["spec"]["containers"][0]["npus"] = 1  # strict: an unknown field
    for judge in (lambda m: kubernetes_validate.validate(m, kubernetes.KUBERNETES_SCHEMAS, strict=True), _validate):
        with pytest.raises(kubernetes_validate.ValidationError):
            judge(manifest)


def _selections(path: Path, every: int = 1):
    recipe = load(path)
    for target in page_of(recipe).targets:
        for k, chosen in enumerate(target.table.offered):
            if k % every == 0 or tuple(chosen) == target.opening:
                yield recipe, target, expansion_at(recipe, target, chosen)


def _manifests(expansion) -> dict[str, dict]:
    written = selection_files(expansion)
    return {
        name: yaml.load(text, Loader=yaml.CSafeLoader)
        for name, text in written.items()
        if name.startswith(f"{kubernetes.FOLDER}/") and name.count("/") == 1
    }


@pytest.mark.parametrize("path", PATHS, ids=lambda p: p.stem)
def test_every_selections_manifests_validate_strictly_and_run_its_commands(path):
    validated: set[str] = set()
    for _recipe, target, expansion in _selections(path):
        manifests = _manifests(expansion)
        assert set(manifests) == {f"kubernetes/{role}.yaml" for role, _c in expansion.roles()}
        by_rank = {kubernetes.container_name(c): c for c in expansion.commands}
        for manifest in manifests.values():
            text = yaml.safe_dump(manifest, sort_keys=True)
            if text not in validated:  # selections that share a manifest are validated once
                _validate(manifest)
                validated.add(text)
            pod = manifest["spec"]["template"]["spec"]
            for container in pod["containers"]:
                command = by_rank.pop(container["name"])
                words = [w for arg in command.args for w in shell.words(arg)]
                assert container["command"] == shell.words(command.launcher)
                assert container["args"] == [command.model, *map(_expected_word, words)]
                env = {e["name"]: e.get("value") for e in container["env"] if "value" in e}
                for line in command.envs:
                    key, value = shell.words(line)[0].split("=", 1)
                    assert env[key] == _expected_word(value)
                assert all(isinstance(v, str) for v in env.values())
                npus = container["resources"]["requests"][kubernetes.NPU_RESOURCE]
                assert npus == container["resources"]["limits"][kubernetes.NPU_RESOURCE] == client.npus(command)
                port = client.port(command)
                for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
                    assert container[probe]["httpGet"] == {"path": "/health", "port": port}
                budget = container["startupProbe"]["periodSeconds"] * container["startupProbe"]["failureThreshold"]
                assert budget >= kubernetes.ready_timeout(command)
                if "<POD_IP>" in command.shell:
                    assert {"name": "POD_IP", "valueFrom": {"fieldRef": {"fieldPath": "status.podIP"}}} in container[
                        "env"
                    ]
            terms = pod["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
            assert terms["nodeSelectorTerms"][0]["matchExpressions"][0]["key"] == kubernetes.PRODUCT_LABEL
            assert terms["nodeSelectorTerms"][0]["matchExpressions"][0]["values"] == list(target.target.skus)
        assert not by_rank, f"commands without a container: {sorted(by_rank)}"
        role_npus = {plan.role: plan.npus for plan in target.serving_at(target.index(expansion.selection)).roles}
        for role, _commands in expansion.roles():
            pod = manifests[f"kubernetes/{role}.yaml"]["spec"]["template"]["spec"]
            asked = sum(c["resources"]["requests"][kubernetes.NPU_RESOURCE] for c in pod["containers"])
            assert asked == role_npus[role]


@pytest.mark.parametrize("path", PATHS, ids=lambda p: p.stem)
def test_prefill_decode_pods_carry_the_routers_labels_and_ports(path):
    checked = 0
    for _recipe, _target, expansion in _selections(path):
        router = kubernetes.router_of([cmd for _n, cmd in expansion.router])
        if router is None:
            continue
        written = selection_files(expansion)
        values = yaml.load(written[f"kubernetes/router/{router.values_name}"], Loader=yaml.CSafeLoader)
        labels = values["router"]["modelServers"]["matchLabels"]
        ports = {p["number"] for p in values["router"]["modelServers"]["targetPorts"]}
        served: set[int] = set()
        for role, _c in expansion.roles():
            manifest = yaml.load(written[f"kubernetes/{role}.yaml"], Loader=yaml.CSafeLoader)
            pod = manifest["spec"]["template"]
            assert labels.items() <= pod["metadata"]["labels"].items()
            front = pod["spec"].get("initContainers") or pod["spec"]["containers"]
            role_ports = {p["containerPort"] for c in front for p in c["ports"]}
            assert role_ports <= ports
            served |= role_ports
        assert served == ports
        assert "helm install" in written["kubernetes/router/install.sh"]
        checked += 1
    router_targets = [t for t in page_of(load(path)).targets if kubernetes.router_of([c for _n, c in t.router])]
    assert bool(checked) == bool(router_targets)


def test_a_router_that_misses_its_servers_is_refused_at_its_target_ports(tmp_path):
    path = next(p for p in PATHS if "targetPorts" in p.read_text(encoding="utf-8"))
    text = path.read_text(encoding="utf-8")
    bad = text.replace("- number: 8000\\n", "- number: 9000\\n", 1)
    assert bad != text
    (tmp_path / path.name).write_text(bad, encoding="utf-8")
    (tmp_path / "schema.json").write_bytes((ROOT / "recipes" / "schema.json").read_bytes())
    recipe, problems = check_file(tmp_path / path.name)
    assert recipe is None
    found = [p for p in problems if "targetPorts" in p.message]
    assert found, problems
    line = next(n for n, row in enumerate(bad.splitlines(), 1) if "targetPorts" in row)
    assert {p.line for p in found} == {line}
    assert "8000" in found[0].message


def test_yaml_keeps_strings_strings():
    for word in ("on", "010", "8000", "yes", "null", "1e3", "- x", "a: b", "#c"):
        assert yaml.safe_load(kubernetes.line_fragment("arg", f"--x {shell_quote(word)}")) == ["--x", word]
        assert yaml.safe_load(kubernetes.line_fragment("env", f"X={shell_quote(word)}")) == [
            {"name": "X", "value": word}
        ]


def shell_quote(word: str) -> str:
    import shlex

    return shlex.quote(word)


def test_validation_is_strict():
    recipe = load(PATHS[0])
    target = page_of(recipe).targets[0]
    manifest = next(iter(_manifests(expansion_at(recipe, target, target.opening)).values()))
    manifest["spec"]["template"]["spec"]["containers"][0]["unknownField"] = 1
    with pytest.raises(kubernetes_validate.ValidationError):
        _validate(manifest)


def test_the_command_line_writes_the_kubernetes_folder(tmp_path):
    path = next(p for p in PATHS if "targetPorts" in p.read_text(encoding="utf-8"))
    recipe = load(path)
    target = next(t for t in page_of(recipe).targets if t.router)
    result = subprocess.run(
        [sys.executable, "-m", "recipebook", "files", str(path), "--strategy", target.strategy.slug,
         "--target", target.target.target, "--out", str(tmp_path / "out")],
        capture_output=True, text=True, cwd=ROOT, env={"PYTHONPATH": str(ROOT / "_ext"), "PATH": "/usr/bin:/bin"},
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    folder = tmp_path / "out" / "kubernetes"
    for role in target.roles:
        assert yaml.safe_load((folder / f"{role}.yaml").read_text())["kind"] == "Deployment"
    assert (folder / "router" / "install.sh").exists()


# -- where readers get them: the page, its .md view, the page's download --------------------

LANGUAGES = ("en", "ko")


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_page_and_its_view_say_what_the_manifests_target(site: Path, language: str) -> None:
    for path in PATHS:
        html = (site / language / "recipes" / f"{path.stem}.html").read_text(encoding="utf-8")
        view = (site / language / "recipes" / f"{path.stem}.md").read_text(encoding="utf-8")
        for text in (html, view):
            assert kubernetes.APPLY in text
            for version in (kubernetes.KUBERNETES, kubernetes.DEVICE_PLUGIN, kubernetes.LLM_D, kubernetes.NPU_RESOURCE):
                assert version in text, (path.stem, language, version)


def test_the_pages_download_holds_the_kubernetes_folder(site: Path, server: str, browser, tmp_path: Path) -> None:
    path = next(p for p in PATHS if "targetPorts" in p.read_text(encoding="utf-8"))
    recipe = load(path)
    target = next(t for t in page_of(recipe).targets if t.router)
    expected = selection_files(expansion_at(recipe, target, target.opening))
    for language in LANGUAGES:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(f"{server}/{language}/recipes/{path.stem}.html")
        form = page.locator(
            f'form.rb-grid[data-strategy="{target.strategy.slug}"][data-target="{target.target.target}"]'
        ).first
        gid = form.get_attribute("id")
        open_tabs(page, gid)
        form.locator("a.rb-dl").click()
        links = form.locator(".rb-dl-files li:not(.rb-dl-all) a")
        links.first.wait_for()
        names = links.all_text_contents()
        assert [n for n in names if n.startswith("kubernetes/")] == [n for n in expected if n.startswith("kubernetes/")]
        note = form.locator("p.rb-k8s")
        assert kubernetes.APPLY in note.text_content()
        for width in (375, 1280):
            page.set_viewport_size({"width": width, "height": 900})
            note.scroll_into_view_if_needed()
            page.screenshot(path=str(tmp_path / f"k8s-{language}-{width}.png"))
        page.close()


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
    lws = _leader_worker_set(_any_deployment())
    crds.validate(crds.LWS, lws)
    lws["spec"]["leaderWorkerTemplate"]["workerTemplate"]["spec"]["containers"][0]["npus"] = 1
    with pytest.raises(jsonschema.ValidationError):
        crds.validate(crds.LWS, lws)


def _any_deployment() -> dict:
    recipe = load(PATHS[0])
    target = page_of(recipe).targets[0]
    return next(iter(_manifests(expansion_at(recipe, target, target.opening)).values()))


def _leader_worker_set(deployment: dict, size: int = 2) -> dict:
    """A LeaderWorkerSet of a Deployment's pod (leader and workers alike)."""
    template = deployment["spec"]["template"]
    return {
        "apiVersion": "leaderworkerset.x-k8s.io/v1",
        "kind": "LeaderWorkerSet",
        "metadata": deployment["metadata"],
        "spec": {
            "replicas": 1,
            "leaderWorkerTemplate": {"size": size, "leaderTemplate": template, "workerTemplate": template},
        },
    }


def test_the_leader_worker_set_crd_takes_the_pods_the_manifests_run():
    """No role spans nodes (``kubernetes`` module docstring), so no LeaderWorkerSet is written;
    the pinned CRD takes each manifest's pod as a group's leader and workers, so a role that
    came to span nodes would find its pod template ready for one."""
    seen = 0
    for path in PATHS:
        for _recipe, _target, expansion in _selections(path, every=10**9):
            for manifest in _manifests(expansion).values():
                assert manifest["kind"] == "Deployment"
                crds.validate(crds.LWS, _leader_worker_set(manifest))
                seen += 1
    assert seen


@pytest.mark.parametrize("path", PATHS, ids=lambda p: p.stem)
def test_the_inference_pool_the_router_chart_renders_from_the_values_validates(path):
    """The router chart creates the InferencePool from the values file: built as its template
    builds it, the pool validates against the CRD, keeps its port numbers unique (the CRD's CEL
    rule) and selects every prefill and decode pod of the selection."""
    schema = crds.crd_schema(crds.INFERENCE_POOL)[2]["properties"]["spec"]["properties"]["targetPorts"]
    assert [v["rule"] for v in schema["x-kubernetes-validations"]] == [crds.CEL_UNIQUE_PORTS]
    recipe = load(path)
    checked = 0
    for target in page_of(recipe).targets:
        steps = [cmd for _n, cmd in target.router]
        router = kubernetes.router_of(steps)
        if router is None:
            continue
        values = yaml.safe_load(router.values_text)
        pool = crds.inference_pool(values, crds.release_name(steps))
        crds.validate(crds.INFERENCE_POOL, pool)
        assert crds.unique_ports(pool)
        assert pool["spec"]["selector"]["matchLabels"] == values["router"]["modelServers"]["matchLabels"]
        assert [p["number"] for p in pool["spec"]["targetPorts"]] == list(router.target_ports)
        expansion = expansion_at(recipe, target, target.opening)
        for role, _c in expansion.roles():
            if role in ("prefill", "decode"):
                labels = _manifests(expansion)[f"kubernetes/{role}.yaml"]["spec"]["template"]["metadata"]["labels"]
                assert pool["spec"]["selector"]["matchLabels"].items() <= labels.items()
        checked += 1
    assert bool(checked) == ("targetPorts" in path.read_text(encoding="utf-8"))


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
    twice = crds.inference_pool(
        {"router": {"modelServers": {"matchLabels": {"a": "b"}, "targetPorts": [{"number": 1}, {"number": 1}]}}}, "r"
    )
    assert not crds.unique_ports(twice)


# -- a role never spans nodes: a strategy that would need one is refused ----------------------


def _with_nodes(tmp_path: Path, path: Path, strategy: int, nodes: str) -> tuple[Path, int]:
    """A copy of a recipe whose strategy-th strategy spans ``nodes`` nodes, with that line."""
    import json

    data = json.loads(path.read_text(encoding="utf-8"))
    data["strategies"][strategy]["nodes"] = nodes
    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    out = tmp_path / path.name
    out.write_text(text, encoding="utf-8")
    (tmp_path / "schema.json").write_bytes((ROOT / "recipes" / "schema.json").read_bytes())
    marker = f'"nodes": "{nodes}"'
    lines = [n for n, row in enumerate(text.splitlines(), 1) if marker in row]
    assert len(lines) == 1
    return out, lines[0]


@pytest.mark.parametrize("path", PATHS, ids=lambda p: p.stem)
def test_a_strategy_with_more_nodes_than_roles_is_refused_at_its_nodes(tmp_path, path):
    """The page model puts every rank of a role on the role's one node (``client.node_of``); a
    strategy spanning more nodes than its roles would want a role over nodes, which would run
    as one pod of one Deployment: it is refused, at its ``nodes``, before any file is written."""
    recipe = load(path)
    index, roles = max(
        ((i, min(len(t.grid.base) for t in s.targets)) for i, s in enumerate(recipe.strategies)), key=lambda x: x[1]
    )
    more = str(roles + 1)
    copy, line = _with_nodes(tmp_path, path, index, more)
    found, problems = check_file(copy)
    assert found is None
    located = [p for p in problems if p.pointer == f"/strategies/{index}/nodes"]
    assert located and {p.line for p in located} == {line}, problems
    assert f"spans {more} nodes" in located[0].message
    # as many nodes as roles is what the recipes already do: taken
    if roles > 1:
        copy, _line = _with_nodes(tmp_path, path, index, str(roles))
        assert check_file(copy)[0] is not None
