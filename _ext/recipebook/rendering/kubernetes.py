"""Kubernetes manifests for one selection: what an operator applies to RBLN nodes, from the same
commands the page shows.

Per selection the ``kubernetes/`` folder holds the namespace (``00-namespace.yaml``), a file
per role (``<role>.yaml``: its volumes, its NPU claim in DRA mode, its Deployment and, where no
router reaches it, its Service) and, for a router that selects model servers by their labels,
``router/`` (the recipe's values file, the values the cluster adds, ``install.sh``). The form
follows llm-d's Rebellions prefill/decode cell (``llm-d/llm-d``
``guides/pd-disaggregation/modelserver/npu/vllm/``), which was measured on RBLN-CR nodes.

A role is one pod on one node (``client.placement``) and its containers run the role's commands;
a role that spans nodes is a LeaderWorkerSet (below).
What a container runs differs from the recipe's commands only where a cluster needs it, and
``differences`` names every such change for the page:

- **one container runs every data-parallel rank** of a role whose ranks differ only in their
  rank, port (consecutive), device, NIXL side-channel port and KV events:
  ``--data-parallel-size-local N --data-parallel-multi-port-external-lb`` (vLLM's node-local
  supervisor starts rank i on ``--port`` + i with the i-th device of the container and answers
  ``/health`` on ``--data-parallel-supervisor-port`` once every rank is ready). ``make
  crosscheck`` derives each rank's arguments with vLLM's own code and compares them with the
  recipe's rank command. Any other role keeps one container per command;
- **devices** are the container's own: the device plugin (or the DRA driver) mounts the NPUs a
  container asks for, and vllm-rbln reads ``RBLN_VISIBLE_DEVICES`` as positions among the
  devices present, so each container gets ``0..N-1`` in place of the recipe's host numbering;
- **KV events** (``--kv-events-config``) are dropped unless the router's endpoint picker reads
  them (a ``precise-prefix-cache-producer`` plugin): the ZMQ endpoint would be a port nothing
  opens;
- **caches and secrets**: ``HF_HOME`` and ``VLLM_CACHE_ROOT`` on two volumes (the checkpoint
  and the compiled model survive a restart), ``HF_TOKEN`` from a Secret, ``USER`` for torch's
  cache directory (the pod runs as a user the image may not name); a prefill server behind
  the routing proxy keeps idle connections 120 s (``VLLM_HTTP_TIMEOUT_KEEP_ALIVE``), longer
  than the proxy's ~90 s.

A role that spans nodes (one command per node, ``Command.node``) is one LeaderWorkerSet
(``plan_group``, the CRD pinned in ``tests/data/crds``): ``size`` its nodes, the group restarted
as one (``RecreateGroupOnPodRestart``) and its workers created once the leader is
(``LeaderCreated``), the caches a claim per pod (``volumeClaimTemplates``). The leader's pod
template runs the head's command, one worker template the followers': its ``--node-rank`` is
``$(LWS_WORKER_INDEX)``, the lines in which followers differ (start rank, local data-parallel
size) are added per index by ``worker_script`` in front of the launcher, and a head's address
placeholder is ``$(LWS_LEADER_ADDRESS)`` in every pod. ``make crosscheck`` runs each worker as
worker k would and compares it with follower k's command with vLLM's parser.

What the operator chooses is a ``Setting`` (namespace, images, storage class and sizes, CPU,
memory, shared memory, the NPU mode, the Hugging Face Secret, the Gateway), with a documented
default; the page asks for them and the command line takes ``--set-k8s NAME=VALUE``. Names are
made here and checked here (``Findings``): a DNS-1123 name per object, unique per kind after a
long name is shortened (its first characters and a hash of the whole, never cut alone), label
keys and values of their syntax and kept strings, numbers within int32; a recipe that would
make anything else is refused by rule 28 (``checking/manifests.py``) at its JSON pointer.

One implementation for the command line and the page: a role's objects are written with
PyYAML around a marker line per container's args and env (``skeleton``); each command line has
its own YAML fragment (``line_fragment``) and a kind (``line_kind``) that says whether a
container drops it; ``fill`` puts the fragments in after ``with_settings`` has put the
settings in. The site API carries the skeletons (per set of selections that share them, in
both NPU modes) and every line's fragment and kind, and ``static/recipebook-files.js`` does the
same; the tests compare both for every selection.
"""

from __future__ import annotations

import collections
import dataclasses
import hashlib
import json
import math
import re
import shlex
import types
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

import yaml

from .. import shell
from ..expanding import client
from ..expanding.expansion import Command, by_role
from ..expanding.page import TargetPage, checkpoint_bytes
from ..expanding.table import Product, RoleTable, Table, TableLine
from ..memo import Memo, remembered
from ..memo import get as memo_get
from ..reading.model import Recipe
from . import yamltext

# -- what the manifests target ------------------------------------------------------------

# The API schemas they are validated against (kubernetes-validate, requirements.txt); DRA's
# resource.k8s.io/v1 is GA from 1.34. Rebellions' cluster stack runs 1.34.3 or 1.35.1.
KUBERNETES = "1.34"
KUBERNETES_RELEASES = ("1.34.0", "1.35.0", "1.36.0")
KUBERNETES_SCHEMAS = "1.35.0"  # the one the build's own checks read
# RBLN device plugin: rebellions.ai/npu since v0.4.0 (older plugins, or useGenericResourceName:
# false, name the device type: rebellions.ai/ATOM, rebellions.ai/REBEL).
NPU_RESOURCE = "rebellions.ai/npu"
DEVICE_PLUGIN = "v0.4.0"
# DRA: Rebellions' device class, the product name attribute (no domain prefix in its value),
# and DRANET's class and attribute for an RDMA NIC (llm-d's resource-claim-templates.yaml).
NPU_DEVICE_CLASS = "npu.rebellions.ai"
NIC_DEVICE_CLASS = "dranet"
NUMA_ATTRIBUTE = "resource.kubernetes.io/numaNode"
# rbln-npu-feature-discovery's node label with the device's product name (RBLN-CR13, ...).
PRODUCT_LABEL = "rebellions.ai/npu.product"
# llm-d: the router chart the recipes install, its routing proxy and the labels its endpoint
# picker reads.
LLM_D = "v0.10.0"
ROLE_LABEL = "llm-d.ai/role"
MODEL_LABEL = "llm-d.ai/model"
ACTIVE_PORTS = "llm-d.ai/active-ports"
LLM_D_LABELS = {
    "llm-d.ai/accelerator-vendor": "rebellions",
    "llm-d.ai/accelerator-variant": "npu",
    "llm-d.ai/engine-type": "vllm",
}
# The endpoint picker plugin that reads KV events (llm-d-router v0.10.0,
# pkg/epp/framework/plugins/requestcontrol/dataproducer/preciseprefixcache).
KV_EVENTS_READERS = frozenset({"precise-prefix-cache-producer"})
VERSIONS = {
    "kubernetes": KUBERNETES,
    "device_plugin": DEVICE_PLUGIN,
    "llm_d": LLM_D,
    "npu_resource": NPU_RESOURCE,
    "npu_device_class": NPU_DEVICE_CLASS,
}
DISAGGREGATED = ("prefill", "decode")

# vLLM waits this long for its engine when VLLM_ENGINE_READY_TIMEOUT_S is unset.
READY_TIMEOUT_DEFAULT = 600
READY_TIMEOUT = "VLLM_ENGINE_READY_TIMEOUT_S"
# Beyond the engine's own wait: loading the weights before it starts counting.
STARTUP_MARGIN = 900
STARTUP_PERIOD = 30
STARTUP_DELAY = 15
HEALTH_PATH = "/health"
INT32 = 2**31 - 1
# vLLM's multi-port supervisor answers /health here once every local rank is ready (vLLM
# 0.30.0 FrontendArgs.data_parallel_supervisor_port); written out, so the probe never guesses.
SUPERVISOR_PORT = 9256
# Where the caches live in the container.
MODEL_CACHE_PATH = "/var/cache/models"
COMPILE_CACHE_PATH = "/var/cache/vllm"
# vLLM and torch name their cache folder after the user: a pod user the image does not list
# would stop torch (llm-d: vllm-project/vllm#44548, torch 2.11 and later).
POD_USER = "vllm"
POD_SECURITY = {"runAsUser": 2000, "runAsGroup": 0, "fsGroup": 1600}  # llm-d's cell
# Logs and temporary files in the container's own layer: the caches are on volumes.
EPHEMERAL_STORAGE = "20Gi"
# A prefill server behind llm-d's routing proxy keeps idle connections longer than the
# proxy's own (about 90 s; vLLM closes them after 5 s, resetting the hand-off).
KEEP_ALIVE = ("VLLM_HTTP_TIMEOUT_KEEP_ALIVE", "120")
FOLDER = "kubernetes"
NAMESPACE_FILE = f"{FOLDER}/00-namespace.yaml"
APPLY = f"kubectl apply -f {FOLDER}/"
ROUTER_FOLDER = f"{FOLDER}/router"
CLUSTER_VALUES = "cluster-values.yaml"
POD_IP = "POD_IP"
MODES = ("device-plugin", "dra")
DEVICE_ENVS = ("RBLN_VISIBLE_DEVICES", "RBLN_DEVICES")
DEVICE_ENV = "RBLN_VISIBLE_DEVICES"
NIXL_PORT_ENV = "VLLM_NIXL_SIDE_CHANNEL_PORT"
# A role that spans nodes: a LeaderWorkerSet (kubernetes-sigs/lws, the CRD pinned in
# tests/data/crds), whose controller puts these in every container's env, first; its pods carry
# the worker index as a label (the leader's is "0").
LWS_API = "leaderworkerset.x-k8s.io/v1"
LWS = "v0.10.0"
LWS_LEADER_ADDRESS = "LWS_LEADER_ADDRESS"
LWS_WORKER_INDEX = "LWS_WORKER_INDEX"
LWS_ENV = (LWS_LEADER_ADDRESS, "LWS_GROUP_SIZE", LWS_WORKER_INDEX)
LWS_INDEX_LABEL = "leaderworkerset.sigs.k8s.io/worker-index"
LWS_NAME_LABEL = "leaderworkerset.sigs.k8s.io/name"
# The lines a LeaderWorkerSet's workers may differ in beyond their node rank: a script in front
# of the launcher adds each worker's own (``worker_script``).
PER_WORKER = ("start-rank", "dp-local")

# -- the operator's choices ---------------------------------------------------------------

_DNS_LABEL = re.compile(r"[a-z0-9](?:[-a-z0-9]{0,61}[a-z0-9])?")
_DNS_SUBDOMAIN = re.compile(r"(?=.{1,253}$)[a-z0-9](?:[-a-z0-9]*[a-z0-9])?(?:\.[a-z0-9](?:[-a-z0-9]*[a-z0-9])?)*")
_IMAGE = re.compile(r"[a-z0-9][A-Za-z0-9._/:@-]{0,254}")
_QUANTITY = re.compile(r"[1-9][0-9]{0,5}(?:Mi|Gi|Ti)")
_CPU = re.compile(r"[1-9][0-9]{0,3}")


@dataclasses.dataclass(frozen=True, kw_only=True)
class Setting:
    """One choice the operator makes: its name (``--set-k8s NAME=VALUE``), default and syntax."""

    name: str
    default: str  # "" for "none": a required image, or the cluster's default storage class
    pattern: re.Pattern[str]
    empty: bool = False  # "" is a value: the line that would hold it is left out
    what: str  # a key the adapter words


