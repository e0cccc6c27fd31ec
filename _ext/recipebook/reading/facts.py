"""Model facts: what a recipe says about its model's architecture and checkpoints, with the
sources that say it (the rule that keeps them consistent, rule 20, is ``checking/facts.py``).

The memory figures (``memory.py``) are computed from these facts; a recipe without them is
valid and simply has no figures. Every object keeps the JSON pointer it came from, so a rule
points at the exact place in the file.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from ..problems import pointer_join

FACTS = "/facts"
ARCHITECTURE = pointer_join(FACTS, "architecture")
MLA, STANDARD = "mla", "standard"
DTYPE_BYTES = {"bfloat16": 2, "float16": 2, "float32": 4}


@dataclasses.dataclass(frozen=True, kw_only=True)
class Source:
    id: str
    title: str
    url: str


@dataclasses.dataclass(frozen=True, kw_only=True)
class Architecture:
    """The fields the KV cache and weight figures need (see the schema's descriptions)."""

    ptr: str
    layers: int
    attention: str  # MLA or STANDARD
    kv_dtype: str
    kv_heads: int | None = None
    head_dim: int | None = None
    kv_lora_rank: int | None = None
    qk_rope_head_dim: int | None = None
    index_head_dim: int | None = None
    sliding_window: int | None = None
    sliding_layers: int = 0
    hidden_size: int | None = None
    vocab_size: int | None = None
    sources: tuple[str, ...] = ()

    @classmethod
    def from_json(cls, data: Mapping[str, Any], ptr: str) -> Architecture:
        window = data.get("slidingWindow") or {}
        return cls(
            ptr=ptr,
            layers=data["layers"],
            attention=data["attention"],
            kv_dtype=data["kvDtype"],
            kv_heads=data.get("kvHeads"),
            head_dim=data.get("headDim"),
            kv_lora_rank=data.get("kvLoraRank"),
            qk_rope_head_dim=data.get("qkRopeHeadDim"),
            index_head_dim=data.get("indexHeadDim"),
            sliding_window=window.get("window"),
            sliding_layers=window.get("layers", 0),
            hidden_size=data.get("hiddenSize"),
            vocab_size=data.get("vocabSize"),
            sources=tuple(data["source"]),
        )

    @property
    def full_layers(self) -> int:
        return self.layers - self.sliding_layers


@dataclasses.dataclass(frozen=True, kw_only=True)
class Checkpoint:
    ptr: str
    model: str
    bytes_by_dtype: Mapping[str, int] | None
    size: int | None
    sources: tuple[str, ...]

    @property
    def total(self) -> int | None:
        if self.bytes_by_dtype:
            return sum(self.bytes_by_dtype.values())
        return self.size


@dataclasses.dataclass(frozen=True, kw_only=True)
class Draft:
    """The draft model of speculative decoding (``--speculative-config``'s ``model``): its
    layers and the widths its KV cache and LM head need, and its checkpoint's size."""

    ptr: str
    model: str
    layers: int
    kv_heads: int
    head_dim: int
    hidden_size: int
    vocab_size: int
    bytes_by_dtype: Mapping[str, int] | None
    size: int | None
    sources: tuple[str, ...]

    @property
    def total(self) -> int:
        return sum(self.bytes_by_dtype.values()) if self.bytes_by_dtype else (self.size or 0)


OUTCOMES = ("serves", "fails")


@dataclasses.dataclass(frozen=True, kw_only=True)
class Observation:
    """What is known to have happened when a selection ran: it served, or it failed (with the
    error the server gave). The memory figures must agree with it (``memory.reconcile``)."""

    ptr: str
    outcome: str  # of OUTCOMES
    strategy: str
    target: str
    selection: Mapping[str, str] | None  # None: the target's base selection, else its opening one
    model: str | None  # the checkpoint served, when not the target's own
    sku: str
    max_model_len: int | None  # when the run served another length than the commands
    max_num_seqs: int | None
    error: str | None
    disagrees: bool  # the recipe says the figures disagree with it (shown with the size)
    sources: tuple[str, ...]


@dataclasses.dataclass(frozen=True, kw_only=True)
class Facts:
    architecture: Architecture
    checkpoints: tuple[Checkpoint, ...]
    sources: Mapping[str, Source]
    drafts: tuple[Draft, ...] = ()
    observations: tuple[Observation, ...] = ()

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Facts:
        checkpoints = tuple(
            Checkpoint(
                ptr=pointer_join(FACTS, "checkpoints", i),
                model=c["model"],
                bytes_by_dtype=None if c.get("bytes") is None else MappingProxyType(dict(c["bytes"])),
                size=c.get("size"),
                sources=tuple(c["source"]),
            )
            for i, c in enumerate(data.get("checkpoints", ()))
        )
        drafts = tuple(
            Draft(
                ptr=pointer_join(FACTS, "drafts", i),
                model=d["model"],
                layers=d["layers"],
                kv_heads=d["kvHeads"],
                head_dim=d["headDim"],
                hidden_size=d["hiddenSize"],
                vocab_size=d["vocabSize"],
                bytes_by_dtype=None if d.get("bytes") is None else MappingProxyType(dict(d["bytes"])),
                size=d.get("size"),
                sources=tuple(d["source"]),
            )
            for i, d in enumerate(data.get("drafts", ()))
        )
        observations = tuple(
            Observation(
                ptr=pointer_join(FACTS, "observations", i),
                outcome=o["outcome"],
                strategy=o["strategy"],
                target=o["target"],
                selection=None if o.get("selection") is None else MappingProxyType(dict(o["selection"])),
                model=o.get("model"),
                sku=o["sku"],
                max_model_len=o.get("maxModelLen"),
                max_num_seqs=o.get("maxNumSeqs"),
                error=o.get("error"),
                disagrees=bool(o.get("disagrees", False)),
                sources=tuple(o["source"]),
            )
            for i, o in enumerate(data.get("observations", ()))
        )
        return cls(
            architecture=Architecture.from_json(data["architecture"], ARCHITECTURE),
            checkpoints=checkpoints,
            sources=MappingProxyType(
                {key: Source(id=key, title=s["title"], url=s["url"]) for key, s in data["sources"].items()}
            ),
            drafts=drafts,
            observations=observations,
        )

    def checkpoint(self, model: str) -> Checkpoint | None:
        return next((c for c in self.checkpoints if c.model == model), None)

    def draft(self, model: str) -> Draft | None:
        return next((d for d in self.drafts if d.model == model), None)
