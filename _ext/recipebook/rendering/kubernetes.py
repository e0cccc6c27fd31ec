"""Kubernetes manifests for one selection: a workload per role, running the selection's commands.

Each role of a selection becomes one Deployment of one pod (each role runs on one node, see
below), with one container per command (rank) that runs exactly that command: the launcher as the container's command, the model and every argument word as its
args, every env line as an env entry. Placeholders become what Kubernetes fills in:
``<POD_IP>`` the pod's IP from the downward API, any other ``<NAME>`` an env entry the reader
sets (``value: '<NAME>'``, or the reader's value), referenced as ``$(NAME)`` in args and env
values (a literal ``$(`` of a recipe is written ``$$(`` so Kubernetes leaves it alone). Each
container asks for the NPUs its own arguments use (``client.npus``) as the device plugin's
extended resource, the pod is scheduled by the ``rebellions.ai/npu.product`` label of the
target's SKUs, and its probes call the server's ``/health`` with a start-up budget that covers
``VLLM_ENGINE_READY_TIMEOUT_S`` (the compilation).

For prefill/decode (a router whose values select model servers) the pods carry the router
values' ``matchLabels`` and the role llm-d's filters read (``llm-d.ai/role``); a decode pod runs
llm-d's routing proxy as a sidecar that listens on the router's ``targetPorts`` and forwards
each to the decode rank on the matching port. Rule 19 (``checking/rules.router_problems``)
refuses a target whose servers the router would not reach; the router's values file and its
Helm steps come with the manifests.

A role that spans nodes (the recipe's ``nodes``: one command per node, ``Command.node``, rule
24) is one server across pods on several machines: a ``leaderworkerset.x-k8s.io/v1``
LeaderWorkerSet (size: its nodes; the leader runs the head's command, the workers the
followers'; the pinned CRD the tests hold takes this module's pod template). Until that lands
with the rewrite of this module (issue 38), such a role is written like any other, one
Deployment whose pod runs every node's command: not what a cluster should run.

One implementation for the command line and the page: a role's manifest is rendered with PyYAML
around a marker line per container's args and env (``skeleton``), and each command line has its
own YAML fragment (``line_fragment``); ``fill`` puts the fragments in. The site API carries the
skeletons (per set of selections that share them) and every line's fragment, and
``static/recipebook-files.js`` fills them the same way; the tests compare both for every
selection, and validate every manifest against the Kubernetes API schemas of ``KUBERNETES``.
"""

from __future__ import annotations

import dataclasses
import math
import re
import types
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import yaml

from .. import shell
from ..expanding import client
from ..expanding.expansion import Command, by_role
from ..expanding.page import TargetPage
from ..expanding.table import Product
from ..memo import Memo, remembered
from ..memo import get as memo_get
from . import yamltext

# A manifest or a part of one, as PyYAML writes it: mappings, lists and scalars nested freely.
Manifest = dict[str, Any]