SETTINGS = (
    Setting(name="namespace", default="rbln-serving", pattern=_DNS_LABEL, what="namespace"),
    Setting(name="npu", default="device-plugin", pattern=re.compile("device-plugin|dra"), what="npu"),
    Setting(name="server-image", default="", pattern=_IMAGE, what="server-image"),
    Setting(
        name="sidecar-image",
        default=f"ghcr.io/llm-d/llm-d-router-disagg-sidecar:{LLM_D}",
        pattern=_IMAGE,
        what="sidecar-image",
    ),
    Setting(name="storage-class", default="", pattern=_DNS_SUBDOMAIN, empty=True, what="storage-class"),
    Setting(name="model-cache", default="", pattern=_QUANTITY, what="model-cache"),
    Setting(name="compile-cache", default="", pattern=_QUANTITY, what="compile-cache"),
    Setting(name="cpu", default="40", pattern=_CPU, what="cpu"),
    Setting(name="memory", default="460Gi", pattern=_QUANTITY, what="memory"),
    Setting(name="shm", default="20Gi", pattern=_QUANTITY, what="shm"),
    Setting(name="hf-secret", default="hf-token", pattern=_DNS_SUBDOMAIN, what="hf-secret"),
    Setting(name="gateway", default="inference-gateway", pattern=_DNS_SUBDOMAIN, what="gateway"),
)
SETTING = {s.name: s for s in SETTINGS}
# What an unset required value leaves in the files, explained in their header.
UNSET = {
    "server-image": "<VLLM_RBLN_IMAGE>",
    "model-cache": "<MODEL_CACHE_SIZE>",
    "compile-cache": "<COMPILE_CACHE_SIZE>",
}
_GiB = 2**30


def cache_size(checkpoint_bytes: int | None) -> str:
    """A cache volume for a checkpoint: its size and a tenth more (files the hub keeps beside
    the weights, a partial download), in whole GiB; "" when the size is not known."""
    if not checkpoint_bytes or checkpoint_bytes <= 0:
        return ""
    return f"{math.ceil(checkpoint_bytes * 1.1 / _GiB)}Gi"


def memory_bytes(quantity: str) -> int:
    number, unit = int(quantity[:-2]), quantity[-2:]
    return number * {"Mi": 2**20, "Gi": 2**30, "Ti": 2**40}[unit]


def setting_problem(name: str, value: object) -> str | None:
    """Why a value cannot be that setting, or None (``recipebook-files.js`` settingProblem is
    its twin)."""
    setting = SETTING.get(name)
    if setting is None:
        return f"not a setting: {name!r} (one of {', '.join(SETTING)})"
    if not isinstance(value, str):
        return "give text"
    if value == "" and (setting.empty or not setting.default):
        return None
    if not setting.pattern.fullmatch(value):
        return {
            "namespace": "a DNS-1123 label: lower-case letters, digits and '-', at most 63",
            "npu": "device-plugin or dra",
            "storage-class": "a DNS-1123 name: lower-case letters, digits, '-' and '.'",
            "hf-secret": "a DNS-1123 name: lower-case letters, digits, '-' and '.'",
            "gateway": "a DNS-1123 name: lower-case letters, digits, '-' and '.'",
            "cpu": "a whole number of CPUs, 1 to 9999",
        }.get(
            name,
            "an image reference (registry/repository:tag), no spaces or quotes"
            if "image" in name
            else "a size such as 500Gi (Mi, Gi or Ti)",
        )
    return None


def settings_of(given: Mapping[str, str] | None, defaults: Mapping[str, str]) -> dict[str, str]:
    """Every setting's value: the given one, else the target's default (``defaults``), else the
    setting's own. Raises ValueError naming a bad one, or a pair that cannot go together."""
    out = {s.name: defaults.get(s.name, s.default) for s in SETTINGS}
    for name, value in (given or {}).items():
        why = setting_problem(name, value)
        if why:
            raise ValueError(f"{name}={value!r}: {why}")
        out[name] = value
    if memory_bytes(out["shm"]) >= memory_bytes(out["memory"]):
        raise ValueError(
            f"shm={out['shm']} must be less than memory={out['memory']}: shared memory is counted in the pod's memory"
        )
    return out


# -- names ----------------------------------------------------------------------------------


def dns(text: str) -> str:
    """A text as a DNS-1123 label's characters: lower case, runs of anything else one '-'."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def fit(name: str, limit: int = 63) -> str:
    """A name within ``limit`` characters: as it is, or its first characters and eight of a hash
    of the whole (so that two long names stay two names)."""
    if len(name) <= limit:
        return name
    digest = hashlib.sha256(name.encode()).hexdigest()[:8]
    return f"{name[: limit - 9].rstrip('-')}-{digest}"


_LABEL_NAME = re.compile(r"[A-Za-z0-9](?:[-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?")
_LABEL_VALUE = re.compile(r"(?:[A-Za-z0-9](?:[-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?")
_PORT_NAME = re.compile(r"(?=.{1,15}$)(?=.*[a-z])[a-z0-9]+(?:-[a-z0-9]+)*")


def label_key_problem(key: object) -> str | None:
    """Why a text is not a label key (an optional DNS-1123 prefix and '/', then a name)."""
    if not isinstance(key, str):
        return f"label key {key!r} is not text"
    prefix, slash, name = key.rpartition("/")
    if slash and not _DNS_SUBDOMAIN.fullmatch(prefix):
        return f"label key {key!r}: its prefix {prefix!r} is not a DNS-1123 subdomain"
    if not _LABEL_NAME.fullmatch(name):
        return f"label key {key!r}: its name {name!r} is not 1-63 letters, digits, '-', '_', '.' between alphanumerics"
    return None


def label_value_problem(value: object) -> str | None:
    if not isinstance(value, str):
        return f"label value {value!r} is a {type(value).__name__}, not text: quote it"
    if not _LABEL_VALUE.fullmatch(value):
        return f"label value {value!r} is not 0-63 letters, digits, '-', '_', '.' between alphanumerics"
    return None


def label_value(text: str) -> str:
    """A text as a label value: characters outside the syntax become '-', at most 63."""
    cleaned = re.sub(r"[^A-Za-z0-9_.-]+", "-", text)
    cleaned = fit(cleaned)
    return re.sub(r"^[^A-Za-z0-9]+|[^A-Za-z0-9]+$", "", cleaned)


def port_name(prefix: str, index: int | None) -> str:
    return prefix if index is None else f"{prefix}-{index}"


# -- findings: what a recipe's data would make wrong ---------------------------------------


@dataclasses.dataclass(frozen=True, kw_only=True)
class Finding:
    """A problem with the data a manifest is made of, and where that data is: ``at`` is one of
    ("name",), ("strategy",), ("target",), ("sku", i), ("role", role), ("line", role, key),
    ("router", offset in the router steps' text of the values file), ("router-step", step)."""

    at: tuple[Any, ...]
    message: str


class KubernetesError(ValueError):
    """A selection Kubernetes cannot run as the recipe says; ``findings`` locate each cause."""

    def __init__(self, findings: Sequence[Finding]) -> None:
        self.findings = tuple(findings)
        super().__init__("; ".join(f.message for f in self.findings))


# -- YAML: one scalar per line, so a fragment reads the same wherever it is put --------------


class _Hole(str):
    """A reader's value that Kubernetes reads as a number (a port): written plain, so that the
    value put in (a checked port: digits, no leading zero) is an int."""


class _Dumper(yaml.SafeDumper):
    def ignore_aliases(self, data: Any) -> bool:
        return True  # every manifest spells its labels out (no &anchors)

    def represent_data(self, data: Any) -> yaml.Node:
        """The node of a value, as SafeRepresenter makes it, the manifests' own types made here:
        a manifest holds hundreds of values, and the representer's way to each (its alias
        bookkeeping, its lookup of the type's representer) cost more than the node itself. A
        mapping and a list are made as represent_mapping and represent_sequence make them when
        keys are not sorted and the block style is asked for (yamltext.dump asks for it); any
        other type, and any other setting, goes to the representer itself."""
        kind = type(data)
        if kind is str:
            return _str(self, data)
        if kind is dict and not self.sort_keys and self.default_flow_style is not None:
            pairs = [(self.represent_data(key), self.represent_data(value)) for key, value in data.items()]
            return yaml.MappingNode(_MAP, pairs, flow_style=self.default_flow_style)
        if kind is list and self.default_flow_style is not None:
            items = [self.represent_data(value) for value in data]
            return yaml.SequenceNode(_SEQ, items, flow_style=self.default_flow_style)
        if kind is int:
            return yaml.ScalarNode(_INT, str(data), style=self.default_style)
        if kind is bool:
            return yaml.ScalarNode(_BOOL, "true" if data else "false", style=self.default_style)
        if data is None:
            return yaml.ScalarNode(_NULL, "null", style=self.default_style)
        return yaml.representer.BaseRepresenter.represent_data(self, data)

    def resolve(self, kind: type[yaml.Node], value: Any, implicit: Any) -> str:
        """A node's tag as the resolver gives it, a plain scalar's kept by its text
        (scalar_tag): the emitter asks twice for every scalar it writes, and a manifest repeats
        its keys and most of its values."""
        if kind is yaml.ScalarNode:
            return scalar_tag(value) if implicit[0] else _STR
        return str(yaml.resolver.BaseResolver.resolve(self, kind, value, implicit))  # type: ignore[no-untyped-call]


_MAP, _SEQ, _STR = "tag:yaml.org,2002:map", "tag:yaml.org,2002:seq", "tag:yaml.org,2002:str"
_INT, _BOOL, _NULL = "tag:yaml.org,2002:int", "tag:yaml.org,2002:bool", "tag:yaml.org,2002:null"
# _Dumper's resolver: SafeDumper's, to which _Dumper adds no implicit or path resolver, so that
# the tag of a scalar it does not read (implicit[0] false) is the default, a string's
_RESOLVER = yaml.resolver.Resolver()


@remembered(maxsize=1 << 14)
def scalar_tag(value: str) -> str:
    """The tag the safe resolver gives a plain scalar of this text (a pure function of the text:
    its implicit resolvers are fixed, and it has no path resolvers): the dumper's and the safe
    loader's resolver alike, so the manifests read back (checking/manifests.py) ask it too."""
    return str(_RESOLVER.resolve(yaml.ScalarNode, value, (True, False)))  # type: ignore[no-untyped-call]


def _str(dumper: yaml.SafeDumper, text: str) -> yaml.ScalarNode:
    """A string's node, as represent_scalar makes it (_Dumper keeps no aliases, so it records
    none), in the style of its text (_str_style)."""
    style = _str_style(text)
    return yaml.ScalarNode(_STR, str(text), style=dumper.default_style if style is None else style)


@remembered(maxsize=1 << 14)
def _str_style(text: str) -> str | None:
    """How a string is written: double-quoted with a line break, single-quoted with a value's
    marker, else as the emitter chooses. Remembered by the text: a manifest repeats its keys and
    most of its values, and each would be searched for two markers."""
    if "\n" in text:
        return '"'
    if shell.PLACEHOLDER.search(text) or _SETTING.search(text):
        return "'"  # a value goes in here: it stays a string whatever it is (on, 010)
    return None


_Dumper.add_representer(str, _str)
_Dumper.add_representer(_Hole, lambda d, t: d.represent_scalar("tag:yaml.org,2002:str", str(t), style=""))


def dump(data: Any) -> str:
    """YAML of a manifest: block style, keys in the given order, no line folded (libyaml writes it
    when it writes the same text: yamltext). A document equal to one of the last 512 written
    (``_shape``) is not written again: the variants, modes and skeletons of a target repeat most
    of their documents."""
    shape = _shape(data)
    if shape is None:
        return yamltext.dump(data, _Dumper)
    return _written(_Document(shape, data))


# A document's values of these types are written by _Dumper's representers from the value alone.
_PLAIN = frozenset({str, _Hole, int, bool, float, type(None)})


def _shape(data: Any) -> Any:
    """The document as a value that equals another document's only where both are written alike:
    each mapping and list tagged with its type, each value but a plain ``str`` with its exact type
    (a ``_Hole`` is no ``str``, True no 1, -0.0 no 0.0: their texts differ), keys in their order;
    None for a document holding a value of any other type."""
    kind = type(data)
    if kind is str:
        return data
    if kind is dict:
        out: list[Any] = [dict]
        for key, value in data.items():
            key_shape, value_shape = _shape(key), _shape(value)
            if key_shape is None or value_shape is None:
                return None
            out += (key_shape, value_shape)
        return tuple(out)
    if kind is list:
        items: list[Any] = [list]
        for value in data:
            value_shape = _shape(value)
            if value_shape is None:
                return None
            items.append(value_shape)
        return tuple(items)
    if kind is float:
        return (float, repr(data))
    if kind in _PLAIN:
        return (kind, str(data))
    return None


@dataclasses.dataclass(frozen=True, eq=False)
class _Document:
    """A document to write, equal to another whose shape is equal (``_shape``)."""

    shape: Any
    data: Any

    def __hash__(self) -> int:
        return hash(self.shape)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Document) and other.shape == self.shape


