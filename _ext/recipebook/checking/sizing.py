"""Rules of the memory figures: model facts a real model can have, the NPU counts the
commands use, the sizes a command serves, and observations that agree with the figures.

Rules 25 and 26 read the recipe document and its model; rule 27 holds each observation
against the figures, so it runs once the commands expand (``load.check_file`` calls
``observations`` after every other rule has passed)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from .. import shell
from ..expanding import memory, page
from ..memo import Memo
from ..problems import Problem, pointer_join
from ..reading.model import Recipe
from ..reading.source import Document
from ..reading.valuetypes import parse_size

FACTS = "/facts"


def _floats(value: Any, ptr: str) -> Iterator[tuple[str, float]]:
    """Every number written with a fraction or an exponent (61.0, 6.1e1) under ``value``."""
    if isinstance(value, float):
        yield ptr, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _floats(item, pointer_join(ptr, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _floats(item, pointer_join(ptr, i))


def _total(entry: dict[str, Any]) -> int:
    given = entry.get("bytes")
    return sum(given.values()) if isinstance(given, dict) else entry.get("size") or 0


def facts_bounds(recipe: Recipe, doc: Document) -> Iterator[Problem]:
    """25. Model facts are what a real model can have: every size and count a whole number
    within the schema's bounds (no fraction, no exponent: 61, not 61.0), a checkpoint (or a
    draft) larger than the word embedding and LM head its vocabulary and hidden size give, and
    at most 32 TiB in all; every draft is named by some command's `--speculative-config`; every
    observation names a strategy, target, selection and SKU of the recipe, a checkpoint of the
    facts, and an error only when it failed."""
    data = doc.data.get("facts")
    if not isinstance(data, dict) or recipe.facts is None:
        return
    for ptr, value in _floats(data, FACTS):
        if (
            ptr.endswith(("/maxModelLen", "/maxNumSeqs"))
            or "/architecture/" in ptr
            or "/checkpoints/" in ptr
            or ("/drafts/" in ptr)
        ):
            yield doc.problem(ptr, f"a count or size is a whole number of units: write {value:.0f}, not {value!r}")
    arch = data["architecture"]
    head = memory.lm_head_bytes(arch.get("vocabSize"), arch.get("hiddenSize"))
    for kind in ("checkpoints", "drafts"):
        for i, entry in enumerate(data.get(kind, ())):
            ptr = pointer_join(FACTS, kind, i)
            total = _total(entry)
            if not isinstance(total, int) or isinstance(total, bool):
                continue
            if total > 2**45:
                yield doc.problem(ptr, f"{total:,} bytes in all: more than 32 TiB, which no served checkpoint is")
            own = memory.lm_head_bytes(entry.get("vocabSize"), entry.get("hiddenSize")) if kind == "drafts" else head
            if own and total <= 2 * own and kind == "checkpoints":
                yield doc.problem(
                    ptr,
                    f"the checkpoint's {total:,} bytes are no more than its word embedding and LM head "
                    f"({2 * own:,} bytes for vocabSize {arch.get('vocabSize'):,} x hiddenSize "
                    f"{arch.get('hiddenSize'):,} in BF16): its layers would weigh nothing or less; one of the "
                    "three figures is wrong",
                )
            elif own and total <= own and kind == "drafts":
                yield doc.problem(
                    ptr,
                    f"the draft's {total:,} bytes are no more than its LM head ({own:,} bytes for its vocabSize x "
                    "hiddenSize in BF16): one of the figures is wrong",
                )
    named = set()
    for _s, target in recipe.targets():
        for _kind, _ptr, _role, args in target.grid.mappings():
            text = args.get("--speculative-config")
            if text:
                named.add(text)
    for i, entry in enumerate(data.get("drafts", ())):
        model = entry.get("model")
        if not any(f'"{model}"' in text for text in named):
            yield doc.problem(
                pointer_join(FACTS, "drafts", i, "model"),
                f"no command's --speculative-config names the draft {model!r}",
            )
    checkpoints = {c.model for c in recipe.facts.checkpoints}
    for i, observation in enumerate(data.get("observations", ())):
        ptr = pointer_join(FACTS, "observations", i)
        strategy = recipe.strategy(observation["strategy"])
        if strategy is None:
            slugs = ", ".join(s.slug for s in recipe.strategies)
            yield doc.problem(
                pointer_join(ptr, "strategy"), f"no strategy {observation['strategy']!r} (the recipe has: {slugs})"
            )
            continue
        observed = strategy.target(observation["target"])
        if observed is None:
            names = ", ".join(t.target for t in strategy.targets)
            yield doc.problem(
                pointer_join(ptr, "target"),
                f"strategy {strategy.slug!r} has no target {observation['target']!r} ({names})",
            )
            continue
        given = observation.get("selection") or {}
        axes = observed.grid.axes
        bad = False
        for axis, value in given.items():
            if axis not in axes:
                bad = True
                yield doc.problem(
                    pointer_join(ptr, "selection", axis),
                    f"no axis {axis!r} in this target ({', '.join(axes)})",
                    key=True,
                )
            elif value not in axes[axis]:
                bad = True
                yield doc.problem(
                    pointer_join(ptr, "selection", axis),
                    f"axis {axis!r} has no value {value!r} ({', '.join(axes[axis])})",
                )
        if not bad and page.observation_selection(observed.grid, given) is None:
            yield doc.problem(pointer_join(ptr, "selection"), "the recipe does not offer this selection")
        if observation["sku"] not in memory.SKUS:
            yield doc.problem(
                pointer_join(ptr, "sku"),
                f"{observation['sku']} is not a device the memory figures know ({', '.join(memory.SKUS)})",
            )
        model = observation.get("model")
        if model is not None and model not in checkpoints:
            yield doc.problem(
                pointer_join(ptr, "model"),
                f"{model!r} is not one of facts.checkpoints ({', '.join(sorted(checkpoints)) or 'none'}): give its size there",
            )
        if "error" in observation and observation["outcome"] != "fails":
            yield doc.problem(pointer_join(ptr, "error"), "an error goes with outcome fails only", key=True)


def npus_agree(recipe: Recipe, doc: Document, memo: Memo | None = None) -> Iterator[Problem]:
    """26. A target's `npus` is the number of NPUs each of its roles uses, as its commands ask
    for them: tensor x pipeline parallel, times the data-parallel ranks each process runs,
    summed over the role's processes (`npus: 2` with `--tensor-parallel-size 4` is refused)."""
    model = page.page_of(recipe, memo, figures=False)  # the commands' NPUs, not the memory figures
    for target in model.targets:
        wrong: dict[str, set[int]] = {}
        for group in target.serving:
            for plan in group.roles:
                if plan.npus != target.target.npus:
                    wrong.setdefault(plan.role, set()).add(plan.npus)
        for role, counts in wrong.items():
            used = " or ".join(str(n) for n in sorted(counts))
            yield doc.problem(
                pointer_join(target.target.ptr, "npus"),
                f"npus is {target.target.npus}, but the {role} commands use {used} NPUs "
                "(tensor x pipeline parallel size x the data-parallel ranks of each process)",
            )


