"""`recipebook import` (issue 39.4): a vLLM Recipes model file becomes a recipe whose commands are the
ones their site builds for the same choice, with what it cannot hold listed.

The oracle is their own code: tests/data/vllm-recipes/commands.json holds what their
src/lib/command-synthesis.js gave under Node.js for a spread of choices of every target of a sample
of models (tools/vllmrecipes, with the commit). Here the sample is imported from the copy of their
files beside it, and every recorded choice is expanded by the engine and compared word for word.
"""

from __future__ import annotations

import copy
import json
import shutil
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import import_support as sample
from recipe_support import REPO, findings_planned_afresh, in_process, plan_classes
from recipebook import check_file, importing
from recipebook.checking import manifests
from recipebook.expanding import page
from recipebook.importing import grids, synthesis, vllm_recipes, yaml12
from recipebook.problems import errors
from recipebook.reading import sharing
from recipebook.reading.model import Recipe

# The fast part (make test); the other sample models (many targets, thousands of selections each)
# are checked the same way by make test-batch (tests/batch/tests/test_real_corpus.py).
MODELS = (
    "Qwen/Qwen3-8B",
    "nvidia/NVIDIA-Nemotron-3.5-Lightning-30B-A3B-BF16",
    "moonshotai/Kimi-K3",
    "Wan-AI/Wan2.2-T2V-A14B-Diffusers",
    "Google/gemma-4-E2B-it",
    "Qwen/Qwen3-TTS-12Hz-1.7B-CustomVoice",
)
# Each recipe's errors are problems of their commands under the pinned vLLM, not of the import:
# (model, fragment of the message) for each kind. Every other problem would be a false refusal.
# None is left: what the pinned vLLM refuses is left out by the import and listed (gemma-4-E2B-it's
# examples/ chat template: test_a_value_the_pinned_vllm_refuses_is_left_out_and_listed).
REAL_PROBLEMS: dict[str, list[str]] = {}
# (Kimi-K3's decode pool TP with their max_num_seqs_256 option, which vLLM's SchedulerConfig
# refuses, is left out by the import and listed: test_a_choice_that_cannot_start_is_not_offered_and_listed.)


def _recipe(model: str) -> Recipe:
    return sample.recipe(model)


def test_the_sample_comes_from_one_commit_of_their_repository():
    data = sample.oracle()
    assert data["source"] == "https://github.com/vllm-project/recipes"
    assert len(data["commit"]) == 40 and int(data["commit"], 16) >= 0
    assert (sample.CHECKOUT / "LICENSE").read_text().lstrip().startswith("Apache License")
    assert len({e["model"] for e in data["entries"]}) >= 8 and len(data["entries"]) >= 500


@pytest.mark.parametrize("model", MODELS)
def test_every_recorded_choice_gives_their_commands(model):
    assert sample.entries(model)
    sample.assert_their_commands(model)


@pytest.mark.parametrize("model", MODELS)
def test_an_imported_recipe_is_refused_only_for_real_problems(model):
    sample.assert_only_real_problems(model, REAL_PROBLEMS.get(model, []))


# The models each of whose targets rules 19 and 28 are compared with planning every selection
# afresh here (the others, of thousands of selections, by make test-batch: tests/batch/tests).
AFRESH = ("Qwen/Qwen3-8B", "Wan-AI/Wan2.2-T2V-A14B-Diffusers", "Qwen/Qwen3-TTS-12Hz-1.7B-CustomVoice")


def test_rules_19_and_28_share_a_roles_plan_only_between_selections_it_is_the_same_for():
    """Rules 19 and 28 make a role's plan key once per set of the lines its plan reads
    (kubernetes.plan_lines) that a selection shows: of every role of every imported recipe,
    the first and the last selection of each such set give one plan key, planned from all their
    commands, and some sets join selections that show different lines; for the smaller recipes,
    what the rules find of each target is what planning every selection afresh finds."""
    joined = 0
    for model in MODELS:
        recipe = _recipe(model)
        shared, groups = plan_classes(recipe)
        assert groups, model
        joined += shared
        if model in AFRESH:
            for strategy in recipe.strategies:
                for target in strategy.targets:
                    made = manifests._findings_of_target(recipe, strategy, target, None)
                    assert made == findings_planned_afresh(recipe, strategy, target), (model, target.target)
    assert joined


def test_every_strategy_hardware_and_option_is_a_target_an_axis_or_listed():
    imported = sample.imported("Qwen/Qwen3-235B-A22B-Instruct-2507")
    recipe = imported.recipe
    slugs = [s["slug"] for s in recipe["strategies"]]
    # their strategies for each checkpoint (the default one unsuffixed)
    for slug in ("single-node-tp", "single-node-tep", "single-node-dep", "pd-cluster", "single-node-tp-fp8"):
        assert slug in slugs
    first = recipe["strategies"][0]["options"]
    assert [t["target"] for t in first][:3] == ["H100", "H200", "B200"]
    axes = {a["axis"]: {o["value"] for o in a["options"]} for a in recipe["axes"]}
    assert {"tool_calling", "kv_offload", "advanced", "prefill_pool", "decode_pool"} <= set(axes)
    assert axes["kv_offload"] >= {"off", "simple", "offloading_cpu", "offloading_fs", "lmcache"}
    assert axes["advanced"] >= {"off", "max_batched_8k", "max_num_seqs_256", "gpu_mem_095", "ep_weight_filter"}
    assert axes["prefill_pool"] == {"tp", "tep", "dep"}
    lost = "\n".join(imported.lost)
    for listed in (
        "Mooncake",
        "Docker install",
        "multi_node_tp / BF16 / H200: other numbers of nodes than 2",
        "other numbers of prefill",
        "two or more tuning flags together",
    ):
        assert listed in lost