@remembered(maxsize=512)
def _written(document: _Document) -> str:
    return yamltext.dump(document.data, _Dumper)


def dump_all(documents: Sequence[Any]) -> str:
    return "---\n".join(dump(d) for d in documents)


def kube_text(text: str) -> str:
    """A recipe's text as Kubernetes reads args and env values: ``<NAME>`` -> ``$(NAME)`` (a
    literal ``$(`` of the recipe is written ``$$(`` so Kubernetes leaves it alone)."""
    return shell.PLACEHOLDER.sub(r"$(\1)", text.replace("$(", "$$("))


def env_pair(text: str) -> tuple[str, str]:
    """An env line (``NAME=value``, shell-quoted) as its name and value."""
    words = shell.words(text)
    name, sep, value = (words[0] if len(words) == 1 else "").partition("=")
    if not sep:
        raise ValueError(f"not one NAME=value assignment: {text!r}")
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


# What a container may leave out of a recipe's command, by the line's flag or env name.
_KINDS = {
    "--data-parallel-rank": "rank",
    "--kv-events-config": "kv-events",
    "--node-rank": "node-rank",
    "-r": "node-rank",
    "--data-parallel-start-rank": "start-rank",
    "--data-parallel-size-local": "dp-local",
    "RBLN_VISIBLE_DEVICES": "devices",
    "RBLN_DEVICES": "devices",
    "HF_HOME": "cache",
    "VLLM_CACHE_ROOT": "cache",
}


@remembered(maxsize=8192)
def line_kind(kind: str, text: str) -> str | None:
    """Whether a container may drop this line, and why: "rank" (one container runs every
    rank), "devices" (the container's own), "kv-events" (no reader), "cache" (the volumes),
    "node-rank", "start-rank" and "dp-local" (a LeaderWorkerSet's workers take their own from
    their index)."""
    try:
        name = shell.flag_values(text)[0] if kind == "arg" else env_pair(text)[0]
    except ValueError:
        return None
    return _KINDS.get(name.replace("_", "-") if name.startswith("--") else name)


# Every flag and env name whose value a plan, its key or its findings read of a command (with
# client's SERVING_FLAGS and the names of the lines a container may drop, _KINDS): ``plan_lines``
# counts on it, and ``_flag`` reads no other.
PLAN_FLAGS = frozenset(
    {
        "--port",
        "--data-parallel-rank",
        "--data-parallel-size",
        "--data-parallel-size-local",
        "--data-parallel-rpc-port",
        "--tensor-parallel-size",
        "--pipeline-parallel-size",
        "--kv-events-config",
        READY_TIMEOUT,
        NIXL_PORT_ENV,
    }
)
_PLAN_READS = PLAN_FLAGS | client.SERVING_FLAGS | frozenset(_KINDS)


def _flag(command: Command, flag: str) -> str | None:
    """The first value of a flag (or env) of a command, read as vLLM reads ``-`` and ``_``."""
    if flag not in PLAN_FLAGS:
        raise ValueError(f"{flag} is read here but not listed in PLAN_FLAGS")
    return _first_values((*command.args, *command.envs)).get(flag)


@remembered(maxsize=1 << 12)
def _first_values(texts: tuple[str, ...]) -> Mapping[str, str]:
    """Each flag (``_`` read as ``-``) and env name of a command's texts, with its first value
    ("" for a flag alone), read from client's table of the same texts (a text that does not split
    into words is left out there). Kept: a target's selections share most of their commands, and a
    plan asks for a dozen flags of each."""
    found: dict[str, str] = {}
    for name, values in client.flag_words(texts).items():  # each spelling's first, in the order given
        found.setdefault(name.replace("_", "-") if name.startswith("--") else name, values[0] if values else "")
    return types.MappingProxyType(found)


def _int(text: str | None) -> int | None:
    """A whole number as the recipe writes it (a runaway one as 10**18, beyond any bound)."""
    if text is None or not re.fullmatch(r"[0-9]+", text):
        return None
    return int(text) if len(text) <= 18 else 10**18


# -- the router -----------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True, kw_only=True)
class Router:
    """What a prefill/decode router reaches: its values file and where it sends requests."""

    values_name: str
    values_text: str
    values_at: int  # where the values file starts in the router steps' text (``steps_text``)
    match_labels: Mapping[str, str]
    target_ports: tuple[int, ...]
    kv_events: bool  # the endpoint picker reads KV events
    steps: tuple[str, ...]  # the router steps other than writing the values file
    findings: tuple[Finding, ...] = ()
    # how the endpoint picker reads KV events: from each pod (it connects to the pod's socket
    # port + the rank), or on a ZMQ endpoint of its own that the servers connect to (open on
    # the chart's Service only through extraServicePorts)
    kv_from_pods: bool = True
    kv_socket_port: int = 5557
    kv_open_ports: tuple[int, ...] = ()


def steps_text(steps: Sequence[str]) -> str:
    """The router steps as one text (steps joined by a newline), where ``Finding.at`` offsets
    of ("router", offset) point."""
    return "\n".join(steps)


def _offset(steps: Sequence[str], step: int, index: int) -> int:
    return sum(len(s) + 1 for s in steps[:step]) + index


def _key_at(text: str, key: str, start: int = 0) -> int:
    found = text.find(key, start)
    return max(found, 0)


def _mapping(value: object) -> Mapping[str, Any]:
    """A YAML value read as a mapping: itself when it is one, else empty."""
    return value if isinstance(value, dict) else {}


def _kv_reader(servers_router: Mapping[str, Any]) -> dict[str, Any] | None:
    """The KV events settings of the endpoint picker's reader plugin (``{}`` for its defaults),
    None when no plugin reads KV events."""
    epp = _mapping(servers_router.get("epp"))
    chosen = epp.get("pluginsConfigFile")
    configs = _mapping(epp.get("pluginsCustomConfig"))
    text = configs.get(chosen) if isinstance(chosen, str) else None
    if not isinstance(text, str):
        return None
    try:
        config = yaml.load(text, Loader=_LOADER)
    except yaml.YAMLError:
        return None
    plugins = config.get("plugins") if isinstance(config, dict) else None
    for plugin in plugins if isinstance(plugins, list) else ():
        if isinstance(plugin, dict) and plugin.get("type") in KV_EVENTS_READERS:
            found = _mapping(plugin.get("parameters")).get("kvEventsConfig")
            return found if isinstance(found, dict) else {}
    return None


def _open_ports(servers_router: Mapping[str, Any]) -> tuple[int, ...]:
    """The ports the chart's endpoint picker Service opens beyond its own (extraServicePorts)."""
    extra = servers_router.get("extraServicePorts")
    return (
        tuple(p["port"] for p in extra if isinstance(p, dict) and type(p.get("port")) is int)
        if isinstance(extra, list)
        else ()
    )


def _socket_port(reader: Mapping[str, Any]) -> int:
    port = _mapping(reader.get("podDiscoveryConfig")).get("socketPort", 5557)
    return port if type(port) is int else 5557


def router_of(steps: Sequence[str]) -> Router | None:
    """The router values of a target's router steps, when they select model servers; what is
    wrong with their labels and ports is in ``findings`` (read once per text of the steps)."""
    return _router_of(tuple(steps))


_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@remembered(maxsize=256)
def _router_of(steps: tuple[str, ...]) -> Router | None:
    for name, document in shell.here_documents(steps).items():
        try:
            data = yaml.load(document.text, Loader=_LOADER)
        except yaml.YAMLError:
            continue
        router = data.get("router") if isinstance(data, dict) else None
        servers = router.get("modelServers") if isinstance(router, dict) else None
        if not isinstance(servers, dict) or "matchLabels" not in servers:
            continue
        base = _offset(steps, document.step, document.start)
        findings: list[Finding] = []
        if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}", name) or name in (CLUSTER_VALUES, "install.sh"):
            findings.append(
                Finding(
                    at=("router", _offset(steps, document.step, max(steps[document.step].find(name), 0))),
                    message=f"the values file {name!r} goes into {ROUTER_FOLDER}/: give it a plain file name other "
                    f"than {CLUSTER_VALUES} and install.sh",
                )
            )
        labels: dict[str, str] = {}
        raw = servers.get("matchLabels")
        at = base + _key_at(document.text, "matchLabels")
        if not isinstance(raw, dict) or not raw:
            findings.append(
                Finding(at=("router", at), message="router.modelServers.matchLabels selects no pods: give it labels")
            )
            raw = {}
        for key, value in raw.items():
            where = base + _key_at(document.text, str(key), at - base)
            why = label_key_problem(key) or label_value_problem(value)
            if why:
                findings.append(Finding(at=("router", where), message=f"router.modelServers.matchLabels: {why}"))
                continue
            labels[key] = value
        ports: list[int] = []
        raw_ports = servers.get("targetPorts", [{"number": client.DEFAULT_PORT}])
        at = base + _key_at(document.text, "targetPorts")
        for entry in raw_ports if isinstance(raw_ports, list) else [None]:
            number = entry.get("number") if isinstance(entry, dict) else None
            if type(number) is not int or not 1 <= number <= 65535:
                findings.append(
                    Finding(at=("router", at), message=f"router.modelServers.targetPorts: {number!r} is not a port")
                )
                continue
            ports.append(number)
        rest = tuple(step for i, step in enumerate(steps) if i != document.step)
        reader = _kv_reader(_mapping(router))
        return Router(
            values_name=name,
            values_text=document.text,
            values_at=base,
            match_labels=labels,
            target_ports=tuple(ports),
            kv_events=reader is not None,
            steps=rest,
            findings=tuple(findings),
            kv_from_pods=bool((reader or {}).get("discoverPods", True)),
            kv_socket_port=_socket_port(reader or {}),
            kv_open_ports=_open_ports(_mapping(router)),
        )
    return None


# -- a role's containers --------------------------------------------------------------------


@dataclasses.dataclass(frozen=True, kw_only=True)
class ContainerPlan:
    """One server container of a role: the command whose lines fill it, the lines it drops
    (by ``line_kind``) and what it adds."""

    name: str
    source: str  # the container name of the command that fills it (``dns(command.name)``)
    command: Command
    drop: tuple[str, ...]  # line kinds left out
    ranks: int  # processes of the role it runs (1, or every rank)
    ports: tuple[int | str, ...]  # the served ports (an int, or a reader's <NAME> for a port); () serves none
    health: int | str | None  # the port its probes call; None: no HTTP server (a headless follower)
    npus: int
    extra_args: tuple[str, ...]
    extra_env: tuple[tuple[str, str], ...]
    startup_failures: int
    port_names: tuple[str, ...]
    script: str = ""  # run by /bin/sh in front of the launcher (a worker's start rank)
    commands: tuple[Command, ...] = ()  # what it runs when that is more than ``command`` (a merged role, workers)


@dataclasses.dataclass(frozen=True, kw_only=True)
class RolePlan:
    """A role's pod (its leader's, for a role that spans nodes) and, for a role that spans
    nodes, its workers' pod: a LeaderWorkerSet of ``size`` pods on ``nodes``."""

    role: str
    node: int
    containers: tuple[ContainerPlan, ...]
    merged: bool  # one container runs every rank
    size: int = 1
    nodes: tuple[int, ...] = ()  # a LeaderWorkerSet's nodes, the leader's first
    workers: RolePlan | None = None

    @property
    def npus(self) -> int:
        return sum(c.npus for c in self.containers)

    @property
    def ports(self) -> tuple[int | str, ...]:
        own = tuple(p for c in self.containers for p in c.ports)
        return own + (self.workers.ports if self.workers is not None else ())

    def pods(self) -> tuple[tuple[int, RolePlan], ...]:
        """Each pod's node and plan: the role's one pod, or the leader and each worker."""
        if self.workers is None:
            return ((self.node, self),)
        return ((self.node, self), *((node, self.workers) for node in self.nodes[1:]))


