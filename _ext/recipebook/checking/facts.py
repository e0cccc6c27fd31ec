"""Rule 20: a recipe's model facts (``reading/facts.py``) agree with each other and with its targets."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from ..problems import Problem, pointer_join
from ..reading.facts import ARCHITECTURE, FACTS, MLA
from ..reading.model import Recipe
from ..reading.source import Document

# The widths of one attention kind that the other does not have.
_MLA_ONLY = ("kvLoraRank", "qkRopeHeadDim", "indexHeadDim")
_STANDARD_ONLY = ("kvHeads", "headDim", "slidingWindow")


def _given(data: Mapping[str, Any], names: tuple[str, ...]) -> list[str]:
    return [name for name in names if name in data]


def check(recipe: Recipe, doc: Document) -> Iterator[Problem]:
    """20. The model facts (`facts`) agree with each other: an attention kind has the widths it
    needs and none of the other kind's, sliding-window layers are no more than the layers, a
    checkpoint gives its bytes by dtype or its size (one of the two), every checkpoint is one
    a target serves or an observation ran, and every fact names a source that `sources` gives, each source backing
    some fact. A recipe without facts is valid and shows no memory figures."""
    data = doc.data.get("facts")
    if data is None or recipe.facts is None:
        return
    arch = data["architecture"]
    if arch["attention"] == MLA:
        missing = [name for name in ("kvLoraRank", "qkRopeHeadDim") if name not in arch]
        if missing:
            yield doc.problem(
                pointer_join(ARCHITECTURE, "attention"),
                "MLA attention needs the latent and rope widths: add " + " and ".join(missing),
            )
        for name in _given(arch, _STANDARD_ONLY):
            yield doc.problem(
                pointer_join(ARCHITECTURE, name),
                f"{name} does not apply to MLA attention (its KV cache is the latent: kvLoraRank + qkRopeHeadDim)",
                key=True,
            )
    else:
        missing = [name for name in ("kvHeads", "headDim") if name not in arch]
        if missing:
            yield doc.problem(
                pointer_join(ARCHITECTURE, "attention"),
                "standard attention needs the KV heads and the head size: add " + " and ".join(missing),
            )
        for name in _given(arch, _MLA_ONLY):
            yield doc.problem(
                pointer_join(ARCHITECTURE, name),
                f"{name} applies to MLA attention only; this architecture's attention is {arch['attention']!r}",
                key=True,
            )
    window = arch.get("slidingWindow")
    if window is not None and window["layers"] > arch["layers"]:
        yield doc.problem(
            pointer_join(ARCHITECTURE, "slidingWindow", "layers"),
            f"{window['layers']} sliding-window layers, but the model has {arch['layers']} layers",
        )
    if ("hiddenSize" in arch) != ("vocabSize" in arch):
        given = "hiddenSize" if "hiddenSize" in arch else "vocabSize"
        other = "vocabSize" if given == "hiddenSize" else "hiddenSize"
        yield doc.problem(
            pointer_join(ARCHITECTURE, given),
            f"{given} without {other}: the embedding and LM head need both",
            key=True,
        )
    served = {recipe.model} | {target.grid.model for _s, target in recipe.targets()}
    served |= {o["model"] for o in data.get("observations", ()) if o.get("model")}  # a checkpoint seen to run
    seen: set[str] = set()
    for i, checkpoint in enumerate(data.get("checkpoints", ())):
        ptr = pointer_join(FACTS, "checkpoints", i)
        if ("bytes" in checkpoint) == ("size" in checkpoint):
            yield doc.problem(ptr, "give the checkpoint's bytes by dtype or its size, one of the two")
        if checkpoint["model"] in seen:
            yield doc.problem(pointer_join(ptr, "model"), f"checkpoint {checkpoint['model']!r} is listed twice")
        seen.add(checkpoint["model"])
        if checkpoint["model"] not in served:
            yield doc.problem(
                pointer_join(ptr, "model"),
                f"no target serves {checkpoint['model']!r} (served: {', '.join(sorted(served))})",
            )
    named: set[str] = set()
    for ptr, ids in (
        (pointer_join(ARCHITECTURE, "source"), arch["source"]),
        *(
            (pointer_join(FACTS, "checkpoints", i, "source"), c["source"])
            for i, c in enumerate(data.get("checkpoints", ()))
        ),
        *((pointer_join(FACTS, "drafts", i, "source"), d["source"]) for i, d in enumerate(data.get("drafts", ()))),
        *(
            (pointer_join(FACTS, "observations", i, "source"), o["source"])
            for i, o in enumerate(data.get("observations", ()))
        ),
    ):
        for j, source in enumerate(ids):
            named.add(source)
            if source not in data["sources"]:
                yield doc.problem(
                    pointer_join(ptr, j),
                    f"source {source!r} is not in facts.sources ({', '.join(sorted(data['sources']))})",
                )
    for source in data["sources"]:
        if source not in named:
            yield doc.problem(pointer_join(FACTS, "sources", source), f"source {source!r} backs no fact", key=True)
