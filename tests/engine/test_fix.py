"""`recipebook validate --fix` (issue 39.2): every mechanical fix written into the file in place,
keeping its formatting and key order, each said where it was; the fixed file validates, with the
same commands as vLLM reads them."""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from recipe_support import GPT_NAME, REPO, fixture, in_process
from recipebook import check_file
from recipebook.pipeline import fix
from recipebook.reading.vocabulary import pinned

GRID = ("strategies", 0, "options", 0, "grid")


def run(*args: object) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "recipebook", *map(str, args)],
        cwd=REPO,
        env={"PYTHONPATH": str(REPO / "_ext"), "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def grid(data: dict) -> dict:
    return data["strategies"][0]["options"][0]["grid"]


def respell(mapping: dict, key: str, written: str) -> None:
    """Write a key of an args mapping otherwise, where it stands."""
    items = list(mapping.items())
    mapping.clear()
    for k, text in items:
        mapping[written if k == key else k] = (written + text[len(key) :]) if k == key else text


def spelled_otherwise(data: dict) -> dict:
    """The recipe with '_' for '-' in a base flag, in a delta's flag, and in a delta's del_args."""
    g = grid(data)
    base = g["base"][0]["args"]
    respell(base, "--max-num-seqs", "--max_num_seqs")
    respell(base, "--tool-call-parser", "--tool_call_parser")
    for delta in g["deltas"].values():
        for change in delta.values():
            change["del_args"] = [
                "--tool_call_parser" if k == "--tool-call-parser" else k for k in change.get("del_args", [])
            ]
    respell(g["deltas"]["spec_decode=eagle3"]["main"]["add_args"], "--speculative-config", "--speculative_config")
    return data


def write(path: Path, data: dict, indent: int = 4) -> str:
    text = json.dumps(data, indent=indent, ensure_ascii=False) + "\n"
    path.write_text(text, encoding="utf-8")
    return text


def commands(path: Path, capsys) -> list[dict]:
    result = in_process(capsys, "matrix", path, "--format", "json")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)["selections"]


def as_vllm_reads(selections: list[dict]) -> list:
    """Each command with each flag as vLLM's parser reads it (the documented name)."""
    vocabulary = pinned()
    out = []
    for selection in selections:
        for role in selection["roles"]:
            for command in role["commands"]:
                args = []
                for text in command["args"]:
                    key = text.split()[0].split("=")[0]
                    reading = vocabulary.reading(key)
                    name = (reading.flag or key) + key[len(key.partition(".")[0]) :]
                    args.append(name + text[len(key) :])
                out.append((selection["strategy"], selection["target"], role["role"], command["envs"], args))
    return out


def test_fix_writes_the_documented_spellings_in_place_and_says_each(tmp_path, capsys):
    path = tmp_path / f"{GPT_NAME}.json"
    before = write(path, spelled_otherwise(fixture(GPT_NAME)))
    _recipe, problems = check_file(path)
    assert problems and all(not p.is_error and p.fix for p in problems)
    old = commands(path, capsys)

    result = run("validate", "--fix", path)
    assert result.returncode == 0, result.stderr
    said = [line for line in result.stderr.splitlines() if ": fixed: " in line]
    assert len(said) == len(problems) == 3
    assert any(line.endswith("fixed: wrote '--max-num-seqs' for '--max_num_seqs'") for line in said)
    assert result.stderr.splitlines()[-1] != "" and "warning" not in result.stderr.split("written in")[1]
    after = path.read_text(encoding="utf-8")
    # the file differs only in the strings that held the old spellings: same lines, same layout
    changed = [(a, b) for a, b in zip(before.splitlines(), after.splitlines(), strict=True) if a != b]
    assert len(before.splitlines()) == len(after.splitlines())
    assert changed and all("_" in a and a.replace("_", "-") == b.replace("_", "-") for a, b in changed)
    assert not any("--tool_call_parser" in b or "--max_num_seqs" in b for _a, b in changed)
    recipe, problems = check_file(path)
    assert recipe is not None and problems == []
    assert as_vllm_reads(commands(path, capsys)) == as_vllm_reads(old)


def test_fix_leaves_a_file_without_fixes_as_it_is(tmp_path, capsys):
    """By validate's main in this process (a real validate --fix exits 0 in
    test_fix_writes_the_documented_spellings_in_place_and_says_each)."""
    path = tmp_path / f"{GPT_NAME}.json"
    text = write(path, fixture(GPT_NAME), indent=1)
    result = in_process(capsys, "validate", "--fix", path)
    assert result.returncode == 0
    assert path.read_text(encoding="utf-8") == text
    assert "0 fix(es) written in 0 of 1 recipe file(s)" in result.stderr


def test_a_fix_that_would_change_a_command_is_refused_and_the_file_kept(tmp_path, capsys):
    data = fixture(GPT_NAME)
    args = grid(data)["base"][0]["args"]
    args["--max_num_seqs"] = "--max_num_seqs 4"  # both spellings: renaming would drop one of them
    path = tmp_path / f"{GPT_NAME}.json"
    text = write(path, data)
    done = fix.fix_file(path)
    assert done.refused and not done.applied
    assert path.read_text(encoding="utf-8") == text
    result = in_process(capsys, "validate", "--fix", path)
    assert f"{path}: not fixed: " in result.stderr