def ready_timeout(command: Command) -> int:
    value = _int(_flag(command, READY_TIMEOUT))
    return READY_TIMEOUT_DEFAULT if value is None else value


def startup_failures(command: Command) -> int:
    """Start-up probe failures allowed: the engine's ready timeout and the margin, in periods."""
    return math.ceil((ready_timeout(command) + STARTUP_MARGIN) / STARTUP_PERIOD)


def served_port(command: Command) -> int | str:
    """The port a command serves on: its ``--port`` (a number, or a reader's ``<NAME>``), vLLM's
    default without one."""
    value = _flag(command, "--port")
    if value is None:
        return client.DEFAULT_PORT
    number = _int(value)
    if number is not None:
        return number
    whole = shell.PLACEHOLDER.fullmatch(value)
    return value if whole else client.DEFAULT_PORT


def _differs(commands: Sequence[Command]) -> set[str] | None:
    """The kinds of the lines that differ between ranks, or None when some differing line is of
    no kind a merged container handles."""
    kinds: set[str] = set()
    for attribute in ("arg_lines", "env_lines"):
        seen = [frozenset(line.text for line in getattr(c, attribute)) for c in commands]
        common = frozenset.intersection(*seen)
        for c in commands:
            for line in getattr(c, attribute):
                if line.text in common:
                    continue
                kind = line_kind(line.kind, line.text)
                try:
                    name = shell.flag_values(line.text)[0] if line.kind == "arg" else env_pair(line.text)[0]
                except ValueError:
                    return None
                if kind is None and name == "--port":
                    kind = "port"
                elif kind is None and name == NIXL_PORT_ENV:
                    kind = "nixl-port"
                if kind not in _MERGED_KINDS:
                    return None
                kinds.add(kind)
    return kinds


_MERGED_KINDS = frozenset({"rank", "port", "devices", "nixl-port", "kv-events", "cache"})


def _mergeable(commands: Sequence[Command], drop_events: bool) -> bool:
    """Whether one container may run every rank of a role: ranks 0..N-1 of one data-parallel
    group of size N, on consecutive literal ports, alike but for their rank, port, device, NIXL
    side-channel port and (when they are dropped) KV events, each using the same NPUs."""
    if len(commands) < 2 or any(c.rank is None for c in commands):
        return False
    kinds = _differs(commands)
    if kinds is None or (not drop_events and "kv-events" in kinds):
        return False
    ranks = [_int(_flag(c, "--data-parallel-rank")) for c in commands]
    served = [served_port(c) for c in commands]
    size = _int(_flag(commands[0], "--data-parallel-size"))
    if ranks != list(range(len(commands))) or size != len(commands):
        return False
    ports = [p for p in served if isinstance(p, int)]
    if len(ports) < len(served) or ports != list(range(ports[0], ports[0] + len(ports))):
        return False
    if ports[-1] > 65535 or any(_flag(c, "--data-parallel-size-local") is not None for c in commands):
        return False
    return len({client.npus(c) for c in commands}) == 1


def _supervisor_port(taken: Iterable[int]) -> int:
    used = set(taken)
    port = SUPERVISOR_PORT
    while port in used:
        port += 1
    return port


def _other_ports(command: Command) -> list[int]:
    found = [_int(_flag(command, name)) for name in ("--data-parallel-rpc-port", NIXL_PORT_ENV)]
    return [p for p in found if p is not None]


def _extra_env(command: Command, npus: int, keep_alive: bool) -> tuple[tuple[str, str], ...]:
    present = {env_pair(t)[0] for t in command.envs if line_kind("env", t) not in ("devices", "cache")}
    extra = [(DEVICE_ENV, ",".join(str(i) for i in range(npus)))] if npus else []
    if keep_alive and KEEP_ALIVE[0] not in present:
        extra.append(KEEP_ALIVE)
    return tuple(extra)


def plan_role(role: str, node: int, commands: Sequence[Command], *, drop_events: bool, keep_alive: bool) -> RolePlan:
    """The containers of a role on one node (the LeaderWorkerSet of a role over nodes would take
    this plan per node: its leader's and its workers' pod templates)."""
    base_drop = ("devices", "cache") + (("kv-events",) if drop_events else ())
    if _mergeable(commands, drop_events):
        first = commands[0]
        ports = tuple(served_port(c) for c in commands)
        npus = client.npus(first) * len(commands)
        taken = [p for p in ports if isinstance(p, int)] + _other_ports(first)
        taken += [p + i for p in _other_ports(first) for i in range(len(commands))]
        supervisor = _supervisor_port(taken)
        container = ContainerPlan(
            name=fit(dns(role)),
            source=dns(first.name),
            command=first,
            drop=("rank", *base_drop),
            ranks=len(commands),
            ports=ports,
            health=supervisor,
            npus=npus,
            extra_args=(
                f"--data-parallel-size-local={len(commands)}",
                "--data-parallel-multi-port-external-lb",
                f"--data-parallel-supervisor-port={supervisor}",
            ),
            extra_env=_extra_env(first, npus, keep_alive),
            startup_failures=max(startup_failures(c) for c in commands),
            port_names=(*(port_name("http", i) for i in range(len(commands))), "health"),
        )
        return RolePlan(role=role, node=node, containers=(container,), merged=True)
    containers = []
    several = len(commands) > 1
    for index, command in enumerate(commands):
        npus = client.npus(command)
        port = served_port(command)
        name = port_name("http", index if several else None)
        serving = client.serves(command)
        containers.append(
            ContainerPlan(
                name=fit(dns(command.name)),
                source=dns(command.name),
                command=command,
                drop=base_drop,
                ranks=1,
                ports=(port,) if serving else (),
                health=port if serving else None,
                npus=npus,
                extra_args=(),
                extra_env=_extra_env(command, npus, keep_alive),
                startup_failures=startup_failures(command),
                port_names=(name,) if serving else (),
            )
        )
    return RolePlan(role=role, node=node, containers=tuple(containers), merged=False)


def _node_said(command: Command, kind: str) -> str | None:
    """The value of a command's line of this kind ("node-rank", "start-rank"), or None."""
    for line in command.arg_lines:
        if line_kind(line.kind, line.text) == kind:
            try:
                values = shell.flag_values(line.text)[1]
            except ValueError:
                return None
            return values[0] if values else ""
    return None


def worker_script(followers: Sequence[Command]) -> str:
    """What /bin/sh runs in front of a worker's launcher when the followers differ in their
    per-node lines (``PER_WORKER``): worker k adds follower k's lines of those kinds to its
    arguments, chosen by LWS_WORKER_INDEX; "" when they do not differ. One line, each word
    quoted for the shell, ``$(`` kept from Kubernetes' expansion (``$$(``)."""
    said = [
        [w for t in c.arg_lines if line_kind(t.kind, t.text) in PER_WORKER for w in shell.words(t.text)]
        for c in followers
    ]
    if len(followers) < 2 or all(words == said[0] for words in said):
        return ""
    cases = " ".join(
        f'{k}) set -- "$@" {" ".join(shlex.quote(w) for w in words)} ;;' for k, words in enumerate(said, start=1)
    )
    script = (
        f'case "${LWS_WORKER_INDEX}" in {cases} '
        f'*) echo "no worker ${LWS_WORKER_INDEX} in this group" >&2; exit 1 ;; esac; exec "$0" "$@"'
    )
    return script.replace("$(", "$$(")


def group_findings(role: str, commands: Sequence[Command]) -> list[Finding]:
    """What one worker template of a LeaderWorkerSet could not run: followers that differ in a
    line other than their node rank, start rank and local data-parallel size. (Node and start
    ranks that do not agree with the nodes are rule 24's, checking/spanning.py.)"""
    followers = list(commands[1:])
    if not followers:
        return []
    findings = []
    skip = ("node-rank", *PER_WORKER)

    def kept(command: Command) -> tuple[tuple[str, ...], tuple[str, ...]]:
        args = tuple(t.text for t in command.arg_lines if line_kind(t.kind, t.text) not in skip)
        return args, tuple(t.text for t in command.env_lines)

    if len({kept(c) for c in followers}) > 1:
        findings.append(
            Finding(
                at=("role", role),
                message=f"the nodes after the head of role {role!r} differ in more than --node-rank, "
                "--data-parallel-start-rank and --data-parallel-size-local: a LeaderWorkerSet runs every worker "
                "from one template",
            )
        )
    return findings


def plan_group(role: str, commands: Sequence[Command], *, drop_events: bool, keep_alive: bool) -> RolePlan:
    """A role that spans nodes (one command per node, the head's first) as a LeaderWorkerSet:
    the leader's pod runs the head's command, every worker's pod one template made from the
    first follower's, with its node rank ``$(LWS_WORKER_INDEX)`` and, when the followers'
    per-node lines differ, each worker's own added by ``worker_script``; a worker asks for the
    most NPUs a follower uses."""
    head, followers = commands[0], list(commands[1:])
    leader = plan_role(role, head.node or 1, [head], drop_events=drop_events, keep_alive=keep_alive)
    nodes = tuple(c.node or 1 for c in commands)
    if not followers:
        return dataclasses.replace(leader, nodes=nodes)
    first = followers[0]
    worker_plan = plan_role(role, first.node or 1, [first], drop_events=drop_events, keep_alive=keep_alive)
    (container,) = worker_plan.containers
    drop, extra, script = container.drop, container.extra_args, ""
    if _node_said(first, "node-rank") is not None:
        drop += ("node-rank",)
        extra += (f"--node-rank=$({LWS_WORKER_INDEX})",)
    script = worker_script(followers)
    if script:
        drop += PER_WORKER
    npus = max(client.npus(c) for c in followers)
    worker = dataclasses.replace(
        container,
        name=fit(dns(f"{role}-worker")),
        drop=drop,
        extra_args=extra,
        script=script,
        commands=tuple(followers),
        npus=npus,
        extra_env=_extra_env(first, npus, keep_alive),
    )
    workers = dataclasses.replace(worker_plan, containers=(worker,))
    return dataclasses.replace(leader, size=len(commands), nodes=nodes, workers=workers)


# -- where a selection runs, and its names -------------------------------------------------


@dataclasses.dataclass(frozen=True, kw_only=True)
class Where:
    """A selection's recipe, strategy and target, as its manifests name and schedule it."""

    recipe: str
    strategy: str
    target: str
    skus: tuple[str, ...]
    model: str = ""  # the served checkpoint
    checkpoint_bytes: int | None = None  # its size, from the recipe's facts
    heads: tuple[str, ...] = ()  # placeholders of a head's address (a LeaderWorkerSet's pods read LWS_LEADER_ADDRESS)

    @property
    def instance(self) -> str:
        """The deployment's name: recipe, strategy and target, starting with a letter (a Service
        name must), at most 48 characters (room for a role and a suffix in 63)."""
        name = dns(f"{self.recipe}-{self.strategy}-{self.target}") or "recipe"
        if not name[0].isalpha():
            name = f"r-{name}"
        return fit(name, 48)

    @property
    def release(self) -> str:
        """The router's Helm release: the chart names its endpoint picker after the first 40
        characters of it, so it keeps within them."""
        return fit(self.instance, 40)

    def defaults(self) -> dict[str, str]:
        size = cache_size(self.checkpoint_bytes)
        return {"model-cache": size, "compile-cache": size}


@dataclasses.dataclass(frozen=True, kw_only=True)
class Names:
    """Every name of a role's objects (``names_of``)."""

    deployment: str
    service: str
    models: str
    compile: str
    claim: str
    worker_claim: str  # a LeaderWorkerSet's workers' when they use other NPUs than its leader


def names_of(where: Where, role: str) -> Names:
    base = fit(f"{where.instance}-{dns(role) or 'role'}")
    return Names(
        deployment=base,
        service=base,
        models=fit(f"{base}-models"),
        compile=fit(f"{base}-compile"),
        claim=fit(f"{base}-npus"),
        worker_claim=fit(f"{base}-worker-npus"),
    )