# What the manifests target. The API schemas come from the kubernetes-validate package of this
# release (requirements.txt); Rebellions' cluster stack runs Kubernetes 1.34.3 or 1.35.1.
KUBERNETES = "1.35"
KUBERNETES_SCHEMAS = "1.35.0"
# RBLN device plugin: rebellions.ai/npu is its resource name since v0.4.0; older plugins (or
# useGenericResourceName: false) name the device type: rebellions.ai/ATOM, rebellions.ai/REBEL.
NPU_RESOURCE = "rebellions.ai/npu"
DEVICE_PLUGIN = "v0.4.0"
# rbln-npu-feature-discovery's node label with the device's product name (RBLN-CR13, ...).
PRODUCT_LABEL = "rebellions.ai/npu.product"
# llm-d: the router chart the recipes install and the routing proxy of its prefill/decode guide.
LLM_D = "v0.10.0"
ROLE_LABEL = "llm-d.ai/role"
VERSIONS = {"kubernetes": KUBERNETES, "device_plugin": DEVICE_PLUGIN, "llm_d": LLM_D, "npu_resource": NPU_RESOURCE}
# Images the reader names: the recipes pin vllm-rbln by version, not by image.
SERVER_IMAGE = "<VLLM_RBLN_IMAGE>"
SIDECAR_IMAGE = "<ROUTING_SIDECAR_IMAGE>"
IMAGES = ("VLLM_RBLN_IMAGE", "ROUTING_SIDECAR_IMAGE")
# vLLM waits this long for its engine when VLLM_ENGINE_READY_TIMEOUT_S is unset.
READY_TIMEOUT_DEFAULT = 600
READY_TIMEOUT = "VLLM_ENGINE_READY_TIMEOUT_S"
# Beyond the engine's own wait: loading the weights before it starts counting.
STARTUP_MARGIN = 900
STARTUP_PERIOD = 30
HEALTH_PATH = "/health"
SHM_LIMIT = "64Gi"
FOLDER = "kubernetes"
APPLY = f"kubectl apply -f {FOLDER}/"
ROUTER_FOLDER = f"{FOLDER}/router"
POD_IP = "POD_IP"
_MARK = re.compile(r"^( *)- RECIPEBOOK-(ARGS|ENV)-([a-z0-9-]+)\n", re.MULTILINE)


class KubernetesError(ValueError):
    """A selection Kubernetes cannot run as the recipe says (a router that misses its servers)."""


# -- YAML: one scalar per line, so a fragment reads the same wherever it is put ------------


class _Dumper(yaml.SafeDumper):
    def ignore_aliases(self, data: Any) -> bool:
        return True  # every manifest spells its labels out (no &anchors)


def _str(dumper: yaml.SafeDumper, text: str) -> yaml.ScalarNode:
    if "\n" in text:
        style = '"'
    elif shell.PLACEHOLDER.search(text):
        style = "'"  # a reader's value goes in here: it stays a string whatever it is (on, 010)
    else:
        style = None
    return dumper.represent_scalar("tag:yaml.org,2002:str", str(text), style=style)


_Dumper.add_representer(str, _str)


def dump(data: Any) -> str:
    """YAML of a manifest: block style, keys in the given order, no line folded (libyaml writes it
    when it writes the same text: yamltext)."""
    return yamltext.dump(data, _Dumper)


def kube_text(text: str) -> str:
    """A recipe's text as Kubernetes reads args and env values: ``<NAME>`` -> ``$(NAME)``."""
    return shell.PLACEHOLDER.sub(r"$(\1)", text.replace("$(", "$$("))


def env_pair(text: str) -> tuple[str, str]:
    """An env line (``NAME=value``, shell-quoted) as its name and value."""
    words = shell.words(text)
    name, sep, value = (words[0] if len(words) == 1 else "").partition("=")
    if not sep:
        raise KubernetesError(f"not one NAME=value assignment: {text!r}")
    return name, value


@remembered(maxsize=8192)
def line_fragment(kind: str, text: str) -> str:
    """The YAML of one command line inside its container: an argument's words as args items,
    an env line as an env entry; unindented (``fill`` indents it). Kept per line: the selections
    of a target share most of their lines."""
    if kind == "arg":
        return dump([kube_text(word) for word in shell.words(text)])
    name, value = env_pair(text)
    return dump([{"name": name, "value": kube_text(value)}])


# -- the manifests ------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True, kw_only=True)
class Router:
    """What a prefill/decode router reaches: its values file and where it sends requests."""

    values_name: str
    values_text: str
    match_labels: Mapping[str, str]
    target_ports: tuple[int, ...]
    steps: tuple[str, ...]  # the router steps other than writing the values file


