"""The explorer's memory panel in words: the engine's figures (``recipebook.expanding.memory``, carried
by the page model's ``TargetPage.memory``) per rank, the verdict, the open question and which
knob to turn. Nothing here computes a figure; the browser shows one copy of the panel per set
of selections that share figures, chosen by the explorer's hide classes like every other part.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import NamedTuple

from recipebook.expanding import memory
from recipebook.expanding.page import RecipePage, TargetPage
from recipebook.expanding.table import admits

from .nojs import hide_classes
from .roles import role_title

Translate = Callable[[str], str]


@dataclasses.dataclass(frozen=True, kw_only=True)
class FitRow:
    label: str  # "Server, data-parallel ranks 0-7"
    weights: str
    kv_cache: str
    free: str
    verdict: str  # "ok", "no" or "open"
    verdict_text: str


class FitHeaders(NamedTuple):
    """The column headers of the memory table."""

    ranks: str
    weights: str
    kv_cache: str
    free: str
    verdict: str


@dataclasses.dataclass(frozen=True, kw_only=True)
class FitView:
    classes: tuple[str, ...]  # hide classes: the selections this copy is for
    opening: bool  # whether the opening selection shows this copy
    title: str
    summary: str  # the verdict and what the figures assume
    headers: FitHeaders
    rows: tuple[FitRow, ...]
    notes: tuple[str, ...]  # open question, caveats, which knob to turn
    observations: tuple[str, ...] = ()  # what is known to have run on this target, held against the figures


def _span(numbers: Sequence[int]) -> str:
    """0, 1, 2, 3 -> "0–3"; 0, 2 -> "0, 2"."""
    numbers = sorted(set(numbers))
    if len(numbers) > 2 and numbers == list(range(numbers[0], numbers[-1] + 1)):
        return f"{numbers[0]}–{numbers[-1]}"
    return ", ".join(map(str, numbers))


def _label(group: memory.Group, role: str, dp: int, pp: int, _: Translate) -> str:
    parts = [role]
    dps = [d for d, _p in group.ranks]
    pps = [p for _d, p in group.ranks]
    if dp > 1:
        parts.append(_("data-parallel ranks {ranks}").format(ranks=_span(dps)))
    if pp > 1 and len(set(pps)) == 1:
        parts.append(_("pipeline stage {stage} ({layers} layers)").format(stage=pps[0], layers=group.figures.layers))
    elif pp > 1:
        parts.append(
            _("pipeline stages {stages} ({layers} layers each)").format(stages=_span(pps), layers=group.figures.layers)
        )
    return ", ".join(parts)


VERDICTS = {True: "ok", False: "no", None: "open"}


def _verdict_words(_: Translate) -> dict[str | None, str]:
    return {"ok": _("fits"), "no": _("does not fit"), "open": _("open"), "served": _("served"), "failed": _("failed")}


def served_text(served: memory.Served, _: Translate) -> str:
    """Where a selection was seen to serve: the verified date, or the recorded observation's
    sources (keys of the recipe's facts.sources)."""
    if served.kind == "verified":
        return _("served as verified: {date}, this target's verified date").format(date=served.date)
    return _("served as recorded: {sources}").format(sources=", ".join(served.sources) or served.key)


def failed_text(failed: memory.Served, _: Translate) -> str:
    """Where a selection was recorded to fail: the observation's sources, and its error."""
    text = _("failed as recorded: {sources}").format(sources=", ".join(failed.sources) or failed.key)
    return f"{text} ({failed.error})" if failed.error else text


def _free(rank: memory.RankFit, fit: memory.Fit, _: Translate) -> str:
    if rank.free_bytes is None:
        return "—"
    text = memory.gib(rank.free_bytes)
    settled = next((s for s in fit.settled if s.replicas == rank.kv_replicas), None)
    if settled is not None and settled.reading == memory.REPLICATED:
        return memory.gib(rank.free_if_replicated_bytes or 0)
    if rank.kv_replicas > 1 and rank.free_if_replicated_bytes is not None and settled is None:
        text += " " + _("({free} if counted {n} times)").format(
            free=memory.gib(rank.free_if_replicated_bytes), n=rank.kv_replicas
        )
    return text


def _notes(fit: memory.Fit, _: Translate) -> list[str]:
    notes = []
    replicas = max((r.kv_replicas for r in fit.ranks), default=1)
    chiplets = max((r.chiplets for r in fit.ranks), default=1)
    if "rsd-replication" in fit.open_questions:
        notes.append(
            _(
                "Open question: on this device of {chiplets} chiplets, vllm-rbln's memory estimate divides what is left "
                "for the KV cache by {n}, as if the KV cache of a model with fewer KV heads per rank than chiplets (MLA "
                "counts as one) were kept {n} times. Nothing observed settles it, so the figures in brackets count the "
                "KV cache {n} times and the verdict says open where the two readings disagree."
            ).format(n=replicas, chiplets=chiplets)
        )
    for settled in fit.settled:
        notes.append(
            (
                _(
                    "Settled by what ran: a selection of this shape served that would not fit with the KV cache "
                    "counted {n} times on {sku}, so the figures count it once."
                )
                if settled.reading == memory.SINGLE
                else _("Settled by what ran: on {sku} the KV cache is counted {n} times.")
            ).format(n=settled.replicas, sku=settled.sku)
        )
    caveats = {
        "expert-parallel": _(
            "Weights: the checkpoint split evenly over the expert-parallel ranks. The dense layers are on every "
            "rank, so the real figure is higher."
        ),
        "no-checkpoint": _("No size is given for this checkpoint: no weights figure and no verdict."),
        "sliding-stages": _("Sliding-window layers are shared out over the pipeline stages in proportion."),
        "fp8-kv": _("An fp8 KV cache is supported on RBLN-CR13 only."),
        "draft": _(
            "The draft model of speculative decoding has no facts in the recipe: its weights and KV cache are not "
            "counted, so the figures cannot say that it fits."
        ),
        "mtp": _("MTP speculative decoding runs the model's own MTP layers, which the facts do not size."),
    }
    notes += [caveats[c] for c in fit.caveats if c in caveats]
    for advice in fit.advice:
        role = role_title(advice.role, _)
        if advice.knob == "--max-model-len":
            # the value as the flag takes it (212992, not 212,992): a reader pastes it
            text = _("To fit, serve a shorter context: --max-model-len {value} or less ({role}).").format(
                value=advice.value, role=role
            )
        elif advice.knob == "--max-num-seqs":
            text = _("To fit, batch fewer sequences: --max-num-seqs {value} or less ({role}).").format(
                value=advice.value, role=role
            )
        else:
            text = _("To fit, spread it over more devices: {knob} {value}, {devices} NPUs ({role}).").format(
                knob=advice.knob, value=advice.value, devices=advice.devices, role=role
            )
        if advice.replicated:
            text = _("If the KV cache is on every chiplet: {advice}").format(advice=text)
        notes.append(text)
    return notes


def _summary(fit: memory.Fit, _: Translate) -> str:
    if fit.failed is not None:
        verdict = _("This selection is known to fail ({failed}). The figures below do not decide it.").format(
            failed=failed_text(fit.failed, _)
        )
        return f"{verdict} {_assumed(fit, _)}"
    if fit.served is not None:
        verdict = _(
            "This selection is known to run ({served}). The figures below explain it; they do not decide it."
        ).format(served=served_text(fit.served, _))
        return f"{verdict} {_assumed(fit, _)}"
    verdict = {
        True: _("Fits: every rank has memory left."),
        False: _("Does not fit: a rank needs more memory than its device has."),
        None: _("Whether it fits depends on an open question (below)."),
    }[fit.fits]
    if any(r.weights_bytes is None for r in fit.ranks):
        verdict = _("No verdict: the weights are not known.")
    elif fit.fits is None and "draft" in fit.caveats and not fit.open_questions:
        verdict = _("No confident verdict: the draft model's memory is not known (below).")
    return f"{verdict} {_assumed(fit, _)}"


def _assumed(fit: memory.Fit, _: Translate) -> str:
    rank = fit.ranks[0]
    return _(
        "{length} tokens (--max-model-len), blocks of {block}; each device may use {available} of its {device}."
    ).format(
        length=f"{fit.max_model_len:,}" if fit.max_model_len else "—",
        block=f"{fit.block_size:,}" if fit.block_size else "—",
        available=" / ".join(memory.gib(a) for a in sorted({r.available_bytes for r in fit.ranks})),  # by role
        device=memory.gib(rank.device_bytes),
    )


MISSING = ("sku", "block-size", "max-model-len")


def _missing_text(fit: memory.Fit, _: Translate) -> str:
    texts = {
        "sku": _("No memory figures: {sku} is not in the site's table of devices.").format(sku=fit.sku),
        "block-size": _("No memory figures: the commands set no --block-size, and vllm-rbln's default is not given."),
        "max-model-len": _("No memory figures: the commands set no --max-model-len."),
    }
    return texts[fit.missing or ""]


def observation_text(seen: memory.Seen, _: Translate) -> str:
    """One observation in words: what ran, what happened, and whether the figures agree (and by
    how much they disagree: never a verdict of their own then)."""
    length = f"{seen.max_model_len:,}" if seen.max_model_len else "—"
    if seen.kind == "verified":
        head = _("Verified on {sku} ({date}): the opening selection serves {model} at {length} tokens.").format(
            sku=seen.sku, date=seen.date, model=seen.model, length=length
        )
    elif seen.outcome == "serves":
        head = _("Seen on {sku}: {model} served at {length} tokens.").format(
            sku=seen.sku, model=seen.model, length=length
        )
    else:
        head = _("Seen on {sku}: {model} failed at {length} tokens ({error}).").format(
            sku=seen.sku, model=seen.model, length=length, error=seen.error or _("no error given")
        )
    if seen.agrees is None:
        return head + " " + _("The figures give no verdict for it.")
    if seen.agrees:
        return head + " " + _("The figures agree.")
    if seen.outcome == "serves":
        gap = _("they say a rank is {gap} short").format(gap=memory.gib(seen.gap or 0))
    else:
        gap = _("they leave {gap} free on every rank").format(gap=memory.gib(seen.gap or 0))
    return (
        head
        + " "
        + _(
            "The figures disagree: {gap}. No sourced fact explains the difference, so take neither as the answer "
            "for this case."
        ).format(gap=gap)
    )


def fit_views(target: TargetPage, _: Translate, seen: Sequence[memory.Seen] = ()) -> tuple[FitView, ...]:
    """One view per set of selections that share figures."""
    axes = target.table.axes
    views = []
    headers = FitHeaders(_("Ranks"), _("Weights"), _("KV cache"), _("Free"), _("Verdict"))
    here = [s for s in seen if (s.strategy, s.target) == (target.strategy.slug, target.target.target)]
    mine = tuple(observation_text(s, _) for s in here)
    # the opening selection was verified, yet the figures say it does not fit: they give no verdict
    # for it, nor for the selections whose figures are the same
    disputed = any(s.kind == "verified" and s.agrees is False for s in here)
    words = _verdict_words(_)
    for group in target.memory:
        fit = group.fit
        products = list(group.when) or [(None,) * len(axes)]
        title = _("Memory per NPU on {sku}").format(sku=fit.sku or "—")
        rows: list[FitRow] = []
        notes: tuple[str, ...] = ()
        if fit.missing in MISSING:
            summary = _missing_text(fit, _)
        elif fit.missing:
            continue
        else:
            layout = {}
            for command in target.commands_at(target.opening):
                flags = memory.Flags.of(command)
                layout[command.role] = (flags.dp, flags.pp)
            for ranks in memory.groups(fit):
                r = ranks.figures
                dp, pp = layout.get(ranks.role, (1, 1))
                verdict = fit.verdict if fit.verdict in ("served", "failed") else VERDICTS[r.fits]
                rows.append(
                    FitRow(
                        label=_label(ranks, role_title(ranks.role, _), dp, pp, _),
                        weights="—" if r.weights_bytes is None else memory.gib(r.weights_bytes),
                        kv_cache=memory.gib(r.kv_cache_bytes),
                        free=_free(r, fit, _),
                        verdict=verdict,
                        verdict_text=words[verdict],
                    )
                )
            summary, notes = _summary(fit, _), tuple(_notes(fit, _))
            if disputed and target.memory_at(target.opening) is fit:
                summary = _(
                    "The figures say it does not fit, but this selection was verified to serve: they disagree "
                    "(below), so take neither as the answer."
                )
                rows = [
                    dataclasses.replace(row, verdict="open", verdict_text=_("disagrees with what ran"))
                    if row.verdict == "no"
                    else row
                    for row in rows
                ]
        shown = tuple(rows)
        for product in products:
            views.append(
                FitView(
                    classes=tuple(hide_classes(product, axes)),
                    opening=admits(product, target.opening),
                    title=title,
                    summary=summary,
                    headers=headers,
                    rows=shown,
                    notes=notes,
                    observations=mine,
                )
            )
    return tuple(views)


def llms_lines(page: RecipePage, strategy_label: Callable[[str], str], _: Translate) -> list[str]:
    """Per target, the opening selection's figures in one line (for llms.txt)."""
    out = []
    for target in page.targets:
        fit = target.memory_at(target.opening)
        if fit is None or fit.missing or not fit.ranks:
            continue
        if fit.failed is not None:
            verdict = failed_text(fit.failed, _)
        elif fit.served is not None:
            verdict = served_text(fit.served, _)
        else:
            verdict = {True: _("fits"), False: _("does not fit"), None: _("open")}[fit.fits]
        kv = max(r.kv_cache_bytes for r in fit.ranks)
        weights = [r.weights_bytes for r in fit.ranks if r.weights_bytes is not None]
        text = _("{kv} KV cache, {weights} weights per NPU at most, on {sku}: {verdict}").format(
            kv=memory.gib(kv), weights=memory.gib(max(weights)) if weights else "—", sku=fit.sku, verdict=verdict
        )
        out.append(f"  - {strategy_label(target.strategy.label)} / {target.target.target}: {text}")
    return out
