"""A selection seen to serve is not "open" (issue 40, item 4): an observation that served this
very selection (same strategy, target, SKU, checkpoint, --max-model-len, --max-num-seqs, draft
and every other flag the figures read) is the verdict, in the engine, the command line (text and
JSON) and the page model; the figures then explain it. Any other selection (another length,
batch, draft or SKU, a what-if) keeps the figures' own verdict.

The fixtures' facts: the A.X-K2 data-parallel Latency target was verified on RBLN-CR13 with its
EAGLE-3 draft, which has no facts (so the figures alone cannot say it fits); the FP8 checkpoint
was recorded to serve at 163,840 tokens from the target's base selection."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import recipebook
from recipe_support import AXK2_NAME, FIXTURES, GPT_NAME, check_mutated, fixture, in_process
from recipebook.expanding import memory, page
from recipebook.expanding.expansion import find

DP = "aggregated-data-expert-parallel"
FP8 = "skt/A.X-K2"
BASE = ("--set", "lmcache=off", "--set", "prefix_caching=off", "--set", "spec_decode=off")
AXK2 = str(FIXTURES / f"{AXK2_NAME}.json")


@pytest.fixture(scope="module")
def axk2():
    return recipebook.load(FIXTURES / f"{AXK2_NAME}.json")


def _verified(name: str, slug: str, target: str) -> str:
    data = fixture(name)
    (strategy,) = [s for s in data["strategies"] if s["slug"] == slug]
    return next(t["verified"] for t in strategy["options"] if t["target"] == target)


def _fit(recipe, slug, target, sets=None, **what_if):
    """The figures as the command line makes them: the settled readings, then the observations."""
    result = page.expand(recipe, slug, target, sets or {})
    skus = find(recipe, slug, target)[1].skus
    settled, seen = page.reconciled(recipe)
    figures = memory.fit(recipe.facts, skus, result.commands, settled=settled, **what_if)
    key = memory.selection_key(
        slug,
        target,
        figures.sku,
        result.commands,
        max_model_len=what_if.get("max_model_len"),
        max_num_seqs=what_if.get("max_num_seqs"),
        model=what_if.get("model"),
    )
    return memory.observed(figures, key, seen)


def _cli(capsys, *args):
    """fit by its main in this process, for a test of what it says: its exit statuses are seen
    from real processes in test_fit_observations.py's test_fit_exit_status_says_the_verdict."""
    return in_process(capsys, "fit", *args)


# -- the engine -------------------------------------------------------------------------------------


def test_the_verified_selection_is_served_not_open(axk2):
    fit = _fit(axk2, DP, "Latency")
    # without the observation the figures give no verdict: the draft has no facts
    assert fit.figures_fit is None and "draft" in fit.caveats
    assert fit.served is not None and fit.served.kind == "verified"
    assert fit.served.date == _verified(AXK2_NAME, DP, "Latency")
    assert fit.verdict == "served" and fit.fits is True and fit.advice == ()
    document = fit.to_json()
    assert document["verdict"] == "served" and document["fits"] is True and document["figures_fit"] is None
    assert document["served"]["date"] == fit.served.date


@pytest.mark.parametrize(
    ("sets", "what_if"),
    [
        ({}, {"max_model_len": 163840}),  # another length
        ({}, {"max_num_seqs": 2}),  # another batch
        ({}, {"sku": "RBLN-CR03"}),  # another device: verified on RBLN-CR13 only
        ({"spec_decode": "off"}, {}),  # another draft: none
        ({}, {"model": FP8}),  # another checkpoint
    ],
)
def test_another_selection_keeps_the_figures_verdict(axk2, sets, what_if):
    fit = _fit(axk2, DP, "Latency", sets, **what_if)
    assert fit.served is None and fit.verdict != "served" and fit.fits == fit.figures_fit


def test_a_recorded_serve_settles_its_own_selection(axk2):
    sets = {"lmcache": "off", "prefix_caching": "off", "spec_decode": "off"}
    fit = _fit(axk2, DP, "Latency", sets, model=FP8, max_model_len=163840)
    assert fit.served is not None and fit.served.kind == "recorded"
    assert fit.served.sources == tuple(fixture(AXK2_NAME)["facts"]["observations"][1]["source"])
    # the recorded failure at 262,144 is no serve
    failed = _fit(axk2, DP, "Latency", sets, model=FP8)
    assert failed.served is None


def test_a_recorded_failure_settles_its_own_selection_against_the_figures(axk2):
    """FP8 at 262,144 tokens from the base selection failed (SYS_EBUSY: lack of device memory),
    though the figures leave memory free on every rank: it is "failed", not "fits"; the figures
    keep their own verdict beside it, and the same selection at another length is not failed."""
    sets = {"lmcache": "off", "prefix_caching": "off", "spec_decode": "off"}
    fit = _fit(axk2, DP, "Latency", sets, model=FP8)
    (observation,) = [o for o in fixture(AXK2_NAME)["facts"]["observations"] if o["outcome"] == "fails"]
    assert fit.failed is not None and fit.failed.error == observation["error"]
    assert fit.failed.sources == tuple(observation["source"])
    assert fit.verdict == "failed" and fit.fits is False and fit.figures_fit is True
    shorter = _fit(axk2, DP, "Latency", sets, model=FP8, max_model_len=131072)
    assert shorter.failed is None and shorter.verdict == memory.VERDICT_WORDS[shorter.figures_fit]