def router_of(steps: Sequence[str]) -> Router | None:
    """The router values of a target's router steps, when they select model servers."""
    for name, values in shell.here_documents(steps).items():
        try:
            data = yaml.safe_load(values.text)
        except yaml.YAMLError:
            continue
        servers = ((data or {}).get("router") or {}).get("modelServers") if isinstance(data, dict) else None
        if not isinstance(servers, dict) or not isinstance(servers.get("matchLabels"), dict):
            continue
        numbers = tuple(p.get("number") for p in servers.get("targetPorts") or () if isinstance(p, dict))
        ports = tuple(p for p in numbers if isinstance(p, int))
        if len(ports) < len(numbers):
            continue
        labels = {str(k): str(v) for k, v in servers["matchLabels"].items()}
        rest = tuple(step for step in steps if f"cat > {name}" not in step)
        return Router(values_name=name, values_text=values.text, match_labels=labels, target_ports=ports, steps=rest)
    return None


def _dns(text: str, limit: int = 63) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:limit].rstrip("-") or "x"


def ready_timeout(command: Command) -> int:
    for text in command.envs:
        name, value = env_pair(text)
        if name == READY_TIMEOUT and value.isdigit():
            return int(value)
    return READY_TIMEOUT_DEFAULT


def startup_failures(command: Command) -> int:
    """Start-up probe failures allowed: the engine's ready timeout and the margin, in periods."""
    return math.ceil((ready_timeout(command) + STARTUP_MARGIN) / STARTUP_PERIOD)


def sidecar_ports(router: Router, commands: Sequence[Command]) -> tuple[int, ...]:
    first = router.target_ports[0] if router.target_ports else client.DEFAULT_PORT
    return tuple(first + i for i in range(len(commands)))


def _placeholder_env(command: Command) -> list[Manifest]:
    found = shell.placeholders("\n".join((*command.envs, *command.args)))
    entries: list[Manifest] = []
    for name in found:
        if name == POD_IP:
            entries.append({"name": POD_IP, "valueFrom": {"fieldRef": {"fieldPath": "status.podIP"}}})
        else:
            entries.append({"name": name, "value": f"<{name}>"})
    return entries


def _probe(port: int, **more: int) -> Manifest:
    return {"httpGet": {"path": HEALTH_PATH, "port": port}, **more}


def _container(command: Command) -> Manifest:
    port = client.port(command)
    launcher = shell.words(command.launcher)
    return {
        "name": _dns(command.name),
        "image": SERVER_IMAGE,
        "command": launcher,
        "args": [command.model, f"RECIPEBOOK-ARGS-{_dns(command.name)}"],
        "env": [*_placeholder_env(command), *([f"RECIPEBOOK-ENV-{_dns(command.name)}"] if command.envs else [])],
        "ports": [{"name": "http", "containerPort": port, "protocol": "TCP"}],
        "resources": {
            "requests": {NPU_RESOURCE: client.npus(command)},
            "limits": {NPU_RESOURCE: client.npus(command)},
        },
        "volumeMounts": [{"name": "shm", "mountPath": "/dev/shm"}],
        "startupProbe": _probe(port, periodSeconds=STARTUP_PERIOD, failureThreshold=startup_failures(command)),
        "readinessProbe": _probe(port, periodSeconds=5, failureThreshold=3),
        "livenessProbe": _probe(port, periodSeconds=10, timeoutSeconds=5, failureThreshold=3),
    }


def _sidecar(router: Router, commands: Sequence[Command]) -> Manifest:
    ports = sidecar_ports(router, commands)
    return {
        "name": "routing-proxy",
        "image": SIDECAR_IMAGE,
        "restartPolicy": "Always",
        "args": [
            f"--port={ports[0]}",
            f"--vllm-port={client.port(commands[0])}",
            f"--data-parallel-size={len(commands)}",
            "--kv-connector=nixlv2",
            "--secure-proxy=false",
        ],
        "ports": [{"name": f"proxy-{i}", "containerPort": p, "protocol": "TCP"} for i, p in enumerate(ports)],
    }


@dataclasses.dataclass(frozen=True, kw_only=True)
class Where:
    """Names and scheduling of a selection's workloads."""

    recipe: str
    strategy: str
    target: str
    skus: tuple[str, ...]


