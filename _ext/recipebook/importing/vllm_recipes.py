"""A vLLM Recipes model file as a recipe of this format, with every choice of their command builder.

Their builder (``CommandBuilder.jsx`` over ``command-synthesis.js``) offers, for one model: a
variant (the checkpoint), a hardware profile, a strategy, a node count, features (on/off, or one of
several modes), Advanced tuning flags, a KV offload option, and for vLLM-Omni models a task. Here:

- a **strategy** of ours is one of theirs for one variant (and one node count): its tab;
- a **target** is one hardware profile under it (with, for prefill/decode, the pools' parallelism);
- an **option axis** is each Advanced flag, each feature (``off`` and ``on``, or ``off`` and each
  mode), the KV offload option and an omni task: a choice that changes arguments only, which the
  delta rules can state. Each value's delta is read off the commands their rules give with that
  value alone (``_delta``), so a selection's commands are theirs: the gathering order of their
  arguments is advanced flags, features, KV offload, each appended after what the strategy and the
  hardware set, and a key set again moves to the end (their last-wins dedupe), which a delta
  states by removing the key and adding it.

Two values of different axes that set the same key are excluded together (their last-wins would
keep one of them; the rules forbid it); what cannot be expressed at all (a prefill or decode pool
across nodes, or any multi-node shape before the format has roles that span nodes; Mooncake's
router and master, a Docker install, a companion process, another node count) is listed in
``Imported.lost``, never dropped silently. So is what cannot start as their commands write it,
judged by the rules' own logic (``checking.capacity``): a target whose servers ask a node for
more devices than their profile's ``gpu_count`` (rule 29) is not written, a value, or a combination of values, whose command vLLM's SchedulerConfig refuses
(rule 30) is not offered, and neither is a value whose flag, field, value or file the pinned vLLM
does not take (the vocabulary rule's errors, ``checking.vocabulary.grid_problems``; a target whose
own commands have one is not written); the rest of the model is written.

A command is compared with theirs by what it runs: its arguments in order and its environment,
their shell variables (``$HEAD_IP``) being this format's placeholders (``'<HEAD_IP>'``).
"""

from __future__ import annotations

import dataclasses
import datetime
import html
import itertools
import json
import math
import re
import unicodedata
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml

from ..checking import capacity, vocabulary
from ..checking.schema import SCHEMA_PATH
from ..expanding import client
from ..expanding.expansion import default_selection, reference_role
from ..memo import Memo
from ..problems import SelectionError, pointer_join
from ..reading import source
from ..reading.model import Grid
from ..reading.vocabulary import pinned
from . import synthesis as syn
from . import yaml12
from .grids import apply, diff
from .synthesis import Choice, Json, Server, Unit

# A role spans nodes (a head and followers) when the format has roles' "nodes" (recipes/schema.json)
SPANS_NODES = "nodes" in json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))["$defs"]["role"]["properties"]
SKU = "RBLN-CR13"  # the device field a target needs; the note says the commands are their GPUs'
LAUNCHER = "vllm serve"
MAX_SELECTIONS = 4096  # expansion.MAX_SELECTIONS
_IDENT = re.compile(r"[^a-z0-9_]+")
_TARGET_CHARS = re.compile(r"[^A-Za-z0-9 _-]+")
_VARIABLE = re.compile(r"\$([A-Z_][A-Z0-9_]*)")
_BARE_VALUE = re.compile(r"^[A-Za-z0-9_./=:@,+%-]+$")
_MODEL_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*$")
_KEY = re.compile(r"^--?[A-Za-z0-9][A-Za-z0-9_.-]*$")
NVIDIA_ORDER = (
    "h100",
    "h200",
    "b200",
    "gb200",
    "b300",
    "gb300",
    "rtx_pro_5000",
    "rtx_pro_6000",
    "dgx_spark_gb10",
    "rtx_4090_2x",
    "rtx_5090_2x",
    "dgx_station_gb300",
)
AMD_ORDER = ("mi300x", "mi325x", "mi355x")
MUTEX = (("text_only", "encoder_parallel"),)  # toggleFeature: turning one on turns the other off


class NotImportable(Exception):
    """A file that cannot be imported at all, with the reason in words."""


@dataclasses.dataclass(frozen=True)
class Checkout:
    """What a model file refers to in a checkout of vLLM Recipes: strategies (with ``kv_store/``)
    and the taxonomy."""

    root: Path
    strategies: Mapping[str, Json]
    taxonomy: Json
    commit: str | None = None

    @classmethod
    def read(cls, root: str | Path, commit: str | None = None) -> Checkout:
        root = Path(root)
        for needed in ("taxonomy.yaml", "strategies", "models"):
            if not (root / needed).exists():
                raise NotImportable(f"{root}: not a checkout of vLLM Recipes (no {needed})")
        strategies: dict[str, Json] = {}
        for folder in ("strategies", "kv_store"):
            for path in sorted((root / folder).glob("*.yaml")):
                data = read_yaml(path, f"{folder}/{path.name}")
                if isinstance(data, dict) and isinstance(data.get("name"), str):
                    strategies[data["name"]] = data
        taxonomy = read_yaml(root / "taxonomy.yaml", "taxonomy.yaml")
        if not isinstance(syn.get(taxonomy, "hardware_profiles"), dict):
            raise NotImportable(f"{root}: taxonomy.yaml has no hardware_profiles")
        return cls(root=root, strategies=strategies, taxonomy=taxonomy, commit=commit)

    def models(self) -> list[Path]:
        """Every model file, ``models/<org>/<model>.yaml``, sorted (none reached through a link
        out of ``models/``)."""
        folder = (self.root / "models").resolve()
        return sorted(
            p for p in (self.root / "models").rglob("*.yaml") if p.is_file() and p.resolve().is_relative_to(folder)
        )

    def model(self, name: str) -> Path:
        """A model file by its Hugging Face id (``Qwen/Qwen3-8B``) or its path."""
        return model_file(self.root, name)


MAX_MODEL_NAME = 300  # characters of a model named on the command line (a Hugging Face id is at most 96)


def model_file(root: Path, name: str) -> Path:
    """The model file a name gives (a Hugging Face id ``Qwen/Qwen3-8B``, a path in the checkout
    ``models/Qwen/Qwen3-8B.yaml``, or a path to one): a regular file inside the checkout's
    ``models/`` once every link is followed, found by looking only; NotImportable otherwise."""
    if not name or len(name) > MAX_MODEL_NAME or not name.isprintable():
        shown = repr(name[:60] + "…") if len(name) > 60 else repr(name)
        raise NotImportable(
            f"{shown} is not a model name (a Hugging Face id such as Qwen/Qwen3-8B, printable, at most "
            f"{MAX_MODEL_NAME} characters)"
        )
    folder = (root / "models").resolve()
    for candidate in (root / "models" / f"{name}.yaml", root / name, Path(name)):
        try:
            if not candidate.is_file():
                continue
            real = candidate.resolve()
        except (OSError, RuntimeError):  # a loop of links, a name too long for the system
            continue
        if not real.is_relative_to(folder):
            raise NotImportable(f"{name!r} is not a model file of the checkout: it is outside {root / 'models'}")
        return candidate
    raise NotImportable(f"{name!r}: no such model file in {root / 'models'}")


MAX_BYTES = 2 * 1024 * 1024  # a model file is tens of kilobytes
MAX_VALUES = 200_000  # values once YAML's aliases are followed (a "billion laughs" file has 10**9)


def _normal(data: Json) -> Json:
    """Keys as JavaScript reads them (strings), dates as their site shows them (YYYY-MM-DD); a
    structure that refers to itself, nests too deep or holds more than MAX_VALUES values once its
    aliases are followed is refused (ValueError)."""
    budget = [MAX_VALUES]

    def walk(value: Json, depth: int) -> Json:
        budget[0] -= 1
        if budget[0] < 0:
            raise ValueError(f"more than {MAX_VALUES:,} values once its aliases are followed")
        if depth > 100:
            raise ValueError("nested more than 100 levels deep (or an alias that refers to itself)")
        if isinstance(value, dict):
            return {str(k): walk(v, depth + 1) for k, v in value.items()}
        if isinstance(value, list):
            return [walk(v, depth + 1) for v in value]
        if isinstance(value, datetime.date):
            return value.isoformat()
        return value

    return walk(data, 0)


def read_yaml(path: Path, shown: str) -> Json:
    """A YAML file of theirs, bounded: its size, its values, its depth; NotImportable with the reason."""
    try:
        with path.open("rb") as handle:
            raw = handle.read(MAX_BYTES + 1)
    except OSError as error:
        raise NotImportable(f"{shown}: cannot be read: {error.strerror or error}") from None
    if len(raw) > MAX_BYTES:
        raise NotImportable(f"{shown}: larger than {MAX_BYTES:,} bytes; a model file is far smaller")
    try:
        return _normal(yaml12.load(raw.decode("utf-8")))
    except UnicodeDecodeError as error:
        raise NotImportable(f"{shown}: not UTF-8 text (byte {error.start})") from None
    except ValueError as error:
        raise NotImportable(f"{shown}: {error}") from None
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark is not None else ""
        raise NotImportable(f"{shown}: not YAML: {where}{error.problem or error.context}") from None
    except yaml.YAMLError as error:
        raise NotImportable(f"{shown}: not YAML: {' '.join(str(error).split())}") from None


@dataclasses.dataclass
class Imported:
    """A converted model: our recipe document, and what their builder offers that it does not."""

    name: str
    source: str  # models/<org>/<model>.yaml
    recipe: dict[str, Any]
    lost: list[str]
    targets: int = 0
    # (strategy slug, target) -> the plan: their choice for a selection is choice_of(plan, selection)
    plans: dict[tuple[str, str], Plan] = dataclasses.field(default_factory=dict, repr=False)


