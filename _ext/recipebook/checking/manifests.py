"""What the Kubernetes manifests must keep beyond the API schemas, and the rules that refuse a
recipe whose data would break them.

``problems`` reads a selection's rendered files as Kubernetes and the router chart would: every
name a DNS-1123 name, unique per kind and namespace; every label key and value of its syntax
and a string; every Deployment selecting its own pods; every port a probe, a Service or the
router's pool targets served by every pod it selects, and the pool selecting exactly the
prefill and decode pods on the ports they serve; every volume mount with its volume, every
claim with its template, every ``$(NAME)`` with its env entry; every number within int32;
the CPU, memory and NPUs each node's pods ask for equal to what the page says the node must
offer. The tests run it on every selection of every recipe; rule 28 runs it in ``validate`` on
the files of each set of selections that share them, in both NPU modes.

Rules 19 and 28 refuse the data that ``rendering/kubernetes.py`` finds would make a wrong
manifest (``Finding``), each at its JSON pointer.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

import yaml

from .. import shell
from ..expanding import client
from ..expanding.expansion import Command, by_role, walkable
from ..expanding.page import grid_table
from ..memo import Memo, remembered
from ..memo import get as memo_get
from ..problems import Problem, pointer_join
from ..reading.model import Recipe, Strategy, Target
from ..reading.source import Document
from ..rendering import kubernetes as k8s
from ..rendering.files import substitute, value_problem

_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_REFERENCE = re.compile(r"(?<!\$)\$\(([A-Za-z_][A-Za-z0-9_]*)\)")
_PORT_NAME = re.compile(r"(?=.{1,15}$)(?=.*[a-z])[a-z0-9]+(?:-[a-z0-9]+)*")
_DNS_LABEL = re.compile(r"[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?")
_DNS_SUBDOMAIN = re.compile(r"(?=.{1,253}$)[a-z0-9](?:[-a-z0-9]*[a-z0-9])?(?:\.[a-z0-9](?:[-a-z0-9]*[a-z0-9])?)*")
_SHORT_NAMES = {"Service", "Namespace"}  # a DNS-1123 label; the others a subdomain
_QUANTITY = re.compile(r"([0-9]+)(Ki|Mi|Gi|Ti)?")
_UNITS = {None: 1, "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40}


def _bytes(quantity: object) -> int | None:
    match = _QUANTITY.fullmatch(str(quantity))
    return int(match.group(1)) * _UNITS[match.group(2)] if match else None


def _ints(value: Any, path: str) -> Iterator[tuple[str, int]]:
    if isinstance(value, bool):
        return
    if isinstance(value, int):
        yield path, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _ints(item, f"{path}.{key}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _ints(item, f"{path}[{i}]")


def _outside_int32(value: Any) -> bool:
    """Whether ``_ints`` would find an int outside 0..INT32 in a value (the same walk): a
    document seldom holds one, and ``_ints`` names the path of every int on its way."""
    if type(value) is str or isinstance(value, bool):
        return False
    if isinstance(value, int):
        return not 0 <= value <= k8s.INT32
    if isinstance(value, dict):
        for item in value.values():
            if _outside_int32(item):
                return True
    elif isinstance(value, list):
        for item in value:
            if _outside_int32(item):
                return True
    return False


def _labels_problems(labels: Any, where: str) -> list[str]:
    if not isinstance(labels, dict):
        return [f"{where}: labels are not a mapping"]
    out = []
    for key, value in labels.items():
        why = k8s.label_key_problem(key) or k8s.label_value_problem(value)
        if why:
            out.append(f"{where}: {why}")
    return out


def _selects(selector: Mapping[str, str], labels: Mapping[str, str]) -> bool:
    return bool(selector) and all(labels.get(k) == v for k, v in selector.items())


def _pod_ports(pod: Mapping[str, Any]) -> tuple[set[int], set[str]]:
    numbers: set[int] = set()
    names: set[str] = set()
    for container in (*pod.get("initContainers", ()), *pod.get("containers", ())):
        for port in container.get("ports", ()):
            numbers.add(port.get("containerPort"))
            if "name" in port:
                names.add(port["name"])
    return numbers, names


def _named_port(pod: Mapping[str, Any], name: str) -> int | None:
    for container in (*pod.get("initContainers", ()), *pod.get("containers", ())):
        for port in container.get("ports", ()):
            if port.get("name") == name:
                number = port.get("containerPort")
                return number if isinstance(number, int) else None
    return None


def _container_problems(
    container: Mapping[str, Any], pod: Mapping[str, Any], where: str, group: Mapping[str, Any] | None = None
) -> list[str]:
    out = []
    name = container.get("name", "")
    if not _DNS_LABEL.fullmatch(str(name)):
        out.append(f"{where}: container name {name!r} is not a DNS-1123 label")
    env = container.get("env", [])
    # a LeaderWorkerSet's controller puts its variables first in every container's env
    names = [*(k8s.LWS_ENV if group is not None else ()), *(e.get("name") for e in env)]
    given = len(names) - len(env)
    if len(names) != len(set(names)):
        out.append(f"{where}: container {name} sets an env name twice")
    for i, entry in enumerate(env):
        for ref in _REFERENCE.findall(str(entry.get("value", ""))):
            if ref not in names[: given + i]:
                out.append(f"{where}: env {entry.get('name')} refers to $({ref}), which no earlier env entry sets")
        secret = (entry.get("valueFrom") or {}).get("secretKeyRef")
        if secret and not secret.get("optional"):
            out.append(f"{where}: env {entry.get('name')} needs a Secret that the files do not create")
    for word in (*container.get("command", ()), *container.get("args", ())):
        for ref in _REFERENCE.findall(str(word)):
            if ref not in names:
                out.append(f"{where}: container {name} refers to $({ref}), which its env does not set")
    declared = {p.get("containerPort") for p in container.get("ports", ())}
    declared_names = {p.get("name") for p in container.get("ports", ())}
    for port in container.get("ports", ()):
        number = port.get("containerPort")
        if type(number) is not int or not 1 <= number <= 65535:
            out.append(f"{where}: container {name} port {number!r} is not 1-65535")
        if "name" in port and not _PORT_NAME.fullmatch(str(port["name"])):
            out.append(f"{where}: port name {port['name']!r} is not an IANA service name")
    for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
        target = ((container.get(probe) or {}).get("httpGet") or {}).get("port")
        if probe in container and target not in declared and target not in declared_names:
            out.append(f"{where}: the {probe} of {name} calls port {target!r}, which the container does not serve")
    volumes = {v.get("name") for v in pod.get("volumes", ())}
    volumes |= {c.get("metadata", {}).get("name") for c in (group or {}).get("volumeClaimTemplates", ())}
    for mount in container.get("volumeMounts", ()):
        if mount.get("name") not in volumes:
            out.append(f"{where}: container {name} mounts {mount.get('name')!r}, which the pod has no volume for")
    resources = container.get("resources", {})
    requests, limits = resources.get("requests", {}), resources.get("limits", {})
    for key in ("cpu", "memory", k8s.NPU_RESOURCE):
        if str(requests.get(key)) != str(limits.get(key)):
            out.append(
                f"{where}: container {name} asks for {key} {requests.get(key)!r} but is limited to {limits.get(key)!r}"
            )
    claims = {c.get("name") for c in pod.get("resourceClaims", ())}
    for claim in resources.get("claims", ()):
        if claim.get("name") not in claims:
            out.append(f"{where}: container {name} uses claim {claim.get('name')!r}, which the pod does not claim")
    return out


def _pod_problems(
    pod: Mapping[str, Any],
    where: str,
    objects: Sequence[Mapping[str, Any]],
    namespace: str,
    group: Mapping[str, Any] | None = None,
) -> list[str]:
    out = []
    containers = [*pod.get("initContainers", ()), *pod.get("containers", ())]
    names = [c.get("name") for c in containers]
    if len(names) != len(set(names)):
        out.append(f"{where}: two containers share a name")
    port_names = [p.get("name") for c in containers for p in c.get("ports", ()) if "name" in p]
    if len(port_names) != len(set(port_names)):
        out.append(f"{where}: two ports of the pod share a name")
    numbers = [p.get("containerPort") for c in containers for p in c.get("ports", ())]
    if len(numbers) != len(set(numbers)):
        out.append(f"{where}: two containers of the pod declare one port")
    for container in containers:
        out += _container_problems(container, pod, where, group)
    claims = {
        o["metadata"]["name"]
        for o in objects
        if o.get("kind") == "PersistentVolumeClaim" and o["metadata"].get("namespace") == namespace
    }
    templates = {
        o["metadata"]["name"]: o
        for o in objects
        if o.get("kind") == "ResourceClaimTemplate" and o["metadata"].get("namespace") == namespace
    }
    for volume in pod.get("volumes", ()):
        claim = (volume.get("persistentVolumeClaim") or {}).get("claimName")
        if claim is not None and claim not in claims:
            out.append(f"{where}: volume {volume.get('name')} names the claim {claim!r}, which the files do not create")
    memory = sum(_bytes(c.get("resources", {}).get("limits", {}).get("memory")) or 0 for c in pod.get("containers", ()))
    for volume in pod.get("volumes", ()):
        empty = volume.get("emptyDir") or {}
        if empty.get("medium") == "Memory" and (_bytes(empty.get("sizeLimit")) or 0) >= memory:
            out.append(f"{where}: the memory-backed volume {volume.get('name')} is not smaller than the pod's memory")
    for entry in pod.get("resourceClaims", ()):
        template = templates.get(entry.get("resourceClaimTemplateName"))
        if template is None:
            out.append(
                f"{where}: the pod claims from template {entry.get('resourceClaimTemplateName')!r}, which the files do not create"
            )
            continue
        requests = {r["name"] for r in template["spec"]["spec"]["devices"]["requests"]}
        for container in containers:
            for claim in container.get("resources", {}).get("claims", ()):
                if (
                    claim.get("name") == entry.get("name")
                    and claim.get("request", next(iter(requests))) not in requests
                ):
                    out.append(
                        f"{where}: container {container.get('name')} uses request {claim.get('request')!r}, which the template lacks"
                    )
    return out


@remembered(maxsize=256)
def documents(text: str) -> tuple[Any, ...]:
    """The documents of one YAML file as PyYAML's safe loader reads it, empty ones left out.

    Remembered (256 texts): the selections of a target, its two NPU modes and a recipe checked
    again write the same files, and a text is read here far more often than it is written
    differently (the rules' tests: 6,852 reads of 466 texts). The documents are shared by every
    caller that reads the same text: none may change them (``problems`` only reads them); a
    caller that would change one works on a copy (``copy.deepcopy``)."""
    try:
        read = _plain_documents(text)
    except (_NotPlain, yaml.YAMLError):
        read = list(yaml.load_all(text, Loader=_LOADER))
    return tuple(document for document in read if document is not None)


class _NotPlain(Exception):
    """A text ``_plain_documents`` leaves to PyYAML's loader."""


class _Mapping:
    """A mapping being read, and the key whose value comes next."""

    __slots__ = ("key", "mapping")

    def __init__(self, mapping: dict[Any, Any]) -> None:
        self.mapping = mapping
        self.key: Any = _NO_KEY


_NO_KEY = object()
_CONSTRUCTOR = yaml.constructor.SafeConstructor()
_STR = "tag:yaml.org,2002:str"
# the tags of a plain scalar that are read here, each by the safe loader's own constructor
_SCALARS = {
    tag: yaml.constructor.SafeConstructor.yaml_constructors[tag]
    for tag in ("tag:yaml.org,2002:int", "tag:yaml.org,2002:bool", "tag:yaml.org,2002:null")
}


_OTHER = object()  # a plain scalar that is not read here


@remembered(maxsize=1 << 14)
def _plain_value(value: str) -> Any:
    """A plain scalar as the safe loader builds it: the text when the safe resolver
    (``k8s.scalar_tag``, whose table the dumper fills with the same texts) tags it a string,
    else built by the safe loader's own constructor when an int, a bool or null (all immutable,
    so one value serves every reading); _OTHER for any other tag. Remembered: a manifest
    repeats its keys and most of its values."""
    tag = k8s.scalar_tag(value)
    if tag == _STR:
        return value
    if tag in _SCALARS:
        return _SCALARS[tag](_CONSTRUCTOR, yaml.ScalarNode(tag, value))
    return _OTHER


_SCALAR_EVENT = yaml.ScalarEvent
_MAPPING_START, _SEQUENCE_START = yaml.MappingStartEvent, yaml.SequenceStartEvent
_COLLECTION_END = (yaml.MappingEndEvent, yaml.SequenceEndEvent)
_DOCUMENT_START = yaml.DocumentStartEvent
_PASSED = (yaml.DocumentEndEvent, yaml.StreamStartEvent, yaml.StreamEndEvent)


def _plain_documents(text: str) -> list[Any]:
    """The documents of a YAML text as PyYAML's safe loader builds them, from the events of its
    parser, for a text of mappings, sequences and untagged scalars only: a plain scalar resolved
    by its resolver to a string, or built by its constructor when an int, a bool or null, a
    quoted one a string. Raises _NotPlain at anything else (an anchor, an alias, a tag, a key
    that is not a scalar, a merge key, a float, a timestamp), and PyYAML's error at a text it
    cannot parse, for the caller to read it with the loader itself. Two to three times faster
    than the loader, which composes nodes and builds each object through generators. (Each
    event is read as the type it is: a parse makes a million of them, and the event classes
    are bound once.)"""
    out: list[Any] = []
    stack: list[Any] = []  # the lists and _Mappings being read
    top: Any = None  # the last of them
    event: Any
    for event in yaml.parse(text, Loader=_LOADER):
        value: Any
        kind = type(event)
        if kind is _SCALAR_EVENT:
            tag = event.tag
            if event.anchor is not None or tag not in (None, "!"):
                raise _NotPlain
            if tag is None and event.implicit[0]:
                value = _plain_value(event.value)
                if value is _OTHER:
                    raise _NotPlain
            else:
                value = event.value
        elif kind in _COLLECTION_END:
            stack.pop()
            top = stack[-1] if stack else None
            continue
        elif kind is _MAPPING_START or kind is _SEQUENCE_START:
            if event.anchor is not None or event.tag not in (None, "!"):
                raise _NotPlain
            value = {} if kind is _MAPPING_START else []
        elif kind is _DOCUMENT_START:
            if event.tags:
                raise _NotPlain
            continue
        elif kind in _PASSED:
            continue
        else:
            raise _NotPlain  # an alias
        if not stack:
            out.append(value)
        elif type(top) is list:
            top.append(value)
        elif top.key is _NO_KEY:
            if type(value) is dict or type(value) is list:
                raise _NotPlain  # a complex key
            top.key = value
        else:
            top.mapping[top.key] = value
            top.key = _NO_KEY
        if type(value) is dict:
            top = _Mapping(value)
            stack.append(top)
        elif type(value) is list:
            top = value
            stack.append(top)
    return out


def problems(
    files: Mapping[str, str],
    *,
    nodes: Mapping[str, int] | None = None,
    needs: Sequence[k8s.NodeNeeds] = (),
) -> list[str]:
    """Every way a selection's Kubernetes files would not run as the page says (``files``: the
    selection's files by name, the Kubernetes ones read as YAML); ``nodes`` maps a role to its
    node, ``needs`` is what the page says each node must offer."""
    objects: list[dict[str, Any]] = []
    owner: dict[int, str] = {}
    for name, text in files.items():
        if (
            not name.startswith(f"{k8s.FOLDER}/")
            or not name.endswith(".yaml")
            or name.startswith(f"{k8s.ROUTER_FOLDER}/")
        ):
            continue
        for document in documents(text):
            owner[len(objects)] = name
            objects.append(document)
    out: list[str] = []
    seen: set[tuple[str, str, str]] = set()
    pods: list[tuple[str, dict[str, Any], dict[str, Any]]] = []  # (file, deployment, template)
    for index, obj in enumerate(objects):
        kind, meta = obj.get("kind", ""), obj.get("metadata", {})
        name, namespace = str(meta.get("name")), str(meta.get("namespace", ""))
        where = f"{owner[index]}: {kind} {name}"
        pattern = _DNS_LABEL if kind in _SHORT_NAMES else _DNS_SUBDOMAIN
        if not pattern.fullmatch(name):
            out.append(f"{where}: the name is not a DNS-1123 {'label' if kind in _SHORT_NAMES else 'name'}")
        if (kind, namespace, name) in seen:
            out.append(f"{where}: two objects of kind {kind} share the name")
        seen.add((kind, namespace, name))
        out += _labels_problems(meta.get("labels", {}), where)
        if _outside_int32(obj):
            for path, number in _ints(obj, kind):
                if not 0 <= number <= k8s.INT32:
                    out.append(f"{where}: {path} = {number} is outside int32")
        if kind == "Deployment":
            template = obj["spec"]["template"]
            selector = obj["spec"]["selector"].get("matchLabels", {})
            out += _labels_problems(selector, f"{where} selector")
            out += _labels_problems(template["metadata"].get("labels", {}), f"{where} pod")
            if not _selects(selector, template["metadata"].get("labels", {})):
                out.append(f"{where}: its selector {selector} does not select its own pods")
            out += _pod_problems(template["spec"], where, objects, namespace)
            pods.append((owner[index], obj, template))
        if kind == "LeaderWorkerSet":
            group = obj["spec"]["leaderWorkerTemplate"]
            for part, index_label in (("leaderTemplate", "0"), ("workerTemplate", "1")):
                template = group.get(part) or group["workerTemplate"]
                out += _labels_problems(template["metadata"].get("labels", {}), f"{where} {part}")
                out += _pod_problems(template["spec"], f"{where} {part}", objects, namespace, group)
                # the labels the controller adds to each pod (the worker index "0" is the leader's)
                labels = {
                    **template["metadata"].get("labels", {}),
                    k8s.LWS_NAME_LABEL: name,
                    k8s.LWS_INDEX_LABEL: index_label,
                }
                pods.append((owner[index], obj, {**template, "metadata": {**template["metadata"], "labels": labels}}))
            for claim in group.get("volumeClaimTemplates", ()):
                mounted = {
                    m.get("name")
                    for part in ("leaderTemplate", "workerTemplate")
                    for c in (group.get(part) or {}).get("spec", {}).get("containers", ())
                    for m in c.get("volumeMounts", ())
                }
                if claim["metadata"]["name"] not in mounted:
                    out.append(f"{where}: volumeClaimTemplate {claim['metadata']['name']} is mounted by no container")
    for index, obj in enumerate(objects):
        if obj.get("kind") != "Service":
            continue
        where = f"{owner[index]}: Service {obj['metadata']['name']}"
        selector = obj["spec"].get("selector") or {}
        chosen = [t for _f, _d, t in pods if _selects(selector, t["metadata"].get("labels", {}))]
        if not chosen:
            out.append(f"{where}: selects no pod")
        for port in obj["spec"].get("ports", ()):
            target = port.get("targetPort", port.get("port"))
            for template in chosen:
                numbers, names = _pod_ports(template["spec"])
                if target not in numbers and target not in names:
                    out.append(f"{where}: port {target!r} is not served by every pod it selects")
    out += _pool_problems(files, pods)
    out += _node_problems(pods, nodes or {}, needs)
    return out


def pool_of(files: Mapping[str, str]) -> dict[str, Any] | None:
    """The router's pool as the chart renders it from the values files in the order install.sh
    gives them (the recipe's, then the cluster's): its selector (values quoted: strings) and
    its target ports."""
    router = {name: text for name, text in files.items() if name.startswith(f"{k8s.ROUTER_FOLDER}/")}
    if not router:
        return None
    cluster = f"{k8s.ROUTER_FOLDER}/{k8s.CLUSTER_VALUES}"
    recipe = next(name for name in router if name.endswith(".yaml") and name != cluster)
    labels: dict[str, str] = {}
    ports: list[int] = []
    for name in (recipe, cluster):
        servers = ((yaml.load(router[name], Loader=_LOADER) or {}).get("router") or {}).get("modelServers") or {}
        labels.update({str(k): str(v) for k, v in (servers.get("matchLabels") or {}).items()})
        if "targetPorts" in servers:
            ports = [p["number"] for p in servers["targetPorts"]]
    return {"selector": labels, "targetPorts": ports or [client.DEFAULT_PORT]}


def _pool_problems(files: Mapping[str, str], pods: Sequence[tuple[str, dict[str, Any], dict[str, Any]]]) -> list[str]:
    pool = pool_of(files)
    if pool is None:
        return []
    out = []
    selector, targets = pool["selector"], pool["targetPorts"]
    chosen = [(f, d, t) for f, d, t in pods if _selects(selector, t["metadata"].get("labels", {}))]
    roles = {t["metadata"]["labels"].get(k8s.ROLE_LABEL) for _f, _d, t in chosen}
    meant = {f for f, _d, t in pods if t["metadata"].get("labels", {}).get(k8s.ROLE_LABEL) in k8s.DISAGGREGATED}
    if {f for f, _d, _t in chosen} != meant:
        out.append(
            f"the router's pool {selector} selects {sorted(f for f, _d, _t in chosen)}, not the prefill and decode pods {sorted(meant)}"
        )
    if not {"prefill", "decode"} <= roles:
        out.append(f"the router's pool selects the roles {sorted(r for r in roles if r)}, not prefill and decode")
    active_union: set[int] = set()
    for name, _deployment, template in chosen:
        annotation = (template["metadata"].get("annotations") or {}).get(k8s.ACTIVE_PORTS)
        active = (
            {int(p) for p in str(annotation).split(",") if p.strip().isdigit()} & set(targets)
            if annotation
            else set(targets)
        )
        numbers, _names = _pod_ports(template["spec"])
        if not active:
            out.append(f"{name}: the pool reaches the pod on none of its targetPorts {targets}")
        for port in sorted(active - numbers):
            out.append(f"{name}: the pool sends requests to port {port}, which the pod does not serve")
        active_union |= active
    for port in sorted(set(targets) - active_union):
        out.append(f"the router's targetPort {port} is served by no pod")
    return out


def _node_problems(
    pods: Sequence[tuple[str, dict[str, Any], dict[str, Any]]], nodes: Mapping[str, int], needs: Sequence[k8s.NodeNeeds]
) -> list[str]:
    if not needs:
        return []
    out = []
    by_role = {
        (
            t["metadata"]["labels"].get("app.kubernetes.io/component"),
            t["metadata"]["labels"].get(k8s.LWS_INDEX_LABEL, "0"),
        ): t
        for _f, _d, t in pods
    }
    for need in needs:
        cpu = memory = npus = 0
        for role in need.roles:
            part = "1" if role in need.workers else "0"
            template = by_role.get((k8s.label_value(k8s.dns(role)), part))
            if template is None:
                out.append(f"node {need.node}: role {role} has no pod")
                continue
            for container in (*template["spec"].get("initContainers", ()), *template["spec"].get("containers", ())):
                requests = container.get("resources", {}).get("requests", {})
                cpu += int(str(requests.get("cpu", 0)))
                memory += _bytes(requests.get("memory", 0)) or 0
                npus += int(requests.get(k8s.NPU_RESOURCE, 0))
        if (cpu, memory) != (need.cpu, need.memory):
            out.append(
                f"node {need.node}: its pods ask for {cpu} CPU and {memory} B, the page says {need.cpu} and {need.memory}"
            )
        if npus and npus != need.npus:
            out.append(f"node {need.node}: its pods ask for {npus} NPUs, the page says {need.npus}")
    del nodes
    return out


# -- the rules ------------------------------------------------------------------------------


def _nodes(strategy: Strategy, target: Target) -> dict[str, int]:
    roles = target.grid.base
    where = client.placement([role.nodes for role in roles], strategy.nodes)
    return {role.role: nodes[0] for role, nodes in zip(roles, where, strict=True)}


def _where(recipe: Recipe, strategy: Strategy, target: Target) -> k8s.Where:
    checkpoint = recipe.facts.checkpoint(target.grid.model) if recipe.facts else None
    return k8s.Where(
        recipe=recipe.name,
        strategy=strategy.slug,
        target=target.target,
        skus=target.skus,
        model=target.grid.model,
        checkpoint_bytes=checkpoint.total if checkpoint else None,
        heads=tuple(recipe.placeholder_heads),
    )


def _target_findings(
    recipe: Recipe, strategy: Strategy, target: Target, memo: Memo | None
) -> tuple[tuple[k8s.Finding, ...], tuple[str, ...]]:
    """The findings of every selection of a target (each distinct set of roles once) and the
    problems of the files of each distinct skeleton in both modes, worked out once per target and
    memo (rules 19 and 28 read them both)."""
    return memo_get(memo, _findings_of_target, recipe, strategy, target, memo)


def _findings_of_target(
    recipe: Recipe, strategy: Strategy, target: Target, memo: Memo | None
) -> tuple[tuple[k8s.Finding, ...], tuple[str, ...]]:
    if not walkable(target.grid):
        return (), ()  # rule 11 refuses a target of too many selections
    steps = tuple(step.cmd for step in target.grid.router)
    if any(shell.bash_syntax_error(cmd) for cmd in steps):
        return (), ()  # rule 10 reports it
    lines, _wrong = grid_table(target.grid, memo)
    if not _readable(lines):
        return (), ()  # rule 4 reports the text that does not split into words
    where = _where(recipe, strategy, target)
    nodes = _nodes(strategy, target)
    router = k8s.router_of(steps)
    found: dict[tuple[Any, ...], k8s.Finding] = {}
    good: dict[tuple[Any, ...], tuple[Any, ...]] = {}
    if not k8s.distinct_roles(lines):
        # two roles of one name (rule 1 refuses it): their commands are planned as one role's
        for chosen in lines.offered:
            roles = by_role(lines.commands(chosen))
            role_plans = k8s.plans(roles, nodes, router)
            record(found, good, tuple(k8s.plan_key(p) for p in role_plans), where, roles, role_plans, router)
        return tuple(found.values()), semantic_problems(good.values(), where, nodes, steps)
    # a selection whose plan key was met before is not recorded again (record keeps the first
    # selection of each); one of a new key is, its roles planned from its own commands
    for chosen, key, made in k8s.selection_keys(lines, nodes, router):
        if key in good:
            continue
        for index, table in enumerate(lines.roles):
            if index not in made:
                made[index] = k8s.planned_role(table, chosen, nodes, router)
        parts = [made[index] for index in range(len(lines.roles))]
        roles = [(table.role, list(commands)) for table, (commands, _plan) in zip(lines.roles, parts, strict=True)]
        record(found, good, key, where, roles, [plan for _commands, plan in parts], router)
    return tuple(found.values()), semantic_problems(good.values(), where, nodes, steps)


def record(
    found: dict[tuple[Any, ...], k8s.Finding],
    good: dict[tuple[Any, ...], tuple[Any, ...]],
    key: tuple[Any, ...],
    where: k8s.Where,
    roles: Sequence[tuple[str, Sequence[Command]]],
    role_plans: Sequence[k8s.RolePlan],
    router: k8s.Router | None,
) -> None:
    """A selection's plans, once per plan key: their findings added to found (each once), and the
    roles and plans kept in good when they have none (an empty entry when they have)."""
    if key in good:
        return
    findings = k8s.findings_of(where, roles, role_plans, router)
    for finding in findings:
        found.setdefault((finding.at, finding.message), finding)
    good[key] = (roles, role_plans) if not findings else ()


def semantic_problems(
    planned: Iterable[tuple[Any, ...]],
    where: k8s.Where,
    nodes: Mapping[str, int],
    steps: tuple[str, ...],
) -> tuple[str, ...]:
    """The problems of the files of each distinct plan of a target (its roles and their plans;
    an empty entry: a plan with findings, whose files are not read), in both NPU modes."""
    semantic: dict[str, None] = {}
    placed = tuple(nodes.items())
    for entry in planned:
        if not entry:
            continue
        roles, role_plans = entry
        ran = tuple((role, tuple(commands)) for role, commands in roles)
        for problem in _plan_problems(where, ran, tuple(role_plans), placed, tuple(steps)):
            semantic.setdefault(problem)
    return tuple(semantic)


@remembered(maxsize=4096)
def _plan_problems(
    where: k8s.Where,
    roles: tuple[tuple[str, tuple[Command, ...]], ...],
    role_plans: tuple[k8s.RolePlan, ...],
    placed: tuple[tuple[str, int], ...],
    steps: tuple[str, ...],
) -> tuple[str, ...]:
    """The problems of the files of one plan of a target (its roles and their plans, the node of
    each role: ``placed``), in both NPU modes, each once, in the order found.

    Remembered (4,096 plans): a recipe checked again (the rules' tests check each mutation of a
    recipe whole; the tests of the import, of the command line and of the site check the same
    recipes in several tests) plans most of its targets as before, and rendering and reading
    each plan's files in both modes is most of what rules 19 and 28 cost (the engine's tests:
    13,177 plans read, 2,874 of them distinct in their process). A pure function of its
    arguments, all compared by value (a command by its lines, a plan by its containers)."""
    ports = [port for plan in role_plans for port in plan.ports]
    if any(isinstance(port, str) for port in ports):
        return ()  # a port the reader fills in: what runs depends on it (files warns once it is given)
    if any(not 1 <= port <= 65535 for port in ports if isinstance(port, int)):
        return ()  # rule 17 refuses the port
    nodes = dict(placed)
    router = k8s.router_of(steps)
    values = _sample_values(roles)
    rendered = k8s.plans(roles, nodes, router)  # the files are the roles' own, in both modes
    found: dict[str, None] = {}
    for mode in k8s.MODES:
        texts = k8s.manifests(where, roles, nodes, steps, {"npu": mode}, rendered)
        written = {name: substitute(text, values) for name, text in texts.items()}
        needs = k8s.node_needs(role_plans, {}, router)
        for problem in problems(written, nodes=nodes, needs=needs):
            found.setdefault(f"{mode}: {problem}")
    return tuple(found)


def _readable(lines: Any) -> bool:
    """Whether every line of a target splits into shell words (an env line into NAME=value)."""
    for role in lines.roles:
        for line in role.lines:
            try:
                if line.kind == "arg":
                    shell.words(line.text)
                else:
                    k8s.env_pair(line.text)
            except ValueError:
                return False
    return True


def _sample_values(roles: Sequence[tuple[str, Sequence[Any]]]) -> dict[str, str]:
    """A value for each placeholder a reader fills in, of the kind its name asks for (a port,
    a host), all different: the files are read as they run once filled in."""
    names = sorted({n for _role, commands in roles for c in commands for n in shell.placeholders(c.shell)})
    values = {}
    for i, name in enumerate(names):
        if value_problem(name, "x") == "":
            values[name] = "x"
        elif value_problem(name, str(20000 + i)) == "":
            values[name] = str(20000 + i)
        else:
            values[name] = f"10.0.0.{i % 250 + 1}"
    return values


def _line_pointer(target: Target, role: str, key: str) -> str | None:
    for _kind, pointer, owner, mapping in target.grid.mappings():
        if owner != role:
            continue
        for name in mapping:
            normal = name.replace("_", "-") if name.startswith("--") else name
            if normal == key:
                return pointer_join(pointer, name)
    return None


def _located(doc: Document, strategy: Strategy, target: Target, finding: k8s.Finding) -> Problem:
    at = finding.at
    roles = {role.role: role for role in target.grid.base}
    if at[0] == "router":
        steps = target.grid.router
        offset = at[1]
        for step in steps:
            if offset <= len(step.cmd):
                return doc.problem_inside(pointer_join(step.ptr, "cmd"), offset, finding.message)
            offset -= len(step.cmd) + 1
        return doc.problem(pointer_join(target.ptr, "grid", "router"), finding.message)
    if at[0] == "name":
        return doc.problem("/name", finding.message)
    if at[0] == "sku":
        return doc.problem(pointer_join(target.ptr, "skus", at[1]), finding.message)
    if at[0] == "role" and at[1] in roles:
        return doc.problem(pointer_join(roles[at[1]].ptr, "role"), finding.message)
    if at[0] == "line":
        pointer = _line_pointer(target, at[1], at[2])
        if pointer is not None:
            return doc.problem(pointer, finding.message, key=False)
        if at[1] in roles:
            return doc.problem(roles[at[1]].ptr, finding.message)
    return doc.problem(target.ptr, finding.message)


_ROUTER_FINDING = re.compile(r"targetPorts|routing proxy")


def router_reaches_servers(recipe: Recipe, doc: Document, memo: Memo | None = None) -> Iterator[Problem]:
    """19. A router whose values select model servers by their labels reaches every prefill and
    decode server of every selection on one of the router's `targetPorts` (a decode role's
    ranks on consecutive ports, which its routing proxy forwards to), so that the Kubernetes
    manifests of the selection give the router its endpoints; the problem points at
    `targetPorts` in the values file of the router step."""
    for strategy in recipe.strategies:
        for target in strategy.targets:
            for finding in _target_findings(recipe, strategy, target, memo)[0]:
                if finding.at[0] == "router" and _ROUTER_FINDING.search(finding.message):
                    yield _located(doc, strategy, target, finding)


def kubernetes_names(recipe: Recipe, doc: Document, memo: Memo | None = None) -> Iterator[Problem]:
    """28. What a recipe gives its Kubernetes manifests makes valid, distinct objects: each
    role, recipe, strategy and target name gives DNS-1123 names that no two roles share once a
    long name is shortened, each SKU is a node label value, the router's `matchLabels` are label
    keys and quoted string values that select the prefill and decode pods together (never one
    role, never a label a Deployment selects its own pods by, never none), its values file has
    a plain name, KV events go where the router's endpoint picker reads them (when it reads
    any), and every number a manifest holds (a start-up budget from
    `VLLM_ENGINE_READY_TIMEOUT_S`, an NPU count, a port) fits Kubernetes' int32 and port range.
    The nodes after the head of a role that spans nodes differ only in what a LeaderWorkerSet's
    worker takes from its index (`--node-rank`, `--data-parallel-start-rank`,
    `--data-parallel-size-local`): one template runs them all. Each problem points at the value
    it comes from; the files of every selection are then read
    as Kubernetes reads them (selectors, ports, volumes, claims, env references, the router's
    pool), and any remaining problem points at the target."""
    for strategy in recipe.strategies:
        for target in strategy.targets:
            findings, semantic = _target_findings(recipe, strategy, target, memo)
            for finding in findings:
                if not (finding.at[0] == "router" and _ROUTER_FINDING.search(finding.message)):
                    yield _located(doc, strategy, target, finding)
            for problem in semantic:
                yield doc.problem(target.ptr, f"its Kubernetes files would not run: {problem}")


RULES = (router_reaches_servers, kubernetes_names)
