"""Rules 29 and 30 (issue 39's leftovers): what a selection asks of a node, and what it gives
vLLM's scheduler.

Rule 29's expectations are computed here from the commands' flags (tensor x pipeline parallel x
the local data-parallel ranks of each node's command); rule 30's from the condition vLLM 0.30.0's
``SchedulerConfig.verify_max_model_len`` states (``vllm/config/scheduler.py``):

    if max_num_batched_tokens < max_model_len and not enable_chunked_prefill: raise
    if max_num_batched_tokens < max_num_seqs: raise

``make crosscheck`` holds the rule against the real SchedulerConfig on 945 commands at the edges
of these conditions (tools/crosscheck/scheduling.py)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import recipebook
from recipe_support import AXK2_NAME, GPT_NAME, Checked, check_mutated, write
from recipebook.checking import capacity
from recipebook.expanding.expansion import Line

ROOT = Path(__file__).resolve().parents[2]
MULTINODE = ROOT / "tests" / "data" / "multinode" / "Kimi-K2-Instruct.json"
DP = 2  # the multinode fixture's data + expert parallel strategy: 16 ranks, 8 on each of 2 nodes
GPT_BASE = "/strategies/0/options/0/grid/base/0"


def _multinode(tmp_path: Path, mutate) -> Checked:
    data = json.loads(MULTINODE.read_text(encoding="utf-8"))
    data["$schema"] = "schema.json"
    mutate(data)
    (tmp_path / "schema.json").write_bytes((ROOT / "recipes" / "schema.json").read_bytes())
    path, dumped = write(tmp_path, data)
    recipe, problems = recipebook.check_file(path)
    return Checked(path=path, dumped=dumped, recipe=recipe, problems=problems)


def _rule(checked: Checked, number_words: str) -> list:
    return [p for p in checked.problems if number_words in p.message]


# -- rule 29: a node's NPUs ---------------------------------------------------------------------------


@pytest.mark.parametrize("per_node", [1, 4, 7, 8, 9, 16])
def test_a_node_asked_for_more_npus_than_it_has_is_refused(tmp_path, per_node):
    data = json.loads(MULTINODE.read_text(encoding="utf-8"))
    target = data["strategies"][DP]["options"][0]
    args = target["grid"]["base"][0]["args"]
    asked = int(args["--data-parallel-size-local"].split()[1])  # tensor and pipeline parallel 1

    def mutate(d):
        d["strategies"][DP]["options"][0]["npusPerNode"] = per_node

    checked = _multinode(tmp_path, mutate)
    pointer = f"/strategies/{DP}/options/0/npusPerNode"
    if per_node >= asked:
        assert checked.problems == [] and checked.recipe is not None
    else:
        found = checked.expect(pointer, f"node 1 is asked for {asked} NPUs")
        checked.expect(pointer, f"node 2 is asked for {asked} NPUs")
        assert f"npusPerNode says its machine has {per_node}" in found.message
        assert checked.recipe is None


def test_a_split_data_parallel_server_that_outgrows_its_nodes_is_refused(tmp_path):
    """Tensor parallel 4 on each of 8 local data-parallel ranks asks a node for 32 NPUs: on
    machines of 8 it cannot start (the shape of issue 39's split DEP targets)."""

    def mutate(d):
        target = d["strategies"][DP]["options"][0]
        target["npusPerNode"] = 8
        target["npus"] = 64  # rule 26: what the commands use, all nodes'
        target["grid"]["base"][0]["args"]["--tensor-parallel-size"] = "--tensor-parallel-size 4"

    checked = _multinode(tmp_path, mutate)
    checked.expect(f"/strategies/{DP}/options/0/npusPerNode", "node 1 is asked for 32 NPUs (main 32")
    assert len(checked.ours) == 2  # each node, once


def test_roles_on_their_own_nodes_are_counted_per_node(tmp_path):
    """A.X-K2's prefill/decode: prefill's 8-stage pipeline on node 1, decode's eight 1-NPU ranks
    on node 2: 8 NPUs a node, not 16."""

    def fits(data):
        data["strategies"][2]["options"][0]["npusPerNode"] = 8

    assert check_mutated(tmp_path, AXK2_NAME, fits).problems == []

    def short(data):
        data["strategies"][2]["options"][0]["npusPerNode"] = 7

    checked = check_mutated(tmp_path, AXK2_NAME, short)
    checked.expect("/strategies/2/options/0/npusPerNode", "node 1 is asked for 8 NPUs (prefill 8")
    checked.expect("/strategies/2/options/0/npusPerNode", "node 2 is asked for 8 NPUs (decode 1, decode 1")


def test_without_npus_per_node_nothing_is_assumed(tmp_path):
    """No SKU fixes a node's size: a target that does not state it is not judged."""
    data = json.loads(MULTINODE.read_text(encoding="utf-8"))
    assert all("npusPerNode" not in t for s in data["strategies"] for t in s["options"])
    checked = _multinode(tmp_path, lambda d: None)
    assert _rule(checked, "npusPerNode") == []


def test_npus_per_node_is_a_whole_count(tmp_path):
    checked = _multinode(tmp_path, lambda d: d["strategies"][DP]["options"][0].update(npusPerNode=0))
    checked.expect(f"/strategies/{DP}/options/0/npusPerNode", "minimum")


# -- rule 30: what vLLM's SchedulerConfig accepts -------------------------------------------------------


def _gpt(tmp_path, **args) -> Checked:
    def mutate(data):
        base = data["strategies"][0]["options"][0]["grid"]["base"][0]["args"]
        for key, text in args.items():
            flag = "--" + key.replace("_", "-")
            if text is None:
                base.pop(flag, None)
            else:
                base[flag] = f"{flag} {text}".strip() if text != "" else flag

    return check_mutated(tmp_path, GPT_NAME, mutate)


def test_fewer_batched_tokens_than_sequences_is_refused_at_the_line(tmp_path):
    checked = _gpt(tmp_path, max_num_batched_tokens="512", max_num_seqs="513")
    found = checked.expect_only(f"{GPT_BASE}/args/--max-num-seqs", "is less than --max-num-seqs 513")
    assert "--max-num-batched-tokens 512" in found.message and "SchedulerConfig" in found.message


@pytest.mark.parametrize("seqs", ["511", "512"])
def test_as_many_batched_tokens_as_sequences_or_more_is_accepted(tmp_path, seqs):
    checked = _gpt(tmp_path, max_num_batched_tokens="512", max_num_seqs=seqs)
    assert checked.problems == []


def test_the_option_that_makes_the_pair_wrong_is_pointed_at(tmp_path):
    """Kimi-K3's case: the base gives --max-num-batched-tokens 32, an option --max-num-seqs 256."""

    def mutate(data):
        grid = data["strategies"][0]["options"][0]["grid"]
        grid["base"][0]["args"]["--max-num-batched-tokens"] = "--max-num-batched-tokens 32"
        grid["deltas"]["tool_calling=off"]["main"]["add_args"]["--max-num-seqs"] = "--max-num-seqs 256"

    checked = check_mutated(tmp_path, GPT_NAME, mutate)
    pointer = "/strategies/0/options/0/grid/deltas/tool_calling=off/main/add_args/--max-num-seqs"
    found = checked.expect_only(pointer, "--max-num-batched-tokens 32 is less than --max-num-seqs 256")
    assert "tool_calling=off" in found.message


def test_chunked_prefill_off_needs_a_whole_prompt_per_step(tmp_path):
    # the fixture serves --max-model-len 131072 with --max-num-batched-tokens 512
    off = _gpt(tmp_path, no_enable_chunked_prefill="")
    off.expect_only(f"{GPT_BASE}/args/--max-num-batched-tokens", "is less than --max-model-len 131072")


@pytest.mark.parametrize(
    "args",
    [
        {"enable_chunked_prefill": ""},  # on, as vLLM's default
        {"no_enable_chunked_prefill": "", "max_num_batched_tokens": "131072"},
        {"no_enable_chunked_prefill": "", "max_model_len": "auto"},  # the model's length: not known here
        {"max_num_batched_tokens": None, "max_num_seqs": "4096"},  # left to vLLM: its default is not judged
        {"max_num_seqs": None, "max_num_batched_tokens": "16"},  # vLLM lowers its default batch to 16
    ],
)
def test_what_vllm_accepts_or_decides_itself_is_not_refused(tmp_path, args):
    assert _rule(_gpt(tmp_path, **args), "SchedulerConfig") == []


def _vllm_refuses(batched: int, seqs: int, length: int | None, chunked: bool | None) -> bool:
    """vLLM 0.30.0's condition, with the class's defaults for what the command leaves out
    (enable_chunked_prefill True; the model's length unknown: the first test cannot fail)."""
    on = True if chunked is None else chunked
    return (length is not None and batched < length and not on) or batched < seqs


@settings(max_examples=200, deadline=None)
@given(
    batched=st.integers(1, 2**20),
    seqs=st.integers(1, 2**20),
    length=st.one_of(st.none(), st.integers(1, 2**21)),
    chunked=st.sampled_from([None, True, False]),
    order=st.booleans(),
)
def test_the_rule_is_vllms_condition(batched, seqs, length, chunked, order):
    lines = [
        Line(kind="arg", slot=(0,), key="--max-num-batched-tokens", text=f"--max-num-batched-tokens {batched}"),
        Line(kind="arg", slot=(1,), key="--max_num_seqs", text=f"--max_num_seqs {seqs}"),  # as vLLM reads it
    ]
    if length is not None:
        lines.append(Line(kind="arg", slot=(2,), key="--max-model-len", text=f"--max-model-len {length}"))
    if chunked is not None:
        flag = "--enable-chunked-prefill" if chunked else "--no-enable-chunked-prefill"
        lines.append(Line(kind="arg", slot=(3,), key=flag, text=flag))
    if order:
        lines.reverse()
    assert bool(capacity.Scheduling.of(lines).refusals()) is _vllm_refuses(batched, seqs, length, chunked)


def test_the_last_chunked_prefill_flag_wins():
    on, off = "--enable-chunked-prefill", "--no-enable-chunked-prefill"
    lines = [Line(kind="arg", slot=(i,), key=k, text=k) for i, k in enumerate((on, off))]
    assert capacity.Scheduling.of(lines).chunked is False
    assert capacity.Scheduling.of(list(reversed(lines))).chunked is True


def test_the_crosscheck_cases_reach_both_edges():
    """The cases make crosscheck hand vLLM: each condition met and missed by one."""
    from tools.crosscheck import scheduling  # the repository root is on pytest's path

    cases = scheduling.cases()
    read = [capacity.Scheduling.of(scheduling._lines(argv)) for argv in cases]
    pairs = {(s.batched - s.seqs) for s in read if s.batched is not None and s.seqs is not None}
    assert {-1, 0, 1} <= pairs
    lengths = {(s.batched - s.length) for s in read if s.chunked is False and s.length and s.batched}
    assert {-1, 0, 1} <= lengths
    assert copy.deepcopy(cases) == scheduling.cases()  # deterministic: the same every run