def _header(where: Where, role: str, node: int) -> str:
    return (
        f"# {where.recipe}: {where.strategy} / {where.target}, role {role} (node {node})\n"
        f"# Kubernetes {KUBERNETES}; NPUs as {NPU_RESOURCE} (RBLN device plugin {DEVICE_PLUGIN} or later; older\n"
        "# plugins name rebellions.ai/ATOM or rebellions.ai/REBEL); llm-d router chart "
        f"{LLM_D}.\n"
        f"# Set the images: <{IMAGES[0]}>"
        + (f" and <{IMAGES[1]}>" if role == "decode" else "")
        + f". Apply with: {APPLY}\n"
    )


def skeleton(where: Where, role: str, node: int, commands: Sequence[Command], router: Router | None) -> str:
    """A role's Deployment with a marker line where each container's argument words and env
    lines go (``fill``)."""
    name = _dns(f"{where.recipe}-{where.strategy}-{where.target}-{role}")
    labels = {"app.kubernetes.io/name": name, "app.kubernetes.io/component": _dns(role)}
    disaggregated = router is not None and role in ("prefill", "decode")
    if router is not None and disaggregated:
        labels = {**labels, **router.match_labels, ROLE_LABEL: role}
    budget = max(STARTUP_PERIOD * startup_failures(c) for c in commands)
    pod: Manifest = {
        "affinity": {
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [
                        {"matchExpressions": [{"key": PRODUCT_LABEL, "operator": "In", "values": list(where.skus)}]}
                    ]
                }
            }
        },
    }
    if router is not None and disaggregated and role == "decode":
        pod["initContainers"] = [_sidecar(router, commands)]
    pod["containers"] = [_container(c) for c in commands]
    pod["volumes"] = [{"name": "shm", "emptyDir": {"medium": "Memory", "sizeLimit": SHM_LIMIT}}]
    manifest = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "labels": labels},
        "spec": {
            "replicas": 1,
            "strategy": {"type": "Recreate"},  # the old pod holds the NPUs the new one needs
            "progressDeadlineSeconds": budget + 60,
            "selector": {"matchLabels": {"app.kubernetes.io/name": name}},
            "template": {"metadata": {"labels": labels}, "spec": pod},
        },
    }
    return _header(where, role, node) + dump(manifest)


def fill(text: str, lines: Mapping[str, tuple[Sequence[str], Sequence[str]]]) -> str:
    """A skeleton with each container's fragments in place of its marker lines; ``lines`` maps a
    container's name to the fragments of its args and of its env lines."""

    def put(match: re.Match[str]) -> str:
        indent, kind, name = match.groups()
        fragments = lines[name][0 if kind == "ARGS" else 1]
        body = "".join(fragments)
        return "".join(indent + row + "\n" for row in body.split("\n")[:-1])

    return _MARK.sub(put, text)


def router_files(router: Router) -> dict[str, str]:
    """The router's values file and its Helm steps, to run from that folder."""
    steps = "\n".join(router.steps)
    install = f'#!/usr/bin/env bash\n# After {APPLY}: the llm-d router ({LLM_D}).\nset -euo pipefail\ncd "$(dirname "$0")"\n{steps}\n'
    return {f"{ROUTER_FOLDER}/{router.values_name}": router.values_text, f"{ROUTER_FOLDER}/install.sh": install}


def skeletons(
    where: Where,
    roles: Sequence[tuple[str, Sequence[Command]]],
    nodes: Mapping[str, int],
    router_steps: Sequence[str],
) -> dict[str, str]:
    """Every manifest file of a selection, with marker lines (and the router's files)."""
    router = router_of(router_steps)  # one that reaches every server (rule 19: rules.router_problems)
    out = {
        f"{FOLDER}/{_dns(role)}.yaml": skeleton(where, role, nodes.get(role, 1), commands, router)
        for role, commands in roles
    }
    if router is not None:
        out.update(router_files(router))
    return out


def fragments_of(command: Command) -> tuple[list[str], list[str]]:
    return (
        [line_fragment("arg", text) for text in command.args],
        [line_fragment("env", text) for text in command.envs],
    )