def test_a_multi_node_strategy_is_one_server_that_spans_its_nodes():
    """Their multi-node strategies (a head and --headless followers) are roles that span nodes: the
    head's lines are the role's, each follower's own lines its node's entry; the target's npus are
    all its nodes' (rule 26), and every recorded choice gives their head's and followers' commands."""
    imported = sample.imported("Qwen/Qwen3-235B-A22B-Instruct-2507")
    written = sharing.written_out(imported.recipe)
    strategy = next(s for s in written["strategies"] if s["slug"] == "multi-node-tp")
    assert strategy["nodes"] == "2"
    h200 = next(t for t in strategy["options"] if t["target"] == "H200")
    (role,) = h200["grid"]["base"]
    assert role["scale"] == "2 nodes" and role["ranks"] is None and len(role["nodes"]) == 2
    follower = role["nodes"][1]["args"]
    assert "--headless" in follower and follower["--node-rank"].split()[-1] == "1"
    assert h200["npus"] == 16  # 8 GPUs on each of 2 nodes
    recorded = [e for e in sample.entries("Qwen/Qwen3-235B-A22B-Instruct-2507") if e["strategy"] == "multi-node-tp"]
    assert recorded and all(len(e["theirs"]["servers"]) == 2 for e in recorded)


def test_two_choices_that_set_one_flag_are_excluded_together_and_listed():
    imported = sample.imported("moonshotai/Kimi-K3")
    pairs = [line for line in imported.lost if "(both set" in line]
    assert pairs, "no pair of choices that set one flag"
    written = sharing.written_out(imported.recipe)
    excluded = [e for s in written["strategies"] for t in s["options"] for e in t["grid"]["excluded"]]
    assert excluded and all(len(entry) == 2 for entry in excluded)


def test_omni_tasks_with_their_own_checkpoint_are_strategies_and_the_install_adds_vllm_omni():
    imported = sample.imported("Wan-AI/Wan2.2-T2V-A14B-Diffusers")
    models = {t["grid"]["model"] for s in sharing.written_out(imported.recipe)["strategies"] for t in s["options"]}
    assert len(models) > 1  # a checkpoint per task
    assert "vllm-omni" in imported.recipe["installLine"]
    # its file as the importer writes it (checked once: test_an_imported_recipe_is_refused_only_for_real_problems)
    recipe, problems = sample.checked("Wan-AI/Wan2.2-T2V-A14B-Diffusers")
    assert recipe is not None and problems == []  # --omni with vLLM-Omni installed: its flags are not judged


def test_imported_targets_share_grids_and_read_back_as_written_in_full():
    imported = sample.imported("nvidia/NVIDIA-Nemotron-3.5-Lightning-30B-A3B-BF16")
    assert imported.recipe["grids"]
    full = vllm_recipes.convert(
        sample.checkout().model("nvidia/NVIDIA-Nemotron-3.5-Lightning-30B-A3B-BF16"), sample.checkout()
    ).recipe
    assert json.dumps(sharing.written_out(imported.recipe)["strategies"]) == json.dumps(full["strategies"])
    assert len(json.dumps(imported.recipe)) < len(json.dumps(full)) / 2


