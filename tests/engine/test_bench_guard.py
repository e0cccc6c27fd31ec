"""The explorer's benchmark script takes its three counts as arguments (issue 41): an argument
is never evaluated by the reader's shell. Shell arithmetic evaluates its operand as an
expression (``$((8 * a[$(cmd)]))`` runs ``cmd``; ``010`` reads as octal), so the function
refuses anything but 1 to 9 digits without a leading zero, with a message, before any
arithmetic or any run; run here in the real shells a reader has (bash and dash), with ``vllm``
and ``python3`` replaced by functions that record what they are given.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

import recipebook
from recipe_support import AXK2_NAME, GPT_NAME, RECIPES
from recipebook.expanding import client
from recipebook.expanding.page import page_of

SHELLS = ("bash", "dash")
# What a reader may type, or paste, as an argument; the marker file tells whether any of it ran.
HOSTILE = (
    "a[$(touch MARK)]",
    "x[`touch MARK`]",
    "$(touch MARK)",
    "1+a[$(touch MARK)]",
    "a",
    "1+1",
    "010",
    "08",
    "0",
    "",
    "-1",
    " 1",
    "1 ",
    "1e3",
    "0x10",
    "1234567890",
    "1\n$(touch MARK)",
    "%s%n",
)
GOOD = ("1", "8", "64", "999999999")


def _function(name: str) -> str:
    """One target's benchmark function as the page shows it, without its calls."""
    target = page_of(recipebook.load(RECIPES / f"{name}.json")).targets[0]
    lines = target.bench_at(target.opening).splitlines()
    return "\n".join(line for line in lines if not line.startswith(f"{client.BENCH_FUNCTION} "))


STUBS = 'vllm() { printf "%s\\n" "$@" > called; }\npython3() { echo 0; }\n'


def _run(shell: str, folder: Path, script: str, args: tuple[str, str, str]) -> subprocess.CompletedProcess[str]:
    path = folder / "bench.sh"
    path.write_text(f'{STUBS}{script}\nbench "$@"\n', encoding="utf-8")
    executable = shutil.which(shell)
    assert executable, f"{shell} is not installed"
    return subprocess.run(
        [executable, str(path), *args], cwd=folder, capture_output=True, text=True, check=False, timeout=60
    )


@pytest.mark.parametrize("shell", SHELLS)
@pytest.mark.parametrize("name", [GPT_NAME, AXK2_NAME])
def test_a_hostile_count_runs_nothing_and_says_why(tmp_path, shell, name):
    script = _function(name)
    for position in range(3):
        for hostile in HOSTILE:
            folder = tmp_path / f"{position}-{HOSTILE.index(hostile)}"
            folder.mkdir()
            args = ["1024", "128", "1"]
            args[position] = hostile
            result = _run(shell, folder, script, (args[0], args[1], args[2]))
            assert not (folder / "MARK").exists(), (shell, hostile)  # nothing of it ran
            assert not (folder / "called").exists(), (shell, hostile)  # nor did the benchmark
            assert result.returncode == 2, (shell, hostile, result.stderr)
            assert result.stderr == (
                f"bench: {hostile} is not a count from 1 to 999999999 "
                "(input tokens, output tokens, concurrent requests)\n"
            ), (shell, hostile)


@pytest.mark.parametrize("shell", SHELLS)
def test_counts_reach_the_benchmark(tmp_path, shell):
    script = _function(GPT_NAME)
    for n, good in enumerate(GOOD):
        folder = tmp_path / str(n)
        folder.mkdir()
        result = _run(shell, folder, script, ("1024", "128", good))
        assert result.returncode == 0, result.stderr
        words = (folder / "called").read_text(encoding="utf-8").splitlines()
        assert words[words.index("--max-concurrency") + 1] == good
        assert words[words.index("--num-prompts") + 1] == str(client.PROMPTS_PER_REQUEST * int(good))
        assert words[words.index("--random-input-len") + 1] == "1024"
