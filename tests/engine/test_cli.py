"""The command line, run as a reader would: python -m recipebook from the repository root.

Each command's every exit status is seen from a real process here (validate 0, 1, 2; expand 0,
1, 2; matrix 0; drift 0, 1, 2), as the shell sees it, with no traceback; a test of what else a
command says runs its main in this process (``in_process``: the same words, the same status)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

from recipe_support import AXK2_NAME, FIXTURES, GPT_NAME, REPO, fixture, in_process, recipe_names, write

LOCATED = re.compile(r"^(?P<file>.+?):(?P<line>\d+):(?P<column>\d+): (?P<pointer>/\S*): (?P<message>.+)$")

FIXTURES_DIR = FIXTURES.relative_to(REPO).as_posix()  # the engine tests' own recipes, from the repository


def run(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    return subprocess.run(
        [sys.executable, "-m", "recipebook", *map(str, args)],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def no_traceback(result: subprocess.CompletedProcess) -> None:
    assert "Traceback" not in result.stderr and "Traceback" not in result.stdout, result.stderr


def test_validate_shipped_recipes_prints_a_summary(capsys):
    result = run("validate")
    no_traceback(result)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    lines = result.stdout.splitlines()
    assert len(lines) == 1
    # every recipe in recipes/, each with the count `matrix` lists
    counts = {
        name: len(
            json.loads(in_process(capsys, "matrix", f"recipes/{name}.json", "--format", "json").stdout)["selections"]
        )
        for name in recipe_names()
    }
    assert f"{len(counts)} recipe(s) valid" in lines[0]
    for name, count in counts.items():
        assert f"{name} {count}" in lines[0]
    assert f"{sum(counts.values())} selections" in lines[0]


def test_validate_named_files(capsys):
    result = in_process(capsys, "validate", f"{FIXTURES_DIR}/{GPT_NAME}.json")
    assert result.returncode == 0
    matrix = in_process(capsys, "matrix", f"{FIXTURES_DIR}/{GPT_NAME}.json", "--format", "json")
    count = len(json.loads(matrix.stdout)["selections"])
    assert result.stdout == f"1 recipe(s) valid, {count} selections ({GPT_NAME} {count})\n"


def test_broken_json_gives_file_line_column(tmp_path, capsys):
    """Run by validate's main in this process (a real validate exits 1 with located problems in
    test_strange_files_are_reported_not_raised)."""
    broken = tmp_path / "broken.json"
    broken.write_text('{\n  "name": "broken",\n  "model": "a/b"\n  "provider": "x"\n}\n', encoding="utf-8")
    result = in_process(capsys, "validate", broken)
    no_traceback(result)
    assert result.returncode == 1
    first = result.stderr.splitlines()[0]
    assert first == f"{broken}:3:17: /: invalid JSON: missing comma between values"
    assert result.stdout == ""


def test_strange_files_are_reported_not_raised(tmp_path):
    contents = {
        "deep": "[" * 5000 + "]" * 5000,
        "surrogate": '{"name": "\\ud800"}',
        "empty": "",
        "nan": '{"a": NaN}',
        "null": "null",
        "control": '{"a\\nb": 1}',
    }
    paths = []
    for name, content in contents.items():
        paths.append(tmp_path / f"{name}.json")
        paths[-1].write_text(content, encoding="utf-8")
    (tmp_path / "latin1.json").write_bytes(b'{"name": "caf\xe9"}')
    paths.append(tmp_path / "latin1.json")
    result = run("validate", *paths)
    no_traceback(result)
    assert result.returncode == 1
    problems = result.stderr.splitlines()[:-1]
    assert all(LOCATED.match(line) for line in problems), result.stderr
    assert {LOCATED.match(line)["file"] for line in problems} == {str(p) for p in paths}
    assert result.stderr.splitlines()[-1].endswith(f"in {len(paths)} of {len(paths)} recipe file(s)")


def test_every_problem_of_every_file_in_one_run(tmp_path, capsys):
    one = fixture(GPT_NAME)
    one["strategies"][0]["options"][0]["grid"]["recommended"]["lmcache"] = "ssd"
    one["strategies"][0]["options"][1]["grid"]["base"][0]["args"]["--max-num-seqs"] = "--max-num-seqs 8;"
    first, _ = write(tmp_path, one)
    two = fixture(AXK2_NAME)
    two["strategies"][2]["options"][0]["grid"]["base"][1]["varies"].remove("--port")
    two["badges"][0] = {"text": "MoE", "colour": "red"}
    (tmp_path / "second").mkdir()
    second, _ = write(tmp_path / "second", two)
    good = REPO / FIXTURES_DIR / f"{GPT_NAME}.json"

    result = in_process(capsys, "validate", first, good, second)
    assert result.returncode == 1
    lines = result.stderr.splitlines()
    problems, summary = lines[:-1], lines[-1]
    assert all(LOCATED.match(line) for line in problems), result.stderr
    by_file = {}
    for line in problems:
        match = LOCATED.match(line)
        by_file.setdefault(match["file"], []).append((match["pointer"], match["message"]))
    assert set(by_file) == {str(first), str(second)}
    assert [pointer for pointer, _ in by_file[str(first)]] == [
        "/strategies/0/options/0/grid/recommended/lmcache",
        "/strategies/0/options/1/grid/base/0/args/--max-num-seqs",
    ]
    # the second file stops at the schema (the badge), so its rule problem waits for the next run
    assert by_file[str(second)] == [("/badges/0/colour", "unknown key 'colour'; allowed here: hl, text")]
    assert summary == "3 problem(s) in 2 of 3 recipe file(s)"
    assert result.stdout == ""


def test_validate_missing_file(capsys):
    """A file named on the command line that is not there is a usage error: one line, exit 2 (run by
    validate's main in this process; a real validate exits 2 for a bad argument in test_hostile_round3's
    FIFO case and test_hostile_round4's test_a_bad_argument_of_a_real_process_neither_waits_nor_tracebacks)."""
    result = in_process(capsys, "validate", "recipes/no-such-recipe.json")
    no_traceback(result)
    assert result.returncode == 2
    assert result.stderr.splitlines() == [
        "python -m recipebook validate: error: argument FILE: 'recipes/no-such-recipe.json': no such file; give a "
        "recipe file (recipes/NAME.json) (see python -m recipebook validate --help)"
    ]


def test_expand_json_shape(capsys):
    result = in_process(
        capsys,
        "expand", f"{FIXTURES_DIR}/{AXK2_NAME}.json", "--strategy", "prefill-decode-disaggregated", "--target", "Latency",
        "--format", "json",
    )  # fmt: skip
    no_traceback(result)
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert list(data) == ["recipe", "strategy", "target", "selection", "recommended", "roles", "router"]
    assert data["recipe"] == AXK2_NAME
    assert data["strategy"] == "prefill-decode-disaggregated"
    assert data["target"] == "Latency"
    assert data["selection"] == {
        "lmcache": "rds",
        "prefix_caching": "on_sub_block",
        "spec_decode": "eagle3",
        "reasoning_parser": "on",
        "tool_calling": "on",
    }
    assert data["recommended"] is True
    assert [role["role"] for role in data["roles"]] == ["prefill", "decode"]
    assert [[c["rank"] for c in role["commands"]] for role in data["roles"]] == [[0], list(range(8))]
    for role in data["roles"]:
        assert list(role) == ["role", "node", "nodes", "commands"]
        assert role["nodes"] is None  # a role on one node: its node is the role's
        for command in role["commands"]:
            assert list(command) == ["rank", "node", "launcher", "model", "envs", "args", "shell"]
            assert command["node"] is None
            assert command["launcher"] == "vllm serve" and command["model"] == "skt/A.X-K2-NVFP4"
            assert all(isinstance(t, str) for t in command["envs"] + command["args"])
    assert [step["node"] for step in data["router"]] == ["router-values.yaml", "helm"]
    assert all(list(step) == ["node", "cmd"] for step in data["router"])


def test_expand_with_set_and_shell_format():
    result = run(
        "expand", f"{FIXTURES_DIR}/{GPT_NAME}.json", "--strategy", "aggregated", "--target", "Throughput",
        "--set", "lmcache=off", "--set", "tool_calling=off",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("# main\nVLLM_ENGINE_READY_TIMEOUT_S=9600 \\\nvllm serve openai/gpt-oss-120b \\\n")
    assert "--enable-auto-tool-choice" not in result.stdout
    assert "--gpu-memory-utilization" not in result.stdout
    assert "--speculative-config" in result.stdout  # spec_decode keeps its recommended value


def test_expand_null_recommendation_shows_the_base_command(capsys):
    result = in_process(
        capsys,
        "expand", f"{FIXTURES_DIR}/{AXK2_NAME}.json", "--strategy", "aggregated-pipeline-parallel", "--target", "Throughput",
        "--format", "json",
    )  # fmt: skip
    data = json.loads(result.stdout)
    assert data["recommended"] is False
    assert data["selection"] == {
        "lmcache": "off",
        "prefix_caching": "off",
        "spec_decode": "off",
        "reasoning_parser": "on",
        "tool_calling": "on",
    }
    assert data["router"] == []


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["--strategy", "disaggregated", "--target", "Latency"], "unknown strategy 'disaggregated'; choose from: "),
        (["--strategy", "aggregated", "--target", "Fast"], "unknown target 'Fast' for strategy 'aggregated'"),
        (["--strategy", "aggregated", "--target", "Latency", "--set", "kv=off"], "unknown axis 'kv'"),
        (["--strategy", "aggregated", "--target", "Latency", "--set", "lmcache=ssd"], "unknown value 'ssd'"),
        (["--strategy", "aggregated", "--target", "Latency", "--set", "lmcache"], "--set takes AXIS=VALUE"),
        (
            ["--strategy", "aggregated", "--target", "Latency", "--set", "lmcache=cpu", "--set", "lmcache=rds"],
            "axis 'lmcache' is set twice",
        ),
    ],
)
def test_expand_errors_exit_2(capsys, args, fragment):
    result = in_process(capsys, "expand", f"{FIXTURES_DIR}/{GPT_NAME}.json", *args)
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.startswith(f"python -m recipebook expand: error: {FIXTURES_DIR}/{GPT_NAME}.json: ")
    assert fragment in result.stderr
    assert len(result.stderr.splitlines()) == 1