# -- the command line ----------------------------------------------------------------------------


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "recipebook", "import", *map(str, args)],
        cwd=REPO,
        env={"PYTHONPATH": str(REPO / "_ext"), "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def imported_here(capsys, *args: object) -> subprocess.CompletedProcess:
    """``run`` as import's main runs it in this process (what it says, writes and exits with; the
    process itself, one run per exit status: test_import_writes_recipes_and_lists_what_they_do_not_hold
    (0), test_hostile_model_files_are_refused_in_words_and_the_others_are_imported (1) and
    test_import_from_what_is_not_a_checkout_says_so (2))."""
    return in_process(capsys, "import", *args)


def test_import_writes_recipes_and_lists_what_they_do_not_hold(tmp_path, capsys):
    out = tmp_path / "recipes"
    result = run(sample.CHECKOUT, "Qwen/Qwen3-8B", "Wan-AI/Wan2.2-T2V-A14B-Diffusers", "--out", out)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    written = sorted(p.name for p in out.glob("*.json"))
    assert written == ["Qwen3-8B.json", "Wan2.2-T2V-A14B-Diffusers.json"]
    lines = result.stdout.splitlines()
    assert any(line.startswith(f"{out / 'Qwen3-8B.json'}: 20 target(s)") and "valid" in line for line in lines)
    assert any(line.startswith("not expressed: models/Qwen/Qwen3-8B.yaml: ") and "Mooncake" in line for line in lines)
    again = imported_here(capsys, sample.CHECKOUT, "Qwen/Qwen3-8B", "--out", out)
    assert again.returncode == 1 and "exists; not overwritten (--force overwrites)" in again.stderr
    forced = imported_here(
        capsys, sample.CHECKOUT, "Qwen/Qwen3-8B", "--out", out, "--force", "--lost", tmp_path / "lost.txt"
    )
    assert forced.returncode == 0, forced.stderr
    assert (tmp_path / "lost.txt").read_text().startswith("models/Qwen/Qwen3-8B.yaml: ")


def test_import_from_what_is_not_a_checkout_says_so(tmp_path):
    result = run(tmp_path, "--out", tmp_path / "out")
    assert result.returncode == 2
    assert result.stderr.strip() == (
        f"python -m recipebook import: error: argument CHECKOUT: '{tmp_path}' holds no models/ folder; give a work "
        "tree of github.com/vllm-project/recipes (see python -m recipebook import --help)"
    )


def _refused(result: subprocess.CompletedProcess, *said: str) -> None:
    """One line on stderr naming the argument, exit 2, no traceback, nothing on stdout."""
    assert result.returncode == 2, (result.returncode, result.stderr)
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("python -m recipebook import: error: "), result.stderr
    assert "Traceback" not in result.stderr and result.stdout == ""
    for words in said:
        assert words in lines[0], (words, lines[0])


def _checkout_copy(tmp_path):
    checkout = tmp_path / "checkout"
    shutil.copytree(sample.CHECKOUT, checkout)
    return checkout


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (lambda t, c: ["", "Qwen/Qwen3-8B"], ["argument CHECKOUT", "an empty path"]),
        (lambda t, c: [t / "missing"], ["argument CHECKOUT", "no such folder"]),
        (lambda t, c: ["/dev/null"], ["argument CHECKOUT", "a character device"]),
        (lambda t, c: [c / "taxonomy.yaml"], ["argument CHECKOUT", "a regular file, not a work tree"]),
        (lambda t, c: [c / "models"], ["argument CHECKOUT", "holds no models/ folder"]),
        (lambda t, c: [c, "../../../../etc/passwd", "--out", t / "o"], ["argument MODEL", "outside"]),
        (lambda t, c: [c, "/etc/hostname", "--out", t / "o"], ["argument MODEL", "outside"]),
        (lambda t, c: [c, "taxonomy.yaml", "--out", t / "o"], ["argument MODEL"]),
        (lambda t, c: [c, "evil/out", "--out", t / "o"], ["argument MODEL", "outside"]),  # a link out of models/
        (lambda t, c: [c, "Qwen/" + "x" * 400, "--out", t / "o"], ["argument MODEL", "at most 300 characters"]),
        (lambda t, c: [c, "Qwen/Qwen3-8B\x1b[2J", "--out", t / "o"], ["argument MODEL", "printable"]),
        (lambda t, c: [c, "nobody/nothing", "--out", t / "o"], ["argument MODEL", "no such model file"]),
        (lambda t, c: [c, "Qwen/Qwen3-8B", "models/Qwen/Qwen3-8B.yaml", "--out", t / "o"], ["the same file as MODEL"]),
        (lambda t, c: [c, "Qwen/Qwen3-8B", "--out", c], ["argument --out", "in the checkout"]),
        (lambda t, c: [c, "Qwen/Qwen3-8B", "--out", c / "models" / "Qwen"], ["argument --out", "in the checkout"]),
        (lambda t, c: [c, "Qwen/Qwen3-8B", "--out", "/dev/full"], ["argument --out", "a character device"]),
        (lambda t, c: [c, "Qwen/Qwen3-8B", "--out", c / "taxonomy.yaml"], ["argument --out", "a regular file"]),
        (lambda t, c: [c, "Qwen/Qwen3-8B", "--out", ""], ["argument --out", "an empty path"]),
        (lambda t, c: [c, "Qwen/Qwen3-8B", "--out", t / "o", "--lost", "/dev/null"], ["argument --lost", "device"]),
        (lambda t, c: [c, "Qwen/Qwen3-8B", "--out", t / "o", "--lost", t], ["argument --lost", "a directory"]),
        (lambda t, c: [c, "Qwen/Qwen3-8B", "--out", t / "o", "--lost", c / "lost.txt"], ["--lost", "in the checkout"]),
        (
            lambda t, c: [c, "Qwen/Qwen3-8B", "--out", t / "o", "--lost", c / "models" / "Qwen" / "Qwen3-8B.yaml"],
            ["--lost", "the same file as MODEL"],
        ),
        (lambda t, c: [c, "Qwen/Qwen3-8B", "--out", t / "o", "--lost", t / "o" / "Qwen3-8B.json"], ["recipe file"]),
        (lambda t, c: [c, "Qwen/Qwen3-8B", "--out", t / "o", "--commit", "abc"], ["argument --commit", "40 hex"]),
        (lambda t, c: [c, "Qwen/Qwen3-8B", "--out", t / "o", "--commit", "G" * 40], ["argument --commit"]),
        (lambda t, c: [c, "Qwen/Qwen3-8B", "--out", t / "o", "--commit", "a" * 41], ["argument --commit"]),
    ],
)
def test_a_bad_import_argument_is_one_line_and_exit_2_before_anything_is_written(tmp_path, capsys, args, said):
    """Each bad argument, import run by its main in this process (what it says and the status it
    exits with; a real process refuses one: test_import_from_what_is_not_a_checkout_says_so)."""
    checkout = _checkout_copy(tmp_path)
    (checkout / "models" / "evil").mkdir()
    (checkout / "models" / "evil" / "out.yaml").symlink_to(tmp_path / "outside.yaml")
    (tmp_path / "outside.yaml").write_text("model: {model_id: a/b}\nvariants: {default: {}}\n", encoding="utf-8")
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    _refused(in_process(capsys, "import", *args(tmp_path, checkout)), *said)
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before  # nothing written