def test_a_spelling_in_a_shared_grid_is_fixed_once_where_it_was_written(tmp_path):
    data = fixture(GPT_NAME)
    strategy = data["strategies"][0]
    part = json.loads(json.dumps(strategy["options"][0]["grid"]))
    respell(part["base"][0]["args"], "--max-num-seqs", "--max_num_seqs")
    data["grids"] = {"shared": part}
    for target in strategy["options"][:2]:
        own = target["grid"]
        target["grid"] = {"extends": "shared"}
        for field in (
            "model",
            "base",
            "modes",
            "options",
            "option_base",
            "deltas",
            "excluded",
            "recommended",
            "router",
        ):
            if own[field] != fixture(GPT_NAME)["strategies"][0]["options"][0]["grid"][field]:
                target["grid"][field] = own[field]
    path = tmp_path / f"{GPT_NAME}.json"
    write(path, data)
    _recipe, problems = check_file(path)
    assert [p.pointer for p in problems] == ["/grids/shared/base/0/args/--max_num_seqs"]
    done = fix.fix_file(path)
    assert len(done.applied) == 1, done.refused
    assert "--max_num_seqs" not in path.read_text(encoding="utf-8")
    recipe, problems = check_file(path)
    assert recipe is not None and problems == []


_FLAGS = sorted(f for f in pinned().flags if f.count("-") >= 3 and not pinned().flags[f].get("aliases"))


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.sampled_from([f for f in _FLAGS if pinned().flags[f]["takes_value"] == "no"]))
def test_any_underscored_flag_is_fixed_to_the_name_vllm_documents(tmp_path, flag):
    data = fixture(GPT_NAME)
    written = "--" + flag[2:].replace("-", "_")
    grid(data)["base"][0]["args"][written] = written
    path = tmp_path / f"{GPT_NAME}.json"
    write(path, data)
    _recipe, problems = check_file(path)
    if any(p.is_error for p in problems):
        return  # a flag this recipe cannot take (another problem), not a spelling to fix
    done = fix.fix_file(path)
    assert len(done.applied) == 1, done.refused
    assert (
        json.loads(path.read_text(encoding="utf-8"))["strategies"][0]["options"][0]["grid"]["base"][0]["args"][flag]
        == flag
    )


# -- its arguments: what --fix may rewrite ---------------------------------------------------------


def _refused_fix(result: subprocess.CompletedProcess, *said: str) -> None:
    assert result.returncode == 2, (result.returncode, result.stderr)
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("python -m recipebook validate: error: "), result.stderr
    assert "Traceback" not in result.stderr
    for words in said:
        assert words in lines[0], (words, lines[0])


def test_fix_refuses_a_link_in_or_out_of_the_tree_and_leaves_both_files_as_they_are(tmp_path, capsys):
    """By validate's main in this process (--fix's refusal, exit 2, is seen from a real process in
    test_fix_refuses_a_link_among_the_default_recipes_before_fixing_any)."""
    outside = tmp_path / "elsewhere" / f"{GPT_NAME}.json"
    outside.parent.mkdir()
    text = write(outside, spelled_otherwise(fixture(GPT_NAME)))
    folder = tmp_path / "recipes"
    folder.mkdir()
    inside = folder / "inside.json"
    write(inside, fixture(GPT_NAME))
    for link, to in ((folder / f"{GPT_NAME}.json", outside), (folder / "again.json", inside)):
        link.symlink_to(to)
        _refused_fix(
            in_process(capsys, "validate", "--fix", link), "argument FILE", "is a symbolic link", "give the recipe file"
        )
        assert link.is_symlink() and to.is_file()
    assert outside.read_text(encoding="utf-8") == text  # not fixed through the link
    assert in_process(capsys, "validate", outside).returncode == 0  # without --fix a link is read as before


def test_fix_refuses_a_link_among_the_default_recipes_before_fixing_any(tmp_path, capsys):
    """By validate's main in this process, from the folder (a real validate --fix exits 2 for a
    FIFO and a device in test_fix_refuses_what_is_not_a_regular_recipe_file_of_a_bounded_size)."""
    (tmp_path / "recipes").mkdir()
    plain = tmp_path / "recipes" / f"{GPT_NAME}.json"
    text = write(plain, spelled_otherwise(fixture(GPT_NAME)))
    outside = tmp_path / "other.json"
    write(outside, fixture(GPT_NAME))
    (tmp_path / "recipes" / "linked.json").symlink_to(outside)
    result = in_process(capsys, "validate", "--fix", cwd=tmp_path)
    _refused_fix(result, "recipes/linked.json", "is a symbolic link")
    assert plain.read_text(encoding="utf-8") == text  # nothing fixed before the refusal


def test_fix_refuses_what_is_not_a_regular_recipe_file_of_a_bounded_size(tmp_path, capsys):
    """A FIFO and a device from a real process (nothing may wait); the others by validate's main
    in this process."""
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    big = tmp_path / "big.json"
    with big.open("wb") as handle:
        handle.truncate(4 * 1024 * 1024 + 1)
    for argument, said in (
        (fifo, "a FIFO"),
        ("/dev/zero", "a character device"),
        (tmp_path, "a directory"),
        (big, "at most 4 MiB"),
        (tmp_path / "missing.json", "no such file"),
        ("", "an empty path"),
    ):
        real = argument in (fifo, "/dev/zero")
        _refused_fix(
            (run if real else functools.partial(in_process, capsys))("validate", "--fix", argument),
            "argument FILE",
            said,
        )