def manifests(
    where: Where,
    roles: Sequence[tuple[str, Sequence[Command]]],
    nodes: Mapping[str, int],
    router_steps: Sequence[str],
) -> dict[str, str]:
    """Every Kubernetes file of a selection, by path (``kubernetes/<role>.yaml``, the router's)."""
    lines = {_dns(c.name): fragments_of(c) for _role, commands in roles for c in commands}
    return {name: fill(text, lines) for name, text in skeletons(where, roles, nodes, router_steps).items()}


def container_name(command: Command) -> str:
    return _dns(command.name)


# -- per target: the skeletons every selection shares ---------------------------------------


def _command_key(c: Command) -> tuple[object, ...]:
    return (
        c.role,
        c.name,
        c.launcher,
        c.model,
        client.port(c),
        client.npus(c),
        startup_failures(c),
        tuple(shell.placeholders("\n".join((*c.envs, *c.args)))),
        bool(c.envs),
    )


def _key(commands: Sequence[Command], known: dict[tuple[object, ...], tuple[object, ...]]) -> tuple[object, ...]:
    """What a selection's skeletons read of its commands (the rest is in the line fragments);
    `known`: each command's part by what it is made of (the selections of a target share most
    of their commands)."""
    parts = []
    for c in commands:
        made_of = (c.role, c.rank, c.launcher, c.model, c.envs, c.args)
        part = known.get(made_of)
        if part is None:
            part = known[made_of] = _command_key(c)
        parts.append(part)
    return tuple(parts)


def variants(
    where: Where,
    offered: Sequence[Sequence[int]],
    commands_at: Callable[[Sequence[int]], tuple[Command, ...]],
    nodes: Mapping[str, int],
    router_steps: Sequence[str],
) -> list[tuple[int, dict[str, str]]]:
    """The skeleton files of a target, each with the set of its selections (bit i: the i-th of
    ``offered``) that share them; each distinct set is rendered once."""
    bits: dict[tuple[object, ...], int] = {}
    first: dict[tuple[object, ...], tuple[Command, ...]] = {}
    known: dict[tuple[object, ...], tuple[object, ...]] = {}
    for bit, chosen in enumerate(offered):
        commands = commands_at(chosen)
        key = _key(commands, known)
        bits[key] = bits.get(key, 0) | 1 << bit
        first.setdefault(key, commands)
    merged: dict[tuple[tuple[str, str], ...], int] = {}
    rendered: dict[tuple[tuple[str, str], ...], dict[str, str]] = {}
    for key, set_bits in bits.items():
        files = skeletons(where, by_role(first[key]), nodes, router_steps)
        text_key = tuple(files.items())
        merged[text_key] = merged.get(text_key, 0) | set_bits
        rendered[text_key] = files
    return [(set_bits, rendered[key]) for key, set_bits in merged.items()]


TargetFiles = tuple[tuple[tuple[Product, ...], Mapping[str, str]], ...]


def target_files(target: TargetPage, recipe: str, memo: Memo | None = None) -> TargetFiles:
    """The Kubernetes skeleton files of a target page, each with the selections that share them
    (``variants``; () for every selection when there is one), once per target page and memo."""
    return memo_get(memo, _target_files, target, recipe)


def _target_files(target: TargetPage, recipe: str) -> TargetFiles:
    where = Where(recipe=recipe, strategy=target.strategy.slug, target=target.target.target, skus=target.target.skus)
    found = variants(
        where, target.table.offered, target.commands_at, target.role_nodes, [cmd for _n, cmd in target.router]
    )
    return tuple(
        (() if len(found) == 1 else target.table.products(bits), types.MappingProxyType(files)) for bits, files in found
    )


def node_of_file(path: str, nodes: Mapping[str, int]) -> int | None:
    """The node whose values a manifest takes (a role's file), None for the router's files."""
    by_file = {f"{FOLDER}/{_dns(role)}.yaml": node for role, node in nodes.items()}
    return by_file.get(path)