def test_a_model_file_in_the_checkout_may_be_named_by_its_path_and_the_commit_given(tmp_path, capsys):
    checkout = _checkout_copy(tmp_path)
    commit = "0123456789abcdef0123456789abcdef01234567"
    path = checkout / "models" / "Qwen" / "Qwen3-8B.yaml"
    result = imported_here(
        capsys, checkout, path, "--out", tmp_path / "o", "--lost", tmp_path / "lost.txt", "--commit", commit
    )
    assert result.returncode == 0, result.stderr
    assert commit[:12] in (tmp_path / "o" / "Qwen3-8B.json").read_text(encoding="utf-8")


def test_an_imported_recipe_replaces_a_link_in_the_out_folder_never_writes_through_it(tmp_path, capsys):
    out = tmp_path / "o"
    out.mkdir()
    victim = tmp_path / "victim.txt"
    victim.write_text("keep\n", encoding="utf-8")
    (out / "Qwen3-8B.json").symlink_to(victim)
    result = imported_here(capsys, sample.CHECKOUT, "Qwen/Qwen3-8B", "--out", out, "--force")
    assert result.returncode == 0, result.stderr
    assert victim.read_text(encoding="utf-8") == "keep\n"
    assert not (out / "Qwen3-8B.json").is_symlink()


HOSTILE = {
    "laughs": "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
    + "".join(
        f"{c}: &{c} [*{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}]\n"
        for p, c in zip("abcdefg", "bcdefgh", strict=True)
    )
    + "model: {model_id: a/b}\nvariants: {default: {}}\nmeta: {x: *h}\n",
    "deep": "a: " + "[" * 200 + "]" * 200 + "\n",
    "itself": "a: &a [*a]\n",
    "binary": b"\xff\xfe\x00",
    "list": "- just\n- a list\n",
    "broken": "model: {model_id: a/b\n",
    "no-model": "meta: {title: x}\n",
    "path-model": "model: {model_id: /etc/passwd}\nvariants: {default: {}}\n",
}


def test_hostile_model_files_are_refused_in_words_and_the_others_are_imported(tmp_path):
    checkout = tmp_path / "checkout"
    shutil.copytree(sample.CHECKOUT, checkout)
    (checkout / "models" / "evil").mkdir()
    for name, content in HOSTILE.items():
        raw = content if isinstance(content, bytes) else content.encode()
        (checkout / "models" / "evil" / f"{name}.yaml").write_bytes(raw)
    result = run(checkout, *(f"evil/{name}" for name in HOSTILE), "Qwen/Qwen3-8B", "--out", tmp_path / "out")
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    for name in HOSTILE:
        refusal = [line for line in result.stderr.splitlines() if line.startswith(f"models/evil/{name}.yaml: ")]
        assert len(refusal) == 1, (name, result.stderr)
        assert not (tmp_path / "out" / f"{name}.json").exists()
    assert (tmp_path / "out" / "Qwen3-8B.json").is_file()


def test_a_model_file_too_large_is_refused_before_it_is_read(tmp_path, capsys):
    checkout = tmp_path / "checkout"
    shutil.copytree(sample.CHECKOUT, checkout)
    big = checkout / "models" / "evil" / "big.yaml"
    big.parent.mkdir(parents=True)
    big.write_text("a: " + "x" * (vllm_recipes.MAX_BYTES + 10), encoding="utf-8")
    result = imported_here(capsys, checkout, "evil/big", "--out", tmp_path / "out")
    assert result.returncode == 1
    assert "larger than 2,097,152 bytes" in result.stderr


# -- the pieces ------------------------------------------------------------------------------------


def test_yaml_is_read_as_their_site_reads_it():
    data = yaml12.load("a: on\nb: no\nc: 010\nd: 1e3\ne: 0o17\nf: 0x1F\ng: TRUE\nh: ~\ni: 2026-01-02\n")
    assert data["a"] == "on" and data["b"] == "no"  # strings in YAML 1.2 (booleans in PyYAML's 1.1)
    assert data["c"] == 10 and data["d"] == 1000.0 and data["e"] == 15 and data["f"] == 31
    assert data["g"] is True and data["h"] is None and str(data["i"]) == "2026-01-02"