def role_file(role: str) -> str:
    return f"{FOLDER}/{dns(role) or 'role'}.yaml"


def name_findings(where: Where, roles: Sequence[tuple[str, Sequence[Command]]]) -> list[Finding]:
    """Names that Kubernetes would refuse, or that two roles would share (after shortening)."""
    findings = []
    commands: dict[str, str] = {}
    for role, members in roles:
        for command in members:
            other = commands.setdefault(dns(command.name), role)
            if other != role:
                findings.append(
                    Finding(
                        at=("role", role),
                        message=f"a command of role {role!r} and one of {other!r} would both be the container "
                        f"{dns(command.name)!r}: rename a role",
                    )
                )
    for i, sku in enumerate(where.skus):
        why = label_value_problem(sku)
        if why or not sku:
            findings.append(Finding(at=("sku", i), message=f"SKU {sku!r} is matched as a node label value: {why}"))
    seen: dict[tuple[str, str], str] = {}
    for role, _members in roles:
        if not dns(role):
            findings.append(Finding(at=("role", role), message=f"role {role!r} gives no Kubernetes name"))
            continue
        names = names_of(where, role)
        for kind, name in (
            ("file", role_file(role)),
            ("Deployment", names.deployment),
            ("PersistentVolumeClaim", names.models),
            ("PersistentVolumeClaim", names.compile),
            ("ResourceClaimTemplate", names.claim),
            ("ResourceClaimTemplate", names.worker_claim),
        ):
            other = seen.setdefault((kind, name), role)
            if other != role:
                findings.append(
                    Finding(
                        at=("role", role),
                        message=f"roles {other!r} and {role!r} would both be the {kind} {name!r}: rename one",
                    )
                )
    return findings


# -- the objects ----------------------------------------------------------------------------

_SETTING = re.compile(r"@\{(" + "|".join(s.name for s in SETTINGS) + r")(?:/([1-9][0-9]{0,3}))?\}")


def _s(name: str, parts: int = 1) -> str:
    """A setting's marker in a skeleton (``with_settings`` puts its value in); with ``parts``,
    one container's share of a pod's CPU or memory."""
    return f"@{{{name}}}" if parts == 1 else f"@{{{name}/{parts}}}"


def share(name: str, value: str, parts: int) -> str:
    """One of ``parts`` containers' share of a pod's CPU (whole CPUs, rounded up) or memory (in
    Mi, rounded up)."""
    if parts == 1 or not value:
        return value
    if name == "cpu":
        return str(-(-int(value) // parts))
    return f"{-(-memory_bytes(value) // (parts * 2**20))}Mi"


def _labels(where: Where, role: str, router: Router | None) -> dict[str, str]:
    """A role's labels: the Kubernetes recommended ones and, for a pod the router's pool
    selects, llm-d's and the router's own (which ``router_findings`` keeps off the others)."""
    names = names_of(where, role)
    labels = {
        "app.kubernetes.io/name": names.deployment,
        "app.kubernetes.io/instance": where.instance,
        "app.kubernetes.io/component": label_value(dns(role)) or "role",
        "app.kubernetes.io/part-of": label_value(dns(where.recipe)) or "recipe",
    }
    if router is not None and role in DISAGGREGATED:
        labels.update(LLM_D_LABELS)
        labels[MODEL_LABEL] = label_value(where.model) or "model"
        labels[ROLE_LABEL] = role
        labels.update(router.match_labels)
    return labels


def selector_labels(where: Where, role: str) -> dict[str, str]:
    return {"app.kubernetes.io/name": names_of(where, role).deployment, "app.kubernetes.io/instance": where.instance}


def pool_labels(where: Where, router: Router) -> dict[str, str]:
    """What the router's pool selects in the cluster's values: the recipe's labels, this
    deployment's instance and its model, so that two deployments never share a pool."""
    labels = dict(router.match_labels)
    labels["app.kubernetes.io/instance"] = where.instance
    labels.setdefault(MODEL_LABEL, label_value(where.model) or "model")
    return labels


def router_findings(where: Where, router: Router) -> list[Finding]:
    """Router labels that would select the wrong pods: one overriding a label a Deployment
    selects its own pods by, or one that selects a single role."""
    findings = list(router.findings)
    own = set(selector_labels(where, DISAGGREGATED[0]))
    at = router.values_at + _key_at(router.values_text, "matchLabels")
    for key in router.match_labels:
        if key in own:
            findings.append(
                Finding(
                    at=("router", at),
                    message=f"router.modelServers.matchLabels may not set {key!r}: each Deployment selects its own "
                    "pods by it",
                )
            )
        elif key in (ROLE_LABEL, "app.kubernetes.io/component"):
            findings.append(
                Finding(
                    at=("router", at),
                    message=f"router.modelServers.matchLabels {key!r} selects one role only: the pool needs the "
                    "prefill and the decode pods",
                )
            )
    return findings


def _probe(port: int | str, name: str, **more: int) -> dict[str, Any]:
    return {"httpGet": {"path": HEALTH_PATH, "port": name if isinstance(port, str) else port}, **more}


def _hole(port: int | str) -> int | _Hole:
    return _Hole(port) if isinstance(port, str) else port


def _env_entries(plan: ContainerPlan, secret: bool, leader: Sequence[str] = ()) -> list[Any]:
    """A container's env: the reader's placeholders (the pod's IP from the downward API, a
    head's address in a LeaderWorkerSet from LWS_LEADER_ADDRESS, which its controller sets
    first), the marker of the command's env lines, then what the manifests add."""
    command = plan.command
    kept = [
        line.text
        for line in (*command.arg_lines, *command.env_lines)
        if line_kind(line.kind, line.text) not in plan.drop
    ]
    entries: list[Any] = []
    for name in shell.placeholders("\n".join(kept)):
        if name == POD_IP:
            entries.append({"name": POD_IP, "valueFrom": {"fieldRef": {"fieldPath": "status.podIP"}}})
        elif name in leader:
            entries.append({"name": name, "value": f"$({LWS_LEADER_ADDRESS})"})
        else:
            entries.append({"name": name, "value": f"<{name}>"})
    given = {env_pair(t)[0] for t in command.envs if line_kind("env", t) not in plan.drop}
    given |= {e["name"] for e in entries}
    if any(line_kind("env", t) not in plan.drop for t in command.envs):
        entries.append(f"RECIPEBOOK-ENV-{plan.source}{_drops(plan)}")
    ours: list[dict[str, Any]] = [
        {"name": "HF_HOME", "value": MODEL_CACHE_PATH},
        {"name": "VLLM_CACHE_ROOT", "value": COMPILE_CACHE_PATH},
    ]
    if secret:
        ours.append(
            {
                "name": "HF_TOKEN",
                "valueFrom": {"secretKeyRef": {"name": _s("hf-secret"), "key": "HF_TOKEN", "optional": True}},
            }
        )
    ours.append({"name": "USER", "value": POD_USER})
    ours += [{"name": k, "value": v} for k, v in plan.extra_env]
    entries += [e for e in ours if e["name"] not in given]
    return entries


def _drops(plan: ContainerPlan) -> str:
    return "/" + ",".join(plan.drop) if plan.drop else ""


def _resources(plan: ContainerPlan, mode: str, claim: str | None, parts: int) -> dict[str, Any]:
    asked: dict[str, Any] = {
        "cpu": _s("cpu", parts),
        "memory": _s("memory", parts),
        "ephemeral-storage": EPHEMERAL_STORAGE,
    }
    limits = dict(asked)
    if mode == "device-plugin":
        asked[NPU_RESOURCE] = plan.npus
        limits[NPU_RESOURCE] = plan.npus
    out: dict[str, Any] = {"requests": asked, "limits": limits}
    if mode == "dra" and claim is not None:
        out["claims"] = [{"name": "npus", "request": claim}] if claim else [{"name": "npus"}]
    return out


def _container(
    plan: ContainerPlan, mode: str, claim: str | None, secret: bool, parts: int, leader: Sequence[str] = ()
) -> dict[str, Any]:
    command = plan.command
    ports = [
        {"name": name, "containerPort": _hole(port), "protocol": "TCP"}
        for name, port in zip(plan.port_names, (*plan.ports, plan.health), strict=False)
        if port is not None
    ]
    launcher = shell.words(command.launcher)
    out: dict[str, Any] = {
        "name": plan.name,
        "image": _s("server-image"),
        "command": ["/bin/sh", "-c", plan.script, *launcher] if plan.script else launcher,
        "args": [command.model, f"RECIPEBOOK-ARGS-{plan.source}{_drops(plan)}", *plan.extra_args],
        "env": _env_entries(plan, secret, leader),
    }
    if ports:
        out["ports"] = ports
    out.update(
        {
            "resources": _resources(plan, mode, claim, parts),
            "volumeMounts": [
                {"name": "models", "mountPath": MODEL_CACHE_PATH},
                {"name": "compile", "mountPath": COMPILE_CACHE_PATH},
                {"name": "shm", "mountPath": "/dev/shm"},
            ],
            "securityContext": {"allowPrivilegeEscalation": False},
        }
    )
    if plan.health is None:
        return out  # a headless follower: no HTTP server; its leader's probes speak for the group
    health_name = plan.port_names[-1]
    return out | {
        "startupProbe": _probe(
            plan.health,
            health_name,
            initialDelaySeconds=STARTUP_DELAY,
            periodSeconds=STARTUP_PERIOD,
            timeoutSeconds=5,
            failureThreshold=plan.startup_failures,
        ),
        "readinessProbe": _probe(plan.health, health_name, periodSeconds=5, timeoutSeconds=2, failureThreshold=3),
        "livenessProbe": _probe(plan.health, health_name, periodSeconds=10, timeoutSeconds=5, failureThreshold=3),
    }


def sidecar_ports(router: Router, ranks: int) -> tuple[int, ...]:
    first = router.target_ports[0] if router.target_ports else client.DEFAULT_PORT
    return tuple(first + i for i in range(ranks))


def _sidecar(router: Router, plan: RolePlan) -> dict[str, Any]:
    ranks = sum(c.ranks for c in plan.containers) if plan.merged else len(plan.containers)
    ports = sidecar_ports(router, ranks)
    first = plan.containers[0].ports[0]
    return {
        "name": "routing-proxy",
        "image": _s("sidecar-image"),
        "restartPolicy": "Always",
        "args": [
            f"--port={ports[0]}",
            f"--model-server-port={first}",
            f"--data-parallel-size={ranks}",
            "--kv-connector=nixlv2",
            "--secure-proxy=false",
        ],
        "env": [{"name": POD_IP, "valueFrom": {"fieldRef": {"fieldPath": "status.podIP"}}}],
        "ports": [{"name": port_name("proxy", i), "containerPort": p, "protocol": "TCP"} for i, p in enumerate(ports)],
        "resources": {"requests": {"cpu": "1", "memory": "1Gi"}, "limits": {"cpu": "1", "memory": "1Gi"}},
        "securityContext": {"allowPrivilegeEscalation": False, "runAsNonRoot": True},
    }


def _pvc(where: Where, role: str, name: str, size: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": name, "namespace": _s("namespace"), "labels": selector_labels(where, role)},
        "spec": {
            "accessModes": ["ReadWriteOnce"],
            "storageClassName": _s("storage-class"),
            "resources": {"requests": {"storage": _s(size)}},
        },
    }


def _cel_products(skus: Sequence[str]) -> str:
    names = ", ".join(f'"{sku}"' for sku in skus)
    return f'device.attributes["{NPU_DEVICE_CLASS}"].productName in [{names}]'


def _claim_template(where: Where, role: str, plan: RolePlan, nic: bool, name: str = "") -> dict[str, Any]:
    requests = []
    several = len(plan.containers) > 1
    for i, container in enumerate(plan.containers):
        requests.append(
            {
                "name": f"npu-{i}" if several else "npu",
                "exactly": {
                    "deviceClassName": NPU_DEVICE_CLASS,
                    "count": container.npus,
                    "selectors": [{"cel": {"expression": _cel_products(where.skus)}}],
                },
            }
        )
    devices: dict[str, Any] = {"requests": requests}
    if nic:
        requests.append(
            {
                "name": "nic",
                "exactly": {
                    "deviceClassName": NIC_DEVICE_CLASS,
                    "count": 1,
                    "selectors": [{"cel": {"expression": 'device.attributes["dra.net"].rdma'}}],
                },
            }
        )
        devices["constraints"] = [{"requests": [r["name"] for r in requests], "matchAttribute": NUMA_ATTRIBUTE}]
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaimTemplate",
        "metadata": {
            "name": name or names_of(where, role).claim,
            "namespace": _s("namespace"),
            "labels": selector_labels(where, role),
        },
        "spec": {"spec": {"devices": devices}},
    }


def pod_template(
    where: Where,
    plan: RolePlan,
    router: Router | None,
    mode: str,
    *,
    secret: bool = True,
    group: bool = False,
    claim_name: str = "",
) -> dict[str, Any]:
    """A role's pod on one node, running its containers: a Deployment's, or (``group``) a
    LeaderWorkerSet's leader or worker, whose caches are its own claims (the set's
    ``volumeClaimTemplates``) and whose head placeholders read LWS_LEADER_ADDRESS. A pod that
    answers no requests (a headless follower) carries no label or annotation of the router's."""
    role = plan.role
    names = names_of(where, role)
    serving = any(c.health is not None for c in plan.containers)
    disaggregated = router is not None and role in DISAGGREGATED and serving
    several = len(plan.containers) > 1
    leader = where.heads if group else ()
    pod: dict[str, Any] = {
        "affinity": {
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [
                        {"matchExpressions": [{"key": PRODUCT_LABEL, "operator": "In", "values": list(where.skus)}]}
                    ]
                }
            },
            # roles of one deployment apart when the cluster has the nodes; together otherwise
            "podAntiAffinity": {
                "preferredDuringSchedulingIgnoredDuringExecution": [
                    {
                        "weight": 100,
                        "podAffinityTerm": {
                            "topologyKey": "kubernetes.io/hostname",
                            "labelSelector": {"matchLabels": {"app.kubernetes.io/instance": where.instance}},
                        },
                    }
                ]
            },
        },
        "securityContext": dict(POD_SECURITY),
    }
    if disaggregated and role == "decode" and router is not None:
        pod["initContainers"] = [_sidecar(router, plan)]
    claims = [f"npu-{i}" if several else "" for i in range(len(plan.containers))]
    parts = len(plan.containers)
    pod["containers"] = [_container(c, mode, claims[i], secret, parts, leader) for i, c in enumerate(plan.containers)]
    if mode == "dra":
        pod["resourceClaims"] = [{"name": "npus", "resourceClaimTemplateName": claim_name or names.claim}]
    caches = [
        {"name": "models", "persistentVolumeClaim": {"claimName": names.models}},
        {"name": "compile", "persistentVolumeClaim": {"claimName": names.compile}},
    ]
    pod["volumes"] = [
        *([] if group else caches),
        {"name": "shm", "emptyDir": {"medium": "Memory", "sizeLimit": _s("shm")}},
    ]
    metadata: dict[str, Any] = {"labels": _labels(where, role, router if serving else None)}
    if disaggregated and router is not None:
        metadata["annotations"] = {ACTIVE_PORTS: ",".join(str(p) for p in active_ports(router, plan))}
    return {"metadata": metadata, "spec": pod}