# -- texts ------------------------------------------------------------------------------------------


def identifier(text: str, prefix: str = "x") -> str:
    """A name of lower-case letters, digits and underscores (an axis or a value)."""
    name = _IDENT.sub("_", str(text).lower()).strip("_") or prefix
    if not name[0].isalpha():
        name = f"{prefix}_{name}"
    return name[:64]


def plain(text: Json, limit: int = 200) -> str:
    """Their prose (a label, a title) as a text of this format: format characters (a zero-width
    space, a direction mark) and control characters gone, white space one space, at most
    ``limit`` characters."""
    kept = "".join(c for c in str(text) if unicodedata.category(c) not in ("Cf", "Cc") or c in " \t\n")
    words = " ".join(kept.split())
    return words if len(words) <= limit else words[: limit - 3].rstrip() + "..."


def inline(text: str) -> str:
    """Their prose as inline text of this format: escaped, a tag-like word (``<think>``) in code."""
    escaped = html.escape(plain(text, 100_000), quote=False)
    return re.sub(
        r"&lt;[A-Za-z/!?][^&\s]{0,40}?&gt;|&lt;(?=[A-Za-z/!?])", lambda m: f"<code>{m.group()}</code>", escaped
    )


def _title(key: str) -> str:
    return " ".join(word.capitalize() for word in re.split(r"[_\s]+", key) if word)


def _quoted(value: str) -> str:
    """A value as one shell word: a bare ``$NAME`` is the placeholder ``'<NAME>'``, a plain word
    stays bare, anything else goes in single quotes (as their shellQuote does)."""
    whole = re.fullmatch(r"\$([A-Z_][A-Z0-9_]*)", value)
    if whole:
        return f"'<{whole.group(1)}>'"
    if value and _BARE_VALUE.match(value):
        return value
    return "'" + value.replace("'", "'\\''") + "'"


def arg_text(unit: Unit) -> str:
    assert unit.flag is not None
    flag = " ".join(unit.flag.split())  # their page writes it as it is, between continuations
    return flag if unit.value is None else f"{flag} {_quoted(unit.value)}"


def env_text(key: str, value: str) -> str:
    return f"{key}={_quoted(value)}"


def placeholders_of(text: str) -> str:
    """A shell text of theirs with each ``$NAME`` as this format's placeholder ``<NAME>`` (in quotes
    where it stands bare)."""
    out, quote, i = [], None, 0
    while i < len(text):
        ch = text[i]
        match = _VARIABLE.match(text, i) if ch == "$" else None
        if match:
            name = f"<{match.group(1)}>"
            out.append(name if quote == "'" else f"'{name}'" if quote is None else f"\"'{name}'\"")
            i = match.end()
            continue
        if ch in "'\"" and quote in (None, ch):
            quote = None if quote else ch
        out.append(ch)
        i += 1
    return "".join(out)


# -- the commands of one choice, as lines of this format ----------------------------------------


@dataclasses.dataclass(frozen=True)
class Lines:
    """One role's command: its argument lines and env lines, keyed, in order."""

    args: tuple[tuple[str, str], ...]
    envs: tuple[tuple[str, str], ...]


def lines_of(server: Server) -> Lines:
    args = []
    for unit in server.args:
        if unit.flag is None:
            raise _NotExpressible(f"a positional word {unit.value!r} after the flags")
        key = unit.flag.partition("=")[0] if "=" in unit.flag else unit.flag
        if "".join(key.split()) != key:  # whitespace in it (str.split's, str.isspace's)
            # one item of theirs holding a flag and its value ("--max-model-len auto"): their page
            # writes it as it is, and the shell splits it into the flag and its value
            key = key.split()[0]
        if not _KEY.match(key):
            raise _NotExpressible(f"the argument {unit.flag!r} is not a flag")
        args.append((key, arg_text(unit)))
    if len({k for k, _ in args}) != len(args):
        raise _NotExpressible("one flag written twice in one command")
    envs = tuple((key, env_text(key, value)) for key, value in server.env.items())
    return Lines(args=tuple(args), envs=envs)


class _NotExpressible(Exception):
    pass


def _layer(plan: Plan, axis: Axis, value: str, recipe: Json, checkout: Checkout) -> list[tuple[str, str]]:
    """The argument lines an axis value owns: what their rules add after the strategy's and the
    hardware's (an Advanced flag, a feature's, a KV offload option's), deduped."""
    choice = _choose(plan, {axis.name: value})
    raw = syn.tail_args(recipe, choice, checkout.strategies, checkout.taxonomy)
    server = Server(role="main", node=0, env={}, args=tuple(syn.units(raw)), model="")
    return list(lines_of(server).args)


def _moved(
    base: Sequence[tuple[str, str]], layer: Sequence[tuple[str, str]], after: Sequence[tuple[str, str]]
) -> tuple[list[str], dict[str, str]] | None:
    """The delta of a value that owns ``layer``: each of its keys the base has is removed and set
    again, so it comes after the base as their last-wins puts it (even where it would stand last
    already: another value's lines may come between); None unless that gives ``after``."""
    keys = {key for key, _ in base}
    removed = [key for key, _ in layer if key in keys]
    added = dict(layer)
    return (removed, added) if apply(base, removed, added) == list(after) else None


# -- one target: its choices, axes and grid ---------------------------------------------------------


@dataclasses.dataclass
class Axis:
    name: str
    title: str
    values: list[str]  # the first is the base value (nothing chosen)
    labels: dict[str, str]
    kind: str  # advanced, feature, mode, kv
    key: str  # their id: the advanced option or the feature
    theirs: dict[str, str] = dataclasses.field(default_factory=dict)  # our value -> their mode or KV option


@dataclasses.dataclass
class Plan:
    """What one target is: their choice without the axes, and the axes offered on it."""

    variant: str
    hardware: str
    strategy: str
    choice: Choice
    axes: list[Axis]
    omni_task: Mapping[str, Any] | None = None
    omni: bool = False
    excluded: list[dict[str, str]] = dataclasses.field(default_factory=list)  # combinations another target holds


def _choose(plan: Plan, selection: Mapping[str, str]) -> Choice:
    features: list[str] = []
    advanced: list[str] = []
    modes: dict[str, str] = {}
    kv = None
    for axis in plan.axes:
        value = selection.get(axis.name, axis.values[0])
        if value == axis.values[0]:
            continue
        if axis.kind == "advanced":
            advanced.append(axis.theirs[value])
        elif axis.kind == "feature":
            features.append(axis.key)
        elif axis.kind == "mode":
            features.append(axis.key)
            modes[axis.key] = axis.theirs[value]
        elif axis.kind == "kv":
            kv = axis.theirs[value]
    pd_nodes = plan.choice.pd_nodes
    pools = [a for a in plan.axes if a.kind == "pool" and selection.get(a.name, a.values[0]) != a.values[0]]
    if pd_nodes is not None and pools:
        changed = {role: dict(spec) for role, spec in pd_nodes.items()}
        for axis in pools:
            changed[axis.key]["parallelism"] = selection[axis.name]
        pd_nodes = changed
    return dataclasses.replace(
        plan.choice,
        features=tuple(features),
        advanced=tuple(advanced),
        feature_modes=modes,
        kv_offload=kv,
        pd_nodes=pd_nodes,
    )


def choice_of(plan: Plan, selection: Mapping[str, str]) -> dict[str, Any]:
    """Their builder's choice for a selection of ours (the variant, hardware, strategy, features,
    Advanced flags, modes, KV offload, pools; for vLLM-Omni the task), as plain data."""
    if plan.omni:
        task = plan.omni_task
        return {"variant": plan.variant, "hardware": plan.hardware, "omniTask": task["key"] if task else None}
    choice = _choose(plan, selection)
    return {
        "variant": choice.variant,
        "strategy": choice.strategy,
        "hardware": choice.hardware,
        "features": list(choice.features),
        "advanced": list(choice.advanced),
        "nodeCount": choice.node_count,
        "pdNodes": choice.pd_nodes,
        "featureModes": dict(choice.feature_modes),
        "kvOffload": choice.kv_offload,
    }


def render(plan: Plan, selection: Mapping[str, str], recipe: Json, checkout: Checkout) -> dict[str, Lines]:
    """Each role's lines for a selection, as their rules give them."""
    if plan.omni and plan.omni_task is None:  # a recipe without omni.tasks: their page's stub command
        stub = Server(role="main", node=0, env={}, args=(Unit("--omni", None),), model=_served_model(plan, recipe))
        return {"main": lines_of(stub)}
    if plan.omni:
        server = syn.resolve_omni_command(recipe, plan.variant, plan.omni_task, plan.hardware, checkout.taxonomy)
        return {"main": lines_of(server)}
    return _heads(_resolved(plan, selection, recipe, checkout))


def _resolved(plan: Plan, selection: Mapping[str, str], recipe: Json, checkout: Checkout) -> syn.Rendered:
    """What their rules run for a selection of a plan that is not omni (resolveCommand)."""
    return syn.resolve_command(recipe, _choose(plan, selection), checkout.strategies, checkout.taxonomy)


def _heads(rendered: syn.Rendered) -> dict[str, Lines]:
    """Each role's lines in what a choice runs (a role across nodes: its head's, node 0)."""
    found: dict[str, Lines] = {}
    for server in rendered.servers:
        if server.node != 0 and not SPANS_NODES:
            raise _NotExpressible("a role that spans nodes")
        if server.node == 0:
            found[server.role] = lines_of(server)
    return found


def render_followers(
    plan: Plan, selection: Mapping[str, str], recipe: Json, checkout: Checkout
) -> dict[str, list[Lines]]:
    """Each role's followers' lines for a selection (a server across nodes: node 1, 2, ...)."""
    if plan.omni:
        return {}
    return _followers(_resolved(plan, selection, recipe, checkout))