@pytest.mark.parametrize(
    ("value", "quoted"),
    [("8", "8"), ("$HEAD_IP", "'<HEAD_IP>'"), ('{"a": 1}', "'{\"a\": 1}'"), ("it's", "'it'\\''s'"), ("a b", "'a b'")],
)
def test_a_value_is_one_shell_word_and_their_variable_our_placeholder(value, quoted):
    assert vllm_recipes._quoted(value) == quoted


def test_their_last_wins_dedupe_keeps_each_flag_where_it_comes_last():
    args = ["--a", "1", "--b", "--a", "2", "--c", "x", "--b"]
    assert synthesis.dedupe_args(args) == ["--a", "2", "--c", "x", "--b"]
    assert [u.text for u in synthesis.units(["--x", "", "--y", "a b"])] == ["--x", "--y 'a b'"]


_KEYS = st.lists(st.sampled_from([f"--k{i}" for i in range(8)]), unique=True, max_size=8)


@settings(max_examples=200, deadline=None)
@given(_KEYS, _KEYS, st.data())
def test_a_found_delta_turns_the_base_into_the_target_by_the_delta_rules(base_keys, after_keys, data):
    base = [(k, f"{k} {data.draw(st.integers(0, 2))}") for k in base_keys]
    after = [(k, f"{k} {data.draw(st.integers(0, 2))}") for k in after_keys]
    found = grids.diff(base, after)
    if found is not None:
        removed, added = found
        assert grids.apply(base, removed, added) == after
        assert set(removed) <= {k for k, _ in base}
    # keeping the base's order and appending is always expressible
    kept = [line for line in base if line[0] in {k for k, _ in after}]
    new = [line for line in after if line[0] not in {k for k, _ in base}]
    assert grids.diff(base, kept + new) is not None


def test_their_prose_is_made_plain_text_of_this_format(tmp_path):
    """A model file's prose lands in a page: escaped, without invisible characters, within the
    format's lengths; what runs (the commands) is not touched, and the recipe validates."""
    checkout = tmp_path / "checkout"
    shutil.copytree(sample.CHECKOUT, checkout)
    path = checkout / "models" / "Qwen" / "Qwen3-8B.yaml"
    data = yaml12.load(path.read_text(encoding="utf-8"))
    data["meta"]["description"] = "Fast\u200b model <script>alert(1)</script> & <think> traces " + "long " * 200
    data["meta"]["provider"] = "Qwen\u202e team"
    data["features"]["tool_calling"]["label"] = "Tools\u00ad " + "x" * 300
    path.write_text(json.dumps(data, default=str), encoding="utf-8")  # JSON is YAML
    imported = vllm_recipes.convert(path, vllm_recipes.Checkout.read(checkout))
    recipe = imported.recipe
    assert "\u200b" not in recipe["text"]["en"]["sub"] and len(recipe["text"]["en"]["sub"]) <= 500
    assert "&lt;script&gt;" in recipe["text"]["en"]["sub"] and "<script>" not in recipe["text"]["en"]["sub"]
    assert recipe["provider"] == "Qwen team"
    title = next(a["title"] for a in recipe["axes"] if a["axis"] == "tool_calling")
    assert len(title) <= 200 and "\u00ad" not in title
    out = tmp_path / f"{imported.name}.json"
    out.write_text(json.dumps(recipe), encoding="utf-8")
    loaded, problems = check_file(out)
    assert loaded is not None and problems == [], "\n".join(map(str, problems))


def test_the_strategy_note_says_in_both_languages_what_targets_need_beside_their_commands():
    """Where the commands come from and what a target needs beyond them (the prefill/decode router,
    a KV offload server, another brand's build of vLLM) is said once, in English and Korean; a
    target's note, English only in this format, is left empty."""
    imported = sample.imported("Qwen/Qwen3-235B-A22B-Instruct-2507")
    recipe = imported.recipe
    en, ko = recipe["text"]["en"]["strategyNote"], recipe["text"]["ko"]["strategyNote"]
    commit = sample.oracle()["commit"][:12]
    for note in (en, ko):
        assert "models/Qwen/Qwen3-235B-A22B-Instruct-2507.yaml" in note and commit in note
        assert "<code>vllm-router</code>" in note  # it has prefill/decode targets
        assert "LMCache" in note  # a KV offload option with a companion server
        assert "MI300X" in note  # AMD hardware: another build of vLLM
        assert len(note) <= vllm_recipes.NOTE_LENGTH
    assert "RBLN" in en and "RBLN" in ko and "가져왔습니다" in ko
    assert all(t["note"] is None for s in recipe["strategies"] for t in s["options"])
    # sentences past the length are dropped whole: no tag is cut
    kept = vllm_recipes._within(["<code>a</code> b.", "<code>" + "c" * 50 + "</code>."], 30)
    assert kept == "<code>a</code> b."