def active_ports(router: Router, plan: RolePlan) -> tuple[int | str, ...]:
    """The router's targetPorts a pod of the role serves: the routing proxy's on decode, the
    server's own elsewhere (a reader's ``<NAME>`` for a port they fill in)."""
    if plan.role == "decode":
        ranks = sum(c.ranks for c in plan.containers) if plan.merged else len(plan.containers)
        return sidecar_ports(router, ranks)
    return plan.ports


def _deployment(where: Where, plan: RolePlan, router: Router | None, mode: str) -> dict[str, Any]:
    names = names_of(where, plan.role)
    budget = STARTUP_DELAY + max(STARTUP_PERIOD * c.startup_failures for c in plan.containers)
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {
            "name": names.deployment,
            "namespace": _s("namespace"),
            "labels": _labels(where, plan.role, router),
        },
        "spec": {
            "replicas": 1,
            "strategy": {"type": "Recreate"},  # the old pod holds the NPUs the new one needs
            "progressDeadlineSeconds": budget + 60,
            "selector": {"matchLabels": selector_labels(where, plan.role)},
            "template": pod_template(where, plan, router, mode),
        },
    }


def _claim_spec(size: str) -> dict[str, Any]:
    return {
        "accessModes": ["ReadWriteOnce"],
        "storageClassName": _s("storage-class"),
        "resources": {"requests": {"storage": _s(size)}},
    }


def _leader_worker_set(where: Where, plan: RolePlan, router: Router | None, mode: str) -> dict[str, Any]:
    """A role that spans nodes: one group of ``size`` pods, the leader running the head's
    command and each worker the followers' template; created leader first, restarted as a
    group (one server: a pod lost stops them all), each pod with caches of its own."""
    names = names_of(where, plan.role)
    assert plan.workers is not None
    return {
        "apiVersion": LWS_API,
        "kind": "LeaderWorkerSet",
        "metadata": {
            "name": names.deployment,
            "namespace": _s("namespace"),
            "labels": _labels(where, plan.role, router),
        },
        "spec": {
            "replicas": 1,
            "startupPolicy": "LeaderCreated",
            "leaderWorkerTemplate": {
                "size": plan.size,
                "restartPolicy": "RecreateGroupOnPodRestart",
                "leaderTemplate": pod_template(where, plan, router, mode, group=True),
                "workerTemplate": pod_template(
                    where,
                    plan.workers,
                    router,
                    mode,
                    group=True,
                    claim_name=names.worker_claim if _own_claim(plan) else "",
                ),
                "volumeClaimTemplates": [
                    {"metadata": {"name": "models"}, "spec": _claim_spec("model-cache")},
                    {"metadata": {"name": "compile"}, "spec": _claim_spec("compile-cache")},
                ],
            },
        },
    }


def _own_claim(plan: RolePlan) -> bool:
    """Whether a LeaderWorkerSet's workers claim other NPUs than its leader (a template each)."""
    return plan.workers is not None and plan.workers.npus != plan.npus


def service_selector(where: Where, plan: RolePlan) -> dict[str, str]:
    """What a role's Service selects: its pods, or a LeaderWorkerSet's leader only (the head
    answers for the server)."""
    selector = selector_labels(where, plan.role)
    if plan.workers is not None:
        selector[LWS_INDEX_LABEL] = "0"
    return selector


def _service(where: Where, plan: RolePlan) -> dict[str, Any]:
    ports: list[dict[str, Any]] = []
    for container in plan.containers:
        for name, port in zip(container.port_names, container.ports, strict=False):
            number = port if isinstance(port, int) else client.DEFAULT_PORT + len(ports)
            ports.append({"name": name, "port": number, "targetPort": name, "protocol": "TCP"})
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {
            "name": names_of(where, plan.role).service,
            "namespace": _s("namespace"),
            "labels": selector_labels(where, plan.role),
        },
        "spec": {"type": "ClusterIP", "selector": service_selector(where, plan), "ports": ports},
    }


def _role_documents(where: Where, plan: RolePlan, router: Router | None, mode: str) -> list[dict[str, Any]]:
    names = names_of(where, plan.role)
    documents = (
        []
        if plan.workers is not None
        else [
            _pvc(where, plan.role, names.models, "model-cache"),
            _pvc(where, plan.role, names.compile, "compile-cache"),
        ]
    )
    disaggregated = router is not None and plan.role in DISAGGREGATED
    if mode == "dra":
        documents.append(_claim_template(where, plan.role, plan, nic=disaggregated))
        if plan.workers is not None and _own_claim(plan):
            documents.append(
                _claim_template(where, plan.role, plan.workers, nic=disaggregated, name=names.worker_claim)
            )
    documents.append(
        _leader_worker_set(where, plan, router, mode)
        if plan.workers is not None
        else _deployment(where, plan, router, mode)
    )
    if not disaggregated:
        documents.append(_service(where, plan))
    return documents


def _header(where: Where, plan: RolePlan | None, mode: str) -> str:
    head = f"# {where.recipe}: {where.strategy} / {where.target}"
    if plan is not None and plan.workers is not None:
        head += f", role {plan.role} (nodes {plan.nodes[0]}-{plan.nodes[-1]}: a LeaderWorkerSet, LWS {LWS} or later)"
    elif plan is not None:
        head += f", role {plan.role} (node {plan.node})"
    npus = (
        f"NPUs as {NPU_RESOURCE} (RBLN device plugin {DEVICE_PLUGIN} or later)"
        if mode == "device-plugin"
        else f"NPUs claimed from DRA device class {NPU_DEVICE_CLASS} (Kubernetes {KUBERNETES} or later)"
    )
    return (
        f"{head}\n# Kubernetes {KUBERNETES} or later; {npus}. Apply the folder with: {APPLY}\n"
        "# A value in <ANGLE_BRACKETS> is yours to set first: see the operator's page (Kubernetes).\n"
    )


def _namespace_file(where: Where, mode: str) -> str:
    body = {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {
            "name": _s("namespace"),
            "labels": {"app.kubernetes.io/part-of": label_value(dns(where.recipe)) or "recipe"},
        },
    }
    return _header(where, None, mode) + dump(body)


def cluster_values(where: Where, router: Router) -> str:
    """The values the cluster adds to the recipe's: a pool that selects this deployment's
    pods only, and an HTTPRoute to the Gateway the operator names."""
    body = {
        "router": {"modelServers": {"matchLabels": pool_labels(where, router)}},
        "httpRoute": {"create": True, "inferenceGatewayName": _s("gateway")},
    }
    return (
        f"# Layered over {router.values_name} (helm install --values, in this order): the pool selects\n"
        f"# this deployment's pods only, and the chart routes the Gateway's traffic to it.\n" + dump(body)
    )


def _install_step(where: Where, step: str, values: str) -> str:
    """The recipe's helm install as the cluster runs it: this deployment's release name, the
    namespace, and the cluster's values after the recipe's."""
    try:
        words = shell.words(step.replace("\\\n", " "))
    except ValueError:
        return step
    if len(words) < 4 or words[:2] != ["helm", "install"] or words[2].startswith("-") or words[3].startswith("-"):
        return step
    rest = [*words[4:], "--namespace", _s("namespace"), "--values", values]
    lines = [f"helm install {where.release} {shell_quote(words[3])}"]
    i = 0
    while i < len(rest):
        if i + 1 < len(rest) and rest[i].startswith("--") and "=" not in rest[i] and not rest[i + 1].startswith("-"):
            lines.append(f"{rest[i]} {shell_quote(rest[i + 1])}")
            i += 2
        else:
            lines.append(shell_quote(rest[i]))
            i += 1
    return (" \\\n    ").join(lines)


def shell_quote(word: str) -> str:
    return word if _SETTING.fullmatch(word) else shlex.quote(word)


def router_files(where: Where, router: Router) -> dict[str, str]:
    """The router's values files and its Helm steps, to run from that folder."""
    steps = "\n".join(_install_step(where, s, CLUSTER_VALUES) for s in router.steps)
    install = (
        "#!/usr/bin/env bash\n"
        f"# After {APPLY}: the llm-d router ({LLM_D}) in namespace @{{namespace}}. It needs the Gateway API and\n"
        "# InferencePool CRDs and a Gateway named @{gateway} in that namespace (see the operator's page).\n"
        'set -euo pipefail\ncd "$(dirname "$0")"\n'
        f"{steps}\n"
    )
    return {
        f"{ROUTER_FOLDER}/{router.values_name}": router.values_text,
        f"{ROUTER_FOLDER}/{CLUSTER_VALUES}": cluster_values(where, router),
        f"{ROUTER_FOLDER}/install.sh": install,
    }


# -- planning a selection ------------------------------------------------------------------