def served_sizes(recipe: Recipe, doc: Document) -> Iterator[Problem]:
    """27. The sizes a command serves are ones a server can run: `--max-model-len` is at least
    1 token (or -1 / auto, the model's own length), as `fit --max-model-len` must be; and every
    observation of `facts.observations` agrees with the memory figures under a reading of their
    open questions, or says it does not (`disagrees`), and then only while it does not."""
    for _s, target in recipe.targets():
        for _kind, ptr, _role, args in target.grid.mappings():
            text = args.get("--max-model-len")
            if text is None:
                continue
            try:
                _name, words = shell.flag_values(text)
                value = parse_size(words[0], auto=True) if words else None
            except (ValueError, IndexError):
                continue  # the vocabulary check says why
            if value is not None and value != -1 and value < 1:
                yield doc.problem(
                    pointer_join(ptr, "--max-model-len"),
                    f"--max-model-len {words[0]} serves no token: give at least 1 (or -1 / auto for the model's own length)",
                )


def observations(recipe: Recipe, doc: Document, memo: Memo | None = None) -> Iterator[Problem]:
    """Rule 27's second half: each observation against the figures (needs commands that expand;
    the grids' tables kept in ``memo``)."""
    _settled, seen = page.reconciled(recipe, memo)
    for item in seen:
        if item.agrees is None:
            continue
        # A target's verified date the figures contradict is shown on its page as a disagreement
        # with its size (the figures' facts may be off; what ran is not refused): only what the
        # recipe records as an observation must say that it disagrees.
        if item.kind == "recorded" and not item.agrees and not item.declared:
            what = (
                f"short of {memory.gib(item.gap or 0)} on a rank"
                if item.outcome == "serves"
                else f"{memory.gib(item.gap or 0)} free on every rank"
            )
            yield doc.problem(
                item.key,
                f"the memory figures disagree with this observation ({item.outcome}): they say {what}; fix the facts, "
                'or say so with "disagrees": true (the page then shows the disagreement)',
            )
        elif item.kind == "recorded" and item.agrees and item.declared:
            yield doc.problem(
                pointer_join(item.key, "disagrees"),
                "the memory figures now agree with this observation: remove disagrees",
                key=True,
            )
