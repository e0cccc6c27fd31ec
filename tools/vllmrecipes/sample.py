"""Write the sample of vLLM Recipes the tests import (``tests/data/vllm-recipes/``).

    .venv/bin/python -m tools.vllmrecipes CHECKOUT [--out tests/data/vllm-recipes]

CHECKOUT is a git work tree of github.com/vllm-project/recipes. The tool copies the files a
sample of model files needs (the model files, ``strategies/``, ``kv_store/``, ``taxonomy.yaml``,
their licence) into ``OUT/checkout/``, imports each model with ``recipebook import`` (and writes
the imported recipes ``make test-batch`` adds, ``BATCH``, into ``tests/batch/recipes/``), and asks
their own ``src/lib/command-synthesis.js``, run by Node.js, for the commands of a spread of
choices of every target (``OUT/commands.json``, with the commit they come from). The tests compare
the imported recipes' commands with these; Node.js and the checkout are needed here only.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from recipebook import importing
from recipebook.importing import vllm_recipes
from recipebook.reading import sharing

REPOSITORY = "https://github.com/vllm-project/recipes"
HERE = Path(__file__).resolve().parent
DEFAULT_OUT = HERE.parents[1] / "tests" / "data" / "vllm-recipes"
# Models of every shape: dense on one node, MoE with prefill/decode and KV offload on many
# hardware profiles and three checkpoints, feature modes and a long name, GPU floors and
# per-hardware strategy gates, modes with mutually exclusive features, vLLM-Omni with a checkpoint
# per task, a relative examples/ chat template (a real problem), an Advanced flag gated by the
# model, a model that runs across nodes only.
SAMPLE = (
    "Qwen/Qwen3-8B",
    "Qwen/Qwen3-235B-A22B-Instruct-2507",
    "nvidia/NVIDIA-Nemotron-3.5-Lightning-30B-A3B-BF16",
    "moonshotai/Kimi-K3",
    "MiniMaxAI/MiniMax-M3",
    "Wan-AI/Wan2.2-T2V-A14B-Diffusers",
    "Google/gemma-4-E2B-it",
    "deepseek-ai/DeepSeek-R1",
    "XiaomiMiMo/MiMo-V2.5-Pro",
    "Qwen/Qwen3-TTS-12Hz-1.7B-CustomVoice",
)
# Imported recipes make test-batch adds to the site (tests/batch/recipes, with their pages and
# Korean labels): one strategy on many hardware profiles; prefill/decode pools, GPU floors and
# several checkpoints; vLLM-Omni with a checkpoint per task; vLLM-Omni under a long name.
BATCH = (
    "Qwen/Qwen3-8B",
    "moonshotai/Kimi-K3",
    "Wan-AI/Wan2.2-T2V-A14B-Diffusers",
    "Qwen/Qwen3-TTS-12Hz-1.7B-CustomVoice",
)
OTHER_SELECTIONS = 2  # random selections of the first target of a strategy
EVERY_VALUE = 6  # values alone of the first target of a strategy (spread over its axes)


def _copy(checkout: Path, out: Path) -> None:
    target = out / "checkout"
    if target.exists():
        shutil.rmtree(target)
    for name in ("LICENSE", "taxonomy.yaml"):
        (target / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(checkout / name, target / name)
    for folder in ("strategies", "kv_store"):
        shutil.copytree(checkout / folder, target / folder)
    for model in SAMPLE:
        (target / "models" / model).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(checkout / "models" / f"{model}.yaml", target / "models" / f"{model}.yaml")


def _offered(grid: dict[str, Any], selection: dict[str, str]) -> bool:
    return not any(all(selection.get(k) == v for k, v in entry.items()) for entry in grid["excluded"])


def _selections(grid: dict[str, Any], first: bool, rng: random.Random) -> list[dict[str, str]]:
    """The recommended selection of every target; for the first target of a strategy also the
    base, a spread of values alone and random selections."""
    axes = {**grid["modes"], **grid["options"]}
    base = {axis: (grid["option_base"].get(axis) or values[0]) for axis, values in axes.items()}
    found = [grid["recommended"] or base]
    if first:
        alone = [{**base, axis: value} for axis, values in axes.items() for value in values if value != base[axis]]
        found += [base, *rng.sample(alone, min(EVERY_VALUE, len(alone)))]
    if first:
        others = [{axis: rng.choice(values) for axis, values in axes.items()} for _ in range(8)]
        found += [s for s in others if _offered(grid, s)][:OTHER_SELECTIONS]
    unique: list[dict[str, str]] = []
    for selection in found:
        if _offered(grid, selection) and selection not in unique:
            unique.append(selection)
    return unique


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.vllmrecipes", description=__doc__.split("\n\n")[0])
    parser.add_argument("checkout", type=Path, help="a git work tree of github.com/vllm-project/recipes")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    commit = subprocess.run(
        ["git", "-C", str(args.checkout), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()
    _copy(args.checkout, args.out)
    checkout = vllm_recipes.Checkout.read(args.out / "checkout", commit=commit)
    rng = random.Random(39)
    entries: list[dict[str, Any]] = []
    node = subprocess.Popen(
        ["node", str(HERE / "synthesis.mjs"), str(args.checkout.resolve())],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert node.stdin is not None and node.stdout is not None
    strategies = {name: spec for name, spec in checkout.strategies.items()}
    for model in SAMPLE:
        path = checkout.model(model)
        try:
            imported = importing.convert_file(path, checkout)
        except vllm_recipes.NotImportable as error:
            print(f"{model}: not imported: {str(error).splitlines()[0]}", file=sys.stderr)
            continue
        recipe = vllm_recipes.read_yaml(path, model)
        node.stdin.write(json.dumps({"recipe": recipe, "strategies": strategies, "taxonomy": checkout.taxonomy}) + "\n")
        written = sharing.written_out(imported.recipe)
        for strategy in written["strategies"]:
            for n, target in enumerate(strategy["options"]):
                plan = imported.plans[(strategy["slug"], target["target"])]
                for selection in _selections(target["grid"], n == 0, rng):
                    choice = vllm_recipes.choice_of(plan, selection)
                    node.stdin.write(json.dumps(choice) + "\n")
                    node.stdin.flush()
                    theirs = json.loads(node.stdout.readline())
                    entries.append(
                        {
                            "model": model,
                            "strategy": strategy["slug"],
                            "target": target["target"],
                            "selection": selection,
                            "choice": choice,
                            "theirs": theirs,
                        }
                    )
    node.stdin.close()
    node.wait()
    batch = HERE.parents[1] / "tests" / "batch" / "recipes"
    for model in BATCH:
        imported = importing.convert_file(checkout.model(model), checkout)
        (batch / f"{imported.name}.json").write_text(importing.dumps(imported.recipe), encoding="utf-8")
    data = {
        "source": REPOSITORY,
        "commit": commit,
        "made_by": "python -m tools.vllmrecipes (their src/lib/command-synthesis.js under Node.js)",
        "entries": entries,
    }
    head = json.dumps({k: v for k, v in data.items() if k != "entries"}, ensure_ascii=False)[:-1]
    lines = ",\n".join(json.dumps(entry, ensure_ascii=False, separators=(",", ":")) for entry in entries)
    (args.out / "commands.json").write_text(f'{head}, "entries": [\n{lines}\n]}}\n', encoding="utf-8")
    print(f"{len(entries)} choices of {len(SAMPLE)} models at {commit} into {args.out}", file=sys.stderr)
    return 0
