"""The commands vLLM Recipes' site builds for a choice, computed as its command builder computes them.

vLLM Recipes (github.com/vllm-project/recipes) builds every command in ``src/lib/command-synthesis.js``
from a model file, its strategy files, ``kv_store/`` and ``taxonomy.yaml``. The importer needs the
command of every choice their builder offers, in Python and without Node.js, so this module
follows that file's rules step by step (the functions keep their names, in snake case): the order
the arguments are gathered in, the last-wins dedupe of ``--flag value`` units, the single-quoting
of values, the environment's layers. Only what a command depends on is here; what the page shows
around it (Docker wrapping, tooltips) is not.

The import is proved against the real file: ``tests/data/vllm-recipes/`` keeps the commands their
``command-synthesis.js`` gave under Node.js for a sample of choices, with the commit they come from,
and the tests compare.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, cast

Json = Any  # a value read from their YAML (a dict, a list, a string, a number, a boolean or None)

NVL4_ONLY_ENV_KEYS = (
    "VLLM_USE_NCCL_SYMM_MEM",
    "NCCL_CUMEM_ENABLE",
    "NCCL_MNNVL_ENABLE",
    "NCCL_NVLS_ENABLE",
    "UCX_NET_DEVICES",
)
NVL4_HW_IDS = frozenset({"gb200", "gb300"})
MAX_NODES = 16
PRECISION_HARDWARE_CONSTRAINTS: Mapping[str, Mapping[str, str]] = {
    "nvfp4": {"brand": "NVIDIA", "generation": "blackwell"},
    "fp4": {"brand": "NVIDIA", "generation": "blackwell"},
}

# The Advanced panel of their command builder (CommandBuilder.jsx, ADVANCED_OPTIONS): tunable flags a
# reader may add; each is offered where its gate allows it.
ADVANCED_OPTIONS: tuple[Mapping[str, Any], ...] = (
    {"id": "max_batched_8k", "label": "max-num-batched-tokens = 8192", "args": ["--max-num-batched-tokens", "8192"]},
    {"id": "max_num_seqs_256", "label": "max-num-seqs = 256", "args": ["--max-num-seqs", "256"]},
    {"id": "gpu_mem_095", "label": "gpu-memory-utilization = 0.95", "args": ["--gpu-memory-utilization", "0.95"]},
    {"id": "max_model_len_auto", "label": "max-model-len = auto", "args": ["--max-model-len", "auto"]},
    {
        "id": "dcp_8",
        "label": "decode-context-parallel-size = 8",
        "args": ["--decode-context-parallel-size", "8"],
        "gate": "supports_dcp",
    },
    {
        "id": "no_flashinfer_autotune",
        "label": "no-enable-flashinfer-autotune",
        "args": ["--no-enable-flashinfer-autotune"],
        "gate": "flashinfer_autotune",
    },
    {"id": "ep_weight_filter", "label": "enable-ep-weight-filter", "args": ["--enable-ep-weight-filter"], "gate": "ep"},
)
_EP_STRATEGY = re.compile(r"(?:^|_)(?:tep|dep)$")


# -- JavaScript's values, as the file sees them --------------------------------------------------


def truthy(value: Json) -> bool:
    """JavaScript's truthiness: empty lists and objects are true, 0, "", NaN, null are false."""
    if value is None or value is False:
        return False
    if isinstance(value, bool):
        return True
    if isinstance(value, (int, float)):
        return not (value == 0 or (isinstance(value, float) and math.isnan(value)))
    if isinstance(value, str):
        return value != ""
    return True


def either(*values: Json) -> Json:
    """``a || b || ...``: the first truthy value, else the last."""
    for value in values[:-1]:
        if truthy(value):
            return value
    return values[-1]


def first_set(*values: Json) -> Json:
    """``a ?? b ?? ...``: the first value that is not null/undefined, else the last."""
    for value in values[:-1]:
        if value is not None:
            return value
    return values[-1]


