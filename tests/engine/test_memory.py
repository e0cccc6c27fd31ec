"""The memory figures ("will it fit?"): the engine (memory.py), the facts' rules (facts.py) and
the CLI's fit command.

Expected numbers are computed here from the sourced facts (../shared/FIT-FACTS.md, quoted in
the constants below), never read back from the engine: A.X-K2 has 61 layers of sparse MLA whose
KV cache holds a 512-wide latent, a 64-wide rope part and a 128-wide indexer key, all BF16;
vllm-rbln keeps cdiv(max_model_len, block_size) blocks for one request plus one null block;
an RBLN-CR13 card has 144 GiB of which the system keeps 4 GiB.
"""

from __future__ import annotations

import copy
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_cli import LOCATED, no_traceback

import recipebook
from recipe_support import AXK2_NAME, FIXTURES, GPT_NAME, check_mutated, fixture, in_process, write
from recipebook.expanding import memory, page
from recipebook.expanding.expansion import find

GIB, MIB = 2**30, 2**20
# FIT-FACTS.md, "RBLN devices": REBEL card 144 GiB, 4 GiB reserved, four chiplets.
CR_CARD, CR_RESERVED, CR_CHIPLETS = 144 * GIB, 4 * GIB, 4
# FIT-FACTS.md, "How vllm-rbln sizes the KV cache" and "The anchor".
AXK2_LAYERS, AXK2_LATENT, AXK2_ROPE, AXK2_INDEXER, BF16 = 61, 512, 64, 128, 2
ANCHOR = {262144: 22_690_922_496, 163840: 14_247_788_544}
# FIT-FACTS.md, "Model facts": gpt-oss-120b.
GPT_LAYERS, GPT_SLIDING, GPT_KV_HEADS, GPT_HEAD_DIM = 36, 18, 8, 64
GPT_U8, GPT_BF16 = 60_914_073_600, 4_334_742_144

DP, PP = "aggregated-data-expert-parallel", "aggregated-pipeline-parallel"


def flag(command, name: str) -> str | None:
    """A flag's value as the command's own text gives it (read here, not by the engine)."""
    for text in command.args:
        words = text.split()
        if words[0] == name:
            return words[1] if len(words) > 1 else ""
    return None