def test_expand_excluded_selection_exits_2(tmp_path, capsys):
    data = fixture(GPT_NAME)
    data["strategies"][0]["options"][0]["grid"]["excluded"] = [{"lmcache": "cpu", "spec_decode": "suffix"}]
    path, _ = write(tmp_path, data)
    base = ["expand", path, "--strategy", "aggregated", "--target", "Latency"]
    result = run(*base, "--set", "lmcache=cpu", "--set", "spec_decode=suffix")
    no_traceback(result)
    assert result.returncode == 2
    assert "the recipe excludes this selection: lmcache=cpu, prefix_caching=on_sub_block" in result.stderr
    # spec_decode stays eagle3 (run by expand's main here: a real run exits 0 in test_expand_with_set_and_shell_format)
    assert in_process(capsys, *base, "--set", "lmcache=cpu").returncode == 0


def test_expand_of_an_invalid_recipe_reports_its_problems(tmp_path):
    data = fixture(GPT_NAME)
    data["strategies"][0]["options"][0]["grid"]["recommended"]["lmcache"] = "ssd"
    path, _ = write(tmp_path, data)
    result = run("expand", path, "--strategy", "aggregated", "--target", "Latency")
    no_traceback(result)
    assert result.returncode == 1
    assert LOCATED.match(result.stderr.splitlines()[0])