def js_str(value: Json) -> str:
    """``String(value)``."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
        if value.is_integer() and abs(value) < 1e21:
            return str(int(value))
        return repr(value)
    return str(value)


def obj(value: Json) -> Mapping[str, Json]:
    """``value || {}`` for an object read from YAML (anything else reads as empty)."""
    return value if isinstance(value, dict) else {}


def arr(value: Json) -> list[Json]:
    return value if isinstance(value, list) else []


def get(value: Json, *path: str) -> Json:
    """``value?.a?.b``."""
    for key in path:
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value


# -- hardware, strategies, features --------------------------------------------------------------


def normalize_generation(gen: Json) -> Json:
    if isinstance(gen, list):
        return gen[0] if gen else None
    return gen


def generation(profile: Json) -> Json:
    return normalize_generation(either(get(profile, "generation"), get(profile, "gpu_generation")))


def hardware_keyed_value(table: Json, profile: Json, hw_id: str | None) -> Json:
    if not isinstance(table, dict):
        return None
    gen = generation(profile)
    brand = get(profile, "brand")
    brand = brand.lower() if isinstance(brand, str) else None
    return first_set(
        table.get(hw_id) if hw_id is not None else None,
        table.get(gen) if truthy(gen) else None,
        table.get(brand) if brand else None,
        table.get("default"),
    )


def is_strategy_supported_on_hardware(recipe: Json, strategy: str, profile: Json, hw_id: str | None) -> bool:
    gate = hardware_keyed_value(get(recipe, "strategy_hardware", strategy), profile, hw_id)
    if gate is not None:
        return bool(gate != "unsupported")
    return strategy in arr(get(recipe, "compatible_strategies"))


def effective_compatible_strategies(recipe: Json) -> list[str]:
    listed = arr(get(recipe, "compatible_strategies"))
    opt_ins = [
        s
        for s, table in obj(get(recipe, "strategy_hardware")).items()
        if s not in listed and isinstance(table, dict) and "supported" in table.values()
    ]
    return [*listed, *opt_ins] if opt_ins else listed


def gpu_count(profile: Json) -> int:
    count = get(profile, "gpu_count")
    return cast(int, count) if isinstance(count, (int, float)) and not isinstance(count, bool) else 1


def resolve_single_node_tp(
    recipe: Json, variant: Json, profile: Json, strategy: str = "single_node_tp", hw_id: str | None = None
) -> int:
    gpus = gpu_count(profile)
    is_cpu = get(profile, "generation") == "cpu"
    if strategy != "single_node_tp":
        return gpus
    tp = get(variant, "tp")
    variant_tp = tp if _is_number(tp) else hardware_keyed_value(tp, profile, hw_id)
    if _is_number(variant_tp) and variant_tp > 0:
        return cast(int, variant_tp if is_cpu else min(variant_tp, gpus))
    declared = get(recipe, "strategy_overrides", strategy, "tp")
    declared_tp = declared if _is_number(declared) else hardware_keyed_value(declared, profile, hw_id)
    if _is_number(declared_tp) and declared_tp > 0:
        return cast(int, declared_tp if is_cpu else min(declared_tp, gpus))
    vram = get(profile, "vram_gb")
    per_gpu = vram / gpus if truthy(vram) and truthy(gpus) else 0
    need = either(get(variant, "vram_minimum_gb"), 0)
    if not truthy(need) or not truthy(per_gpu) or per_gpu <= 0:
        return gpus
    return 1 if need <= per_gpu else gpus


def _is_number(value: Json) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def recommend_strategy(recipe: Json, node_count: int = 1) -> str:
    compatible = effective_compatible_strategies(recipe)
    explicit = get(recipe, "default_strategy")
    if truthy(explicit) and explicit in compatible:
        if node_count > 1 and explicit.startswith("single_node_"):
            sibling = "multi_node_" + explicit.removeprefix("single_node_")
            if sibling in compatible:
                return str(sibling)
        else:
            return str(explicit)
    if node_count > 1:
        for candidate in ("multi_node_tp", "multi_node_dep", "multi_node_tep"):
            if candidate in compatible:
                return candidate
    if "single_node_tp" in compatible:
        return "single_node_tp"
    return compatible[0] if compatible else "single_node_tp"


def follower_ranks(nodes: int) -> list[int]:
    return list(range(1, max(0, (nodes or 1) - 1) + 1))


def _min_gpus_from_block(block: Json, key: str) -> float:
    if block is None:
        return 0
    if _is_number(block):
        return cast(float, block)
    if not isinstance(block, dict):
        return 0
    return cast(float, first_set(block.get(key), block.get(f"multi_node_{key}"), block.get(f"single_node_{key}"), 0))


def min_gpus_for_strategy(recipe: Json, key: str, gpu_id: str | None) -> float:
    config = get(recipe, "strategy_min_gpus")
    if config is None:
        return 0
    if _is_number(config):
        return cast(float, config)
    return max(
        _min_gpus_from_block(config, key),
        _min_gpus_from_block(config.get(gpu_id), key) if truthy(gpu_id) and isinstance(config, dict) else 0,
    )


def nodes_for_strategy(recipe: Json, key: str, gpus_per_node: int, gpu_id: str | None) -> int:
    return math.ceil(min_gpus_for_strategy(recipe, key, gpu_id) / either(gpus_per_node, 8)) or 1


def is_strategy_reachable(recipe: Json, key: str, deploy_type: Json, gpus_per_node: int, gpu_id: str | None) -> bool:
    scales_out = deploy_type in ("multi_node", "pd_cluster")
    return bool(
        (MAX_NODES if scales_out else 1) * either(gpus_per_node, 8) >= min_gpus_for_strategy(recipe, key, gpu_id)
    )


def pd_pool_modes(recipe: Json) -> list[str]:
    modes: set[str] = set()
    for s in effective_compatible_strategies(recipe):
        if s == "pd_cluster":
            continue
        if re.search(r"(?:^|_)dep$", s):
            modes.add("dep")
        elif re.search(r"(?:^|_)tep$", s):
            modes.add("tep")
        elif re.search(r"(?:^|_)tp(?:_pp|_dp)?$", s):
            modes.add("tp")
    if not modes:
        modes.add("tp")
    ordered: list[str] = [m for m in ("tp", "tep", "dep") if m in modes]
    restrict = get(recipe, "strategy_overrides", "pd_cluster", "pool_modes")
    if isinstance(restrict, list) and restrict:
        narrowed = [m for m in ordered if m in restrict]
        if narrowed:
            ordered = narrowed
    return ordered


def precision_constraint(variant: Json) -> Json:
    return either(get(variant, "precision_hardware"), PRECISION_HARDWARE_CONSTRAINTS.get(get(variant, "precision")))


def matches_constraint(profile: Json, constraint: Json) -> bool:
    if not truthy(constraint):
        return True
    if truthy(get(constraint, "brand")) and get(profile, "brand") != constraint["brand"]:
        return False
    if truthy(get(constraint, "generation")):
        gen = either(get(profile, "generation"), get(profile, "gpu_generation"))
        gens = gen if isinstance(gen, list) else [gen]
        if constraint["generation"] not in gens:
            return False
    return True


def is_precision_compatible(profile: Json, variant: Json) -> bool:
    return matches_constraint(profile, precision_constraint(variant))


def is_hardware_supported(recipe: Json, hw_id: str) -> bool:
    return bool(get(recipe, "meta", "hardware", hw_id) != "unsupported")


def is_variant_hardware_supported(variant: Json, hw_id: str) -> bool:
    supported = get(variant, "supported_hardware")
    return not isinstance(supported, list) or not supported or hw_id in supported


def is_mode_supported(mode: Json, profile: Json, hw_id: str | None) -> bool:
    table = get(mode, "hardware")
    if not isinstance(table, dict):
        return True
    gen = generation(profile)
    if truthy(gen) and table.get(gen) == "unsupported":
        return False
    return not (truthy(hw_id) and table.get(hw_id) == "unsupported")


def is_mode_allowed_for_variant(mode: Json, variant_key: str) -> bool:
    allow = get(mode, "variants")
    return not isinstance(allow, list) or not allow or variant_key in allow


def is_feature_allowed_for_strategy(feature: Json, strategy: str) -> bool:
    allow = get(feature, "strategies")
    return not isinstance(allow, list) or not allow or strategy in allow


def is_kv_offload_allowed_for_strategy(option: Json, strategy_name: str, strategy: Json) -> bool:
    if not truthy(option):
        return False
    if get(strategy, "deploy_type") in ("pd_cluster", "kv_store_lb"):
        return False
    allow = get(option, "strategies")
    return not isinstance(allow, list) or not allow or strategy_name in allow


def is_kv_offload_supported_for_recipe(option: Json, key: str, recipe: Json) -> bool:
    if not truthy(option):
        return False
    support = get(recipe, "kv_offload_support", key)
    if support == "unsupported":
        return False
    return support == "verified" if truthy(get(option, "requires_opt_in")) else True


def is_kv_offload_brand_supported(option: Json, profile: Json) -> bool:
    allow = get(option, "brands")
    return not isinstance(allow, list) or not allow or get(profile, "brand") in allow


def resolve_mode_key(
    feature: Json, key: str, variant: Json, variant_key: str, profile: Json, hw_id: str | None, selected: Json
) -> str | None:
    modes = get(feature, "modes")
    if not isinstance(modes, dict):
        return None
    allowed = [
        k
        for k, mode in modes.items()
        if is_mode_allowed_for_variant(mode, variant_key) and is_mode_supported(mode, profile, hw_id)
    ]
    if not allowed:
        return None
    for candidate in (selected, get(variant, "default_modes", key), get(feature, "default_mode")):
        if truthy(candidate) and candidate in allowed:
            return str(candidate)
    return str(allowed[0])


def allowed_modes(feature: Json, variant_key: str, profile: Json, hw_id: str | None) -> list[str]:
    """The modes a feature offers on this variant and hardware (the "pick one" row)."""
    modes = obj(get(feature, "modes"))
    return [
        k
        for k, mode in modes.items()
        if is_mode_allowed_for_variant(mode, variant_key) and is_mode_supported(mode, profile, hw_id)
    ]


def list_compatible_hardware(profiles: Mapping[str, Json], variant: Json, recipe: Json) -> list[str]:
    return [
        hw_id
        for hw_id, profile in profiles.items()
        if is_precision_compatible(profile, variant)
        and is_hardware_supported(recipe, hw_id)
        and is_variant_hardware_supported(variant, hw_id)
    ]


def fits_single_node(profile: Json, variant: Json) -> bool:
    node = get(profile, "vram_gb")
    node = node if _is_number(node) else 0
    need = either(get(variant, "vram_minimum_gb"), 0)
    if need <= 0 or node <= 0:
        return True
    return bool(need <= node)


def is_hardware_scalable(profile: Json) -> bool:
    return get(profile, "scalable") is not False


def variant_runs_on_hardware(profile: Json, variant: Json, hw_id: str | None = None) -> bool:
    if not is_precision_compatible(profile, variant):
        return False
    if hw_id and not is_variant_hardware_supported(variant, hw_id):
        return False
    return is_hardware_scalable(profile) or fits_single_node(profile, variant)


def default_features(recipe: Json, hw_id: str, variant_key: str) -> list[str]:
    """Features on by default (CommandBuilder's defaultFeaturesFor): all but the opt-in ones,
    and those the variant's default modes force on."""
    opt_in = set(arr(get(recipe, "opt_in_features"))) | set(arr(get(recipe, "hardware_opt_in_features", hw_id)))
    forced = set(obj(get(recipe, "variants", variant_key, "default_modes")))
    return [f for f in obj(get(recipe, "features")) if f in forced or f not in opt_in]


def advanced_options(recipe: Json, strategy: str) -> list[Mapping[str, Any]]:
    """The Advanced panel's options a strategy offers (their gates), then the recipe's own."""
    model = obj(get(recipe, "model"))
    found = []
    for option in ADVANCED_OPTIONS:
        gate = option.get("gate")
        if gate == "ep" and not _EP_STRATEGY.search(strategy or ""):
            continue
        if gate in ("supports_dcp", "flashinfer_autotune") and model.get(gate) is not True:
            continue
        found.append(option)
    found += [o for o in arr(get(recipe, "advanced_options")) if isinstance(o, dict)]
    return found


# -- a command ---------------------------------------------------------------------------------------


def dedupe_args(args: Sequence[Json]) -> list[Json]:
    """Keep each flag's last ``--flag value`` unit (dedupeArgs): later layers shadow earlier ones."""
    units: list[tuple[str, Json, Json]] = []
    i = 0
    while i < len(args):
        current = args[i]
        if isinstance(current, str) and current.startswith("-"):
            following = args[i + 1] if i + 1 < len(args) else None
            if i + 1 < len(args) and not (isinstance(following, str) and following.startswith("-")):
                units.append(("flag", current, following))
                i += 2
                continue
            units.append(("flag", current, _NONE))
        else:
            units.append(("positional", current, _NONE))
        i += 1
    seen: set[Json] = set()
    keep = [False] * len(units)
    for n in range(len(units) - 1, -1, -1):
        kind, flag, _value = units[n]
        if kind == "positional":
            keep[n] = True
        elif flag not in seen:
            seen.add(flag)
            keep[n] = True
    out: list[Json] = []
    for n, (kind, flag, value) in enumerate(units):
        if not keep[n]:
            continue
        out.append(flag)
        if kind == "flag" and value is not _NONE:
            out.append(value)
    return out


class _Missing:
    def __repr__(self) -> str:
        return "<none>"


_NONE: Any = _Missing()
_BARE = re.compile(r"^[A-Za-z0-9_./=:@,+%-]+$")
_VARIABLE = re.compile(r"^\$[A-Z_][A-Z0-9_]*$")


def shell_quote(value: Json) -> Json:
    """shellQuote: a value with a shell-special character in single quotes; a bare ``$VAR`` stays bare."""
    if not isinstance(value, str) or value == "":
        return value
    if _VARIABLE.match(value) or _BARE.match(value):
        return value
    return "'" + value.replace("'", "'\\''") + "'"


@dataclasses.dataclass(frozen=True)
class Unit:
    """One argument as their command shows it: a flag with its value (or none), or a positional word."""

    flag: str | None
    value: str | None

    @property
    def text(self) -> str:
        """The unit's line in their command (formatCommand)."""
        if self.flag is None:
            return str(self.value)
        return self.flag if self.value is None else f"{self.flag} {shell_quote(self.value)}"


def units(args: Sequence[Json]) -> list[Unit]:
    """A command's arguments as formatCommand lays them out: falsy values dropped, deduped, each flag
    with the value after it (a value is a word that does not start with '-')."""
    filtered = dedupe_args([a for a in args if truthy(a)])
    out: list[Unit] = []
    i = 0
    while i < len(filtered):
        current = js_str(filtered[i])
        following = filtered[i + 1] if i + 1 < len(filtered) else None
        if current.startswith("-") and following is not None and not js_str(following).startswith("-"):
            out.append(Unit(current, js_str(following)))
            i += 2
        elif current.startswith("-"):
            out.append(Unit(current, None))
            i += 1
        else:
            out.append(Unit(None, current))
            i += 1
    return out


@dataclasses.dataclass(frozen=True)
class Server:
    """One vllm serve command of a choice: its role, its node, its environment and its arguments."""

    role: str  # "main", "prefill", "decode"
    node: int  # 0 for the head (or the only node), then each follower
    env: Mapping[str, str]
    args: tuple[Unit, ...]
    model: str
    launcher: str = "vllm serve"


@dataclasses.dataclass(frozen=True)
class Rendered:
    """Everything a choice runs."""

    deploy_type: str
    servers: tuple[Server, ...]
    router: str | None = None  # the router's command (prefill/decode)
    companions: tuple[Mapping[str, str], ...] = ()
    node_count: int = 1


@dataclasses.dataclass(frozen=True)
class Choice:
    """A choice of their command builder: everything resolveCommand is given."""

    variant: str
    strategy: str
    hardware: str
    features: tuple[str, ...] = ()
    advanced: tuple[str, ...] = ()  # ids of Advanced options
    node_count: int = 1
    pd_nodes: Mapping[str, Mapping[str, Any]] | None = None  # role -> {nodes, rank, parallelism}
    feature_modes: Mapping[str, str] = dataclasses.field(default_factory=dict)
    kv_offload: str | None = None


def _env_text(value: Json) -> str:
    return js_str(value)


def resolve_command(recipe: Json, choice: Choice, strategies: Mapping[str, Json], taxonomy: Json) -> Rendered:
    """resolveCommand for one choice (pd_cluster, multi_node, single_node; Mooncake's kv_store_lb is
    not followed: the importer lists it as not expressible)."""
    variants = obj(get(recipe, "variants"))
    variant = either(variants.get(choice.variant), variants.get("default"), {})
    strategy = either(strategies.get(choice.strategy), {})
    profile = either(get(taxonomy, "hardware_profiles", choice.hardware), {})
    gen = generation(profile)
    gpus = gpu_count(profile)
    node_count = choice.node_count
    total_gpus = gpus * max(1, node_count)
    single_tp = resolve_single_node_tp(recipe, variant, profile, choice.strategy, choice.hardware)
    model_id = either(get(variant, "model_id"), get(recipe, "model", "model_id"), "unknown")
    variant_hw = get(variant, "hardware_overrides", choice.hardware)
    option = kv_option(recipe, choice, strategy, profile, taxonomy)
    is_nvidia = get(profile, "brand") == "NVIDIA"
    so = get(recipe, "strategy_overrides", choice.strategy)
    deploy = get(strategy, "deploy_type")

    def pd_role(role: str) -> Mapping[str, Any]:
        raw = (choice.pd_nodes or {}).get(role) if choice.pd_nodes else None
        if _is_number(raw):
            return {"nodes": raw}
        return raw if isinstance(raw, dict) else {}

    def build_args(role: str | None, node_role: str | None, node_rank: int = 1) -> list[Json]:
        mp_rank = max(1, node_rank) if node_role == "worker" else 0
        args: list[Json] = []
        args += arr(get(recipe, "model", "base_args"))
        args += arr(get(variant, "extra_args"))
        args += arr(get(variant_hw, "extra_args"))
        if deploy != "pd_cluster":
            args += arr(get(strategy, "vllm_args"))
        elif role and truthy(get(strategy, role, "vllm_args")):
            args += arr(get(strategy, role, "vllm_args"))
        parallel_flag = either(get(strategy, "parallel_flag"), "--tensor-parallel-size")
        is_multi = deploy == "multi_node" and node_count > 1
        is_pd_multi = deploy == "pd_cluster" and node_count > 1
        master = "$HEAD_IP"
        if is_multi and parallel_flag == "--data-parallel-size":
            gen_ho = either(
                get(so, "hardware_overrides", gen), get(so, "hardware_overrides", "nvidia") if is_nvidia else None
            )
            exact_ho = get(so, "hardware_overrides", choice.hardware)
            overrides = [
                *arr(get(so, "vllm_args")),
                *arr(get(so, "extra_args")),
                *arr(get(gen_ho, "extra_args")),
                *arr(get(exact_ho, "extra_args")),
            ]
            at = max((i for i, word in enumerate(overrides) if word == "--data-parallel-size-local"), default=-1)
            dp_local = (_number(overrides[at + 1]) if at + 1 < len(overrides) else math.nan) if at >= 0 else gpus
            args += ["--data-parallel-size", js_str(total_gpus), "--data-parallel-size-local", js_str(gpus)]
            args += ["--data-parallel-address", master]
            if node_role == "worker":
                args += ["--data-parallel-start-rank", js_str(mp_rank * dp_local)]
        elif is_multi and get(strategy, "parallelism") == "tp_pp":
            args += ["--tensor-parallel-size", js_str(gpus), "--pipeline-parallel-size", js_str(node_count)]
            args += ["--nnodes", js_str(node_count), "--node-rank", js_str(mp_rank), "--master-addr", master]
            if mp_rank > 0:
                args.append("--headless")
        elif is_multi and get(strategy, "parallelism") == "tp_dp":
            args += ["--tensor-parallel-size", js_str(gpus), "--data-parallel-size", js_str(node_count)]
            args += ["--data-parallel-size-local", "1", "--data-parallel-address", master]
            if node_role == "worker":
                args += ["--data-parallel-start-rank", js_str(mp_rank)]
        elif is_multi:
            args += ["--tensor-parallel-size", js_str(total_gpus), "--nnodes", js_str(node_count)]
            args += ["--node-rank", js_str(mp_rank), "--master-addr", master]
            if mp_rank > 0:
                args.append("--headless")
        elif deploy == "pd_cluster":
            assert role is not None
            role_config = obj(get(strategy, role))
            so_role = obj(get(so, role))
            pd = pd_role(role)
            pool_nodes = pd["nodes"] if _is_number(pd.get("nodes")) else (1 if is_pd_multi else 0)
            pool_gpus = math.floor(gpus / 2) if pool_nodes == 0 else pool_nodes * gpus
            parallelism = either(
                pd.get("parallelism"), so_role.get("parallelism"), role_config.get("parallelism"), "tp"
            )
            allowed = pd_pool_modes(recipe)
            if parallelism not in allowed:
                parallelism = allowed[0]
            upper = role.upper()
            if parallelism == "dep":
                in_pool = max(1, pool_nodes)
                tp_explicit = first_set(so_role.get("tp"), role_config.get("tp"), None)
                role_tp = first_set(tp_explicit, 1)
                dp_local = max(1, math.floor(gpus / role_tp))
                node_index = max(0, min(in_pool - 1, first_set(pd.get("rank"), 0)))
                if tp_explicit is not None:
                    args += ["--tensor-parallel-size", js_str(role_tp)]
                args += [
                    "--data-parallel-size",
                    js_str(in_pool * dp_local),
                    "--data-parallel-size-local",
                    js_str(dp_local),
                ]
                args += ["--data-parallel-start-rank", js_str(node_index * dp_local)]
                args += [
                    "--data-parallel-address",
                    f"${upper}_NODE_1",
                    "--data-parallel-rpc-port",
                    f"${upper}_DP_RPC_PORT",
                ]
                if in_pool > 1:
                    args.append("--data-parallel-hybrid-lb")
                args.append("--enable-expert-parallel")
            else:
                flag = either(
                    so_role.get("parallel_flag"),
                    role_config.get("parallel_flag"),
                    get(strategy, "parallel_flag"),
                    "--tensor-parallel-size",
                )
                args += [flag, js_str(max(1, pool_gpus))]
                if parallelism == "tep":
                    args.append("--enable-expert-parallel")
                if pool_nodes > 1:
                    node_index = max(0, min(pool_nodes - 1, first_set(pd.get("rank"), 0)))
                    args += ["--nnodes", js_str(pool_nodes), "--node-rank", js_str(node_index)]
                    args += ["--master-addr", f"${upper}_NODE_1"]
                    if node_index > 0:
                        args.append("--headless")
        else:
            args += [parallel_flag, js_str(single_tp)]
        if truthy(so):
            if role:
                args += arr(get(so, role, "extra_args")) + arr(get(so, role, "vllm_args"))
            else:
                args += arr(get(so, "extra_args")) + arr(get(so, "vllm_args"))
        strategy_ho = either(
            get(so, "hardware_overrides", gen), get(so, "hardware_overrides", "nvidia") if is_nvidia else None
        )
        if truthy(strategy_ho):
            args += arr(get(strategy_ho, "extra_args"))
        else:
            recipe_ho = either(
                get(recipe, "hardware_overrides", gen),
                get(recipe, "hardware_overrides", "nvidia") if is_nvidia else None,
            )
            args += arr(get(recipe_ho, "extra_args"))
            variant_gen_ho = either(
                get(variant, "hardware_overrides", gen),
                get(variant, "hardware_overrides", "nvidia") if is_nvidia else None,
            )
            args += arr(get(variant_gen_ho, "extra_args"))
        args += arr(get(so, "hardware_overrides", choice.hardware, "extra_args"))
        if role:
            args += arr(get(so, role, "hardware_overrides", choice.hardware, "extra_args"))
        args += tail_args(recipe, choice, strategies, taxonomy)
        return args

    def build_env(role: str | None) -> dict[str, str]:
        env: dict[str, Json] = {}
        env.update(obj(get(recipe, "model", "base_env")))
        env.update(obj(get(variant, "extra_env")))
        env.update(obj(get(variant_hw, "extra_env")))
        if deploy != "pd_cluster":
            env.update(obj(get(strategy, "env")))
        elif role:
            env.update(obj(get(strategy, role, "env")))
        if option is not None:
            env.update(obj(get(option, "env")))
        if deploy == "pd_cluster" and role:
            pd = pd_role(role)
            pool_nodes = pd["nodes"] if _is_number(pd.get("nodes")) else (1 if node_count > 1 else 0)
            if pool_nodes >= 1:
                env["CUDA_VISIBLE_DEVICES"] = ",".join(str(i) for i in range(gpus))
                if pool_nodes >= 2:
                    env["GLOO_SOCKET_IFNAME"] = "$IFACE_NAME"
                    env["NCCL_SOCKET_IFNAME"] = "$IFACE_NAME"
            else:
                half = math.floor(gpus / 2)
                if half > 0:
                    ids = range(half) if role == "prefill" else range(half, gpus)
                    env["CUDA_VISIBLE_DEVICES"] = ",".join(str(i) for i in ids)
        if truthy(so):
            env.update(obj(get(so, "env")))
            if role:
                env.update(obj(get(so, role, "env")))
            else:
                env.update(obj(get(so, "extra_env")))
        strategy_ho = either(
            get(so, "hardware_overrides", gen), get(so, "hardware_overrides", "nvidia") if is_nvidia else None
        )
        if truthy(strategy_ho):
            env.update(obj(get(strategy_ho, "extra_env")))
        else:
            recipe_ho = either(
                get(recipe, "hardware_overrides", gen),
                get(recipe, "hardware_overrides", "nvidia") if is_nvidia else None,
            )
            env.update(obj(get(recipe_ho, "extra_env")))
            variant_gen_ho = either(
                get(variant, "hardware_overrides", gen),
                get(variant, "hardware_overrides", "nvidia") if is_nvidia else None,
            )
            env.update(obj(get(variant_gen_ho, "extra_env")))
        env.update(obj(get(so, "hardware_overrides", choice.hardware, "extra_env")))
        if role:
            env.update(obj(get(so, role, "hardware_overrides", choice.hardware, "extra_env")))
        if deploy == "pd_cluster" and choice.hardware not in NVL4_HW_IDS:
            for key in NVL4_ONLY_ENV_KEYS:
                env.pop(key, None)
        if deploy == "pd_cluster" and role:
            pd = pd_role(role)
            rank = either(pd.get("rank"), 0)
            so_role = obj(get(so, role))
            parallelism = either(
                pd.get("parallelism"), so_role.get("parallelism"), get(strategy, role, "parallelism"), "tp"
            )
            if rank > 0 and parallelism == "dep":
                old, new = f"${role.upper()}_NODE_1", f"${role.upper()}_NODE_{rank + 1}"
                for key in list(env):
                    if env[key] == old:
                        env[key] = new
        return {key: _env_text(value) for key, value in env.items()}

    def server(role: str, node: int, args: list[Json], env: dict[str, str]) -> Server:
        return Server(role=role, node=node, env=env, args=tuple(units(args)), model=js_str(model_id))

    if deploy == "pd_cluster":
        servers = []
        for role in ("prefill", "decode"):
            servers.append(server(role, 0, build_args(role, None), build_env(role)))
        return Rendered(
            deploy_type="pd_cluster",
            servers=tuple(servers),
            router=_router(recipe, choice, strategy, pd_role, gpus),
            node_count=node_count,
        )
    if deploy == "kv_store_lb" or (
        choice.kv_offload and get(strategies.get(choice.kv_offload), "deploy_type") == "kv_store_lb"
    ):
        raise NotImplementedError("Mooncake's kv_store_lb deployments are not followed")
    if deploy == "multi_node" and node_count > 1:
        env = build_env(None)
        head = server("main", 0, build_args(None, "head"), env)
        workers = [server("main", rank, build_args(None, "worker", rank), env) for rank in follower_ranks(node_count)]
        return Rendered(deploy_type="multi_node", servers=(head, *workers), node_count=node_count)
    companions = []
    for key in choice.features:
        feature = get(recipe, "features", key)
        command = get(feature, "companion", "command")
        if truthy(command) and is_feature_allowed_for_strategy(feature, choice.strategy):
            companions.append({"feature": key, "command": js_str(command).rstrip()})
    if option is not None and truthy(get(option, "companion", "command")):
        companions.append(
            {"feature": f"kv_offload:{choice.kv_offload}", "command": js_str(option["companion"]["command"]).rstrip()}
        )
    return Rendered(
        deploy_type=either(deploy, "single_node"),
        servers=(server("main", 0, build_args(None, None), build_env(None)),),
        companions=tuple(companions),
    )


def tail_args(recipe: Json, choice: Choice, strategies: Mapping[str, Json], taxonomy: Json) -> list[Json]:
    """What a choice's Advanced flags, features and KV offload option add after everything the
    strategy and the hardware set (steps 6 to 8 of buildArgs): the arguments those choices own."""
    variants = obj(get(recipe, "variants"))
    variant = either(variants.get(choice.variant), variants.get("default"), {})
    strategy = either(strategies.get(choice.strategy), {})
    profile = either(get(taxonomy, "hardware_profiles", choice.hardware), {})
    gen = generation(profile)
    is_nvidia = get(profile, "brand") == "NVIDIA"
    advanced = {o["id"]: o for o in advanced_options(recipe, choice.strategy) if "id" in o}
    args: list[Json] = [a for key in choice.advanced for a in arr(get(advanced.get(key), "args"))]
    for key in choice.features:
        feature = get(recipe, "features", key)
        if not truthy(feature) or not is_feature_allowed_for_strategy(feature, choice.strategy):
            continue
        if isinstance(get(feature, "modes"), dict):
            mode_key = resolve_mode_key(
                feature, key, variant, choice.variant, profile, choice.hardware, choice.feature_modes.get(key)
            )
            mode = feature["modes"].get(mode_key) if mode_key else None
            if truthy(mode):
                mode_ho = hardware_keyed_value(get(mode, "hardware_overrides"), profile, choice.hardware)
                mode_args = first_set(get(mode_ho, "args"), get(mode, "args"))
                args += arr(mode_args) if truthy(mode_args) else []
            continue
        feature_ho = either(
            get(feature, "hardware_overrides", gen), get(feature, "hardware_overrides", "nvidia") if is_nvidia else None
        )
        feature_args = first_set(get(feature_ho, "args"), get(feature, "args"))
        args += arr(feature_args) if truthy(feature_args) else []
    option = kv_option(recipe, choice, strategy, profile, taxonomy)
    if option is not None:
        args += arr(get(option, "args"))
    return args


def kv_option(recipe: Json, choice: Choice, strategy: Json, profile: Json, taxonomy: Json) -> Json:
    """The composing KV offload option of a choice, behind its three gates (strategy, recipe, brand)."""
    raw = get(taxonomy, "kv_offload", choice.kv_offload) if choice.kv_offload else None
    if (
        truthy(raw)
        and is_kv_offload_allowed_for_strategy(raw, choice.strategy, strategy)
        and is_kv_offload_supported_for_recipe(raw, choice.kv_offload or "", recipe)
        and is_kv_offload_brand_supported(raw, profile)
    ):
        return raw
    return None


def _number(value: Json) -> float:
    """``Number(value)``."""
    if _is_number(value):
        return cast(float, value)
    try:
        return float(str(value).strip() or 0)
    except ValueError:
        return math.nan


def _router(recipe: Json, choice: Choice, strategy: Json, pd_role: Any, gpus: int) -> str:
    policy = either(get(strategy, "router", "policy"), "round_robin")
    so = get(recipe, "strategy_overrides", choice.strategy)

    def meta(role: str) -> tuple[str, int, int]:
        pd = pd_role(role)
        so_role = obj(get(so, role))
        nodes = pd["nodes"] if _is_number(pd.get("nodes")) else (1 if choice.node_count > 1 else 0)
        parallelism = either(
            pd.get("parallelism"), so_role.get("parallelism"), get(strategy, role, "parallelism"), "tp"
        )
        tp = either(so_role.get("tp"), get(strategy, role, "tp"), 1) if parallelism == "dep" else 0
        dp_local = max(1, math.floor(gpus / tp)) if parallelism == "dep" else 0
        return parallelism, nodes, dp_local

    p_par, p_nodes, p_local = meta("prefill")
    d_par, d_nodes, d_local = meta("decode")

    def count(parallelism: str, nodes: int) -> int:
        return max(1, nodes or 1) if parallelism == "dep" else 1

    prefill = [f"    --prefill http://$PREFILL_NODE_{i + 1}:8001 \\" for i in range(count(p_par, p_nodes))]
    decode = [f"    --decode http://$DECODE_NODE_{i + 1}:8002 \\" for i in range(count(d_par, d_nodes))]
    intra = first_set(get(so, "router", "intra_node_data_parallel_size"), max(p_local or 0, d_local or 0, 1))
    lines = [
        f"vllm-router --policy {policy} \\",
        "    --vllm-pd-disaggregation \\",
        *prefill,
        *decode,
        "    --host $ROUTER_HOST \\",
        "    --port $ROUTER_PORT \\",
        f"    --intra-node-data-parallel-size {js_str(intra)}",
    ]
    return "\n".join(lines)


def resolve_omni_command(
    recipe: Json, variant_key: str, task: Mapping[str, Any] | None, hardware: str, taxonomy: Json
) -> Server:
    """resolveOmniCommand: one ``vllm serve --omni`` process for a vLLM-Omni recipe."""
    variants = obj(get(recipe, "variants"))
    variant = either(variants.get(variant_key), variants.get("default"), {})
    profile = either(get(taxonomy, "hardware_profiles", hardware), {})
    model_id = either(
        (task or {}).get("model_id"), get(variant, "model_id"), get(recipe, "model", "model_id"), "unknown"
    )
    gen = generation(profile)
    is_nvidia = get(profile, "brand") == "NVIDIA"
    env: dict[str, Json] = {}
    env.update(obj(get(recipe, "model", "base_env")))
    if variant_key != "default":
        env.update(obj(get(variant, "extra_env")))
    ho = either(
        get(recipe, "hardware_overrides", gen), get(recipe, "hardware_overrides", "nvidia") if is_nvidia else None
    )
    env.update(obj(get(ho, "extra_env")))
    variant_gen_ho = either(
        get(variant, "hardware_overrides", gen), get(variant, "hardware_overrides", "nvidia") if is_nvidia else None
    )
    env.update(obj(get(variant_gen_ho, "extra_env")))
    exact = get(variant, "hardware_overrides", hardware)
    env.update(obj(get(exact, "extra_env")))
    args: list[Json] = []
    args += arr(get(recipe, "model", "base_args"))
    if variant_key != "default":
        args += arr(get(variant, "extra_args"))
    args += arr((task or {}).get("extra_args"))
    args += arr(get(ho, "extra_args"))
    args += arr(get(variant_gen_ho, "extra_args"))
    args += arr(get(exact, "extra_args"))
    if truthy(get(recipe, "omni", "port")):
        args += ["--port", js_str(recipe["omni"]["port"])]
    args.append("--omni")
    launcher = either(get(recipe, "omni", "serve_binary"), "vllm serve")
    return Server(
        role="main",
        node=0,
        env={k: _env_text(v) for k, v in env.items()},
        args=tuple(units(args)),
        model=js_str(model_id),
        launcher=js_str(launcher),
    )


# The tasks vLLM-Omni serves that their catalogue knows (omni-tasks.js, OMNI_TASKS), with its labels.
OMNI_TASKS = {
    "t2i": "Text → Image",
    "i2i": "Image → Image",
    "t2v": "Text → Video",
    "i2v": "Image → Video",
    "ti2v": "Text + Image → Video",
    "t2a": "Text → Audio",
}


def omni_tasks(recipe: Json) -> list[dict[str, Any]]:
    """The tasks of an omni recipe (resolveOmniTasks): each with its key and what it overrides; a
    task their catalogue does not know is left out, as their page leaves it out."""
    found = []
    for entry in arr(get(recipe, "omni", "tasks")):
        task_id = entry if isinstance(entry, str) else get(entry, "id")
        if not truthy(task_id) or task_id not in OMNI_TASKS:
            continue
        override = entry if isinstance(entry, dict) else {}
        found.append(
            {
                "id": task_id,
                "key": either(override.get("key"), task_id),
                "label": either(override.get("label"), OMNI_TASKS[task_id]),
                "model_id": override.get("model_id"),
                "extra_args": either(override.get("extra_args"), []),
                "hardware_overrides": either(override.get("hardware_overrides"), {}),
            }
        )
    return found


def omni_task_for_hardware(task: Mapping[str, Any], hardware: str) -> Mapping[str, Any]:
    """resolveOmniTaskForHardware: a task with its exact-hardware override applied."""
    override = get(task.get("hardware_overrides"), hardware)
    if not truthy(override):
        return task
    return {
        **task,
        "model_id": either(override.get("model_id"), task.get("model_id")),
        "extra_args": [*arr(task.get("extra_args")), *arr(override.get("extra_args"))],
    }


def server_argv(server: Server) -> list[str]:
    """The words vllm is started with (formatArgv)."""
    words = [*server.launcher.split(), server.model]
    for unit in server.args:
        if unit.flag is not None:
            words.append(unit.flag)
        if unit.value is not None:
            words.append(unit.value)
    return words


def pairs(values: Iterable[tuple[str, str]]) -> dict[str, str]:
    return dict(values)