def _followers(rendered: syn.Rendered) -> dict[str, list[Lines]]:
    found: dict[str, list[Lines]] = {}
    for server in rendered.servers:
        if server.node != 0:
            found.setdefault(server.role, []).append(lines_of(server))
    return found


def node_entries(head: Lines, followers: list[Lines]) -> list[dict[str, dict[str, str]]]:
    """The role's nodes as this format writes them: the head's entry empty (the role's own lines
    are the head's), each follower's the lines it sets otherwise or in addition."""
    entries: list[dict[str, dict[str, str]]] = [{"args": {}, "envs": {}}]
    for follower in followers:
        if {k for k, _ in head.args} - {k for k, _ in follower.args} or dict(head.envs).keys() - dict(
            follower.envs
        ).keys():
            raise _NotExpressible("a follower without a line its head has")
        entries.append(
            {
                "args": {k: t for k, t in follower.args if dict(head.args).get(k) != t},
                "envs": {k: t for k, t in follower.envs if dict(head.envs).get(k) != t},
            }
        )
    return entries


def rendered_router(plan: Plan, recipe: Json, checkout: Checkout) -> str | None:
    if plan.omni:
        return None
    return syn.resolve_command(recipe, plan.choice, checkout.strategies, checkout.taxonomy).router


def hardware_order(taxonomy: Json, recipe: Json) -> list[str]:
    """The hardware pills in their order (CommandBuilder's hwByBrand): NVIDIA, AMD, then other
    brands by name; a restricted profile only when the recipe declares it in meta.hardware."""
    declared = syn.obj(syn.get(recipe, "meta", "hardware"))
    groups: dict[str, list[tuple[str, Json]]] = {}
    for hw_id, profile in syn.obj(syn.get(taxonomy, "hardware_profiles")).items():
        if syn.truthy(syn.get(profile, "restricted")) and hw_id not in declared:
            continue
        groups.setdefault(syn.either(syn.get(profile, "brand"), "Other"), []).append((hw_id, profile))
    for brand, profiles in groups.items():
        ranks = NVIDIA_ORDER if brand == "NVIDIA" else AMD_ORDER if brand == "AMD" else ()
        profiles.sort(
            key=lambda item: (ranks.index(item[0]) if item[0] in ranks else 9999, item[1].get("vram_gb") or 0)
        )
    order = ("NVIDIA", "AMD")
    brands = sorted(groups, key=lambda b: (0, order.index(b)) if b in order else (1, b))
    return [hw_id for brand in brands for hw_id, _ in groups[brand]]


def _feature_axes(recipe: Json, plan: Plan, profile: Json, kv_name: str) -> list[Axis]:
    axes: list[Axis] = []
    # their Advanced panel: tuning flags, each a checkbox. One axis here, a flag at a time: a page of
    # every subset would hold up to 2**7 times the selections (several flags together are listed)
    advanced = {"off": ""}
    labels = {"off": "Off"}
    for option in syn.advanced_options(recipe, plan.strategy):
        key = str(option.get("id") or "")
        if key and syn.arr(option.get("args")):
            value = identifier(key, "a")
            advanced[value] = key
            labels[value] = plain(syn.either(option.get("label"), key))
    if len(advanced) > 1:
        axes.append(Axis("advanced", "Advanced", list(advanced), labels, "advanced", "advanced", advanced))
    for key, feature in syn.obj(syn.get(recipe, "features")).items():
        if not isinstance(feature, dict) or not syn.is_feature_allowed_for_strategy(feature, plan.strategy):
            continue
        title = plain(syn.either(feature.get("label"), _title(key)))
        name = identifier(key, "f")
        if name in (kv_name, "advanced") or name.endswith("_pool"):
            name = identifier(f"feature_{key}")
        if isinstance(feature.get("modes"), dict):
            modes = syn.allowed_modes(feature, plan.variant, profile, plan.hardware)
            if not modes:
                continue
            values = {identifier(m, "m"): m for m in modes}
            labels = {"off": "Off"}
            for value, mode in values.items():
                labels[value] = plain(syn.either(syn.get(feature, "modes", mode, "label"), _title(mode)))
            axes.append(Axis(name, title, ["off", *values], labels, "mode", key, {"off": "", **values}))
        else:
            axes.append(Axis(name, title, ["off", "on"], {"off": "Off", "on": "On"}, "feature", key))
    return axes


def _kv_axis(recipe: Json, plan: Plan, profile: Json, checkout: Checkout, name: str) -> Axis | None:
    if syn.get(profile, "generation") == "xpu":
        return None  # their page turns every KV offload option off on Intel XPU
    strategy = checkout.strategies.get(plan.strategy)
    options = syn.obj(syn.get(checkout.taxonomy, "kv_offload"))
    values: dict[str, str] = {}
    labels = {"off": "Off"}
    for key, option in sorted(options.items(), key=lambda item: (syn.either(syn.get(item[1], "order"), 99), item[0])):
        if (
            syn.is_kv_offload_allowed_for_strategy(option, plan.strategy, strategy)
            and syn.is_kv_offload_supported_for_recipe(option, key, recipe)
            and syn.is_kv_offload_brand_supported(option, profile)
        ):
            value = identifier(key, "kv")
            values[value] = key
            group = syn.get(checkout.taxonomy, "kv_offload_groups", syn.get(option, "group"), "label")
            label = str(syn.either(syn.get(option, "label"), syn.get(option, "display_name"), key))
            labels[value] = plain(f"{group}: {label}" if syn.truthy(group) else label)
    if not values:
        return None
    return Axis(name, "KV Offload", ["off", *values], labels, "kv", "kv_offload", {"off": "", **values})


@dataclasses.dataclass
class Built:
    """One target's grid (as written out in full) and what it leaves out."""

    grid: dict[str, Any]
    axes: list[Axis]
    lost: list[str]
    roles: dict[str, Lines]


def _touched(
    delta: Mapping[str, tuple[list[str], dict[str, str], list[str], dict[str, str]]],
) -> set[tuple[str, str, str]]:
    found = set()
    for role, (del_args, add_args, del_envs, add_envs) in delta.items():
        found |= {(role, "args", k) for k in [*del_args, *add_args]}
        found |= {(role, "envs", k) for k in [*del_envs, *add_envs]}
    return found


@dataclasses.dataclass(frozen=True)
class Node:
    """The machines a target runs on: its strategy's nodes, and what one node holds (their
    ``gpu_count``, the target's ``npusPerNode``; None when their profile does not count devices)."""

    nodes: int | None
    per_node: int | None


def build_target(
    plan: Plan, recipe: Json, checkout: Checkout, where: str, node: Node | None = None, install: str = ""
) -> Built:
    """The grid of one target: base commands, the axes that express their choices, exclusions; on
    ``node``, what cannot start there left out and listed: rules 29 and 30, and what the pinned
    vLLM's vocabulary refuses under the recipe's install line (``install``)."""
    lost: list[str] = []
    base = render(plan, {}, recipe, checkout)
    nodes = {
        role: node_entries(base[role], followers)
        for role, followers in render_followers(plan, {}, recipe, checkout).items()
    }
    deltas: dict[tuple[str, str], dict[str, tuple[list[str], dict[str, str], list[str], dict[str, str]]]] = {}
    kept_axes: list[Axis] = []
    for axis in plan.axes:
        kept_values = [axis.values[0]]
        seen: dict[tuple[Any, ...], str] = {}
        for value in axis.values[1:]:
            what = f"{axis.title}: {axis.labels[value]}"
            try:
                after = render(plan, {axis.name: value}, recipe, checkout)
            except _NotExpressible as error:
                lost.append(f"{where}: {what}: {error}")
                continue
            layer = _layer(plan, axis, value, recipe, checkout) if axis.kind != "pool" else []
            delta: dict[str, tuple[list[str], dict[str, str], list[str], dict[str, str]]] | None = {}
            for role, lines in after.items():
                if role not in base:
                    args = None
                elif axis.kind == "pool":  # the strategy's own arguments: the pool's, where theirs put them
                    args = diff(base[role].args, lines.args)
                else:
                    args = _moved(base[role].args, layer, lines.args)
                envs = diff(base[role].envs, lines.envs) if role in base else None
                if args is None or envs is None:
                    delta = None
                    break
                if lines != base[role] and delta is not None:
                    delta[role] = (args[0], args[1], envs[0], envs[1])
            if delta is None or set(after) != set(base):
                lost.append(f"{where}: {what}: it moves arguments the strategy sets, which a delta cannot")
                continue
            if not delta:
                lost.append(f"{where}: {what}: changes nothing in the commands")
                continue
            spanned = {
                (role, kind, key)
                for role, entries in nodes.items()
                for entry in entries[1:]
                for kind in ("args", "envs")
                for key in entry[kind]
            }
            if _touched(delta) & spanned:
                lost.append(f"{where}: {what}: it changes a line that differs between the nodes of a server")
                continue
            signature = tuple(
                sorted(
                    (role, tuple(d[0]), tuple(d[1].items()), tuple(d[2]), tuple(d[3].items()))
                    for role, d in delta.items()
                )
            )
            if signature in seen:
                lost.append(f"{where}: {what}: gives the same commands as {axis.labels[seen[signature]]}")
                continue
            seen[signature] = value
            deltas[(axis.name, value)] = delta
            kept_values.append(value)
        if len(kept_values) > 1:
            kept_axes.append(dataclasses.replace(axis, values=kept_values))
    excluded = [*plan.excluded, *_exclusions(kept_axes, deltas, lost, where)]
    kept_axes = _capped(kept_axes, excluded, lost, where)
    values = {(a.name, v) for a in kept_axes for v in a.values}
    excluded = [e for e in excluded if set(e.items()) <= values]
    deltas = {k: v for k, v in deltas.items() if k in values}
    grid = _grid_json(plan, recipe, checkout, base, nodes, kept_axes, deltas, excluded)
    if node is not None:
        for _round in range(_ROUNDS):
            left = _left_out(grid, node, install, kept_axes, lost, where)
            if left is None:
                break
            kept_axes, gone = left
            values = {(a.name, v) for a in kept_axes for v in a.values}
            excluded = [e for e in [*excluded, *gone] if set(e.items()) <= values]
            deltas = {k: v for k, v in deltas.items() if k in values}
            grid = _grid_json(plan, recipe, checkout, base, nodes, kept_axes, deltas, excluded)
        else:
            raise _NotExpressible(f"it cannot start: choices that cannot start were still found after {_ROUNDS} passes")
    _verify(plan, recipe, checkout, base, kept_axes, deltas, excluded, nodes)
    return Built(grid=grid, axes=kept_axes, lost=lost, roles=base)