@settings(max_examples=40, deadline=None)
@given(
    length=st.integers(1, memory.LARGEST_ASK).filter(lambda n: n != 262144),
    seqs=st.one_of(st.none(), st.integers(2, 4096)),
)
def test_a_what_if_never_inherits_the_observation(axk2, length, seqs):
    """The verified selection serves 262,144 tokens, one sequence at a time, and FP8 failed there
    from the base selection: any other value asked is another selection, whatever the figures say
    of it."""
    fit = _fit(axk2, DP, "Latency", max_model_len=length, max_num_seqs=seqs)
    assert fit.served is None and fit.verdict == memory.VERDICT_WORDS[fit.figures_fit]
    sets = {"lmcache": "off", "prefix_caching": "off", "spec_decode": "off"}
    fp8 = _fit(axk2, DP, "Latency", sets, model=FP8, max_model_len=length, max_num_seqs=seqs)
    assert fp8.failed is None and fp8.verdict in (memory.VERDICT_WORDS[fp8.figures_fit], "served")


def test_a_what_if_of_the_commands_own_values_is_the_same_selection(axk2):
    fit = _fit(axk2, DP, "Latency", max_model_len=262144, max_num_seqs=1)
    assert fit.verdict == "served"


def test_the_page_gives_the_verdict_to_the_observed_selections_only(axk2):
    recipe_page = page.page_of(axk2)
    target = recipe_page.target(DP, "Latency")
    opening = target.memory_at(target.opening)
    assert opening is not None and opening.verdict == "served"
    own = {(c.role, memory.Flags.of(c)) for c in target.opening_commands()}
    served = 0
    for chosen in target.table.offered:
        fit = target.memory_at(chosen)
        same = {(c.role, memory.Flags.of(c)) for c in target.commands_at(chosen)} == own
        assert (fit.served is not None) is same, target.selection(chosen)
        served += same
    assert 0 < served < len(target.table.offered)


def test_figures_that_contradict_the_observation_give_no_verdict(tmp_path):
    """A verified selection the figures say cannot fit is a disagreement shown with its size,
    never a confident answer (not "served", not "does not fit")."""

    def mutate(data):
        facts = data["facts"]
        facts["checkpoints"][0]["size"] = 2**44
        facts.pop("observations")
        facts["checkpoints"].pop(1)
        for source in ("dynamo-axk2", "rbln-axk2-notes"):
            facts["sources"].pop(source)

    checked = check_mutated(tmp_path, AXK2_NAME, mutate)
    assert checked.problems == []
    fit = _fit(checked.recipe, DP, "Latency")
    assert fit.served is None and fit.figures_fit is False


# -- the command line ----------------------------------------------------------------------------------


def test_fit_says_served_as_verified_and_exits_0(capsys):
    result = _cli(capsys, AXK2, "--strategy", DP, "--target", "Latency")
    date = _verified(AXK2_NAME, DP, "Latency")
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"verdict: served as verified: {date}" in result.stdout
    assert ": open" not in result.stdout  # no rank is called open
    document = json.loads(_cli(capsys, AXK2, "--strategy", DP, "--target", "Latency", "--format", "json").stdout)
    assert document["verdict"] == "served" and document["served"]["kind"] == "verified"


def test_fit_says_served_as_recorded_with_its_source(capsys):
    result = _cli(
        capsys, AXK2, "--strategy", DP, "--target", "Latency", *BASE, "--checkpoint", FP8, "--max-model-len", "163840"
    )
    assert result.returncode == 0
    (source,) = fixture(AXK2_NAME)["facts"]["observations"][1]["source"]
    assert f"verdict: served as recorded: {source}" in result.stdout


def test_fit_says_failed_as_recorded_with_its_error_and_exits_1(capsys):
    args = (AXK2, "--strategy", DP, "--target", "Latency", *BASE, "--checkpoint", FP8)
    result = _cli(capsys, *args)
    assert result.returncode == 1, result.stdout + result.stderr
    (observation,) = [o for o in fixture(AXK2_NAME)["facts"]["observations"] if o["outcome"] == "fails"]
    (source,) = observation["source"]
    assert f"verdict: failed as recorded: {source}" in result.stdout and observation["error"] in result.stdout
    assert ": fits" not in result.stdout  # no rank is called fitting
    document = json.loads(_cli(capsys, *args, "--format", "json").stdout)
    assert document["verdict"] == "failed" and document["fits"] is False and document["figures_fit"] is True
    assert document["failed"]["error"] == observation["error"] and document["served"] is None


@pytest.mark.parametrize(
    ("name", "args"),
    [
        (AXK2_NAME, ("--strategy", DP, "--target", "Latency", "--max-model-len", "163840")),
        (GPT_NAME, ("--strategy", "aggregated", "--target", "Latency", "--max-model-len", "65536")),
    ],
)
def test_a_what_if_on_the_command_line_stays_open(name, args, capsys):
    result = _cli(capsys, str(FIXTURES / f"{name}.json"), *args)
    assert result.returncode == 3 and "served as" not in result.stdout and ": open" in result.stdout
    assert "draft" in result.stdout