def plans(
    roles: Sequence[tuple[str, Sequence[Command]]], nodes: Mapping[str, int], router: Router | None
) -> tuple[RolePlan, ...]:
    drop_events = router is None or not router.kv_events
    disaggregated = router is not None
    return tuple(
        plan_group(role, commands, drop_events=drop_events, keep_alive=disaggregated and role == "prefill")
        if commands and commands[0].node is not None
        else plan_role(
            role,
            nodes.get(role, 1),
            commands,
            drop_events=drop_events,
            keep_alive=disaggregated and role == "prefill",
        )
        for role, commands in roles
    )


def findings_of(
    where: Where, roles: Sequence[tuple[str, Sequence[Command]]], role_plans: Sequence[RolePlan], router: Router | None
) -> list[Finding]:
    """Everything the recipe's data would make wrong in these manifests."""
    found = name_findings(where, roles)
    for role, commands in roles:
        if commands and commands[0].node is not None:
            found += group_findings(role, commands)
    if router is not None:
        found += router_findings(where, router)
        found += port_findings(router, role_plans)
        found += kv_events_findings(router, role_plans)
    for plan in role_plans:
        for _node, pod in plan.pods()[:2]:
            for container in pod.containers:
                found += number_findings(plan.role, container)
    return found


def port_findings(router: Router, role_plans: Sequence[RolePlan]) -> list[Finding]:
    """Rule 19: every port a prefill/decode pod serves is one of the router's targetPorts, and
    a decode role's ranks listen on consecutive ports (its routing proxy forwards port
    ``first + i`` to rank i). A port the reader fills in is theirs to choose among the
    targetPorts (the page says so): it is not judged here."""
    findings = []
    served: list[int] = []
    proxy: list[int] = []
    at = router.values_at + _key_at(router.values_text, "targetPorts")
    for plan in role_plans:
        if plan.role not in DISAGGREGATED:
            continue
        ports = plan.ports
        numbers = [p for p in ports if isinstance(p, int)]
        if plan.role == "decode":
            if len(numbers) == len(ports) and numbers != list(range(numbers[0], numbers[0] + len(numbers))):
                findings.append(
                    Finding(
                        at=("router", at),
                        message=f"the decode ranks listen on {numbers}, not on consecutive ports the routing proxy "
                        "forwards to",
                    )
                )
            proxy += [p for p in active_ports(router, plan) if isinstance(p, int)]
        else:
            served += [p for p in numbers if 1 <= p <= 65535]  # a port outside the range is rule 17's
    served += proxy
    missing = sorted({p for p in served if p not in router.target_ports})
    if missing:
        findings.append(
            Finding(
                at=("router", at),
                message=f"the router's targetPorts {list(router.target_ports)} miss port(s) {missing} its model "
                "servers listen on",
            )
        )
    if any(p > 65535 for p in proxy):
        findings.append(
            Finding(
                at=("router", at),
                message="the routing proxy's ports would pass 65535: its first targetPort plus the decode ranks",
            )
        )
    return findings


_ENDPOINT = re.compile(r"tcp://(?P<host>[^:/]+):(?P<port>[0-9]{1,5})$")


def kv_events_findings(router: Router, role_plans: Sequence[RolePlan]) -> list[Finding]:
    """KV events the manifests send go where the endpoint picker reads them: from each pod, the
    server binds the picker's socket port (plus its rank, which vLLM adds); to the picker's own
    ZMQ endpoint, a port the chart's Service opens."""
    if not router.kv_events:
        return []
    findings = []
    for plan in role_plans:
        for container in plan.containers:
            text = _flag(container.command, "--kv-events-config")
            if text is None:
                continue
            try:
                endpoint = json.loads(text).get("endpoint", "")
            except (ValueError, AttributeError):
                continue  # a value vLLM's own checks judge
            match = _ENDPOINT.fullmatch(str(endpoint))
            where = ("line", plan.role, "--kv-events-config")
            if match is None:
                findings.append(
                    Finding(
                        at=where,
                        message=f"KV events go to {endpoint!r}, not a tcp://HOST:PORT the endpoint picker reads",
                    )
                )
                continue
            host, port = match.group("host"), int(match.group("port"))
            if router.kv_from_pods:
                # vLLM adds a server's data-parallel rank to the port itself, as the picker expects
                if host not in ("*", "0.0.0.0") or port != router.kv_socket_port:
                    findings.append(
                        Finding(
                            at=where,
                            message=f"the endpoint picker reads KV events from each pod on port {router.kv_socket_port} "
                            f"(vLLM adds the rank): the server must bind tcp://*:{router.kv_socket_port}, not send to "
                            f"{endpoint}",
                        )
                    )
            elif host in ("*", "0.0.0.0") or port not in router.kv_open_ports:
                findings.append(
                    Finding(
                        at=where,
                        message=f"KV events go to {endpoint}, but the endpoint picker's Service opens "
                        f"{list(router.kv_open_ports) or 'no port'} for them (router.extraServicePorts)",
                    )
                )
    return findings


def number_findings(role: str, container: ContainerPlan) -> list[Finding]:
    """Numbers a manifest holds that Kubernetes keeps in int32 (a probe's budget, NPU counts),
    and ports of 1-65535."""
    findings = []
    command = container.command
    budget = STARTUP_DELAY + STARTUP_PERIOD * container.startup_failures + 60
    if budget > INT32:
        findings.append(
            Finding(
                at=("line", role, READY_TIMEOUT),
                message=f"{READY_TIMEOUT} makes the start-up probe's budget {budget} s, beyond Kubernetes' "
                f"largest number ({INT32})",
            )
        )
    if not 1 <= container.npus <= INT32:
        flag = next(
            (
                f
                for f in ("--tensor-parallel-size", "--pipeline-parallel-size", "--data-parallel-size")
                if _flag(command, f)
            ),
            "--tensor-parallel-size",
        )
        findings.append(
            Finding(
                at=("line", role, flag), message=f"the {container.name} container would ask for {container.npus} NPUs"
            )
        )
    return findings  # a port outside 1-65535 is rule 17's (safety.py)


# -- skeletons, settings and fragments -------------------------------------------------------

_MARK = re.compile(r"^( *)- RECIPEBOOK-(ARGS|ENV)-([a-z0-9-]+)(?:/([a-z,-]+))?\n", re.MULTILINE)


@dataclasses.dataclass(frozen=True, eq=False)
class _Planned:
    """A selection's roles and their plans, equal to another's whose skeletons read the same
    (``plan_key``), so that the selections of a target share their skeletons."""

    key: tuple[Any, ...]
    roles: tuple[tuple[str, tuple[Command, ...]], ...]
    plans: tuple[RolePlan, ...]

    def __hash__(self) -> int:
        return hash(self.key)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Planned) and other.key == self.key


def skeletons(
    where: Where,
    roles: Sequence[tuple[str, Sequence[Command]]],
    nodes: Mapping[str, int],
    router_steps: Sequence[str],
    mode: str = "device-plugin",
    role_plans: tuple[RolePlan, ...] | None = None,
) -> dict[str, str]:
    """Every manifest file of a selection in one NPU mode, with marker lines where each
    container's lines go and setting markers (``@{name}``); raises KubernetesError with the
    findings of a recipe that would make them wrong. The selections of a target share a few
    sets of skeletons: each is rendered once (kept by what it reads, ``plan_key``).
    ``role_plans``: the roles' plans (``plans`` of these roles, nodes and router steps), when
    the caller has made them already (for the other NPU mode, or to find the plan's key)."""
    if role_plans is None:
        role_plans = plans(roles, nodes, router_of(router_steps))
    planned = _Planned(
        key=tuple(plan_key(p) for p in role_plans),
        roles=tuple((role, tuple(commands)) for role, commands in roles),
        plans=role_plans,
    )
    return dict(_skeleton_files(where, mode, tuple(router_steps), planned))


@remembered(maxsize=256)
def _skeleton_files(where: Where, mode: str, router_steps: tuple[str, ...], planned: _Planned) -> Mapping[str, str]:
    router = router_of(router_steps)
    found = findings_of(where, planned.roles, planned.plans, router)
    if found:
        raise KubernetesError(found)
    out = {NAMESPACE_FILE: _namespace_file(where, mode)}
    for plan in planned.plans:
        out[role_file(plan.role)] = _header(where, plan, mode) + dump_all(_role_documents(where, plan, router, mode))
    if router is not None:
        out.update(router_files(where, router))
    return types.MappingProxyType(out)


# A line whose only value is a setting's marker, with the newline that ends it.
_SETTING_LINE = re.compile(r"^ *[A-Za-z]+: '@\{([a-z-]+)\}'\n", re.MULTILINE)


def with_settings(text: str, settings: Mapping[str, str]) -> str:
    """A skeleton with the settings' values in place of their markers; a line whose only value is
    a setting left empty (the cluster's default storage class) is left out. (The text's lines
    are read with a newline after the last, which is taken off again: a last line left out takes
    the newline before it.)"""
    empty = {s.name for s in SETTINGS if s.empty and not settings.get(s.name)}

    def kept(match: re.Match[str]) -> str:
        return "" if match.group(1) in empty else match.group(0)

    def value(match: re.Match[str]) -> str:
        name, parts = match.group(1), int(match.group(2) or 1)
        return share(name, settings.get(name) or "", parts) or UNSET.get(name, "")

    rows = _SETTING_LINE.sub(kept, text + "\n") if empty else text + "\n"
    return _SETTING.sub(value, rows[:-1])


def fill(
    text: str, lines: Mapping[str, tuple[Sequence[tuple[str | None, str]], Sequence[tuple[str | None, str]]]]
) -> str:
    """A skeleton with each container's fragments in place of its marker lines; ``lines`` maps a
    command's container name to the (kind, fragment) of its args and of its env lines; a marker
    names the kinds its container drops."""

    def put(match: re.Match[str]) -> str:
        indent, kind, name, drop = match.groups()
        dropped = set((drop or "").split(","))
        fragments = lines[name][0 if kind == "ARGS" else 1]
        body = "".join(fragment for line_kind_, fragment in fragments if line_kind_ not in dropped)
        return "".join(indent + row + "\n" for row in body.split("\n")[:-1])

    return _MARK.sub(put, text)


def fragments_of(command: Command) -> tuple[list[tuple[str | None, str]], list[tuple[str | None, str]]]:
    return (
        [(line_kind("arg", t), line_fragment("arg", t)) for t in command.args],
        [(line_kind("env", t), line_fragment("env", t)) for t in command.envs],
    )


def manifests(
    where: Where,
    roles: Sequence[tuple[str, Sequence[Command]]],
    nodes: Mapping[str, int],
    router_steps: Sequence[str],
    settings: Mapping[str, str] | None = None,
    role_plans: tuple[RolePlan, ...] | None = None,
) -> dict[str, str]:
    """Every Kubernetes file of a selection, by path, with the settings (their defaults when not
    given; ``settings_of`` checks given ones); ``role_plans`` as ``skeletons`` takes them."""
    chosen = settings_of(settings, where.defaults())
    lines = {dns(c.name): fragments_of(c) for _role, commands in roles for c in commands}
    texts = skeletons(where, roles, nodes, router_steps, chosen["npu"], role_plans)
    return {name: finish(name, text, chosen, lines) for name, text in texts.items()}


def finish(name: str, text: str, settings: Mapping[str, str], lines: Mapping[str, Any]) -> str:
    """A skeleton file as written: a role's file with its settings and its lines, the router's
    files with their settings, the recipe's own values file as the recipe wrote it."""
    if name.startswith(f"{ROUTER_FOLDER}/") and not name.endswith((f"/{CLUSTER_VALUES}", "/install.sh")):
        return text
    text = with_settings(text, settings)
    return fill(text, lines) if not name.startswith(f"{ROUTER_FOLDER}/") else text


def container_names(
    roles: Sequence[tuple[str, Sequence[Command]]], router_steps: Sequence[str], nodes: Mapping[str, int]
) -> dict[str, tuple[Command, ...]]:
    """Each server container's name and the commands it runs (every rank, for a merged role)."""
    router = router_of(router_steps)
    out = {}
    for plan in plans(roles, nodes, router):
        commands = dict(roles)[plan.role]
        for _node, pod in plan.pods():
            for container in pod.containers:
                if container.commands:
                    out[container.name] = container.commands
                else:
                    out[container.name] = tuple(commands) if pod.merged else (container.command,)
    return out