# A model of the shape that made rule 26 refuse imports (MiniMax-M2.1 in their repository): AMD
# profiles pin TP 2, so there a TP or TEP pool uses 2 GPUs and a DEP pool all the node's ranks.
POOLS_OF_TWO_SIZES = """
meta:
  title: "Pools-Test"
  slug: "pools-test"
  provider: "Test"
  description: "A mixture-of-experts model whose AMD commands pin the tensor parallel size"
  date_added: 2026-01-02
  date_updated: 2026-01-02
  difficulty: intermediate
  tasks: [text]
  hardware: {h100: verified, mi300x: verified}
model:
  model_id: "Test/Pools-Test"
  min_vllm_version: "0.11.0"
  architecture: moe
  parameter_count: "230B"
  active_parameters: "10B"
  context_length: 196608
  base_args: []
  base_env: {}
features: {}
opt_in_features: []
variants:
  default:
    precision: fp8
    vram_minimum_gb: 276
    description: "FP8"
compatible_strategies: [single_node_tp, single_node_tep, single_node_dep, pd_cluster]
hardware_overrides:
  amd:
    extra_args: ["--tensor-parallel-size", "2"]
strategy_overrides:
  single_node_tp:
    tp: 4
"""


@pytest.fixture(scope="module")
def pools_test(tmp_path_factory):
    """POOLS_OF_TWO_SIZES imported from a copy of the sample checkout, once for the tests that read it
    (a test that changes the recipe changes a copy)."""
    tmp_path = tmp_path_factory.mktemp("pools")
    checkout = tmp_path / "checkout"
    shutil.copytree(sample.CHECKOUT, checkout)
    path = checkout / "models" / "Test" / "Pools-Test.yaml"
    path.parent.mkdir()
    path.write_text(POOLS_OF_TWO_SIZES, encoding="utf-8")
    return vllm_recipes.convert(path, vllm_recipes.Checkout.read(checkout)), vllm_recipes.Checkout.read(checkout)


def test_pd_pools_of_different_npu_counts_are_targets_of_their_own_or_listed(tmp_path, pools_test):
    """A target's npus is what each of its roles uses (rule 26): a pool choice that changes the
    count is a target of its own with its own npus, and prefill and decode pools of different
    counts are listed with the reason, never dropped."""
    imported, checkout = pools_test
    out = tmp_path / f"{imported.name}.json"
    out.write_text(json.dumps(imported.recipe), encoding="utf-8")
    loaded, problems = check_file(out)
    assert loaded is not None and not [p for p in problems if p.is_error], "\n".join(map(str, problems))
    # each target's node holds what their taxonomy says its hardware holds (gpu_count)
    profiles = checkout.taxonomy["hardware_profiles"].values()
    sizes = {p["display_name"]: p["gpu_count"] for p in profiles}
    for strategy in imported.recipe["strategies"]:
        for target in strategy["options"]:
            hardware = max((name for name in sizes if target["target"].startswith(name)), key=len)
            assert target["npusPerNode"] == sizes[hardware]
    pd = next(s for s in imported.recipe["strategies"] if s["slug"] == "pd-cluster")
    counts = {t["target"]: t["npus"] for t in pd["options"]}
    assert counts["MI300X"] == 2 and counts["H100 DEP"] == 8, counts
    # every selection of each target uses its npus in each role (what rule 26 checks), read here
    # from the expanded commands: tensor x data-parallel ranks of the one process per pool
    checked = set()
    for result in page.matrix(loaded):
        if result.strategy == "pd-cluster" and result.target in ("MI300X", "H100 DEP"):
            for role in result.to_json()["roles"]:
                server = role["commands"][0]
                if server["launcher"] != "vllm serve":
                    continue
                args = server["args"]
                tp = _flag_value(args, "--tensor-parallel-size", 1)
                local = _flag_value(args, "--data-parallel-size-local", _flag_value(args, "--data-parallel-size", 1))
                assert tp * local == counts[result.target], (result.target, result.selection, args)
                checked.add((result.target, role["role"], tp * local))
    assert {count for _target, _role, count in checked} == {2, 8} and {r for _t, r, _c in checked} == {
        "prefill",
        "decode",
    }
    listed = [line for line in imported.lost if "different numbers of NPUs" in line]
    assert "pd_cluster / FP8 / MI300X: prefill TP with decode DEP: the pools use different numbers of NPUs" in (
        "\n".join(listed)
    )
    assert len([line for line in listed if "/ MI300X:" in line]) == 4  # TP or TEP with DEP, either way round


