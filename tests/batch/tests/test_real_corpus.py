"""The larger models of the vLLM Recipes sample, checked as tests/test_import.py checks the small ones:
every recorded choice gives their commands, and each recipe is refused only for the real problems
its commands have under the pinned vLLM. make test-batch adds this file to the suite (it imports
models of thousands of selections per target; make test keeps the small ones)."""

from __future__ import annotations

import pytest

import import_support as sample
from recipe_support import findings_planned_afresh
from recipebook.checking import manifests
from recipebook.problems import errors

# model: (fragments of its errors, fragments of its warnings): the real problems of their commands
# under the pinned vLLM. A VLLM_ name vLLM 0.30.0 does not read is a warning, as vLLM judges it
# (the server starts, the variable has no effect).
UNREAD = "is not an environment variable that vLLM 0.30.0 with vllm-rbln 0.12.0 reads (removed, or never vLLM's)"
LARGE = {
    "Qwen/Qwen3-235B-A22B-Instruct-2507": ([], [f"'VLLM_USE_FLASHINFER_MOE_FP4' {UNREAD}"]),
    "deepseek-ai/DeepSeek-R1": (
        [],  # its examples/ chat template: the values that give it are left out, and listed
        [f"'VLLM_USE_FLASHINFER_MOE_FP4' {UNREAD}", f"'VLLM_USE_FLASHINFER_MOE_FP8' {UNREAD}"],
    ),
    "MiniMaxAI/MiniMax-M3": ([], []),
}


def test_the_batch_checks_every_sample_model_the_fast_part_leaves_out():
    import test_import

    recorded = {entry["model"] for entry in sample.oracle()["entries"]}
    assert recorded == set(test_import.MODELS) | set(LARGE)


@pytest.mark.parametrize("model", sorted(LARGE))
def test_every_recorded_choice_gives_their_commands(model):
    assert sample.entries(model)
    sample.assert_their_commands(model)


@pytest.mark.parametrize("model", sorted(LARGE))
def test_an_imported_recipe_is_refused_only_for_real_problems(model):
    sample.assert_only_real_problems(model, *LARGE[model])


def test_their_underscored_field_spellings_are_warnings_and_the_recipe_is_built():
    problems = sample.assert_only_real_problems("MiniMaxAI/MiniMax-M3", *LARGE["MiniMaxAI/MiniMax-M3"])
    assert not errors(problems)
    assert any("write '--attention-config.backend'" in p.message and not p.is_error for p in problems)


@pytest.mark.parametrize("model", sorted({entry["model"] for entry in sample.oracle()["entries"]}))
def test_rules_19_and_28_find_what_planning_each_selection_afresh_finds(model):
    """Rules 19 and 28 make a role's plan key once per set of the lines its plan reads
    (kubernetes.plan_lines) that a selection shows: for every target of every sample model,
    what they find is what planning every selection afresh from all its commands finds."""
    recipe = sample.recipe(model)
    for strategy in recipe.strategies:
        for target in strategy.targets:
            made = manifests._findings_of_target(recipe, strategy, target, None)
            assert made == findings_planned_afresh(recipe, strategy, target), (strategy.slug, target.target)
