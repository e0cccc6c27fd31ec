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
class Facts:
    architecture: Architecture
    checkpoints: tuple[Checkpoint, ...]
    sources: Mapping[str, Source]

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
        return cls(
            architecture=Architecture.from_json(data["architecture"], ARCHITECTURE),
            checkpoints=checkpoints,
            sources=MappingProxyType(
                {key: Source(id=key, title=s["title"], url=s["url"]) for key, s in data["sources"].items()}
            ),
        )

    def checkpoint(self, model: str) -> Checkpoint | None:
        return next((c for c in self.checkpoints if c.model == model), None)