def test_a_target_that_asks_a_node_for_more_than_it_holds_is_listed_not_written(tmp_path, pools_test):
    """Rule 29 on an import: the AMD profiles pin TP 2, so a DEP server of 8 ranks asks one
    8-GPU node (their gpu_count) for 16; that target cannot start and is not written, and the
    list says what it asks and what the node holds. The rest of the model is written and valid;
    a recipe written by hand with a node too small is still refused."""
    imported, _checkout = pools_test
    written = {(s["slug"], t["target"]) for s in imported.recipe["strategies"] for t in s["options"]}
    for slug, target, role in (("single-node-dep", "MI300X", "main"), ("pd-cluster", "MI300X DEP 16 NPUs", "prefill")):
        assert (slug, target) not in written
        said = [line for line in imported.lost if line.startswith(f"{slug} / {target}: it cannot start: ")]
        assert len(said) == 1 and f"is asked for 16 NPUs ({role} 16" in said[0] and "holds 8 (gpu_count)" in said[0]
    assert ("single-node-dep", "H100") in written and ("pd-cluster", "MI300X") in written
    recipe = copy.deepcopy(imported.recipe)
    pd = next(s for s in recipe["strategies"] if s["slug"] == "pd-cluster")
    amd = next(t for t in pd["options"] if t["target"] == "MI300X")
    amd["npusPerNode"] = 1  # by hand: a machine of one device for pools of two
    out = tmp_path / f"{imported.name}.json"
    out.write_text(json.dumps(recipe), encoding="utf-8")
    _loaded, problems = check_file(out)
    wrong = [p for p in problems if p.is_error]
    assert wrong and all("is asked for 2 NPUs" in p.message and "has 1" in p.message for p in wrong), [
        p.message for p in wrong
    ]


def test_a_choice_that_cannot_start_is_not_offered_and_listed(tmp_path):
    """Rule 30 on an import: Kimi-K3's decode pool TP gives --max-num-batched-tokens 32 and their
    max_num_seqs_256 option --max-num-seqs 256, which vLLM's SchedulerConfig refuses; with the
    other decode pool the option is not offered either (both set --max-num-seqs), so the option is
    not offered on those targets, and is listed there with why; the recipe is valid. Offered
    again by hand, rule 30 refuses it."""
    imported = sample.imported("moonshotai/Kimi-K3")
    written = sharing.written_out(imported.recipe)
    holding = []
    for strategy in written["strategies"]:
        for target in strategy["options"]:
            said = [line for line in imported.lost if line.startswith(f"{strategy['slug']} / {target['target']}: ")]
            if any(": it cannot start: " in line for line in said):
                holding.append(target)
                assert any(
                    line.endswith(
                        ": Advanced: max-num-seqs = 256: it cannot start: --max-num-batched-tokens 32 is less than "
                        "--max-num-seqs 256: vLLM's SchedulerConfig refuses it when the server starts "
                        "(max_num_batched_tokens must be greater than or equal to max_num_seqs); give at least as "
                        "many batched tokens as sequences (decode)"
                    )
                    for line in said
                ), said
                options = target["grid"]["options"]
                assert "tp" in options["decode_pool"] and "max_num_seqs_256" not in options["advanced"], options
    assert holding
    for target in holding:  # by hand: the option offered with the decode pool TP alone
        grid = target["grid"]
        grid["options"]["advanced"].append("max_num_seqs_256")
        grid["deltas"]["advanced=max_num_seqs_256"] = {
            "decode": {
                "add_args": {"--max-num-seqs": "--max-num-seqs 256"},
                "add_envs": {},
                "del_args": [],
                "del_envs": [],
            }
        }
        grid["excluded"].append({"decode_pool": "tep", "advanced": "max_num_seqs_256"})
    out = tmp_path / f"{imported.name}.json"
    out.write_text(json.dumps(written), encoding="utf-8")
    _loaded, problems = check_file(out)
    wrong = [p for p in problems if p.is_error]
    assert len(wrong) == len(holding) and all(
        "--max-num-batched-tokens 32 is less than --max-num-seqs 256" in p.message for p in wrong
    ), [p.message for p in wrong]


def test_a_value_the_pinned_vllm_refuses_is_left_out_and_listed(tmp_path):
    """The vocabulary rule on an import: gemma-4-E2B-it's tool calling gives --chat-template
    examples/tool_chat_template_gemma4.jinja, a file of vLLM's source checkout that the vllm
    package does not install (vllm serve stops: the path cannot be opened). That value is not
    offered where it is given, and is listed there with the rule's reason; the rest of each target
    is written and the recipe is valid. Offered again by hand, the rule refuses it."""
    imported = sample.imported("Google/gemma-4-E2B-it")
    written = sharing.written_out(imported.recipe)
    text = importing.dumps(imported.recipe)
    assert "examples/" not in text
    reason = "it cannot start: 'examples/tool_chat_template_gemma4.jinja' is a file of vLLM's source checkout"
    listed = [line for line in imported.lost if reason in line]
    assert listed and all(": Tool Calling: On: " in line for line in listed), listed[:3]
    for strategy in written["strategies"]:
        for target in strategy["options"]:
            if any(line.startswith(f"{strategy['slug']} / {target['target']}: ") for line in listed):
                assert "tool_calling" not in target["grid"]["options"], target["grid"]["options"]
    # that text's file (checked once: test_an_imported_recipe_is_refused_only_for_real_problems)
    loaded, problems = sample.checked("Google/gemma-4-E2B-it")
    assert loaded is not None and not errors(problems), [p.message for p in errors(problems)][:3]
    # by hand: the value offered again on one target that lost it
    slug, target_name = listed[0].split(": ", 1)[0].split(" / ")
    target = next(
        t for s in written["strategies"] if s["slug"] == slug for t in s["options"] if t["target"] == target_name
    )
    grid = target["grid"]
    grid["options"]["tool_calling"] = ["off", "on"]
    grid["option_base"]["tool_calling"] = "off"
    role = grid["base"][0]["role"]
    template = "--chat-template examples/tool_chat_template_gemma4.jinja"
    add = {"--enable-auto-tool-choice": "--enable-auto-tool-choice", "--chat-template": template}
    grid["deltas"]["tool_calling=on"] = {role: {"add_args": add, "add_envs": {}, "del_args": [], "del_envs": []}}
    out = tmp_path / f"{imported.name}.json"
    out.write_text(json.dumps(written), encoding="utf-8")
    _loaded, problems = check_file(out)
    assert any("is a file of vLLM's source checkout" in p.message for p in errors(problems)), problems[:3]