_ROUNDS = 8  # passes of leaving out what cannot start (each leaves out all it finds)


def _grid_json(
    plan: Plan,
    recipe: Json,
    checkout: Checkout,
    base: Mapping[str, Lines],
    nodes: Mapping[str, list[dict[str, dict[str, str]]]],
    axes: list[Axis],
    deltas: Mapping[tuple[str, str], Mapping[str, tuple[list[str], dict[str, str], list[str], dict[str, str]]]],
    excluded: list[dict[str, str]],
) -> dict[str, Any]:
    return {
        "model": _served_model(plan, recipe),
        "base": [_role_json(role, lines, nodes.get(role)) for role, lines in base.items()],
        "modes": {},
        "options": {a.name: list(a.values) for a in axes},
        "option_base": {a.name: a.values[0] for a in axes},
        "deltas": {
            f"{axis}={value}": {
                role: {"add_args": add_args, "add_envs": add_envs, "del_args": del_args, "del_envs": del_envs}
                for role, (del_args, add_args, del_envs, add_envs) in delta.items()
            }
            for (axis, value), delta in deltas.items()
        },
        "excluded": excluded,
        "recommended": _recommended(plan, recipe, checkout, axes, excluded),
        "router": _router_json(plan, recipe, checkout),
    }


def _cannot_start(grid: Grid, doc: source.Document, node: Node, install: str) -> dict[tuple[tuple[str, str], ...], str]:
    """What of a target cannot start, as the rules judge it: the values that decide each selection
    a rule refuses (rule 29: a node asked for more NPUs than it holds; rule 30: flags vLLM's
    SchedulerConfig refuses; the vocabulary rule's errors: a flag, a field, a value or a file the
    pinned vLLM does not take), each with why; an empty key is the target's own commands."""
    found: dict[tuple[tuple[str, str], ...], str] = {}
    # a delta's pointer -> its value (axis, value); a problem elsewhere is the target's own commands'
    deltas = {pointer_join(grid.ptr, "deltas", key): _axis_value(key) for key in grid.deltas}
    for problem in vocabulary.grid_problems(pinned(), grid, install, doc):
        if not problem.is_error:
            continue  # a warning: the server starts (a spelling, an environment name vLLM ignores)
        inside = (v for p, v in deltas.items() if problem.pointer == p or problem.pointer.startswith(p + "/"))
        value = next(inside, None)
        found.setdefault((value,) if value else (), problem.message)
    memo = Memo()  # the grid's table, built once for both rules
    if node.per_node is not None:
        for over in capacity.overloads(grid, node.nodes, node.per_node, memo):
            key = _choice(grid, capacity.deciding(grid, over.selection, capacity.PARALLEL))
            # the values that decide it are named beside the reason (a target's own commands: none)
            found.setdefault(
                key, f"{over.asked(at=False)}, but a node of their hardware holds {node.per_node} (gpu_count)"
            )
    for refusal in capacity.refusals(grid, memo):
        key = _choice(grid, capacity.deciding(grid, refusal.selection, frozenset(refusal.flags)))
        found.setdefault(key, f"{refusal.why} ({refusal.command.role})")
    return found