def axk2_kv(layers: int, max_model_len: int, block_size: int) -> int:
    per_token = (AXK2_LATENT + AXK2_ROPE + AXK2_INDEXER) * BF16
    return layers * per_token * block_size * (-(-max_model_len // block_size) + 1)


def figures(recipe, slug: str, target: str, **what_if):
    _strategy, chosen = find(recipe, slug, target)
    result = page.expand(recipe, slug, target)
    return result, memory.fit(recipe.facts, chosen.skus, result.commands, **what_if)


@pytest.fixture(scope="module")
def axk2():
    return recipebook.load(FIXTURES / f"{AXK2_NAME}.json")


@pytest.fixture(scope="module")
def gpt():
    return recipebook.load(FIXTURES / f"{GPT_NAME}.json")


# -- the KV cache --------------------------------------------------------------------------------


@pytest.mark.parametrize("length", sorted(ANCHOR))
def test_the_anchor_to_the_byte_on_every_data_parallel_rank(axk2, length):
    result, fit = figures(axk2, DP, "Latency", max_model_len=length)
    command = result.commands[0]
    block = int(flag(command, "--block-size"))
    expected = axk2_kv(AXK2_LAYERS, length, block)
    assert expected == ANCHOR[length]  # the sourced formula is the recipe's prose figure
    assert [r.kv_cache_bytes for r in fit.ranks] == [expected] * int(flag(command, "--data-parallel-size"))
    assert {r.kv_blocks for r in fit.ranks} == {length // block + 1}
    assert fit.max_model_len == length


def test_a_pipeline_rank_holds_only_its_layers(axk2):
    slug = PP
    target = axk2.strategy(slug).targets[0].target
    result, fit = figures(axk2, slug, target)
    command = result.commands[0]
    pp = int(flag(command, "--pipeline-parallel-size"))
    length, block = int(flag(command, "--max-model-len")), int(flag(command, "--block-size"))
    # vLLM's get_pp_indices: the remainder goes to the stages before the last, second-last first
    counts = [AXK2_LAYERS // pp] * pp
    for i in range(2, AXK2_LAYERS % pp + 2):
        counts[-i] += 1
    assert [r.layers for r in fit.ranks] == counts and sum(counts) == AXK2_LAYERS
    assert [r.kv_cache_bytes for r in fit.ranks] == [axk2_kv(n, length, block) for n in counts]
    assert max(r.kv_cache_bytes for r in fit.ranks) < axk2_kv(AXK2_LAYERS, length, block)


def test_sliding_window_layers_keep_one_block_per_request(gpt):
    for target in gpt.strategies[0].targets:
        result, fit = figures(gpt, gpt.strategies[0].slug, target.target)
        command = result.commands[0]
        length, block = int(flag(command, "--max-model-len")), int(flag(command, "--block-size"))
        seqs = int(flag(command, "--max-num-seqs"))
        full = GPT_LAYERS - GPT_SLIDING
        group = min(full, GPT_SLIDING)  # the hybrid allocator's groups share one pool
        one_request = -(-length // block) + 1  # every block of the full group, one of the sliding one
        blocks = 1 + max(one_request, seqs * 2)
        per_token = 2 * GPT_KV_HEADS * GPT_HEAD_DIM * BF16
        (rank,) = fit.ranks
        assert rank.kv_cache_bytes == group * per_token * block * blocks
        assert rank.kv_replicas == 1 and not fit.open_questions  # 8 KV heads over 4 chiplets


def expected_runtimes(command) -> int:
    """vllm-rbln 0.12.0 rbln_worker.determine_available_memory, one decode bucket (its default):
    prefill + one decode runtime per decode query length (eagle3 keeps one: a fixed window),
    the specialized MoE decode runtimes when data parallel, a draft model's two (three with MoE)."""
    spec = next((text for text in command.args if text.startswith("--speculative-config")), None)
    method = json.loads(spec.split(" ", 1)[1].strip("'"))["method"] if spec else None
    lengths = 2 if method and method not in ("eagle", "eagle3", "mtp") else 1
    moe = int(flag(command, "--data-parallel-size") or 1) > 1
    count = 1 + lengths + ((lengths + (lengths == 2)) if moe else 0)
    if method == "eagle3":
        count += 2 + moe
    return count


def test_available_memory_is_the_usable_card_times_the_utilization(gpt):
    for target in gpt.strategies[0].targets:
        for sets in ({}, {"spec_decode": "off"}, {"spec_decode": "suffix"}):
            _strategy, chosen = find(gpt, gpt.strategies[0].slug, target.target)
            result = page.expand(gpt, gpt.strategies[0].slug, target.target, sets)
            fit = memory.fit(gpt.facts, chosen.skus, result.commands)
            utilization = float(flag(result.commands[0], "--gpu-memory-utilization") or 0.9)  # vLLM's default
            (rank,) = fit.ranks
            assert rank.available_bytes == int((CR_CARD - CR_RESERVED) * utilization)
            assert rank.runtime_bytes == 256 * MIB * expected_runtimes(result.commands[0]) * CR_CHIPLETS


def test_weights_from_the_checkpoint_bytes(gpt):
    _result, fit = figures(gpt, gpt.strategies[0].slug, gpt.strategies[0].targets[0].target)
    data = fixture(GPT_NAME)["facts"]["architecture"]
    head = -(-data["vocabSize"] // 64) * 64 * data["hiddenSize"] * 2
    layers = GPT_U8 + GPT_BF16 - 2 * head  # the embedding stays off the device
    granule = 2 * MIB
    per_layer = -(-layers // GPT_LAYERS)  # vllm-rbln aligns each layer's share
    expected = -(-per_layer // granule) * granule * GPT_LAYERS + -(-head // granule) * granule
    (rank,) = fit.ranks
    assert rank.weights_bytes == expected
    assert rank.free_bytes == rank.available_bytes - expected - rank.runtime_bytes - rank.kv_cache_bytes
    assert rank.fits in ((rank.free_bytes >= 0), None)
    assert "draft" in fit.caveats and rank.draft_bytes is None  # the opening selection's EAGLE-3 draft has no facts


def test_one_kv_head_on_four_chiplets_is_an_open_question_until_observed(axk2):
    result = page.expand(axk2, DP, "Latency")
    fit = memory.fit(axk2.facts, ("RBLN-CR13",), result.commands)  # no observation held
    assert fit.open_questions == ("rsd-replication",) and fit.settled == ()
    assert fit.open_questions == ("rsd-replication",)
    for rank in fit.ranks:
        assert rank.kv_replicas == CR_CHIPLETS  # MLA counts as one KV head: max(1, 4 // 1)
        assert rank.free_if_replicated_bytes == rank.free_bytes - (CR_CHIPLETS - 1) * rank.kv_cache_bytes
        if (rank.free_bytes >= 0) != (rank.free_if_replicated_bytes >= 0):
            assert rank.fits is None  # said, not guessed


def test_what_if_too_long_says_which_knob(axk2):
    result, base = figures(axk2, DP, "Latency")
    block = int(flag(result.commands[0], "--block-size"))
    huge = 64 * base.max_model_len
    _result, fit = figures(axk2, DP, "Latency", max_model_len=huge)
    assert fit.fits is False and all(r.free_bytes < 0 for r in fit.ranks)
    advice = {a.knob: a for a in fit.advice}
    more = advice["--pipeline-parallel-size"]
    assert more.direction == "up" and more.devices == more.value * int(flag(result.commands[0], "--data-parallel-size"))
    shorter = advice["--max-model-len"]
    assert shorter.direction == "down" and shorter.value % block == 0
    rank = fit.ranks[0]
    room = rank.available_bytes - rank.weights_bytes - rank.runtime_bytes
    assert axk2_kv(AXK2_LAYERS, shorter.value, block) <= room < axk2_kv(AXK2_LAYERS, shorter.value + block, block)


@settings(max_examples=40, deadline=None)
@given(layers=st.integers(1, 200), pp=st.integers(1, 16))
def test_stages_share_the_layers(layers, pp):
    counts = memory.stage_layers(layers, pp)
    assert sum(counts) == layers and len(counts) == pp and max(counts) - min(counts) <= 1
    assert counts[-1] == layers // pp  # the last stage (LM head) takes no extra layer


@settings(max_examples=40, deadline=None)
@given(blocks=st.integers(1, 400), block=st.sampled_from([16, 128, 1024, 2048, 4096]), seqs=st.integers(1, 4))
def test_full_attention_pool_is_one_request_or_one_batch_plus_the_null_block(blocks, block, seqs):
    tensors, needed = memory.kv_blocks(AXK2_LAYERS, 0, blocks * block, block, seqs)
    assert tensors == AXK2_LAYERS and needed == 1 + max(blocks, seqs)
    assert memory.kv_blocks(AXK2_LAYERS, 0, blocks * block - 1, block, seqs)[1] == 1 + max(blocks, seqs)


# -- no figures, said why ------------------------------------------------------------------------


def test_a_recipe_without_facts_is_valid_and_has_no_figures(tmp_path):
    checked = check_mutated(tmp_path, AXK2_NAME, lambda data: data.pop("facts"))
    assert checked.problems == [] and checked.recipe.facts is None
    _result, fit = figures(checked.recipe, DP, "Latency")
    assert fit.missing == "facts" and fit.ranks == () and fit.fits is None


def test_a_sku_not_in_the_table_has_no_figures(axk2):
    result = page.expand(axk2, DP, "Latency")
    fit = memory.fit(axk2.facts, ("RBLN-ZZ99",), result.commands)
    assert fit.missing == "sku" and fit.ranks == ()


def test_no_block_size_is_not_guessed(tmp_path):
    def mutate(data):
        for role in data["strategies"][0]["options"][0]["grid"]["base"]:
            role["args"].pop("--block-size")

    checked = check_mutated(tmp_path, AXK2_NAME, mutate)
    assert checked.recipe is not None, checked.problems
    _result, fit = figures(checked.recipe, DP, "Latency")
    assert fit.missing == "block-size"


def test_a_checkpoint_without_a_size_still_gives_the_kv_cache(tmp_path):
    def mutate(data):
        for checkpoint in data["facts"].pop("checkpoints"):
            for source in checkpoint["source"]:
                data["facts"]["sources"].pop(source, None)

    checked = check_mutated(tmp_path, GPT_NAME, mutate)
    assert checked.problems == []
    strategy = checked.recipe.strategies[0]
    _result, fit = figures(checked.recipe, strategy.slug, strategy.targets[0].target)
    (rank,) = fit.ranks
    assert rank.weights_bytes is None and rank.fits is None and rank.kv_cache_bytes > 0
    assert "no-checkpoint" in fit.caveats


# -- broken facts, located -----------------------------------------------------------------------

ARCH = "/facts/architecture"


def _drop(*names):
    def mutate(data):
        for name in names:
            data["facts"]["architecture"].pop(name)

    return mutate


@pytest.mark.parametrize(
    ("name", "mutate", "pointer", "fragment", "key"),
    [
        (AXK2_NAME, _drop("kvLoraRank"), f"{ARCH}/attention", "MLA attention needs the latent and rope widths", False),
        (
            AXK2_NAME,
            lambda d: d["facts"]["architecture"].update(kvHeads=8),
            f"{ARCH}/kvHeads",
            "does not apply to MLA",
            True,
        ),
        (GPT_NAME, _drop("headDim"), f"{ARCH}/attention", "needs the KV heads and the head size", False),
        (
            GPT_NAME,
            lambda d: d["facts"]["architecture"]["slidingWindow"].update(layers=37),
            f"{ARCH}/slidingWindow/layers",
            "37 sliding-window layers, but the model has 36 layers",
            False,
        ),
        (
            GPT_NAME,
            lambda d: d["facts"]["architecture"].update(indexHeadDim=128),
            f"{ARCH}/indexHeadDim",
            "applies to MLA attention only",
            True,
        ),
        (
            GPT_NAME,
            lambda d: d["facts"]["architecture"]["source"].append("nowhere"),
            f"{ARCH}/source/2",
            "source 'nowhere' is not in facts.sources",
            False,
        ),
        (
            GPT_NAME,
            lambda d: d["facts"]["checkpoints"][0].update(size=1),
            "/facts/checkpoints/0",
            "bytes by dtype or its size, one of the two",
            False,
        ),
        (
            GPT_NAME,
            lambda d: d["facts"]["checkpoints"][0].update(model="openai/gpt-oss-20b"),
            "/facts/checkpoints/0/model",
            "no target serves 'openai/gpt-oss-20b'",
            False,
        ),
        (GPT_NAME, _drop("vocabSize"), f"{ARCH}/hiddenSize", "hiddenSize without vocabSize", True),
    ],
)
def test_broken_facts_are_located(tmp_path, name, mutate, pointer, fragment, key):
    checked = check_mutated(tmp_path, name, mutate)
    checked.expect_only(pointer, fragment, key=key)


def test_an_unused_source_is_located(tmp_path):
    def mutate(data):
        data["facts"]["sources"]["spare"] = {"title": "nothing", "url": "https://example.org/"}

    checked = check_mutated(tmp_path, GPT_NAME, mutate)
    checked.expect_only("/facts/sources/spare", "backs no fact", key=True)


def test_a_negative_byte_count_is_a_schema_problem(tmp_path):
    checked = check_mutated(tmp_path, GPT_NAME, lambda d: d["facts"]["checkpoints"][0]["bytes"].update(U8=-1))
    assert checked.recipe is None
    assert [p.pointer for p in checked.ours] == ["/facts/checkpoints/0/bytes/U8"]


# -- the command line ------------------------------------------------------------------------------


@pytest.mark.parametrize("length", sorted(ANCHOR))
def test_cli_fit_json_per_rank(length, capsys):
    result = in_process(
        capsys,
        "fit",
        str(FIXTURES / f"{AXK2_NAME}.json"),
        "--strategy",
        DP,
        "--target",
        "Latency",
        "--max-model-len",
        length,
        "--set",
        "spec_decode=off",
        "--format",
        "json",
    )
    no_traceback(result)
    assert result.returncode == 0, result.stderr  # fits: the verified selection settled the open question
    document = json.loads(result.stdout)
    assert document["recipe"] == AXK2_NAME and document["max_model_len"] == length
    assert {r["kv_cache_bytes"] for r in document["ranks"]} == {ANCHOR[length]}
    for rank in document["ranks"]:
        assert {"kv_cache_bytes", "weights_bytes", "available_bytes", "fits"} <= rank.keys()


def test_cli_fit_text_names_the_figures(capsys):
    result = in_process(
        capsys,
        "fit",
        str(FIXTURES / f"{AXK2_NAME}.json"),
        "--strategy",
        DP,
        "--target",
        "Latency",
        "--max-model-len",
        163840,
        "--set",
        "spec_decode=off",
    )
    assert result.returncode == 0, result.stderr
    assert "what if: --max-model-len 163840 (the commands: 262144)" in result.stdout
    assert f"{ANCHOR[163840]:,} B ({ANCHOR[163840] / GIB:.1f} GiB)" in result.stdout


def test_cli_fit_refuses_broken_facts_at_their_line(tmp_path, capsys):
    data = copy.deepcopy(fixture(AXK2_NAME))
    data["facts"]["architecture"].pop("qkRopeHeadDim")
    path, dumped = write(tmp_path, data)
    result = in_process(capsys, "fit", path, "--strategy", DP, "--target", "Latency")
    no_traceback(result)
    assert result.returncode == 1
    (line,) = result.stderr.strip().splitlines()
    match = LOCATED.match(line)
    assert match and match["pointer"] == f"{ARCH}/attention"
    assert (int(match["line"]), int(match["column"])) == dumped.values[f"{ARCH}/attention"]


@pytest.mark.parametrize(
    "args",
    [
        ("--strategy", "nope", "--target", "Latency"),
        ("--strategy", DP, "--target", "Latency", "--max-model-len", "0"),
        ("--strategy", DP, "--target", "Latency", "--set", "lmcache=zzz"),
    ],
)
def test_cli_fit_selection_errors_exit_2(args, capsys):
    result = in_process(capsys, "fit", str(FIXTURES / f"{AXK2_NAME}.json"), *args)
    no_traceback(result)
    assert result.returncode == 2 and result.stderr


def test_the_page_model_has_figures_only_with_facts(tmp_path, axk2):
    for target in page.page_of(axk2).targets:
        for chosen in target.table.offered:
            fit = target.memory_at(chosen)
            settled, seen = page.reconciled(axk2)
            commands = target.commands_at(chosen)
            expected = memory.fit(axk2.facts, target.target.skus, commands, settled=settled)
            # the verdict of a selection seen to serve is the observation's (test_fit_served.py)
            key = memory.selection_key(target.strategy.slug, target.target.target, expected.sku, commands)
            assert fit == memory.observed(expected, key, seen)
    checked = check_mutated(tmp_path, AXK2_NAME, lambda data: data.pop("facts"))
    assert all(t.memory == () and t.memory_at(t.opening) is None for t in page.page_of(checked.recipe).targets)