def test_a_value_that_cannot_start_is_not_offered_and_the_rest_is(tmp_path):
    """A feature whose arguments alone ask a node for more devices than it holds (rule 29), or
    give vLLM's scheduler fewer batched tokens than sequences (rule 30), is not offered on the
    targets where it cannot start, and is listed there with what it asks; two features that
    cannot start together (only together) are excluded together; the target and its other values
    are written and valid."""
    text = (
        POOLS_OF_TWO_SIZES.replace("Pools-Test", "Values-Test")
        .replace("features: {}", _VALUE_FEATURES)
        .replace("[single_node_tp, single_node_tep, single_node_dep, pd_cluster]", "[single_node_tp]")
        .replace("{h100: verified, mi300x: verified}", "{h100: verified}")
    )
    checkout = tmp_path / "checkout"
    shutil.copytree(sample.CHECKOUT, checkout)
    path = checkout / "models" / "Test" / "Values-Test.yaml"
    path.parent.mkdir()
    path.write_text(text, encoding="utf-8")
    imported = vllm_recipes.convert(path, vllm_recipes.Checkout.read(checkout))
    out = tmp_path / f"{imported.name}.json"
    out.write_text(json.dumps(imported.recipe), encoding="utf-8")
    loaded, problems = check_file(out)
    assert loaded is not None and not [p for p in problems if p.is_error], "\n".join(map(str, problems))
    written = sharing.written_out(imported.recipe)
    (strategy,) = written["strategies"]
    h100 = next(t for t in strategy["options"] if t["target"] == "H100")
    options = h100["grid"]["options"]
    assert "wide" not in options and "crowded" not in options and options["reasoning"] == ["off", "on"], options
    said = [line for line in imported.lost if line.startswith("single-node-tp / H100: ")]
    assert any(
        line.startswith("single-node-tp / H100: Wide: On: it cannot start: node 1 is asked for 64 NPUs (main 64")
        and "holds 8 (gpu_count)" in line
        for line in said
    ), said
    assert any(
        line.startswith("single-node-tp / H100: Crowded: On: it cannot start: --max-num-batched-tokens 256 is less")
        for line in said
    ), said
    # each alone leaves the other to vLLM (not judged); together vLLM refuses them: the pair is excluded
    assert options["seqs"] == ["off", "on"] and options["few"] == ["off", "on"], options
    assert {"seqs": "on", "few": "on"} in h100["grid"]["excluded"], h100["grid"]["excluded"]
    assert any(
        line.startswith(
            "single-node-tp / H100: Seqs: On with Few: On: it cannot start: --max-num-batched-tokens 256 is less than "
            "--max-num-seqs 512"
        )
        for line in said
    ), said


_VALUE_FEATURES = """features:
  wide:
    description: "Sixteen data-parallel ranks"
    args: ["--data-parallel-size", "16"]
  crowded:
    description: "Many sequences, few batched tokens"
    args: ["--max-num-seqs", "512", "--max-num-batched-tokens", "256"]
  reasoning:
    description: "A parser"
    args: ["--reasoning-parser", "qwen3"]
  seqs:
    description: "Many sequences"
    args: ["--max-num-seqs", "512"]
  few:
    description: "Few batched tokens"
    args: ["--max-num-batched-tokens", "256"]"""


def _flag_value(args: list[str], flag: str, default: int) -> int:
    for text in args:
        name, _, value = text.partition(" ")
        if name == flag:
            return int(value)
    return default


# the imported recipes make test-batch adds (tools/vllmrecipes/sample.py's BATCH), all in MODELS
BATCH = (
    "Qwen/Qwen3-8B",
    "moonshotai/Kimi-K3",
    "Wan-AI/Wan2.2-T2V-A14B-Diffusers",
    "Qwen/Qwen3-TTS-12Hz-1.7B-CustomVoice",
)


@pytest.mark.parametrize("model", BATCH)
def test_the_batch_recipes_are_what_the_importer_writes_today(model):
    """make test-batch adds imported recipes to the site (tests/batch/recipes, written by
    python -m tools.vllmrecipes): when the importer changes, they are written again, or the batch
    checks a recipe no import gives any more (a stale Kimi-K3 offered a choice rule 30 refuses)."""
    written = sample.imported(model)
    batch = REPO / "tests" / "batch" / "recipes" / f"{written.name}.json"
    assert batch.read_text(encoding="utf-8") == importing.dumps(written.recipe), (
        f"{batch} is not what the importer writes: run python -m tools.vllmrecipes (see its help)"
    )