def test_usage_errors_exit_2(capsys):
    """The first in a real process (its exit status as the shell sees it, no traceback), the others
    by main in this process (what it says, the status it exits with)."""
    for args in ([], ["expand", f"{FIXTURES_DIR}/{GPT_NAME}.json"], ["frobnicate"]):
        result = run(*args) if not args else in_process(capsys, *args)
        no_traceback(result)
        assert result.returncode == 2
        assert len(result.stderr.splitlines()) == 1 and ": error: " in result.stderr and "--help" in result.stderr


@pytest.mark.parametrize(("name", "count"), [(GPT_NAME, 108), (AXK2_NAME, 216)])
def test_matrix_lists_every_offered_selection(capsys, name, count):
    result = in_process(capsys, "matrix", f"{FIXTURES_DIR}/{name}.json", "--format", "json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["recipe"] == name
    selections = data["selections"]
    assert len(selections) == count
    keys = {(s["strategy"], s["target"], tuple(sorted(s["selection"].items()))) for s in selections}
    assert len(keys) == count
    recommended = [(s["strategy"], s["target"]) for s in selections if s["recommended"]]
    assert len(recommended) == len(set(recommended))  # at most one per target
    # the text form: a real process for one recipe (its exit status as the shell sees it), main here for the other
    text = (
        run("matrix", f"{FIXTURES_DIR}/{name}.json")
        if name == GPT_NAME
        else in_process(capsys, "matrix", f"{FIXTURES_DIR}/{name}.json")
    )
    assert text.returncode == 0
    assert text.stdout.count("\n### ") + text.stdout.startswith("### ") == count


# --------------------------------------------------------------------------- drift

PINNED = REPO / "_ext" / "recipebook" / "data" / "vllm-0.30.0.json"


def _drift_lines(stdout: str) -> dict[str, list[tuple[int, int, str]]]:
    """Pointer -> [(line, column, message)] of a drift report; every line but the summary is located."""
    *lines, summary = stdout.splitlines()
    found: dict[str, list[tuple[int, int, str]]] = {}
    for line in lines:
        match = LOCATED.match(line)
        assert match, line
        found.setdefault(match["pointer"], []).append((int(match["line"]), int(match["column"]), match["message"]))
    assert " change(s) break " in summary
    return found


def test_drift_reports_what_another_release_removed_renamed_and_retyped(tmp_path, capsys):
    """A made-up next release, derived from the pinned vocabulary: one flag of the recipe's
    first command removed, one renamed (same help text under a new name), one given a limit
    its value breaks, one deprecated; an environment name removed; a JSON field removed."""
    data = fixture(GPT_NAME)
    path, dumped = write(tmp_path, data)
    vocab = json.loads(PINNED.read_text(encoding="utf-8"))
    flags = vocab["flags"]
    base = data["strategies"][0]["options"][0]["grid"]["base"][0]
    keys = [k for k in base["args"] if k in flags]
    helps = [e["help"] for e in flags.values()]
    renamed = next(k for k in keys if len(flags[k]["help"]) >= 20 and helps.count(flags[k]["help"]) == 1)
    numbered = next(k for k in keys if flags[k]["type"] == "int" and k != renamed)
    removed = next(k for k in keys if k not in (renamed, numbered) and flags[k].get("type") is not None)
    deprecated = next(k for k in keys if k not in (renamed, numbered, removed) and flags[k].get("type") is not None)
    value = int(base["args"][numbered].split()[-1])
    env = next(k for k in base["envs"] if k.startswith("VLLM_"))

    flags[renamed.replace("--", "--new-")] = flags.pop(renamed)
    aliased = next(k for k in keys if k not in (renamed, numbered) and flags[k].get("type") is None)
    flags[aliased.replace("--", "--newer-")] = {**flags.pop(aliased), "aliases": [aliased]}
    del flags[removed]
    flags[numbered]["bounds"] = {"ge": value + 1}
    flags[deprecated]["deprecated"] = True
    flags["--speculative-config"]["json_fields"].remove("num_speculative_tokens")
    for names in vocab["envs"].values():
        if env in names:
            names.remove(env)
    vocab["vllm"] = "9.0.0"
    other = tmp_path / "vllm-9.0.0.json"
    other.write_text(json.dumps(vocab), encoding="utf-8")

    result = in_process(capsys, "drift", "--vocabulary", other, path)
    assert result.returncode == 1, result.stdout + result.stderr
    found = _drift_lines(result.stdout)
    grid = "/strategies/0/options/0/grid"

    def at(pointer: str, fragment: str, *, key: bool) -> str:
        (line, column, message), *_ = [f for f in found.get(pointer, []) if fragment in f[2]] or [(0, 0, "")]
        assert message, f"nothing at {pointer} with {fragment!r}:\n{result.stdout}"
        assert (line, column) == (dumped.keys if key else dumped.values)[pointer]
        return message

    args = f"{grid}/base/0/args"
    assert "renamed: write " + renamed.replace("--", "--new-") in at(f"{args}/{renamed}", "is not a flag", key=True)
    at(f"{args}/{removed}", f"{removed!r} is not a flag of vllm serve (vLLM 9.0.0", key=True)
    at(f"{args}/{numbered}", f"{numbered} must be at least {value + 1} (vLLM 9.0.0), got '{value}'", key=False)
    at(f"{args}/{deprecated}", f"{deprecated} is deprecated in vLLM 9.0.0", key=True)
    newer = aliased.replace("--", "--newer-")
    assert at(f"{args}/{aliased}", f"is an alias of {newer}", key=True).endswith(f"write {newer} (note)")
    at(f"{grid}/base/0/envs/{env}", f"{env!r} is not an environment variable that vLLM 9.0.0", key=True)
    spec = f"{grid}/deltas/spec_decode=eagle3/main/add_args/--speculative-config"
    at(spec, "'num_speculative_tokens' is not a field of --speculative-config", key=False)
    assert "break 1 of 1 recipe file(s) under vLLM 9.0.0" in result.stdout.splitlines()[-1]


def test_drift_against_the_same_release_is_empty(tmp_path):
    same = tmp_path / "same.json"  # the pinned release under another name (the file itself is refused twice)
    same.write_bytes(PINNED.read_bytes())
    result = run("drift", "--vocabulary", same)
    no_traceback(result)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines()[-1].startswith("0 change(s) break 0 of ")


def test_drift_against_the_committed_next_release_is_located(capsys):
    """The committed vocabulary of a later vLLM: whatever it reports is located, and every
    flag it calls missing is indeed missing from that file."""
    later = sorted((REPO / "_ext" / "recipebook" / "data").glob("vllm-*.json"))[-1]
    assert later != PINNED
    result = in_process(capsys, "drift", "--vocabulary", later)
    assert result.returncode in (0, 1)
    flags = json.loads(later.read_text(encoding="utf-8"))["flags"]
    for pointer, entries in _drift_lines(result.stdout).items():
        for _, _, message in entries:
            if "is not a flag of vllm serve" in message:
                assert pointer.rsplit("/", 1)[-1] not in flags


def test_drift_needs_a_vocabulary_and_valid_recipes(tmp_path, capsys):
    # no vocabulary: a usage error, by drift's main here (a real drift exits 2 in test_hostile_round4's
    # test_a_bad_argument_of_a_real_process_neither_waits_nor_tracebacks[drift dev zero])
    assert in_process(capsys, "drift").returncode == 2
    broken = tmp_path / "broken.json"
    broken.write_text("{", encoding="utf-8")
    later = sorted((REPO / "_ext" / "recipebook" / "data").glob("vllm-*.json"))[-1]
    result = run("drift", "--vocabulary", later, broken)
    no_traceback(result)
    assert result.returncode == 1
    assert "invalid JSON" in result.stderr and "not checked" in result.stdout


def test_many_files_are_checked_on_every_core_with_the_same_verdicts(tmp_path, monkeypatch, capsys):
    """validate checks many files in worker processes: the same output, in the same order, as
    one after the other (good files and bad ones, each bad one its own problems)."""
    import concurrent.futures

    from recipebook import cli

    files = []
    for index in range(8):
        for name in (AXK2_NAME, GPT_NAME):
            data = fixture(name)
            data["name"] = f"{name}-c{index}"
            if index == 3 and name == GPT_NAME:
                data["badges"] = "not a list"
            path, _dumped = write(tmp_path, data)
            files.append(str(path))
    (tmp_path / "broken.json").write_text('{"name": 1,', encoding="utf-8")
    files.append(str(tmp_path / "broken.json"))
    outputs = []
    pools = []
    real_pool = concurrent.futures.ProcessPoolExecutor

    def pool(*args, **kwargs):
        pools.append(kwargs)
        return real_pool(*args, **kwargs)

    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", pool)
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: {0, 1}, raising=False)
    for parallel_from in (10**6, 2):
        monkeypatch.setattr(cli, "PARALLEL_FROM", parallel_from)
        status = cli.main(["validate", *files])
        outputs.append((status, *capsys.readouterr()))
    assert len(pools) == 1  # the second run only
    assert outputs[0] == outputs[1]
    status, stdout, stderr = outputs[0]
    assert status == 1 and stdout == ""
    assert "broken.json" in stderr and f"{GPT_NAME}-c3" in stderr
    assert sorted(stderr.splitlines()[:-1]) == stderr.splitlines()[:-1]