def plan_lines(table: RoleTable) -> tuple[int, int]:
    """The lines of a role's table that the role's plan key can depend on, as bit sets in the
    order of ``RoleTable.shown``'s: two selections that show the same of them give the role equal
    plan keys (``plans``, ``plan_key``), whatever else they show.

    A plan reads of a command its role, rank, node, launcher and model (the table's), the first
    value of each flag and env in ``_PLAN_READS``, the kind of each line (``line_kind``: a name in
    ``_KINDS``), the names of its env lines, the placeholders of its lines in their order, and,
    between the ranks of a role, the texts in which they differ (``_differs``). So every env line
    counts, every line of some ranks only, every line whose text another line has too, every line
    with a placeholder, every line that does not split into words, and every line of a flag in
    ``_PLAN_READS`` (``_`` read as ``-``). Any other line is an argument every rank holds, whose
    text no other line has and whose flag no plan reads: showing it or not changes no plan key."""
    texts = collections.Counter(line.text for line in table.lines)

    def counts(line: TableLine) -> bool:
        if line.kind != "arg" or line.ranks is not None or texts[line.text] > 1 or shell.PLACEHOLDER.search(line.text):
            return True
        try:
            name = shell.flag_values(line.text)[0]
        except ValueError:
            return True
        return (name.replace("_", "-") if name.startswith("--") else name) in _PLAN_READS

    return table.lines_where(counts)


Made = dict[int, tuple[tuple[Command, ...], RolePlan]]


def distinct_roles(table: Table) -> bool:
    """Whether a table's roles have distinct names, as ``selection_keys`` needs (two roles of one
    name, which rule 1 refuses, are planned as one role's commands, selection by selection)."""
    return len({role.role for role in table.roles}) == len(table.roles)


def planned_role(
    role: RoleTable, chosen: Sequence[int], nodes: Mapping[str, int], router: Router | None
) -> tuple[tuple[Command, ...], RolePlan]:
    """A role's commands at a selection, and its plan made from them alone."""
    commands = role.commands(chosen)
    (plan,) = plans([(role.role, commands)], nodes, router)
    return commands, plan


def selection_keys(
    table: Table, nodes: Mapping[str, int], router: Router | None
) -> Iterator[tuple[tuple[int, ...], tuple[Any, ...], Made]]:
    """Each offered selection of a table (its value indices, in order) with its plan key (each
    role's ``plan_key``) and the roles planned to make it (by index: their commands and plan).
    A role's plan key is made once per set of the lines its plan reads that a selection shows
    (``plan_lines``): a target's selections combine far fewer of them than there are selections,
    and the others are not planned. The roles must have distinct names (two roles of one name are
    planned as one role's commands: rule 1 refuses them)."""
    reads = [(index, role, plan_lines(role)) for index, role in enumerate(table.roles)]
    keys: dict[tuple[int, int, int], tuple[Any, ...]] = {}
    for chosen in table.offered:
        key = []
        made: Made = {}
        for index, role, (env_reads, arg_reads) in reads:
            env_shown, arg_shown = role.shown(chosen)
            shown = (index, env_shown & env_reads, arg_shown & arg_reads)
            role_key = keys.get(shown)
            if role_key is None:
                made[index] = planned_role(role, chosen, nodes, router)
                role_key = keys[shown] = plan_key(made[index][1])
            key.append(role_key)
        yield chosen, tuple(key), made


# -- per target: the skeletons every selection shares ---------------------------------------


def plan_key(plan: RolePlan) -> tuple[Any, ...]:
    """What a role's skeleton reads of its plan (the lines themselves are fragments)."""
    if plan.workers is not None:
        return (
            plan.role,
            plan.node,
            plan.merged,
            plan.size,
            plan.nodes,
            _containers_key(plan),
            _containers_key(plan.workers),
        )
    return (plan.role, plan.node, plan.merged, _containers_key(plan))


def _containers_key(plan: RolePlan) -> tuple[Any, ...]:
    parts = []
    for c in plan.containers:
        command = c.command
        kept = [t.text for t in (*command.arg_lines, *command.env_lines) if line_kind(t.kind, t.text) not in c.drop]
        env_names = tuple(env_pair(t)[0] for t in command.envs if line_kind("env", t) not in c.drop)
        parts.append(
            (
                c.name, c.source, c.drop, c.ranks, c.ports, c.health, c.npus, c.extra_args, c.extra_env,
                c.startup_failures, c.port_names, command.launcher, command.model,
                tuple(shell.placeholders("\n".join(kept))), env_names, c.script,
            )
        )  # fmt: skip
    return tuple(parts)


def variants(
    where: Where,
    table: Table,
    nodes: Mapping[str, int],
    router_steps: Sequence[str],
) -> list[tuple[int, dict[str, dict[str, str]]]]:
    """The skeleton files of a target in each NPU mode, each with the set of its selections
    (bit i: the i-th of the table's ``offered``) that share them; each distinct set is rendered
    once, from the commands of the first selection of its plan key (``selection_keys``)."""
    router = router_of(router_steps)
    bits: dict[tuple[Any, ...], int] = {}
    first: dict[tuple[Any, ...], Sequence[Command]] = {}
    if not distinct_roles(table):
        # two roles of one name (rule 1 refuses it): their commands are planned as one role's
        for bit, chosen in enumerate(table.offered):
            commands = table.commands(chosen)
            key = tuple(plan_key(p) for p in plans(by_role(commands), nodes, router))
            bits[key] = bits.get(key, 0) | 1 << bit
            first.setdefault(key, commands)
    else:
        for bit, (chosen, key, _made) in enumerate(selection_keys(table, nodes, router)):
            bits[key] = bits.get(key, 0) | 1 << bit
            if key not in first:
                first[key] = table.commands(chosen)
    return skeleton_sets(where, bits, first, nodes, router_steps)


def skeleton_sets(
    where: Where,
    bits: Mapping[tuple[Any, ...], int],
    first: Mapping[tuple[Any, ...], Sequence[Command]],
    nodes: Mapping[str, int],
    router_steps: Sequence[str],
) -> list[tuple[int, dict[str, dict[str, str]]]]:
    """The skeleton files in each NPU mode of each plan key's first commands (``first``), each
    with the selections (``bits``) of every key whose files are the same text."""
    merged: dict[tuple[Any, ...], int] = {}
    rendered: dict[tuple[Any, ...], dict[str, dict[str, str]]] = {}
    for key, set_bits in bits.items():
        roles = by_role(first[key])
        role_plans = plans(roles, nodes, router_of(router_steps))  # the same in both modes
        files = {mode: skeletons(where, roles, nodes, router_steps, mode, role_plans) for mode in MODES}
        text_key = tuple((mode, tuple(f.items())) for mode, f in files.items())
        merged[text_key] = merged.get(text_key, 0) | set_bits
        rendered[text_key] = files
    return [(set_bits, rendered[key]) for key, set_bits in merged.items()]


def where_of(target: TargetPage, recipe: Recipe) -> Where:
    """Where a target page's manifests run and how they are named."""
    model = target.target.grid.model
    return Where(
        recipe=recipe.name,
        strategy=target.strategy.slug,
        target=target.target.target,
        skus=target.target.skus,
        model=model,
        checkpoint_bytes=checkpoint_bytes(recipe, model),
        heads=tuple(recipe.placeholder_heads),
    )


TargetFiles = tuple[tuple[tuple[Product, ...], Mapping[str, Mapping[str, str]]], ...]


def target_files(target: TargetPage, recipe: Recipe, memo: Memo | None = None) -> TargetFiles:
    """The Kubernetes skeleton files of a target page in each NPU mode, each with the selections
    that share them (``variants``; () for every selection when there is one), once per target
    page and memo."""
    return memo_get(memo, _target_files, target, recipe)


def _target_files(target: TargetPage, recipe: Recipe) -> TargetFiles:
    found = variants(where_of(target, recipe), target.table, target.role_nodes, [cmd for _n, cmd in target.router])
    return tuple(
        (() if len(found) == 1 else target.table.products(bits), types.MappingProxyType(files)) for bits, files in found
    )


def node_of_file(path: str, nodes: Mapping[str, int]) -> int | None:
    """The node whose values a manifest takes (a role's file), None for the others."""
    by_file = {role_file(role): node for role, node in nodes.items()}
    return by_file.get(path)


# -- what the page says changed, and what a node must offer ---------------------------------


@dataclasses.dataclass(frozen=True, kw_only=True)
class Difference:
    """One way a container's command differs from the recipe's, as a key the adapter words."""

    what: str  # "merged", "devices", "kv-events", "cache", "keep-alive", "nixl-port", "group", "spare"
    role: str
    detail: Mapping[str, Any]


def differences(role_plans: Sequence[RolePlan], router: Router | None) -> tuple[Difference, ...]:
    out = []
    for plan in role_plans:
        if plan.workers is not None:
            (worker,) = plan.workers.containers
            out.append(
                Difference(
                    what="group",
                    role=plan.role,
                    detail={"size": plan.size, "script": bool(worker.script)},
                )
            )
            least = min(client.npus(c) for c in worker.commands)
            if least != worker.npus:
                out.append(Difference(what="spare", role=plan.role, detail={"npus": worker.npus, "least": least}))
        for c in (c for _node, pod in plan.pods()[:2] for c in pod.containers):
            command = c.command
            kinds = {line_kind(t.kind, t.text) for t in (*command.arg_lines, *command.env_lines)}
            if plan.merged:
                out.append(Difference(what="merged", role=plan.role, detail={"ranks": c.ranks, "health": c.health}))
                if _flag(command, NIXL_PORT_ENV) is not None:
                    out.append(
                        Difference(what="nixl-port", role=plan.role, detail={"port": _flag(command, NIXL_PORT_ENV)})
                    )
            out.append(Difference(what="devices", role=plan.role, detail={"npus": c.npus, "container": c.name}))
            if "kv-events" in c.drop and "kv-events" in kinds:
                out.append(Difference(what="kv-events", role=plan.role, detail={}))
            if dict(c.extra_env).get(KEEP_ALIVE[0]) == KEEP_ALIVE[1]:
                out.append(Difference(what="keep-alive", role=plan.role, detail={"seconds": KEEP_ALIVE[1]}))
    unique = {(d.what, d.role): d for d in out}
    return tuple(unique.values())


@dataclasses.dataclass(frozen=True, kw_only=True)
class NodeNeeds:
    """What one node must offer the pods of a selection placed on it."""

    node: int
    roles: tuple[str, ...]
    npus: int
    cpu: int  # whole CPUs
    memory: int  # bytes
    workers: tuple[str, ...] = ()  # the roles of ``roles`` whose pod here is a LeaderWorkerSet's worker


def node_needs(
    role_plans: Sequence[RolePlan], settings: Mapping[str, str], router: Router | None
) -> tuple[NodeNeeds, ...]:
    """Per node, the NPUs, CPUs and memory the pods placed on it ask for (each container its
    share of its pod's CPU and memory, the routing proxy its own)."""
    chosen = settings_of(settings, {})
    by_node: dict[int, list[RolePlan]] = {}
    workers: dict[int, list[str]] = {}
    for plan in role_plans:
        for node, pod in plan.pods():
            by_node.setdefault(node, []).append(pod)
            if pod is plan.workers:
                workers.setdefault(node, []).append(plan.role)
    out = []
    for node, placed in sorted(by_node.items()):
        cpu = memory = 0
        for plan in placed:
            parts = len(plan.containers)
            cpu += parts * int(share("cpu", chosen["cpu"], parts))
            memory += parts * memory_bytes(share("memory", chosen["memory"], parts))
            serving = any(c.health is not None for c in plan.containers)
            if router is not None and plan.role == "decode" and serving:
                cpu, memory = cpu + 1, memory + _GiB
        out.append(
            NodeNeeds(
                node=node,
                roles=tuple(p.role for p in placed),
                npus=sum(p.npus for p in placed),
                cpu=cpu,
                memory=memory,
                workers=tuple(workers.get(node, ())),
            )
        )
    return tuple(out)
