"""Will it fit? The NPU memory of every rank of a selection: weights, KV cache, runtime
buffers, what is left, and a verdict that agrees with what is known to have run.

The one implementation: the CLI (``fit``), the page model, the API, the Markdown view and the
browser all show figures computed here. Inputs are the recipe's facts (``facts.py``), the
selection's own flags (read from its commands) and the SKU table below. Sources, as vllm-rbln
0.12.0 sizes memory (``vllm_rbln/v1/worker/utils.py`` and ``rbln_worker.py``):

- Device memory: ``estimate_available_memory``: REBEL 144 GiB per card less 4 GiB for the
  system, a card being four chiplets; ATOM 16 GiB less 288 MiB; then times
  ``--gpu-memory-utilization`` (vLLM's default 0.9), as vllm-rbln multiplies it.
- KV blocks: the pool must hold one request of ``--max-model-len`` tokens (``cdiv(len, block)``
  blocks per full-attention group, one per sliding-window group: ``RBLNSlidingWindowSpec``) or
  one block per group for every sequence of a decode batch, plus the null block the pool keeps.
- Bytes per token and layer: standard attention ``2 x kv_heads x head_dim x dtype``; MLA
  ``(kv_lora_rank + qk_rope_head_dim) x dtype`` plus, for sparse attention, the indexer's keys
  ``index_head_dim x 2`` (BF16 on RBLN: ``model_executor/layers/sparse_attn_indexer.py``).
- Layers of a pipeline stage: vLLM's ``get_pp_indices``: the remainder goes to the stages
  before the last, from the second-last backwards.
- Weights (``estimate_model_kernel_size``): the word embedding stays off the device; the LM head
  ``align_2MB(align(vocab, 64) x hidden x 2 / TP)`` on the last stage; the layers
  ``align_2MB(layer bytes / layers)`` each. The draft of speculative decoding adds its own
  checkpoint and its KV cache (``determine_available_memory`` adds its kernel size).
- Runtime buffers: 256 MiB per runtime and chiplet (``estimate_available_memory``), with the
  runtimes ``determine_available_memory`` counts: one prefill runtime, one decode runtime per
  decode query length (two for a speculative method without a fixed decode window), the
  specialized MoE decode runtimes when data parallel, and the draft's runtimes.

All arithmetic is on integers (bytes), except the utilization product, which vllm-rbln takes
in floating point.

Open question, said rather than guessed: on a four-chiplet device the estimator divides the
memory left for the KV cache by ``max(1, 4 // kv_heads)`` (an MLA model counts one KV head),
which reads as the KV cache replicated on every chiplet. Two readings follow: ``single`` (the
KV cache counted once) and ``replicated``. An observation settles the question for its shape
(device and KV heads per rank): a selection seen to serve refutes every reading under which it
would not fit (``reconcile``). Unsettled, the verdict is None where the readings disagree.

The verdict of a selection seen to serve (a target's verified date, a recorded observation) is
what ran, not the figures (``observed``): "served", for that very selection only
(``selection_key``), unless the figures contradict it, which is shown as a disagreement. A
selection recorded to fail is "failed", whatever the figures say (they may leave memory free, a
disagreement then shown with its size): it did not start.
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import NamedTuple

from .. import shell
from ..memo import remembered
from ..reading.facts import DTYPE_BYTES, MLA, Architecture, Draft, Facts, Observation
from ..reading.valuetypes import parse_size
from .expansion import Command

GIB, MIB = 2**30, 2**20
GRANULE = 2 * MIB  # vllm-rbln aligns weights (and KV shards) to 2 MiB
DEFAULT_GPU_MEMORY_UTILIZATION = 0.9  # vLLM's default for --gpu-memory-utilization
BUFFER_PER_RUNTIME = 256 * MIB  # per runtime per chiplet
FP8_KV = frozenset({"fp8", "fp8_e4m3", "fp8_e5m2"})
KV_DTYPES = {"bfloat16": 2, "float16": 2, "half": 2, "float32": 4, "float": 4, **dict.fromkeys(FP8_KV, 1)}
# Speculative methods whose every decode step stages num_spec_tokens + 1 tokens (one decode
# query length): rbln_model_runner.uses_fixed_decode_window.
FIXED_WINDOW = frozenset({"eagle", "eagle3", "mtp"})
# Methods whose draft is a model of its own (--speculative-config's model).
DRAFT_METHODS = frozenset({"eagle", "eagle3", "draft_model", "medusa", "mlp_speculator"})
VLLM_RBLN_UTILS = "https://github.com/RBLN-SW/vllm-rbln/blob/dev/vllm_rbln/v1/worker/utils.py"
SINGLE, REPLICATED = "single", "replicated"
READINGS = (SINGLE, REPLICATED)
LARGEST_PARALLEL = 64  # the largest device count the advice tries
LARGEST_ASK = 2**30  # the largest --max-model-len or --max-num-seqs a what-if may ask (the schema's bounds)


@dataclasses.dataclass(frozen=True, kw_only=True)
class Sku:
    """One RBLN device: its memory, what the system keeps, how many chiplets share it."""

    name: str
    family: str  # "REBEL" or "ATOM"
    memory: int  # bytes on the card
    reserved: int  # bytes the system keeps
    chiplets: int  # 4 on REBEL; ATOM is one chip
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


def cdiv(a: int, b: int) -> int:
    return -(-a // b)


def align(value: int, unit: int) -> int:
    """``value`` rounded up to a multiple of ``unit`` (integers: no precision lost)."""
    return cdiv(value, unit) * unit


def stage_layers(layers: int, pp: int) -> tuple[int, ...]:
    """Layers of each pipeline stage, as vLLM's get_pp_indices splits them."""
    counts = [layers // pp] * pp
    for i in range(2, layers % pp + 2):
        counts[-i] += 1
    return tuple(counts)


def lm_head_bytes(vocab: int | None, hidden: int | None) -> int:
    """The LM head (and as large, the word embedding) in BF16, as vllm-rbln counts it."""
    return align(vocab, 64) * hidden * 2 if vocab and hidden else 0


# -- the selection's flags -----------------------------------------------------------------------


@dataclasses.dataclass(frozen=True, kw_only=True)
class Flags:
    """What a command says that the figures read; None where it says nothing."""

    tp: int = 1
    pp: int = 1
    dp: int = 1
    dp_local: int | None = None  # --data-parallel-size-local: the ranks this process runs
    dp_rank: int | None = None  # a command that runs one data-parallel rank
    dp_start: int = 0  # --data-parallel-start-rank: the first of the local ranks
    expert_parallel: bool = False
    max_model_len: int | None = None  # -1: auto (the model's own length)
    max_num_seqs: int | None = None
    block_size: int | None = None
    gpu_memory_utilization: float = DEFAULT_GPU_MEMORY_UTILIZATION
    kv_cache_dtype: str = "auto"
    follower: bool = (
        False  # a follower (--node-rank above 0) of a server across nodes: its head's flags give every rank
    )
    spec_method: str | None = None  # --speculative-config's method
    spec_model: str | None = None  # and its draft model

    @classmethod
    def of(cls, command: Command) -> Flags:
        """The flags the figures read of a command (its arg lines alone: read once per text)."""
        return _flags_of(command.args)

    @classmethod
    def read(cls, args: tuple[str, ...]) -> Flags:
        values: dict[str, list[str]] = {}
        for text in args:
            try:
                name, written = shell.flag_values(text)
            except ValueError:
                continue
            values.setdefault(name, written)

        def words(*names: str) -> list[str] | None:
            return next((values[n] for n in names if n in values), None)

        def count(*names: str, default: int | None = None, size: bool = False) -> int | None:
            given = words(*names)
            if not given:
                return default
            try:
                return parse_size(given[0], auto=True) if size else int(given[0])
            except ValueError:
                return default

        utilization = DEFAULT_GPU_MEMORY_UTILIZATION
        given = words("--gpu-memory-utilization")
        if given:
            try:
                number = float(given[0])
            except ValueError:
                number = math.nan
            utilization = number if math.isfinite(number) and 0 < number <= 1 else math.nan
        method = model = None
        spec = words("--speculative-config")
        if spec:
            try:
                config = json.loads(" ".join(spec))
            except ValueError:
                config = None
            if isinstance(config, dict):
                method = config.get("method") if isinstance(config.get("method"), str) else None
                model = config.get("model") if isinstance(config.get("model"), str) else None
        return cls(
            tp=count("--tensor-parallel-size", "-tp", default=1) or 1,
            pp=count("--pipeline-parallel-size", "-pp", default=1) or 1,
            dp=count("--data-parallel-size", "-dp", default=1) or 1,
            dp_local=count("--data-parallel-size-local", "-dpl"),
            dp_rank=count("--data-parallel-rank", "-dpn"),
            dp_start=count("--data-parallel-start-rank", "-dpr", default=0) or 0,
            expert_parallel="--enable-expert-parallel" in values or "-ep" in values,
            max_model_len=count("--max-model-len", size=True),
            max_num_seqs=count("--max-num-seqs"),
            block_size=count("--block-size"),
            gpu_memory_utilization=utilization,
            kv_cache_dtype=(words("--kv-cache-dtype") or ["auto"])[0],
            follower=bool(count("--node-rank")),
            spec_method=method,
            spec_model=model,
        )

    @property
    def draft_model(self) -> str | None:
        return self.spec_model if self.spec_method in DRAFT_METHODS else None

    @property
    def processes_ranks(self) -> tuple[int, ...]:
        """The data-parallel ranks this command runs: its own, its local ones from its start rank
        (a node of a data-parallel server across nodes runs those), or all."""
        if self.dp_rank is not None:
            return (self.dp_rank,)
        if self.dp_local is not None:
            return tuple(range(self.dp_start, self.dp_start + self.dp_local))
        return tuple(range(self.dp))


@remembered(maxsize=4096)
def _flags_of(args: tuple[str, ...]) -> Flags:
    return Flags.read(args)


def runtimes(flags: Flags, draft: bool) -> int:
    """The runtimes vllm-rbln's determine_available_memory counts (one decode batch bucket,
    its default): prefill, one decode runtime per decode query length, the specialized MoE
    decode runtimes under data parallel, the draft's own."""
    lengths = 2 if flags.spec_method and flags.spec_method not in FIXED_WINDOW else 1
    moe = flags.dp > 1  # specialize_moe_decode is on by default
    count = 1 + lengths
    if moe:
        count += lengths + (1 if lengths == 2 else 0)
    if draft:
        count += 2 + (1 if moe else 0)
    return count


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
    weights_bytes: int | None  # None: no size for the served checkpoint (draft included when known)
    draft_bytes: int | None  # the draft's weights and KV cache on this device (0: none; None: unknown draft)
    kv_cache_bytes: int
    kv_blocks: int
    kv_replicas: int  # how many times vllm-rbln's estimator counts the KV cache (open question when > 1)
    chiplets: int
    runtimes: int
    runtime_bytes: int
    device_bytes: int
    available_bytes: int  # usable memory times --gpu-memory-utilization
    free_bytes: int | None  # available - weights - runtime - KV cache (counted once)
    free_if_replicated_bytes: int | None  # the same with the KV cache counted kv_replicas times
    fits: bool | None  # None: unknown weights or draft, or the verdict turns on an unsettled question

    def free(self, reading: str) -> int | None:
        return _free_under(reading, self.free_bytes, self.free_if_replicated_bytes)

    def fits_under(self, reading: str) -> bool | None:
        free = self.free(reading)
        return None if free is None else free >= 0

    def to_json(self) -> dict[str, object]:
        return dataclasses.asdict(self)


@dataclasses.dataclass(frozen=True, kw_only=True)
class Advice:
    """A knob that makes a role fit: the flag, which way, and the value that fits."""

    role: str
    knob: str  # "--max-model-len", "--max-num-seqs", "--pipeline-parallel-size", "--data-parallel-size"
    direction: str  # "down" or "up"
    value: int | None = None  # the largest (down) or smallest (up) value at which every rank fits
    devices: int | None = None  # with a parallel size: the NPUs the role then uses
    replicated: bool = False  # advice for the reading where the KV cache is kept on every chiplet

    def to_json(self) -> dict[str, object]:
        return dataclasses.asdict(self)


@dataclasses.dataclass(frozen=True, kw_only=True)
class Settlement:
    """An open question an observation settles, for one shape (device, KV heads per rank)."""

    question: str  # "rsd-replication"
    sku: str
    replicas: int
    reading: str  # the reading left: SINGLE or REPLICATED
    by: tuple[str, ...]  # the observations (their keys) that settle it

    def to_json(self) -> dict[str, object]:
        return dataclasses.asdict(self)


@dataclasses.dataclass(frozen=True, kw_only=True)
class Served:
    """An observation that this very selection served, or failed (``selection_key``: same
    strategy, target, SKU, checkpoint, lengths, batch, draft and every other flag the figures
    read): the verdict. The figures then explain it; they do not decide it."""

    kind: str  # "verified" (a target's verified date) or "recorded" (facts.observations)
    key: str  # where it is written: a JSON pointer
    date: str | None  # the verified date; None for a recorded observation
    sources: tuple[str, ...]  # the recorded observation's sources (keys of facts.sources)
    error: str | None = None  # a failure's error, as recorded

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {"kind": self.kind, "key": self.key, "date": self.date, "sources": list(self.sources)}
        if self.error is not None:
            out["error"] = self.error
        return out


VERDICT_WORDS = {True: "fits", False: "does-not-fit", None: "open"}


@dataclasses.dataclass(frozen=True, kw_only=True)
class Fit:
    """The figures of one selection on one SKU, or why there are none (``missing``)."""

    sku: str | None
    missing: str | None  # None, "facts", "sku", "block-size", "max-model-len", "gpu-memory-utilization"
    ranks: tuple[RankFit, ...] = ()
    open_questions: tuple[str, ...] = ()  # keys: "rsd-replication" (unsettled)
    settled: tuple[Settlement, ...] = ()
    caveats: tuple[str, ...] = ()  # "no-checkpoint", "expert-parallel", "sliding-stages", "fp8-kv", "draft", "mtp"
    advice: tuple[Advice, ...] = ()
    max_model_len: int | None = None
    block_size: int | None = None
    model: str | None = None  # the checkpoint the figures are for
    what_if: tuple[tuple[str, int, int | None], ...] = ()  # (flag, asked, the commands' own)
    served: Served | None = None  # this very selection was seen to serve (``observed``)
    failed: Served | None = None  # this very selection was recorded to fail (``observed``)

    @property
    def figures_fit(self) -> bool | None:
        """What the figures alone say: every rank fits, a rank does not, or open."""
        verdicts = {rank.fits for rank in self.ranks}
        if False in verdicts:
            return False
        if not self.ranks or None in verdicts:
            return None
        return True

    @property
    def fits(self) -> bool | None:
        """The answer: True when this selection was seen to serve, False when it was recorded to
        fail, else the figures' verdict."""
        if self.failed is not None:
            return False
        return True if self.served is not None else self.figures_fit

    @property
    def verdict(self) -> str:
        """ "served" (seen to serve: the figures explain it), "failed" (recorded to fail),
        "fits", "does-not-fit" or "open"."""
        if self.failed is not None:
            return "failed"
        return "served" if self.served is not None else VERDICT_WORDS[self.figures_fit]

    def to_json(self) -> dict[str, object]:
        return {
            "sku": self.sku,
            "missing": self.missing,
            "model": self.model,
            "max_model_len": self.max_model_len,
            "block_size": self.block_size,
            "what_if": [{"flag": f, "value": v, "commands": c} for f, v, c in self.what_if],
            "verdict": self.verdict,
            "fits": self.fits,
            "figures_fit": self.figures_fit,
            "served": None if self.served is None else self.served.to_json(),
            "failed": None if self.failed is None else self.failed.to_json(),
            "ranks": [rank.to_json() for rank in self.ranks],
            "open_questions": list(self.open_questions),
            "settled": [s.to_json() for s in self.settled],
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


def _weights(total: int, head: int, layers_total: int, layers: int, last: bool, shards: int, tp: int) -> int:
    """One device's weights: its share of the layers (aligned per layer, as vllm-rbln does) and,
    on the last stage, its share of the LM head. Integers only."""
    body = max(0, total - 2 * head)  # the embedding stays off the device; rule 25 keeps it positive
    stage = cdiv(body * layers, layers_total * shards)
    per_layer = align(cdiv(stage, layers), GRANULE) if layers else 0
    return per_layer * layers + (align(cdiv(head, tp), GRANULE) if last else 0)


def _draft_weights(draft: Draft, tp: int) -> int:
    """The draft's checkpoint, split over the tensor-parallel ranks, aligned to 2 MiB."""
    return align(cdiv(draft.total, tp), GRANULE)


@dataclasses.dataclass(frozen=True, kw_only=True)
class Ask:
    """What one computation is asked: the lengths and the checkpoint, after any what-if."""

    max_model_len: int
    block_size: int
    max_num_seqs: int
    model: str


class _Stage(NamedTuple):
    """One pipeline stage's figures, the same on each of its data-parallel ranks."""

    pp_rank: int
    layers: int
    weights: int | None
    draft_bytes: int | None
    kv: int
    blocks: int
    free: int | None
    free_replicated: int | None
    fits: bool | None


class _Device(NamedTuple):
    """What a command's stages share, whatever the lengths and batch asked."""

    replicas: int
    runtimes: int
    runtime: int
    available: int


def _device(facts: Facts, sku: Sku, flags: Flags) -> _Device:
    arch = facts.architecture
    kv_heads = 1 if arch.attention == MLA or arch.kv_heads is None else max(1, arch.kv_heads // flags.tp)
    count = runtimes(flags, flags.draft_model is not None)
    return _Device(
        replicas=max(1, sku.chiplets // kv_heads) if sku.family == "REBEL" else 1,
        runtimes=count,
        runtime=BUFFER_PER_RUNTIME * count * sku.chiplets,
        available=int(sku.usable * flags.gpu_memory_utilization),  # as vllm-rbln multiplies it
    )


def _stages(facts: Facts, sku: Sku, flags: Flags, ask: Ask, reading: str | None, device: _Device) -> Iterator[_Stage]:
    """Each pipeline stage's figures, in order."""
    stage = _stage_of(facts, flags, ask, reading, device)
    last = flags.pp - 1
    for pp_rank, layers in enumerate(stage_layers(facts.architecture.layers, flags.pp)):
        yield stage(pp_rank, layers, pp_rank == last)


def _stage_of(
    facts: Facts, flags: Flags, ask: Ask, reading: str | None, device: _Device, dp: int | None = None
) -> Callable[[int, int, bool], _Stage]:
    """One pipeline stage's figures from its rank, its layers and whether it is the last stage
    (what every stage of the command shares worked out once; none of it depends on the
    pipeline's size). Stages of as many layers before the last have the same figures. ``dp``:
    at that data-parallel size instead of the flags' own (the advice's larger ones)."""
    arch = facts.architecture
    dtype = DTYPE_BYTES[arch.kv_dtype] if flags.kv_cache_dtype == "auto" else KV_DTYPES.get(flags.kv_cache_dtype, 2)
    per_token = token_bytes(arch, dtype, flags.tp)
    replicas, runtime, available = device.replicas, device.runtime, device.available
    draft_name = flags.draft_model
    draft = facts.draft(draft_name) if draft_name else None
    shards = flags.tp * ((dp or flags.dp) if flags.expert_parallel else 1)
    checkpoint = facts.checkpoint(ask.model)
    head = lm_head_bytes(arch.vocab_size, arch.hidden_size)

    def stage(pp_rank: int, layers: int, last: bool) -> _Stage:
        sliding = arch.sliding_layers * layers // arch.layers
        tensors, blocks = kv_blocks(layers - sliding, sliding, ask.max_model_len, ask.block_size, ask.max_num_seqs)
        kv = tensors * per_token * ask.block_size * blocks
        draft_bytes: int | None = 0
        if last and draft_name:
            if draft is None:
                draft_bytes = None
            else:
                draft_token = 2 * cdiv(draft.kv_heads, flags.tp) * draft.head_dim * dtype
                draft_kv = draft.layers * draft_token * ask.block_size * blocks
                draft_bytes = _draft_weights(draft, flags.tp) + draft_kv
                kv += draft_kv
        weights = None
        if checkpoint is not None and checkpoint.total is not None:
            weights = _weights(checkpoint.total, head, arch.layers, layers, last, shards, flags.tp)
            if draft is not None and last:
                weights += _draft_weights(draft, flags.tp)
        free = free_replicated = fits = None
        if weights is not None:
            free = available - weights - runtime - kv
            free_replicated = available - weights - runtime - kv * replicas
            if reading == SINGLE or replicas == 1:
                fits = free >= 0
            elif reading == REPLICATED:
                fits = free_replicated >= 0
            else:
                fits = True if free_replicated >= 0 else False if free < 0 else None
            if fits and draft_bytes is None:
                fits = None  # the draft's memory is not known: no confident "fits"
        return _Stage(pp_rank, layers, weights, draft_bytes, kv, blocks, free, free_replicated, fits)

    return stage


def rank_fits(
    facts: Facts,
    sku: Sku,
    command: Command,
    flags: Flags,
    ask: Ask,
    reading: str | None = None,
) -> list[RankFit]:
    """The ranks one command runs: each data-parallel rank's pipeline stages. ``reading``: the
    settled reading of the replication question (None: unsettled)."""
    device = _device(facts, sku, flags)
    return [
        RankFit(
            role=command.role,
            dp_rank=dp_rank,
            pp_rank=stage.pp_rank,
            tp_size=flags.tp,
            layers=stage.layers,
            weights_bytes=stage.weights,
            draft_bytes=stage.draft_bytes,
            kv_cache_bytes=stage.kv,
            kv_blocks=stage.blocks,
            kv_replicas=device.replicas,
            chiplets=sku.chiplets,
            runtimes=device.runtimes,
            runtime_bytes=device.runtime,
            device_bytes=sku.memory,
            available_bytes=device.available,
            free_bytes=stage.free,
            free_if_replicated_bytes=stage.free_replicated,
            fits=stage.fits,
        )
        for stage in _stages(facts, sku, flags, ask, reading, device)
        for dp_rank in flags.processes_ranks
    ]


def _free_under(reading: str, free: int | None, replicated: int | None) -> int | None:
    """The memory left under a reading of the replication question (a rank's, a stage's)."""
    return replicated if reading == REPLICATED else free


def _holds(free: Iterable[int | None]) -> bool:
    """Whether every rank (or stage) has its figure and memory left."""
    return all(left is not None and left >= 0 for left in free)


def _all_fit(ranks: Iterable[RankFit], reading: str) -> bool:
    return _holds(r.free(reading) for r in ranks)


def _largest(low: int, high: int, fits: Callable[[int], bool]) -> int | None:
    """The largest value in [low, high] at which ``fits`` holds (monotone), or None."""
    if high < low or not fits(low):
        return None
    while low < high:
        middle = (low + high + 1) // 2
        if fits(middle):
            low = middle
        else:
            high = middle - 1
    return low


def _advice(
    facts: Facts, sku: Sku, command: Command, flags: Flags, ask: Ask, reading: str, replicated: bool
) -> list[Advice]:
    """What makes every rank of one command fit under ``reading``: the longest context, the
    largest batch, and the fewest devices (a larger pipeline, or with expert parallelism a
    larger data-parallel size) at which it does."""

    def holds(stage: Callable[[int, int, bool], _Stage], pp: int, known: dict[tuple[int, bool], bool]) -> bool:
        # every stage of a pipeline of pp stages holds; a stage's figures are each of its ranks'
        # (rank_fits) and depend on its layers and on whether it is the last only (_stage_of), so
        # each kind of stage is worked out once (kept in known), the first left short ending it
        last = pp - 1
        for kind in dict.fromkeys((layers, rank == last) for rank, layers in enumerate(stage_layers(layer_count, pp))):
            if kind not in known:
                figures = stage(0, *kind)
                known[kind] = _holds([_free_under(reading, figures.free, figures.free_replicated)])
            if not known[kind]:
                return False
        return True

    def fits_with(flags_: Flags, ask_: Ask) -> bool:
        if not flags_.processes_ranks:
            return True  # no rank to hold
        return holds(_stage_of(facts, flags_, ask_, reading, _device(facts, sku, flags_)), flags_.pp, {})

    layer_count = facts.architecture.layers

    found = []
    blocks = _largest(
        1,
        max(0, (ask.max_model_len - 1) // ask.block_size),
        lambda n: fits_with(flags, dataclasses.replace(ask, max_model_len=n * ask.block_size)),
    )
    if blocks:
        found.append(
            Advice(
                role=command.role,
                knob="--max-model-len",
                direction="down",
                value=blocks * ask.block_size,
                replicated=replicated,
            )
        )
    if ask.max_num_seqs > 1:
        seqs = _largest(1, ask.max_num_seqs - 1, lambda n: fits_with(flags, dataclasses.replace(ask, max_num_seqs=n)))
        if seqs:
            found.append(
                Advice(role=command.role, knob="--max-num-seqs", direction="down", value=seqs, replicated=replicated)
            )
    ranks = len(flags.processes_ranks)
    # The sizes tried change few of the figures, so what they share is worked out once: a larger
    # pipeline changes the stages' layers and which stage is last, nothing else a stage's
    # figures read (_stage_of), so every pipeline size is checked with the same stages, each
    # kind of stage worked out once for them all; a larger data-parallel size changes only the
    # weights' shards (_stage_of's dp). The device's figures (_device) are the same at every
    # size tried: they read the data-parallel size only as whether it is above 1, which it
    # already is where a larger one is tried. A larger data-parallel size runs every one of its
    # ranks (there are ranks to hold); a larger pipeline runs the command's own ranks.
    device = _device(facts, sku, flags)
    pipeline = _stage_of(facts, flags, ask, reading, device)
    known: dict[tuple[int, bool], bool] = {}
    for knob, current, limit in (
        ("--pipeline-parallel-size", flags.pp, facts.architecture.layers),
        ("--data-parallel-size", flags.dp, LARGEST_PARALLEL if flags.expert_parallel and flags.dp > 1 else 0),
    ):
        for size in range(current + 1, min(limit, LARGEST_PARALLEL) + 1):
            if (
                not ranks or holds(pipeline, size, known)
                if knob == "--pipeline-parallel-size"
                else holds(_stage_of(facts, flags, ask, reading, device, dp=size), flags.pp, {})
            ):
                per = flags.tp * (size if knob == "--pipeline-parallel-size" else flags.pp)
                count = per * (ranks if knob == "--pipeline-parallel-size" else size)
                found.append(
                    Advice(
                        role=command.role, knob=knob, direction="up", value=size, devices=count, replicated=replicated
                    )
                )
                break
    return found


def fit(
    facts: Facts | None,
    skus: Sequence[str],
    commands: Sequence[Command],
    *,
    max_model_len: int | None = None,
    max_num_seqs: int | None = None,
    sku: str | None = None,
    model: str | None = None,
    settled: Mapping[tuple[str, int], Settlement] | None = None,
) -> Fit:
    """The figures of one selection (its commands) on the target's first SKU (or ``sku``);
    ``max_model_len`` / ``max_num_seqs`` / ``model`` answer what-if questions over the
    commands' own; ``settled``: the readings observations left, by (SKU, replicas)."""
    name = sku or (skus[0] if skus else None)
    if facts is None:
        return Fit(sku=name, missing="facts")
    device = SKUS.get(name or "")
    if device is None:
        return Fit(sku=name, missing="sku")
    ranks: list[RankFit] = []
    caveats: list[str] = []
    advice: list[Advice] = []
    lengths, blocks, models = set(), set(), set()
    what_if: dict[str, tuple[int, int | None]] = {}
    used: dict[tuple[str, int], Settlement] = {}
    arch = facts.architecture
    for command in commands:
        if command.launcher.split()[:2] != ["vllm", "serve"]:
            continue
        flags = Flags.of(command)
        if flags.follower:
            continue  # one server across nodes: the head's flags give every rank of it
        if math.isnan(flags.gpu_memory_utilization):
            return Fit(sku=name, missing="gpu-memory-utilization")
        length = max_model_len or flags.max_model_len
        block = flags.block_size
        if block is None:
            return Fit(sku=name, missing="block-size")  # vllm-rbln's default is not in the sources
        if length is None or length < 1:
            return Fit(sku=name, missing="max-model-len")  # vLLM's default is the model's: not a fact here
        seqs = max_num_seqs or flags.max_num_seqs or 1
        for flag, asked, own in (
            ("--max-model-len", max_model_len, flags.max_model_len),
            ("--max-num-seqs", max_num_seqs, flags.max_num_seqs),
        ):
            if asked is not None:
                what_if.setdefault(flag, (asked, own))
        served = model or command.model
        ask = Ask(max_model_len=length, block_size=block, max_num_seqs=seqs, model=served)
        kv_heads = 1 if arch.attention == MLA or arch.kv_heads is None else max(1, arch.kv_heads // flags.tp)
        replicas = max(1, device.chiplets // kv_heads) if device.family == "REBEL" else 1
        settlement = (settled or {}).get((device.name, replicas)) if replicas > 1 else None
        reading = settlement.reading if settlement else None
        if settlement:
            used[(device.name, replicas)] = settlement
        found = rank_fits(facts, device, command, flags, ask, reading)
        ranks += found
        lengths.add(length)
        blocks.add(block)
        models.add(served)
        if facts.checkpoint(served) is None:
            caveats.append("no-checkpoint")
        if flags.expert_parallel and flags.dp > 1:
            caveats.append("expert-parallel")
        if flags.pp > 1 and arch.sliding_layers:
            caveats.append("sliding-stages")
        if flags.kv_cache_dtype in FP8_KV and not device.fp8_kv:
            caveats.append("fp8-kv")
        if flags.draft_model and facts.draft(flags.draft_model) is None:
            caveats.append("draft")
        if flags.spec_method == "mtp":
            caveats.append("mtp")
        verdicts = {r.fits for r in found}
        known = all(r.weights_bytes is not None for r in found)
        if known and (False in verdicts or None in verdicts):
            # advise for the reading that does not fit: the settled one, else the pessimistic one
            worst = reading or (REPLICATED if replicas > 1 and False not in verdicts else SINGLE)
            if not _all_fit(found, worst):
                advice += _advice(facts, device, command, flags, ask, worst, worst == REPLICATED and not reading)
    open_questions = () if used or not any(r.kv_replicas > 1 for r in ranks) else ("rsd-replication",)
    if used and any(r.kv_replicas > 1 for r in ranks if (device.name, r.kv_replicas) not in used):
        open_questions = ("rsd-replication",)
    return Fit(
        sku=name,
        missing=None,
        ranks=tuple(ranks),
        open_questions=open_questions,
        settled=tuple(used.values()),
        caveats=tuple(dict.fromkeys(caveats)),
        advice=tuple(_merge_advice(advice)),
        max_model_len=max(lengths) if len(lengths) == 1 else None,
        block_size=max(blocks) if len(blocks) == 1 else None,
        model=next(iter(models)) if len(models) == 1 else None,
        what_if=tuple((flag, asked, own) for flag, (asked, own) in what_if.items()),
    )


def _merge_advice(advice: Sequence[Advice]) -> list[Advice]:
    """One piece of advice per role and knob: the most cautious value over the role's commands
    (the smallest length or batch, the largest device count)."""
    merged: dict[tuple[str, str], Advice] = {}
    for item in advice:
        key = (item.role, item.knob)
        prior = merged.get(key)
        if (
            prior is None
            or (item.direction == "down" and (item.value or 0) < (prior.value or 0))
            or (item.direction == "up" and (item.value or 0) > (prior.value or 0))
        ):
            merged[key] = item
    return list(merged.values())


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


# -- observations ------------------------------------------------------------------------------

# What names a selection as the figures see it: strategy, target, SKU and, per serve command, its
# role, the checkpoint served and every flag the figures read (lengths, batch, block size,
# parallel sizes, KV dtype, utilization, the draft of speculative decoding).
SelectionKey = tuple[object, ...]


def selection_key(
    strategy: str,
    target: str,
    sku: str | None,
    commands: Sequence[Command],
    *,
    max_model_len: int | None = None,
    max_num_seqs: int | None = None,
    model: str | None = None,
) -> SelectionKey:
    """The selection the commands serve, after any what-if (a what-if equal to the commands'
    own value asks about the same selection)."""
    parts = []
    for command in commands:
        if command.launcher.split()[:2] != ["vllm", "serve"]:
            continue
        flags = Flags.of(command)
        flags = dataclasses.replace(
            flags,
            max_model_len=max_model_len or flags.max_model_len,
            max_num_seqs=max_num_seqs or flags.max_num_seqs,
        )
        parts.append((command.role, model or command.model, flags))
    return (strategy, target, sku, tuple(parts))


def observed(result: Fit, key: SelectionKey, seen: Iterable[Seen]) -> Fit:
    """The figures with their verdict from what ran: an observation that this very selection
    (``key``) served, and that the figures do not contradict (a contradiction is shown as a
    disagreement, never as a verdict), settles it; no advice is then given. A recorded failure of
    this very selection settles it too, even where the figures leave memory free (it did not
    start; the disagreement is shown beside it); the figures' advice is kept. Any other selection
    (another length, batch, draft or SKU, a what-if) keeps the figures' verdict."""
    if result.missing:
        return result
    seen = [item for item in seen if item.selection == key]
    for item in seen:
        if item.outcome == "fails":
            failed = Served(kind=item.kind, key=item.key, date=item.date, sources=item.sources, error=item.error)
            return dataclasses.replace(result, failed=failed)
    for item in seen:
        if item.outcome == "serves" and item.agrees is not False:
            served = Served(kind=item.kind, key=item.key, date=item.date, sources=item.sources)
            return dataclasses.replace(result, served=served, advice=())
    return result


@dataclasses.dataclass(frozen=True, kw_only=True)
class Seen:
    """One observation held against the figures.

    ``kind``: "verified" (a target's verified date: its opening selection served), "recorded"
    (facts.observations) or "measured" (a stored benchmark result). ``agrees``: whether the
    figures agree with it under the readings left; ``gap``: when they do not, by how many
    bytes (the memory the figures say is missing for a selection that served, or say is left
    for one that failed)."""

    key: str  # where it is written: a JSON pointer, or a result's file name
    kind: str
    outcome: str  # "serves" or "fails"
    strategy: str
    target: str
    sku: str
    model: str
    max_model_len: int | None
    error: str | None
    sources: tuple[str, ...]
    date: str | None  # the verified date, or a result's
    fit: Fit  # the figures of what ran, under the readings left
    agrees: bool | None  # None: the figures give no verdict (missing facts)
    gap: int | None
    declared: bool = False  # the recipe says the figures disagree (facts.observations[].disagrees)
    selection: SelectionKey = ()  # what ran, as ``selection_key`` names it

    def to_json(self) -> dict[str, object]:
        return {
            "key": self.key,
            "kind": self.kind,
            "outcome": self.outcome,
            "strategy": self.strategy,
            "target": self.target,
            "sku": self.sku,
            "model": self.model,
            "max_model_len": self.max_model_len,
            "error": self.error,
            "sources": list(self.sources),
            "date": self.date,
            "agrees": self.agrees,
            "gap_bytes": self.gap,
            "declared": self.declared,
        }


@dataclasses.dataclass(frozen=True, kw_only=True)
class Run:
    """What an observation ran, before it is held against the figures."""

    key: str
    kind: str
    outcome: str
    strategy: str
    target: str
    sku: str
    commands: tuple[Command, ...]
    model: str | None
    max_model_len: int | None
    max_num_seqs: int | None
    error: str | None = None
    sources: tuple[str, ...] = ()
    date: str | None = None
    declared: bool = False

    @classmethod
    def of(cls, observation: Observation, commands: tuple[Command, ...]) -> Run:
        return cls(
            key=observation.ptr,
            kind="recorded",
            outcome=observation.outcome,
            strategy=observation.strategy,
            target=observation.target,
            sku=observation.sku,
            commands=commands,
            model=observation.model,
            max_model_len=observation.max_model_len,
            max_num_seqs=observation.max_num_seqs,
            error=observation.error,
            sources=observation.sources,
            declared=observation.disagrees,
        )


def _figures(facts: Facts, run: Run, settled: Mapping[tuple[str, int], Settlement] | None) -> Fit:
    return fit(
        facts,
        (run.sku,),
        run.commands,
        max_model_len=run.max_model_len,
        max_num_seqs=run.max_num_seqs,
        model=run.model,
        settled=settled,
    )


def _shape(result: Fit) -> tuple[str, int] | None:
    replicas = {r.kv_replicas for r in result.ranks}
    return (result.sku or "", replicas.pop()) if len(replicas) == 1 else None


def settle(facts: Facts | None, runs: Sequence[Run]) -> dict[tuple[str, int], Settlement]:
    """The readings the observations leave, per shape (SKU, replicas): a selection seen to serve
    refutes every reading under which some rank of it would not fit. A shape whose every reading
    is refuted stays open (the observations then disagree with the figures)."""
    if facts is None:
        return {}
    refuted: dict[tuple[str, int], dict[str, list[str]]] = {}
    for run in runs:
        if run.outcome != "serves":
            continue
        result = _figures(facts, run, None)
        shape = _shape(result)
        if result.missing or shape is None or shape[1] == 1 or any(r.weights_bytes is None for r in result.ranks):
            continue
        for reading in READINGS:
            if not _all_fit(result.ranks, reading):
                refuted.setdefault(shape, {}).setdefault(reading, []).append(run.key)
    found = {}
    for shape, by_reading in refuted.items():
        left = [r for r in READINGS if r not in by_reading]
        if len(left) == 1:
            by = tuple(dict.fromkeys(k for keys in by_reading.values() for k in keys))
            found[shape] = Settlement(
                question="rsd-replication", sku=shape[0], replicas=shape[1], reading=left[0], by=by
            )
    return found


def hold(facts: Facts | None, run: Run, settled: Mapping[tuple[str, int], Settlement]) -> Seen:
    """One observation against the figures under the readings ``settled`` leaves."""
    result = Fit(sku=run.sku, missing="facts") if facts is None else _figures(facts, run, settled)
    agrees: bool | None = None
    gap: int | None = None
    if not result.missing and result.ranks and all(r.weights_bytes is not None for r in result.ranks):
        shape = _shape(result)
        settlement = settled.get(shape) if shape else None
        readings = (settlement.reading,) if settlement else (READINGS if shape and shape[1] > 1 else (SINGLE,))
        # every rank's weights are known, so is what each leaves free
        margins = [min(f for f in (r.free(reading) for r in result.ranks) if f is not None) for reading in readings]
        if run.outcome == "serves":
            agrees = any(m >= 0 for m in margins)
            gap = None if agrees else -max(margins)
        else:
            agrees = any(m < 0 for m in margins)
            gap = None if agrees else min(margins)
    return Seen(
        key=run.key,
        kind=run.kind,
        outcome=run.outcome,
        strategy=run.strategy,
        target=run.target,
        sku=run.sku,
        model=run.model or (run.commands[0].model if run.commands else ""),
        max_model_len=result.max_model_len,
        error=run.error,
        sources=run.sources,
        date=run.date,
        fit=result,
        agrees=agrees,
        gap=gap,
        declared=run.declared,
        selection=selection_key(
            run.strategy,
            run.target,
            run.sku,
            run.commands,
            max_model_len=run.max_model_len,
            max_num_seqs=run.max_num_seqs,
            model=run.model,
        ),
    )


def reconcile(facts: Facts | None, runs: Sequence[Run]) -> tuple[dict[tuple[str, int], Settlement], tuple[Seen, ...]]:
    """The settlements the observations make, and each observation held against the figures."""
    settled = settle(facts, runs)
    return settled, tuple(hold(facts, run, settled) for run in runs)