def _choice(grid: Grid, values: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    """The deciding values of a refused selection as a key of what cannot start: empty when every
    one is at its base (the target's own commands), else all of them."""
    items = tuple(values.items())
    return items if any(value != grid.option_base[axis] for axis, value in items) else ()


def _general(
    key: tuple[tuple[str, str], ...], refused: list[set[tuple[str, str]]], grid: Grid
) -> tuple[tuple[str, str], ...]:
    """A refused choice of the deciding axes' values without its axes at their base, when every
    value of those axes beside the rest is refused too (or not offered): the rest alone cannot
    start; else the choice as it is."""
    rest = tuple(item for item in key if item[1] != grid.option_base[item[0]])
    others = [axis for axis, value in key if value == grid.option_base[axis]]
    for values in itertools.product(*(grid.axes[axis] for axis in others)):
        chosen = {*rest, *zip(others, values, strict=True)}
        if any(set(entry.items()) <= chosen for entry in grid.excluded):
            continue
        if not any(choice <= chosen for choice in refused):
            return key
    return rest


def _axis_value(key: str) -> tuple[str, str]:
    """A delta's key (``axis=value``) as (axis, value)."""
    axis, _, value = key.partition("=")
    return axis, value


def _left_out(
    written: dict[str, Any], node: Node, install: str, axes: list[Axis], lost: list[str], where: str
) -> tuple[list[Axis], list[dict[str, str]]] | None:
    """The axes without the values that cannot start, and the combinations that cannot (to be
    excluded), each listed with why; None when everything offered can start. A target whose own
    commands cannot start is not written (it raises, with why)."""
    doc, _ = source.parse(json.dumps({"grid": written}), where)
    assert doc is not None  # our own JSON
    grid = Grid.from_json(written, "/grid")
    found = _cannot_start(grid, doc, node, install)
    if not found:
        return None
    if () in found:
        raise _NotExpressible(f"it cannot start: {found[()]}")
    by_name = {a.name: a for a in axes}
    dropped: set[tuple[str, str]] = set()
    gone: list[dict[str, str]] = []
    refused = [set(key) for key in found]
    general = {_general(key, refused, grid): why for key, why in found.items()}
    # a choice that holds a smaller one left out goes with it
    least = {key: why for key, why in general.items() if not any(set(k) < set(key) for k in general)}
    for key, why in least.items():
        if len(key) == 1:
            dropped.add(key[0])
        else:
            gone.append(dict(key))
        shown = " with ".join(f"{by_name[a].title}: {by_name[a].labels[v]}" for a, v in key)
        lost.append(f"{where}: {shown}: it cannot start: {why}")
    kept = [dataclasses.replace(a, values=[v for v in a.values if (a.name, v) not in dropped]) for a in axes]
    return [a for a in kept if len(a.values) > 1], gone


def _exclusions(
    axes: list[Axis], deltas: Mapping[tuple[str, str], Any], lost: list[str], where: str
) -> list[dict[str, str]]:
    """Pairs of values of two axes that set or remove one key: their last-wins keeps the later one's
    value and drops the earlier's, which the delta rules do not state; such a pair is not offered."""
    excluded: list[dict[str, str]] = []
    for i, first in enumerate(axes):
        for second in axes[i + 1 :]:
            if {first.key, second.key} in [set(pair) for pair in MUTEX]:
                excluded.append({first.name: "on", second.name: "on"})
                continue
            for a, b in itertools.product(first.values[1:], second.values[1:]):
                shared = _touched(deltas[(first.name, a)]) & _touched(deltas[(second.name, b)])
                if shared:
                    keys = ", ".join(sorted({key for _role, _kind, key in shared}))
                    excluded.append({first.name: a, second.name: b})
                    lost.append(
                        f"{where}: {first.title}: {first.labels[a]} with {second.title}: {second.labels[b]} "
                        f"(both set {keys}; their page keeps the second's)"
                    )
    return excluded


def _offered(axes: list[Axis], excluded: list[dict[str, str]]) -> int:
    total = math.prod(len(a.values) for a in axes)
    if not excluded or total <= MAX_SELECTIONS:
        return total  # an upper bound is enough below the cap
    names = [a.name for a in axes]
    count = 0
    for values in itertools.product(*(a.values for a in axes)):
        chosen = dict(zip(names, values, strict=True))
        if not any(all(chosen.get(k) == v for k, v in entry.items()) for entry in excluded):
            count += 1
    return count


def _capped(axes: list[Axis], excluded: list[dict[str, str]], lost: list[str], where: str) -> list[Axis]:
    """The axes, with Advanced flags left out from the last while the target would offer more
    selections than a page holds (MAX_SELECTIONS); then features' values, from the last axis."""
    axes = [dataclasses.replace(a, values=list(a.values)) for a in axes]
    while math.prod(len(a.values) for a in axes) > 16 * MAX_SELECTIONS or _offered(axes, excluded) > MAX_SELECTIONS:
        shrinking = next((a for a in axes if a.kind == "advanced" and len(a.values) > 1), None) or max(
            reversed(axes), key=lambda a: len(a.values)
        )
        value = shrinking.values.pop()
        lost.append(
            f"{where}: {shrinking.title}: {shrinking.labels[value]}: the target would offer more than "
            f"{MAX_SELECTIONS} selections"
        )
        if len(shrinking.values) == 1:
            axes.remove(shrinking)
    return axes


def _compose(
    base: Mapping[str, Lines], axes: list[Axis], deltas: Mapping[tuple[str, str], Any], selection: Mapping[str, str]
) -> dict[str, Lines]:
    out = {}
    for role, lines in base.items():
        args, envs = list(lines.args), list(lines.envs)
        for axis in axes:
            delta = deltas.get((axis.name, selection[axis.name]), {}).get(role)
            if delta:
                args = apply(args, delta[0], delta[1])
                envs = apply(envs, delta[2], delta[3])
        out[role] = Lines(args=tuple(args), envs=tuple(envs))
    return out


_CHECKED = 24  # selections of several chosen values checked per target


def _nth(axes: list[Axis], index: int) -> dict[str, str]:
    """The selection at an index of the axes' product (the last axis varying fastest)."""
    chosen = {}
    for axis in reversed(axes):
        index, at = divmod(index, len(axis.values))
        chosen[axis.name] = axis.values[at]
    return chosen


def _verify(
    plan: Plan,
    recipe: Json,
    checkout: Checkout,
    base: Mapping[str, Lines],
    axes: list[Axis],
    deltas: Mapping[tuple[str, str], Any],
    excluded: list[dict[str, str]],
    nodes: Mapping[str, list[dict[str, dict[str, str]]]],
) -> None:
    """The delta rules give their commands (a wrong import is a bug of the importer: it raises).
    Each value alone gives theirs by construction; the check goes through every value alone, the
    recommended selection, every value with all the others at their last, and a spread of the
    product (their choices compose key by key, so what goes wrong shows in these)."""
    total = math.prod(len(a.values) for a in axes)
    router = rendered_router(plan, recipe, checkout)
    picks = [{a.name: a.values[0] for a in axes}]
    picks += [{a.name: (v if a is axis else a.values[0]) for a in axes} for axis in axes for v in axis.values[1:]]
    picks += [{a.name: (v if a is axis else a.values[-1]) for a in axes} for axis in axes for v in axis.values]
    step = max(1, total // _CHECKED)
    picks += [_nth(axes, i) for i in range(step // 2, total, step)]
    seen = set()
    for selection in picks:
        key = tuple(selection[a.name] for a in axes)
        if key in seen or any(all(selection.get(k) == v for k, v in entry.items()) for entry in excluded):
            continue
        seen.add(key)
        # their commands for the selection, worked out once (render, render_followers and the
        # router read the same resolveCommand)
        rendered = None if plan.omni else _resolved(plan, selection, recipe, checkout)
        theirs = render(plan, selection, recipe, checkout) if rendered is None else _heads(rendered)
        ours = _compose(base, axes, deltas, selection)
        if _commands(theirs) != _commands(ours):
            raise AssertionError(f"the import of {selection} differs from their commands")
        for role, followers in ({} if rendered is None else _followers(rendered)).items():
            for follower, entry in zip(followers, nodes[role][1:], strict=True):
                laid = Lines(
                    args=tuple(apply(ours[role].args, [], entry["args"])),
                    envs=tuple(apply(ours[role].envs, [], entry["envs"])),
                )
                # a follower's own lines come after the role's (a node's entry is laid over as a rank is)
                if sorted(laid.args) != sorted(follower.args) or dict(laid.envs) != dict(follower.envs):
                    raise AssertionError(f"the import of {selection} differs from their follower's command")
        if rendered is not None and rendered.router != router:
            raise AssertionError(f"the router of {selection} differs from the target's")


def _commands(roles: Mapping[str, Lines]) -> dict[str, tuple[tuple[tuple[str, str], ...], dict[str, str]]]:
    """What a selection runs: per role, its argument lines in order and its environment."""
    return {role: (tuple(lines.args), dict(lines.envs)) for role, lines in roles.items()}


def _served_model(plan: Plan, recipe: Json) -> str:
    variants = syn.obj(syn.get(recipe, "variants"))
    variant = syn.either(variants.get(plan.variant), variants.get("default"), {})
    if plan.omni and plan.omni_task is None:
        return syn.js_str(syn.either(syn.get(variant, "model_id"), syn.get(recipe, "model", "model_id"), "model"))
    task_model = syn.get(plan.omni_task, "model_id") if plan.omni_task else None
    return syn.js_str(
        syn.either(task_model, syn.get(variant, "model_id"), syn.get(recipe, "model", "model_id"), "unknown")
    )


def _role_json(role: str, lines: Lines, nodes: list[dict[str, dict[str, str]]] | None = None) -> dict[str, Any]:
    written: dict[str, Any] = {
        "role": role,
        "launcher": LAUNCHER,
        "args": dict(lines.args),
        "envs": dict(lines.envs),
        "ranks": None,
        "scale": None,
        "varies": None,
    }
    if nodes:  # a server across nodes: the head's lines, and what each follower sets otherwise
        varies = {key for entry in nodes for kind in ("args", "envs") for key in entry[kind]}
        written["nodes"] = [
            {kind: entry[kind] for kind in ("args", "envs") if entry[kind] or kind == "args"} for entry in nodes
        ]
        written["scale"] = f"{len(nodes)} nodes"
        written["varies"] = sorted(varies)
    return written


def _router_json(plan: Plan, recipe: Json, checkout: Checkout) -> dict[str, Any] | None:
    command = rendered_router(plan, recipe, checkout)
    if command is None:
        return None
    return {"role": "router", "nodes": [{"node": "vllm-router", "cmd": placeholders_of(command)}]}


def _recommended(
    plan: Plan, recipe: Json, checkout: Checkout, axes: list[Axis], excluded: list[dict[str, str]]
) -> dict[str, str] | None:
    """Their page's first selection: the default features (their default modes), no Advanced flag,
    no KV offload; None (the base command) when that selection is not offered."""
    if not axes:
        return None
    on = set(syn.default_features(recipe, plan.hardware, plan.variant))
    variant = syn.get(recipe, "variants", plan.variant)
    profile = syn.get(checkout.taxonomy, "hardware_profiles", plan.hardware)
    chosen = {}
    for axis in axes:
        value = axis.values[0]
        if axis.kind == "feature" and axis.key in on:
            value = "on"
        elif axis.kind == "mode" and axis.key in on:
            feature = syn.get(recipe, "features", axis.key)
            mode = syn.resolve_mode_key(feature, axis.key, variant, plan.variant, profile, plan.hardware, None)
            value = next((v for v, m in axis.theirs.items() if m == mode), axis.values[0])
        chosen[axis.name] = value if value in axis.values else axis.values[0]
    if any(all(chosen.get(k) == v for k, v in entry.items()) for entry in excluded):
        return None
    if all(chosen[a.name] == a.values[0] for a in axes):
        return None
    return chosen


# -- the whole model ------------------------------------------------------------------------------


GroupKey = tuple[str, str, int | str | None]  # their strategy, the variant, the nodes or the omni task


@dataclasses.dataclass
class StrategyGroup:
    """One strategy of ours: their strategy for one variant on one shape of nodes."""

    slug: str
    label: str
    tag: str
    variant: str
    nodes: int | None
    targets: list[tuple[str, str, Plan]]  # (target name, label, plan)


def _variant_label(recipe: Json, key: str) -> str:
    variant = syn.get(recipe, "variants", key)
    return plain(syn.either(syn.get(variant, "label"), str(syn.either(syn.get(variant, "precision"), key)).upper()), 60)


def _slug(*parts: str) -> str:
    return "-".join(p for p in (re.sub(r"[^a-z0-9]+", "-", part.lower()).strip("-") for part in parts) if p)[:64].strip(
        "-"
    )


def _target_name(profile: Json, hw_id: str, taken: set[str]) -> str:
    shown = str(syn.either(syn.get(profile, "display_name"), hw_id))
    name = " ".join(_TARGET_CHARS.sub(" ", shown).split())
    if not name or not name[0].isalpha():
        name = f"HW {name}".strip()
    if name in taken:
        name = f"{name} {hw_id}"
    return name[:64]


def plan_targets(recipe: Json, checkout: Checkout, lost: list[str]) -> list[StrategyGroup]:
    """Every (strategy, variant, hardware) their builder offers, grouped into our strategies."""
    taxonomy = checkout.taxonomy
    profiles = syn.obj(syn.get(taxonomy, "hardware_profiles"))
    variants = syn.obj(syn.get(recipe, "variants"))
    omni = "omni" in syn.arr(syn.get(recipe, "meta", "tasks"))
    groups: dict[GroupKey, StrategyGroup] = {}
    kv_name = "kv_offload"
    for variant_key in variants:
        vlabel = _variant_label(recipe, variant_key)
        suffix = "" if variant_key == "default" or len(variants) == 1 else variant_key
        for hw_id in hardware_order(taxonomy, recipe):
            profile = profiles[hw_id]
            variant = variants[variant_key]
            if not (syn.is_hardware_supported(recipe, hw_id) and syn.variant_runs_on_hardware(profile, variant, hw_id)):
                continue
            if omni:
                _plan_omni(recipe, variant_key, vlabel, suffix, hw_id, profile, groups, lost)
                continue
            for strategy in syn.effective_compatible_strategies(recipe):
                spec = checkout.strategies.get(strategy)
                deploy = syn.get(spec, "deploy_type")
                if spec is None or deploy == "kv_store_lb":
                    continue
                if not syn.is_strategy_supported_on_hardware(recipe, strategy, profile, hw_id):
                    continue
                gpus = syn.gpu_count(profile)
                if not syn.is_strategy_reachable(recipe, strategy, deploy, gpus, hw_id):
                    continue
                display = str(syn.either(syn.get(spec, "display_name"), strategy))
                where = f"{strategy} / {vlabel} / {syn.get(profile, 'display_name') or hw_id}"
                if deploy == "multi_node":
                    if not syn.is_hardware_scalable(profile) or syn.get(profile, "generation") == "xpu":
                        continue
                    for nodes in _node_counts(recipe, strategy, gpus, hw_id):
                        if not SPANS_NODES:
                            lost.append(
                                f"{where}: {nodes} nodes: one server across nodes, which this format cannot write yet"
                            )
                            continue
                        choice = Choice(variant=variant_key, strategy=strategy, hardware=hw_id, node_count=nodes)
                        plan = Plan(variant=variant_key, hardware=hw_id, strategy=strategy, choice=choice, axes=[])
                        plan.axes = _feature_axes(recipe, plan, profile, kv_name)
                        kv = _kv_axis(recipe, plan, profile, checkout, kv_name)
                        if kv:
                            plan.axes.append(kv)
                        key: GroupKey = (strategy, variant_key, nodes)
                        group = groups.get(key) or groups.setdefault(
                            key,
                            StrategyGroup(
                                _slug(strategy, suffix, "" if nodes == 2 else f"{nodes}n"),
                                _label(display, vlabel, suffix),
                                f"{nodes} nodes",
                                vlabel,
                                nodes,
                                [],
                            ),
                        )
                        _add(group, profile, hw_id, plan)
                    lost.append(
                        f"{where}: other numbers of nodes than {', '.join(map(str, _node_counts(recipe, strategy, gpus, hw_id)))} (their page's example counts; it says to replicate the follower's command)"
                    )
                    continue
                if deploy == "pd_cluster":
                    _plan_pd(
                        recipe, checkout, variant_key, vlabel, suffix, hw_id, profile, display, groups, lost, where
                    )
                    continue
                if (
                    not syn.fits_single_node(profile, variant)
                    or syn.nodes_for_strategy(recipe, strategy, gpus, hw_id) > 1
                ):
                    continue  # their single-node pill is disabled: the variant does not fit one node
                choice = Choice(variant=variant_key, strategy=strategy, hardware=hw_id)
                plan = Plan(variant=variant_key, hardware=hw_id, strategy=strategy, choice=choice, axes=[])
                plan.axes = _feature_axes(recipe, plan, profile, kv_name)
                kv = _kv_axis(recipe, plan, profile, checkout, kv_name)
                if kv:
                    plan.axes.append(kv)
                key = (strategy, variant_key, None)
                group = groups.get(key) or groups.setdefault(
                    key,
                    StrategyGroup(
                        _slug(strategy, suffix), _label(display, vlabel, suffix), "Single node", vlabel, None, []
                    ),
                )
                _add(group, profile, hw_id, plan)
    return list(groups.values())


def _node_counts(recipe: Json, strategy: str, gpus: int, hw_id: str) -> list[int]:
    """The node counts their Nodes row offers a multi-node strategy: the example count 2 (grown to
    the strategy's GPU floor), and the count another strategy's floor asks for (their pills: 1, 2
    and that one)."""
    own = max(2, syn.nodes_for_strategy(recipe, strategy, gpus, hw_id))
    needed = max(
        (syn.nodes_for_strategy(recipe, s, gpus, hw_id) for s in syn.effective_compatible_strategies(recipe)), default=1
    )
    counts = [own]
    if needed > own and needed <= syn.MAX_NODES:
        counts.append(needed)
    return counts


def _label(display: str, vlabel: str, suffix: str) -> str:
    return plain(f"{display} · {vlabel}" if suffix else display)


def _add(group: StrategyGroup, profile: Json, hw_id: str, plan: Plan, extra: str = "") -> None:
    taken = {name for name, _label, _plan in group.targets}
    shown = str(syn.either(syn.get(profile, "display_name"), hw_id))
    shown = plain(shown, 150)
    name = (
        _target_name(profile, hw_id, taken)
        if not extra
        else _target_name({"display_name": f"{shown} {extra}"}, hw_id, taken)
    )
    group.targets.append((name, f"{shown} {extra}".strip(), plan))


def _plan_pd(
    recipe: Json,
    checkout: Checkout,
    variant_key: str,
    vlabel: str,
    suffix: str,
    hw_id: str,
    profile: Json,
    display: str,
    groups: dict[GroupKey, StrategyGroup],
    lost: list[str],
    where: str,
) -> None:
    """Prefill/decode: one target, each pool on one node, the pools' parallelism (TP, TEP, DEP) an axis
    each; a pool that needs more nodes for a parallelism (theirs: as many as the model needs, the
    recipe's, or its GPU floor) is listed."""
    variant = syn.get(recipe, "variants", variant_key)
    gpus = syn.gpu_count(profile)
    modes = [m for m in syn.pd_pool_modes(recipe) if syn.is_strategy_reachable(recipe, m, "multi_node", gpus, hw_id)]
    if not modes:
        return
    so = syn.obj(syn.get(recipe, "strategy_overrides", "pd_cluster"))
    node_vram = syn.either(syn.get(profile, "vram_gb"), 0)
    need = syn.either(syn.get(variant, "vram_minimum_gb"), 0)
    least = max(1, math.ceil(need / node_vram)) if need > 0 and node_vram > 0 else 1

    def default_nodes(role: str) -> int:
        given = syn.get(so, role, "nodes")
        if syn._is_number(given):
            return int(given)
        if isinstance(given, dict):
            for key in (hw_id, "default"):
                if syn._is_number(given.get(key)):
                    return int(given[key])
        return least

    def default_mode(role: str) -> str:
        mode = syn.either(
            syn.get(so, role, "parallelism"), syn.get(checkout.strategies.get("pd_cluster"), role, "parallelism"), "tp"
        )
        return mode if mode in modes else modes[0]

    pools: dict[str, list[str]] = {}
    for role in ("prefill", "decode"):
        fitting = []
        for mode in modes:
            nodes = max(default_nodes(role), syn.nodes_for_strategy(recipe, mode, gpus, hw_id))
            if nodes > 1:
                lost.append(
                    f"{where}: {role} {mode.upper()} on {nodes} nodes: a pool across nodes, which this format cannot write yet"
                )
            else:
                fitting.append(mode)
        if not fitting:
            return
        first = default_mode(role) if default_mode(role) in fitting else fitting[0]
        pools[role] = [first, *(m for m in fitting if m != first)]
    # the router's command depends on the pools (a DEP pool's local ranks), and a target's npus is
    # what each of its roles uses (rule 26): one target per router and NPU count, each with the
    # pools' combinations that give them; a combination whose pools use different counts is listed
    by_router: dict[tuple[str, int], list[tuple[str, str]]] = {}
    for combination in itertools.product(pools["prefill"], pools["decode"]):
        pd_nodes = {
            role: {"nodes": 1, "rank": 0, "parallelism": mode} for role, mode in zip(pools, combination, strict=True)
        }
        choice = Choice(variant=variant_key, strategy="pd_cluster", hardware=hw_id, pd_nodes=pd_nodes)
        router = syn.resolve_command(recipe, choice, checkout.strategies, checkout.taxonomy).router or ""
        alone = Plan(variant=variant_key, hardware=hw_id, strategy="pd_cluster", choice=choice, axes=[])
        try:
            used = _role_npus(build_target(alone, recipe, checkout, where).grid)
        except _NotExpressible:
            used = None  # the target built from these pools lists why
        counts = sorted(set(used.values())) if used else []
        if len(counts) > 1:
            assert used is not None
            said = ", ".join(
                f"{role} {mode.upper()}: {used.get(role, '?')}" for role, mode in zip(pools, combination, strict=True)
            )
            lost.append(
                f"{where}: prefill {combination[0].upper()} with decode {combination[1].upper()}: the pools use "
                f"different numbers of NPUs ({said}), and a target's npus is what each of its roles uses"
            )
            continue
        by_router.setdefault((router, counts[0] if counts else 0), []).append(combination)
    if not by_router:
        return
    first_modes: set[str] = set()
    counted = len({count for _router, count in by_router}) > 1
    for n, ((_router, count), combinations) in enumerate(by_router.items()):
        base = combinations[0]
        pd_nodes = {role: {"nodes": 1, "rank": 0, "parallelism": mode} for role, mode in zip(pools, base, strict=True)}
        choice = Choice(variant=variant_key, strategy="pd_cluster", hardware=hw_id, pd_nodes=pd_nodes)
        plan = Plan(variant=variant_key, hardware=hw_id, strategy="pd_cluster", choice=choice, axes=[])
        offered = {role: list(dict.fromkeys(c[i] for c in combinations)) for i, role in enumerate(pools)}
        plan.axes = [
            Axis(f"{role}_pool", f"{role.capitalize()} pool", values, {m: m.upper() for m in values}, "pool", role)
            for role, values in offered.items()
            if len(values) > 1
        ]
        names = [a.name for a in plan.axes]
        plan.excluded = [
            dict(zip(names, (c[i] for i, role in enumerate(pools) if f"{role}_pool" in names), strict=True))
            for c in itertools.product(*offered.values())
            if c not in combinations
        ]
        plan.axes += _feature_axes(recipe, plan, profile, "kv_offload")
        modes_here = {m for c in combinations for m in c}
        if n == 0:
            first_modes = modes_here
        extra = "" if n == 0 else " ".join(sorted(m.upper() for m in modes_here - first_modes)) or f"router {n + 1}"
        if counted and n > 0:  # targets told apart by their NPUs (each pool's count)
            extra = f"{count} NPUs" if not modes_here - first_modes else f"{extra} {count} NPUs"
        key = ("pd_cluster", variant_key, 2)
        group = groups.get(key) or groups.setdefault(
            key,
            StrategyGroup(
                _slug("pd-cluster", suffix),
                _label(display, vlabel, suffix),
                "Prefill on one node, decode on another",
                vlabel,
                2,
                [],
            ),
        )
        _add(group, profile, hw_id, plan, extra)
    lost.append(f"{where}: other numbers of prefill and decode nodes (their page takes 1 to 16 per pool)")


def _plan_omni(
    recipe: Json,
    variant_key: str,
    vlabel: str,
    suffix: str,
    hw_id: str,
    profile: Json,
    groups: dict[GroupKey, StrategyGroup],
    lost: list[str],
) -> None:
    tasks = syn.omni_tasks(recipe)
    every: list[dict[str, Any] | None] = [*tasks] or [None]
    for task in every:
        resolved = syn.omni_task_for_hardware(task, hw_id) if task else None
        choice = Choice(variant=variant_key, strategy="omni", hardware=hw_id)
        plan = Plan(
            variant=variant_key, hardware=hw_id, strategy="omni", choice=choice, axes=[], omni_task=resolved, omni=True
        )
        task_suffix = "" if not task or len(tasks) == 1 else str(task["key"])
        key = ("omni", variant_key, task_suffix)
        label = "vLLM-Omni" + (f" · {task['label']}" if task_suffix and task else "")
        group = groups.get(key) or groups.setdefault(
            key,
            StrategyGroup(
                _slug("omni", suffix, task_suffix), _label(label, vlabel, suffix), "Single node", vlabel, None, []
            ),
        )
        _add(group, profile, hw_id, plan)


# -- the recipe document ------------------------------------------------------------------------------

DEFAULT_PIP = "uv venv\nsource .venv/bin/activate\nuv pip install -U vllm --torch-backend auto"
NIGHTLY_PIP = (
    "uv venv\nsource .venv/bin/activate\nuv pip install -U vllm --pre \\\n"
    "  --extra-index-url https://wheels.vllm.ai/nightly/cu130 \\\n"
    "  --extra-index-url https://download.pytorch.org/whl/cu130 \\\n"
    "  --index-strategy unsafe-best-match"
)


def steps_of(text: str) -> list[str]:
    """The commands of a shell text their page shows one per line (a line ending in a backslash
    goes on)."""
    steps: list[str] = []
    pending = ""
    for line in str(text).splitlines():
        if not line.strip():
            continue
        pending = f"{pending}\n{line}" if pending else line.strip()
        if not line.rstrip().endswith("\\"):
            steps.append(pending.rstrip())
            pending = ""
    if pending:
        steps.append(pending.rstrip().rstrip("\\").rstrip())
    return steps


def install_line(recipe: Json, lost: list[str]) -> str:
    """Their pip install (the CUDA wheels, or the recipe's own command) and the extra install steps
    of every reader of an NVIDIA GPU (theirs for every brand, and NVIDIA's), as one line of install
    steps joined with '&&'; another brand's steps are listed."""
    model = syn.obj(syn.get(recipe, "model"))
    install = syn.obj(model.get("install"))
    pip = install.get("pip")
    if pip is False:
        image = syn.get(install, "docker", "command") or "their Docker image"
        lost.append(f"install: their page installs with Docker only ({image}); the install line is vLLM's pip wheel")
        pip = None
    default = NIGHTLY_PIP if model.get("nightly_required") is True else DEFAULT_PIP
    steps = steps_of(syn.either(syn.get(pip, "command"), default))
    for entry in syn.arr(recipe.get("dependencies")):
        command = syn.get(entry, "command")
        if not syn.truthy(command):
            continue
        modes = syn.get(entry, "install_modes")
        shown = " ".join(str(command).split())
        if isinstance(modes, list) and modes and "pip" not in modes:
            lost.append(f"install: the Docker install's step {shown!r}")
        elif syn.truthy(syn.get(entry, "optional")):
            lost.append(f"install: the optional step {shown!r} (their page leaves it out of 'Copy all')")
        elif syn.truthy(syn.get(entry, "brand")) and "NVIDIA" not in _brands(syn.get(entry, "brand")):
            # the install line is their CUDA one (NVIDIA); another brand's step is listed
            lost.append(f"install: the step {shown!r} for {syn.get(entry, 'brand')} hardware only")
        else:
            steps += steps_of(command)
    lost.append(
        "install: the Docker install (docker pull, and docker run around each command): the commands are the pip ones"
    )
    return " && ".join(steps)


def _brands(brand: Json) -> list[str]:
    return [str(b) for b in brand] if isinstance(brand, list) else [str(brand)]


def _client(recipe: Json) -> str:
    model = syn.js_str(syn.get(recipe, "model", "model_id"))
    tasks = syn.arr(syn.get(recipe, "meta", "tasks"))
    if "text" in tasks or "multimodal" in tasks:
        body = '{"model": "' + model + '", "messages": [{"role": "user", "content": "Hello"}], "max_tokens": 32}'
        return (
            "curl http://localhost:8000/v1/chat/completions \\\n"
            "    -H 'Content-Type: application/json' \\\n"
            f"    -d '{body}'"
        )
    return "curl http://localhost:8000/v1/models"


def _badges(recipe: Json) -> list[Any]:
    model = syn.obj(syn.get(recipe, "model"))
    badges: list[Any] = ["MoE" if model.get("architecture") == "moe" else "Dense"]
    if syn.truthy(model.get("parameter_count")):
        badges.append(plain(syn.js_str(model["parameter_count"])) or "?")
    context = model.get("context_length")
    if isinstance(context, (int, float)) and not isinstance(context, bool) and context > 0:
        badges.append(f"{int(context):,} ctx")
    badges.append({"text": "vLLM Recipes", "hl": True})
    return badges


def _texts(recipe: Json, notes: Notes) -> dict[str, dict[str, str]]:
    meta = syn.obj(syn.get(recipe, "meta"))
    title = str(syn.either(meta.get("title"), syn.get(recipe, "model", "model_id")))
    description = inline(str(syn.either(meta.get("description"), title)))
    if len(description) > 500:
        description = description[:497].rsplit(" ", 1)[0] + "..."
    provider = str(syn.either(meta.get("provider"), "its provider"))
    en, ko = notes.sentences()
    return {
        "en": {
            "sub": description,
            "tag": "Imported from vLLM Recipes: the commands their site builds for each strategy, hardware profile and option.",
            "strategyNote": _within(en, NOTE_LENGTH),
        },
        "ko": {
            "sub": inline(f"{provider}의 {title}. vLLM Recipes의 레시피를 가져왔습니다."),
            "tag": "vLLM Recipes에서 가져왔습니다. 전략, 하드웨어 프로필, 옵션마다 그 사이트가 만드는 명령입니다.",
            "strategyNote": _within(ko, NOTE_LENGTH),
        },
    }


NOTE_LENGTH = 4000  # the format's longest strategy note


def _within(sentences: Sequence[str], length: int) -> str:
    """Whole sentences, the last ones dropped past ``length`` characters (so no markup is cut)."""
    kept = list(sentences)
    while len(" ".join(kept)) > length and len(kept) > 1:
        kept.pop()
    return " ".join(kept)


@dataclasses.dataclass
class Notes:
    """What the page says about an import's targets as a whole, in English and Korean (the
    strategy note, which the format has in both; a target's note is English only): where the
    commands come from, and what a target needs beyond its commands."""

    source: str
    commit: str
    other_brands: dict[str, list[str]] = dataclasses.field(default_factory=dict)  # brand: target labels
    nightly: list[str] = dataclasses.field(default_factory=list)  # checkpoints (variant labels)
    router: bool = False
    companions: dict[str, tuple[str, str]] = dataclasses.field(default_factory=dict)  # label: (server, install)

    def add(self, recipe: Json, checkout: Checkout, plan: Plan, label: str, grid: Mapping[str, Any]) -> None:
        """What one target adds: its hardware's brand, its checkpoint, its router, its KV offload."""
        brand = syn.get(checkout.taxonomy, "hardware_profiles", plan.hardware, "brand")
        if brand != "NVIDIA":
            targets = self.other_brands.setdefault((plain(brand, 40) if isinstance(brand, str) else "") or "other", [])
            if label not in targets:
                targets.append(label)
        variant = syn.get(recipe, "variants", plan.variant)
        checkpoint = _variant_label(recipe, plan.variant)
        if (
            syn.get(variant, "nightly_required") is True
            and syn.get(recipe, "model", "nightly_required") is not True
            and checkpoint not in self.nightly
        ):
            self.nightly.append(checkpoint)
        self.router = self.router or bool(grid.get("router"))
        offered = {v for axis, values in grid.get("options", {}).items() if axis.startswith("kv") for v in values}
        for key, option in syn.obj(syn.get(checkout.taxonomy, "kv_offload")).items():
            if identifier(key, "kv") in offered and syn.truthy(syn.get(option, "companion", "command")):
                shown = plain(str(syn.either(syn.get(option, "label"), syn.get(option, "display_name"), key)), 60)
                server = plain(str(syn.get(option, "companion", "label") or key), 60)
                self.companions.setdefault(shown, (server, plain(str(syn.get(option, "install") or ""), 200)))

    def sentences(self) -> tuple[list[str], list[str]]:
        """The strategy note's sentences, English and Korean, the ones that matter most first."""
        e = html.escape
        at = f" at commit <code>{e(self.commit[:12])}</code>" if self.commit else ""
        ko_at = f", 커밋 <code>{e(self.commit[:12])}</code>" if self.commit else ""
        en = [
            f"Imported from vLLM Recipes (<code>{e(self.source)}</code>{at}). Each tab is one of their strategies for "
            "one checkpoint; each target is one hardware profile, with that hardware's GPUs per node. The commands are "
            "the ones their command builder gives, with its shell variables as placeholders; they are not verified on "
            "RBLN NPUs."
        ]
        ko = [
            f"vLLM Recipes(<code>{e(self.source)}</code>{ko_at})에서 가져왔습니다. 탭 하나는 체크포인트 하나에 대한 그쪽 "
            "전략 하나이고, 대상 하나는 하드웨어 프로필 하나이며 그 하드웨어의 노드당 GPU 수를 씁니다. 명령은 그쪽 명령 "
            "빌더가 만드는 그대로이고, 셸 변수는 플레이스홀더로 바꿨습니다. RBLN NPU에서 검증한 명령은 아닙니다."
        ]
        if self.router:
            en.append(
                "The router of a prefill/decode target is <code>vllm-router</code> "
                "(<code>uv pip install vllm-router</code>), started after the servers."
            )
            ko.append(
                "prefill/decode 대상의 라우터는 <code>vllm-router</code>(<code>uv pip install vllm-router</code>)이며, "
                "서버를 모두 띄운 뒤에 시작합니다."
            )
        for label, (server, install) in self.companions.items():
            en.append(
                f"KV offload {e(label)} needs its server (<code>{e(server)}</code>) running on the same node first"
                + (f", installed with <code>{e(install)}</code>." if install else ".")
            )
            ko.append(
                f"KV 오프로드 {e(label)}에는 같은 노드에서 먼저 실행 중인 서버(<code>{e(server)}</code>)가 필요합니다"
                + (f". 설치 명령은 <code>{e(install)}</code>입니다." if install else ".")
            )
        for checkpoint in self.nightly:
            en.append(f"The {e(checkpoint)} checkpoint needs vLLM's nightly wheels.")
            ko.append(f"{e(checkpoint)} 체크포인트에는 vLLM 나이틀리 휠이 필요합니다.")
        for brand, targets in self.other_brands.items():
            names = ", ".join(e(t) for t in targets)
            en.append(
                f"On {e(brand)} hardware ({names}) their page installs another build of vLLM than the install line."
            )
            ko.append(f"{e(brand)} 하드웨어({names})에서는 그쪽 페이지가 설치 줄과 다른 vLLM 빌드를 설치합니다.")
        return en, ko


def _date(recipe: Json) -> str:
    meta = syn.obj(syn.get(recipe, "meta"))
    for key in ("date_updated", "date_added"):
        value = str(meta.get(key) or "")
        try:
            datetime.date.fromisoformat(value)
        except ValueError:
            continue
        return value
    return "2026-01-01"


def _node_size(profile: Json) -> dict[str, int]:
    """What one node of their hardware profile holds (``gpu_count``: their page caps a node's
    tensor parallel size at it), as the target's ``npusPerNode`` (rule 29); nothing for a CPU
    profile, whose count is not of devices a rank takes (their page does not cap it)."""
    if syn.get(profile, "generation") == "cpu" or not isinstance(syn.get(profile, "gpu_count"), int):
        return {}
    count = syn.gpu_count(profile)
    return {"npusPerNode": count} if 1 <= count <= 1024 else {}


def _npus(grid: Mapping[str, Any]) -> int | None:
    """The NPUs one server of a target uses, as the engine reads its commands (rule 26: tensor x
    pipeline parallel x the data-parallel ranks of each process, all its nodes' for a server that
    spans nodes), at the selection its page opens on; None when its roles use different counts."""
    used = set((_role_npus(grid) or {}).values())
    return used.pop() if len(used) == 1 else None


def _role_npus(grid: Mapping[str, Any]) -> dict[str, int] | None:
    """The NPUs each role of a target uses, as rule 26 reads its commands, at the selection its
    page opens on (None when it has none)."""
    built = Grid.from_json(grid, "/grid")
    try:
        selection = default_selection(built)
    except SelectionError:
        return None
    return {role.role: sum(client.npus(c) for c in reference_role(built, role, selection)) for role in built.base}


def convert(path: Path, checkout: Checkout) -> Imported:
    """One model file of a checkout as a recipe of this format, and what it could not express."""
    source = path.relative_to(checkout.root).as_posix() if path.is_relative_to(checkout.root) else path.name
    recipe = read_yaml(path, source)
    if not isinstance(recipe, dict) or not isinstance(syn.get(recipe, "model", "model_id"), str):
        raise NotImportable(f"{source}: not a vLLM Recipes model file (no model.model_id)")
    if not isinstance(recipe.get("variants"), dict) or not recipe["variants"]:
        raise NotImportable(f"{source}: no variants")
    name = path.stem
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}", name):
        raise NotImportable(f"{source}: {name!r} cannot name a recipe (letters, digits, '.', '_' and '-')")
    model_id = recipe["model"]["model_id"]
    if not _MODEL_ID.match(model_id):
        raise NotImportable(f"{source}: the model {model_id!r} is not a Hugging Face id (owner/name)")
    lost: list[str] = []
    line = install_line(recipe, lost)
    groups = plan_targets(recipe, checkout, lost)
    catalogue: dict[str, tuple[str, dict[str, str]]] = {}
    strategies = []
    count = 0
    plans: dict[tuple[str, str], Plan] = {}
    notes = Notes(source=source, commit=checkout.commit or "")
    for group in groups:
        targets = []
        for target_name, label, plan in group.targets:
            where = f"{group.slug} / {target_name}"
            profile = syn.get(checkout.taxonomy, "hardware_profiles", plan.hardware)
            node = Node(nodes=group.nodes, per_node=_node_size(profile).get("npusPerNode"))
            try:
                built = build_target(plan, recipe, checkout, where, node, line)
            except _NotExpressible as error:
                lost.append(f"{where}: {error}")
                continue
            if not _MODEL_ID.match(built.grid["model"]):
                lost.append(f"{where}: it serves {built.grid['model']!r}, which is not a Hugging Face id")
                continue
            lost += built.lost
            for axis in built.axes:
                _shown, labels = catalogue.setdefault(axis.name, (axis.title, {}))
                for value in axis.values:
                    labels.setdefault(value, axis.labels[value])
            servers = len(built.grid["base"])
            npus = _npus(built.grid)
            if npus is None:  # their page's count: GPUs per node, or the tensor parallel size it resolves
                npus = (
                    syn.gpu_count(profile)
                    if plan.strategy != "single_node_tp"
                    else syn.resolve_single_node_tp(
                        recipe, syn.get(recipe, "variants", plan.variant), profile, plan.strategy, plan.hardware
                    )
                )
            targets.append(
                {
                    "target": target_name,
                    "npus": max(1, int(npus)),
                    "skus": [SKU],
                    **_node_size(profile),
                    "verified": _date(recipe),
                    "modelImpl": _model_impl(built),
                    "attn": None,
                    "features": {},
                    "label": label if label != target_name else None,
                    "note": None,  # English only: what a target needs is in the strategy note (both languages)
                    "grid": built.grid,
                }
            )
            count += 1 if servers else 0
            plans[(group.slug, target_name)] = plan
            notes.add(recipe, checkout, plan, label, built.grid)
        if targets:
            strategies.append(
                {
                    "slug": group.slug,
                    "label": group.label,
                    "tag": group.tag,
                    "variant": group.variant,
                    "nodes": None if not group.nodes or group.nodes < 2 else str(group.nodes),
                    "options": targets,
                }
            )
    if any(a["axis"] == "advanced" for a in document_axes(catalogue)):
        lost.append("Advanced: two or more tuning flags together (each is offered alone)")
    for key, feature in syn.obj(recipe.get("features")).items():
        if syn.truthy(syn.get(feature, "companion", "command")) and key in catalogue:
            label = syn.get(feature, "companion", "label") or key
            lost.append(f"{_title(key)}: its companion process ({label}), run beside vllm serve: its flags are offered")
    kv_values = set(catalogue.get("kv_offload", ("", {}))[1])
    for key, option in syn.obj(syn.get(checkout.taxonomy, "kv_offload")).items():
        if identifier(key, "kv") in kv_values and syn.truthy(syn.get(option, "companion", "command")):
            label = syn.get(option, "companion", "label") or key
            lost.append(
                f"KV Offload: {syn.either(syn.get(option, 'label'), syn.get(option, 'display_name'), key)}: its companion process ({label}), run beside vllm serve: "
                "its flags are offered, the strategy note names it"
            )
    lost += [
        f"KV Offload: {syn.get(spec, 'display_name') or key}: a router, a master (and a store) around the servers, "
        "which this format cannot write"
        for key, spec in checkout.strategies.items()
        if syn.get(spec, "deploy_type") == "kv_store_lb" and "omni" not in syn.arr(syn.get(recipe, "meta", "tasks"))
    ]
    if not strategies:
        raise NotImportable(f"{source}: none of its choices can be expressed:\n  " + "\n  ".join(lost[:20]))
    meta = syn.obj(recipe.get("meta"))
    tasks = syn.arr(meta.get("tasks"))
    variants = [_variant_label(recipe, key) for key in recipe["variants"]]
    document: dict[str, Any] = {
        "$schema": "schema.json",
        "name": name,
        "model": model_id,
        "provider": plain(syn.either(meta.get("provider"), model_id.split("/")[0])) or model_id.split("/")[0],
        "hf": f"https://huggingface.co/{model_id}",
        "attn": "not stated",
        "variant": variants[0],
        **({"variants": list(dict.fromkeys(variants))} if len(set(variants)) > 1 else {}),
        "features": {"api": True, "text": "text" in tasks, "mm": "multimodal" in tasks},
        "badges": _badges(recipe),
        "installLine": line,
        "client": _client(recipe),
        "axes": document_axes(catalogue),
        "text": _texts(recipe, notes),
        "strategies": strategies,
    }
    return Imported(
        name=name, source=source, recipe=document, lost=list(dict.fromkeys(lost)), targets=count, plans=plans
    )


def document_axes(catalogue: Mapping[str, tuple[str, dict[str, str]]]) -> list[dict[str, Any]]:
    """The recipe's axes catalogue: each axis's title and the label of each of its values."""
    return [
        {"axis": axis, "title": title, "options": [{"value": v, "label": label} for v, label in labels.items()]}
        for axis, (title, labels) in catalogue.items()
    ]


def _model_impl(built: Built) -> str:
    for lines in built.roles.values():
        for key, text in lines.args:
            if key == "--model-impl":
                return text.split(None, 1)[-1].strip("'")
    return "auto"
