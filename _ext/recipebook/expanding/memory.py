"""Will it fit? The NPU memory of every rank of a selection: weights, KV cache, runtime
buffers, what is left, and a verdict.

The one implementation: the CLI (``fit``), the page model, the API, the Markdown view and the
browser all show figures computed here. Inputs are the recipe's facts (``facts.py``), the
selection's own flags (read from its commands) and the SKU table below. Sources, as vllm-rbln
sizes memory (RBLN-SW/vllm-rbln, branch dev):

- Device memory: ``vllm_rbln/v1/worker/utils.py`` ``estimate_available_memory`` (kept in sync
  with optimum-rbln's ``get_available_dram``): REBEL 144 GiB per card less 4 GiB for the
  system, a card being four chiplets; ATOM 16 GiB less 288 MiB; then times
  ``--gpu-memory-utilization`` (vLLM's default 0.9).
- KV blocks: ``utils.py`` ``KvMinimum.needed = 1 + max(one_request, decode_batch)``: the pool
  must hold one request of ``--max-model-len`` tokens (``cdiv(len, block)`` blocks per
  full-attention group, one per sliding-window group: ``RBLNSlidingWindowSpec``) or one block
  per group for every sequence of a decode batch, plus the null block the pool keeps.
- Bytes per token and layer: standard attention ``2 x kv_heads x head_dim x dtype``; MLA
  ``(kv_lora_rank + qk_rope_head_dim) x dtype`` plus, for sparse attention, the indexer's keys
  ``index_head_dim x 2`` (BF16 on RBLN: ``model_executor/layers/sparse_attn_indexer.py``).
- Layers of a pipeline stage: vLLM's ``get_pp_indices`` (``vllm/distributed/utils.py``): the
  remainder goes to the stages before the last, from the second-last backwards.
- Weights as vllm-rbln counts them (``estimate_model_kernel_size``): the word embedding stays
  off the device; the LM head is ``align_2MB(align(vocab, 64) x hidden x 2 / TP)``; the layers
  ``align_2MB(layer bytes / layers)`` each.
- Runtime buffers: 256 MiB per runtime per chiplet, two runtimes (prefill and decode: the
  estimator's default ``num_runtimes=2``), times four chiplets on REBEL.

Open question, said rather than guessed: on a four-chiplet device the estimator divides the
memory left for the KV cache by ``max(1, 4 // kv_heads)`` (an MLA model counts one KV head),
which reads as the KV cache replicated on every chiplet; nothing measured confirms it. Where
the verdict depends on it, ``fits`` is None and the rank says why.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence

from .. import shell
from ..reading.facts import DTYPE_BYTES, MLA, Architecture, Facts
from .expansion import Command

GIB, MIB = 2**30, 2**20
GRANULE = 2 * MIB  # vllm-rbln aligns weights (and KV shards) to 2 MiB
DEFAULT_GPU_MEMORY_UTILIZATION = 0.9  # vLLM's default for --gpu-memory-utilization
DEFAULT_MAX_NUM_SEQS = None  # vLLM's default depends on the usage context: refuse to guess
RUNTIMES = 2  # estimate_available_memory(num_runtimes=2): one prefill and one decode runtime
BUFFER_PER_RUNTIME = 256 * MIB  # per runtime per chiplet
FP8_KV = frozenset({"fp8", "fp8_e4m3", "fp8_e5m2"})
KV_DTYPES = {"bfloat16": 2, "float16": 2, "half": 2, "float32": 4, "float": 4, **dict.fromkeys(FP8_KV, 1)}
VLLM_RBLN_UTILS = "https://github.com/RBLN-SW/vllm-rbln/blob/dev/vllm_rbln/v1/worker/utils.py"


@dataclasses.dataclass(frozen=True, kw_only=True)
class Sku:
    """One RBLN device: its memory, what the system keeps, how many chiplets share it."""

    name: str
    family: str  # "REBEL" or "ATOM"
    memory: int  # bytes on the card
    reserved: int  # bytes the system keeps
    chiplets: int  # 4 on REBEL; ATOM is one chip (its RSD group is the TP cards)
    fp8_kv: bool  # whether an fp8 KV cache is supported

    @property
    def usable(self) -> int:
        return self.memory - self.reserved


def _rebel(name: str, *, fp8_kv: bool) -> Sku:
    return Sku(name=name, family="REBEL", memory=144 * GIB, reserved=4 * GIB, chiplets=4, fp8_kv=fp8_kv)


def _atom(name: str) -> Sku:
    return Sku(name=name, family="ATOM", memory=16 * GIB, reserved=288 * MIB, chiplets=1, fp8_kv=False)


# The SKU table: vllm-rbln's estimate_available_memory; docs.rbln.ai v0.12.0 supports/version_matrix
# (fp8 KV cache on RBLN-CR13 only).
SKUS: Mapping[str, Sku] = {
    "RBLN-CR03": _rebel("RBLN-CR03", fp8_kv=False),
    "RBLN-CR13": _rebel("RBLN-CR13", fp8_kv=True),
    **{name: _atom(name) for name in ("RBLN-CA12", "RBLN-CA22", "RBLN-CA25")},
}
SKU_SOURCE = VLLM_RBLN_UTILS + " (estimate_available_memory)"


def align(value: float, unit: int) -> int:
    return int(math.ceil(value / unit) * unit)


def cdiv(a: int, b: int) -> int:
    return -(-a // b)


def stage_layers(layers: int, pp: int) -> tuple[int, ...]:
    """Layers of each pipeline stage, as vLLM's get_pp_indices splits them."""
    counts = [layers // pp] * pp
    for i in range(2, layers % pp + 2):
        counts[-i] += 1
    return tuple(counts)


# -- the selection's flags -----------------------------------------------------------------------


@dataclasses.dataclass(frozen=True, kw_only=True)
class Flags:
    """What a command says that the figures read; None where it says nothing."""

    tp: int = 1
    pp: int = 1
    dp: int = 1
    dp_rank: int | None = None  # a command that runs one data-parallel rank
    expert_parallel: bool = False
    max_model_len: int | None = None
    max_num_seqs: int | None = None
    block_size: int | None = None
    gpu_memory_utilization: float = DEFAULT_GPU_MEMORY_UTILIZATION
    kv_cache_dtype: str = "auto"

    @classmethod
    def of(cls, command: Command) -> Flags:
        values: dict[str, list[str]] = {}
        for text in command.args:
            try:
                name, words = shell.flag_values(text)
            except ValueError:
                continue
            values[name] = words

        def number(name: str) -> int | None:
            words = values.get(name)
            if not words:
                return None
            try:
                return int(words[0])
            except ValueError:
                return None

        def count(name: str) -> int:
            found = number(name)
            return 1 if found is None else found

        def fraction(name: str, default: float) -> float:
            words = values.get(name)
            try:
                return float(words[0]) if words else default
            except ValueError:
                return default

        return cls(
            tp=count("--tensor-parallel-size") or count("-tp"),
            pp=count("--pipeline-parallel-size") or count("-pp"),
            dp=count("--data-parallel-size") or count("-dp"),
            dp_rank=number("--data-parallel-rank"),
            expert_parallel="--enable-expert-parallel" in values or "-ep" in values,
            max_model_len=number("--max-model-len"),
            max_num_seqs=number("--max-num-seqs"),
            block_size=number("--block-size"),
            gpu_memory_utilization=fraction("--gpu-memory-utilization", DEFAULT_GPU_MEMORY_UTILIZATION),
            kv_cache_dtype=(values.get("--kv-cache-dtype") or ["auto"])[0],
        )


# -- the figures -----------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True, kw_only=True)
class RankFit:
    """The memory of one device of one role: a data-parallel rank's pipeline stage (its
    tensor-parallel shards hold the same figures)."""

    role: str
    dp_rank: int
    pp_rank: int
    tp_size: int
    layers: int
    weights_bytes: int | None  # None: no size for the served checkpoint
    kv_cache_bytes: int
    kv_blocks: int
    kv_replicas: int  # how many times vllm-rbln's estimator counts the KV cache (open question when > 1)
    runtime_bytes: int
    device_bytes: int
    available_bytes: int  # usable memory times --gpu-memory-utilization
    free_bytes: int | None  # available - weights - runtime - KV cache (counted once)
    free_if_replicated_bytes: int | None  # the same with the KV cache counted kv_replicas times
    fits: bool | None  # None: unknown weights, or the verdict turns on the open question

    def to_json(self) -> dict[str, object]:
        return dataclasses.asdict(self)


@dataclasses.dataclass(frozen=True, kw_only=True)
class Advice:
    """A knob that makes a selection fit: the flag, which way, and the value when one is known."""

    knob: str  # "--max-model-len", "--max-num-seqs", "devices"
    direction: str  # "down" or "up"
    value: int | None = None
    replicated: bool = False  # advice for the reading where the KV cache is kept on every chiplet

    def to_json(self) -> dict[str, object]:
        return dataclasses.asdict(self)


@dataclasses.dataclass(frozen=True, kw_only=True)
class Fit:
    """The figures of one selection on one SKU, or why there are none (``missing``)."""

    sku: str | None
    missing: str | None  # None, "facts", "sku", "block-size", "max-model-len"
    ranks: tuple[RankFit, ...] = ()
    open_questions: tuple[str, ...] = ()  # keys: "rsd-replication"
    caveats: tuple[str, ...] = ()  # keys: "no-checkpoint", "expert-parallel", "sliding-stages", "fp8-kv"
    advice: tuple[Advice, ...] = ()
    max_model_len: int | None = None
    block_size: int | None = None

    @property
    def fits(self) -> bool | None:
        verdicts = {rank.fits for rank in self.ranks}
        if not self.ranks or None in verdicts:
            return None if False not in verdicts else False
        return all(verdicts)

    def to_json(self) -> dict[str, object]:
        return {
            "sku": self.sku,
            "missing": self.missing,
            "max_model_len": self.max_model_len,
            "block_size": self.block_size,
            "fits": self.fits,
            "ranks": [rank.to_json() for rank in self.ranks],
            "open_questions": list(self.open_questions),
            "caveats": list(self.caveats),
            "advice": [a.to_json() for a in self.advice],
        }


def token_bytes(arch: Architecture, kv_dtype: int, tp: int) -> int:
    """KV cache bytes per token and layer on one tensor-parallel rank."""
    if arch.attention == MLA:
        assert arch.kv_lora_rank is not None and arch.qk_rope_head_dim is not None  # rule 20: MLA states both
        indexer = (arch.index_head_dim or 0) * 2  # the indexer's keys stay BF16 on RBLN
        return (arch.kv_lora_rank + arch.qk_rope_head_dim) * kv_dtype + indexer
    assert arch.kv_heads is not None and arch.head_dim is not None  # rule 20: other attention states both
    return 2 * cdiv(arch.kv_heads, tp) * arch.head_dim * kv_dtype


def kv_blocks(full: int, sliding: int, max_model_len: int, block_size: int, max_num_seqs: int) -> tuple[int, int]:
    """(tensors, blocks): the KV pool of a stage with ``full`` full-attention and ``sliding``
    sliding-window layers. Layers form groups of equal size that share one pool (vLLM's
    hybrid allocator); a full group needs cdiv(len, block) blocks for one request, a sliding
    group one; each sequence of a decode batch needs one block per group; plus the null block."""
    if not full and not sliding:
        return 0, 0
    group = min(n for n in (full, sliding) if n)
    full_groups, sliding_groups = cdiv(full, group), cdiv(sliding, group)
    one_request = full_groups * cdiv(max_model_len, block_size) + sliding_groups
    decode_batch = max_num_seqs * (full_groups + sliding_groups)
    return group, 1 + max(one_request, decode_batch)


def _weights(facts: Facts, model: str, layers: int, last_stage: bool, shards: int, tp: int) -> int | None:
    checkpoint = facts.checkpoint(model)
    arch = facts.architecture
    if checkpoint is None or checkpoint.total is None:
        return None
    head = 0
    if arch.vocab_size and arch.hidden_size:
        head = align(arch.vocab_size, 64) * arch.hidden_size * 2
    per_layer = (checkpoint.total - 2 * head) / arch.layers  # the embedding stays off the device
    stage = align(per_layer * layers / shards, GRANULE)
    return stage + (align(head / tp, GRANULE) if last_stage else 0)


def rank_fits(
    facts: Facts,
    sku: Sku,
    command: Command,
    flags: Flags,
    *,
    max_model_len: int,
    block_size: int,
    max_num_seqs: int,
) -> list[RankFit]:
    """The ranks one command runs: each data-parallel rank's pipeline stages."""
    arch = facts.architecture
    dtype = DTYPE_BYTES[arch.kv_dtype] if flags.kv_cache_dtype == "auto" else KV_DTYPES[flags.kv_cache_dtype]
    per_token = token_bytes(arch, dtype, flags.tp)
    kv_heads = 1 if arch.attention == MLA or arch.kv_heads is None else max(1, arch.kv_heads // flags.tp)
    rsd = sku.chiplets if sku.family == "REBEL" else flags.tp
    replicas = max(1, rsd // kv_heads) if sku.family == "REBEL" else 1
    available = int(sku.usable * flags.gpu_memory_utilization)
    runtime = BUFFER_PER_RUNTIME * RUNTIMES * (sku.chiplets if sku.family == "REBEL" else 1)
    shards = flags.tp * (flags.dp if flags.expert_parallel else 1)
    dp_ranks = (flags.dp_rank,) if flags.dp_rank is not None else tuple(range(flags.dp))
    counts = stage_layers(arch.layers, flags.pp)
    found = []
    for pp_rank, layers in enumerate(counts):
        sliding = arch.sliding_layers * layers // arch.layers
        tensors, blocks = kv_blocks(layers - sliding, sliding, max_model_len, block_size, max_num_seqs)
        kv = tensors * per_token * block_size * blocks
        weights = _weights(facts, command.model, layers, pp_rank == flags.pp - 1, shards, flags.tp)
        free = free_replicated = fits = None
        if weights is not None:
            free = available - weights - runtime - kv
            free_replicated = available - weights - runtime - kv * replicas
            fits = True if free_replicated >= 0 else False if free < 0 else None
        for dp_rank in dp_ranks:
            found.append(
                RankFit(
                    role=command.role,
                    dp_rank=dp_rank,
                    pp_rank=pp_rank,
                    tp_size=flags.tp,
                    layers=layers,
                    weights_bytes=weights,
                    kv_cache_bytes=kv,
                    kv_blocks=blocks,
                    kv_replicas=replicas,
                    runtime_bytes=runtime,
                    device_bytes=sku.memory,
                    available_bytes=available,
                    free_bytes=free,
                    free_if_replicated_bytes=free_replicated,
                    fits=fits,
                )
            )
    return found


def _longest_fitting(
    facts: Facts,
    sku: Sku,
    command: Command,
    flags: Flags,
    block_size: int,
    max_num_seqs: int,
    upto: int,
    *,
    replicated: bool = False,
) -> int | None:
    """The longest --max-model-len (a multiple of the block size, below ``upto``) at which every
    rank of the command fits (with ``replicated``, with the KV cache counted on every chiplet);
    None when not even one block does."""

    def fits(length: int) -> bool:
        ranks = rank_fits(
            facts, sku, command, flags, max_model_len=length, block_size=block_size, max_num_seqs=max_num_seqs
        )
        free = [r.free_if_replicated_bytes if replicated else r.free_bytes for r in ranks]
        return all(f is not None and f >= 0 for f in free)

    low, high = 0, max(0, (upto - 1) // block_size)  # in blocks
    while low < high:
        middle = (low + high + 1) // 2
        if fits(middle * block_size):
            low = middle
        else:
            high = middle - 1
    return low * block_size if low else None


def fit(
    facts: Facts | None,
    skus: Sequence[str],
    commands: Sequence[Command],
    *,
    max_model_len: int | None = None,
    max_num_seqs: int | None = None,
    sku: str | None = None,
) -> Fit:
    """The figures of one selection (its commands) on the target's first SKU (or ``sku``);
    ``max_model_len`` / ``max_num_seqs`` answer what-if questions over the commands' own."""
    name = sku or (skus[0] if skus else None)
    if facts is None:
        return Fit(sku=name, missing="facts")
    device = SKUS.get(name or "")
    if device is None:
        return Fit(sku=name, missing="sku")
    ranks: list[RankFit] = []
    caveats: list[str] = []
    advice: dict[str, Advice] = {}
    lengths, blocks = set(), set()
    arch = facts.architecture
    for command in commands:
        if command.launcher.split()[:2] != ["vllm", "serve"]:
            continue
        flags = Flags.of(command)
        length = max_model_len or flags.max_model_len
        block = flags.block_size
        if block is None:
            return Fit(sku=name, missing="block-size")  # vllm-rbln's default is not in the sources
        if length is None:
            return Fit(sku=name, missing="max-model-len")  # vLLM's default is the model's: not a fact here
        seqs = max_num_seqs or flags.max_num_seqs or 1
        lengths.add(length)
        blocks.add(block)
        found = rank_fits(facts, device, command, flags, max_model_len=length, block_size=block, max_num_seqs=seqs)
        ranks += found
        if facts.checkpoint(command.model) is None:
            caveats.append("no-checkpoint")
        if flags.expert_parallel and flags.dp > 1:
            caveats.append("expert-parallel")
        if flags.pp > 1 and arch.sliding_layers:
            caveats.append("sliding-stages")
        if flags.kv_cache_dtype in FP8_KV and not device.fp8_kv:
            caveats.append("fp8-kv")
        verdicts = {r.fits for r in found}
        if False in verdicts or (None in verdicts and all(r.weights_bytes is not None for r in found)):
            replicated = False not in verdicts  # open: advice for the reading that does not fit
            longest = _longest_fitting(facts, device, command, flags, block, seqs, length, replicated=replicated)
            if longest:
                prior = advice.get("--max-model-len")
                value = longest if prior is None else min(prior.value or longest, longest)
                advice["--max-model-len"] = Advice(
                    knob="--max-model-len", direction="down", value=value, replicated=replicated
                )
            if seqs > cdiv(length, block):  # the decode batch, not one long request, sizes the pool
                advice["--max-num-seqs"] = Advice(
                    knob="--max-num-seqs", direction="down", value=cdiv(length, block), replicated=replicated
                )
            advice["devices"] = Advice(knob="devices", direction="up", replicated=replicated)
    open_questions = ("rsd-replication",) if any(r.kv_replicas > 1 for r in ranks) else ()
    return Fit(
        sku=name,
        missing=None,
        ranks=tuple(ranks),
        open_questions=open_questions,
        caveats=tuple(dict.fromkeys(caveats)),
        advice=tuple(advice.values()),
        max_model_len=max(lengths) if len(lengths) == 1 else None,
        block_size=max(blocks) if len(blocks) == 1 else None,
    )


def gib(value: int) -> str:
    """Bytes as the page shows them: GiB with one decimal."""
    return f"{value / GIB:.1f} GiB"


@dataclasses.dataclass(frozen=True, kw_only=True)
class Group:
    """Ranks of one role whose figures agree: what the page's panel shows in one row."""

    role: str
    ranks: tuple[tuple[int, int], ...]  # (dp_rank, pp_rank) pairs
    figures: RankFit


def groups(result: Fit) -> tuple[Group, ...]:
    """The ranks, those with the same figures together (the data-parallel ranks of a role)."""
    found: dict[tuple[object, ...], list[RankFit]] = {}
    for rank in result.ranks:
        key = (rank.role, rank.weights_bytes, rank.kv_cache_bytes, rank.free_bytes, rank.fits, rank.layers)
        found.setdefault(key, []).append(rank)
    return tuple(
        Group(role=ranks[0].role, ranks=tuple((r.dp_rank, r.pp_rank) for r in ranks), figures=ranks[0])
        for ranks in found.values()
    )
