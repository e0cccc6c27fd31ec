"""The command line of ``make crosscheck`` (and of ``make drift CROSSCHECK=1``)."""

from __future__ import annotations

import argparse
import json
import os
import re
import runpy
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from recipebook.reading import vocabulary

from . import commands, containers, scheduling, spellings, venv

ROOT = Path(__file__).resolve().parents[2]
DATA_DIR = ROOT / "_ext" / "recipebook" / "data"


def _pinned() -> dict[str, str]:
    return runpy.run_path(str(ROOT / "conf.py"))["recipebook_versions"]


def run_judge(python: Path, request: dict) -> dict:
    """The judge's answer, run in the venv's Python with this checkout on its path."""
    with tempfile.TemporaryDirectory(prefix="crosscheck-") as scratch:
        asked, answered = Path(scratch) / "request.json", Path(scratch) / "answer.json"
        asked.write_text(json.dumps(request), encoding="utf-8")
        log = Path(scratch) / "judge.log"
        environment = {**os.environ, "PYTHONPATH": str(ROOT)}
        with log.open("w", encoding="utf-8") as out:
            result = subprocess.run(
                [str(python), "-m", "tools.crosscheck.judge", str(asked), str(answered)],
                cwd=ROOT,
                env=environment,
                stdout=out,
                stderr=subprocess.STDOUT,
                check=False,
            )
        if result.returncode != 0 or not answered.exists():
            sys.stderr.write(log.read_text(encoding="utf-8")[-4000:])
            raise SystemExit(f"crosscheck: the judge failed (exit {result.returncode}); its log ends above")
        return json.loads(answered.read_text(encoding="utf-8"))


# a release as PyPI spells one (0.30.0, 0.12.0rc1): it names a folder and a pip requirement
_RELEASE = re.compile(r"[0-9]{1,4}(?:\.[0-9]{1,6}){0,3}(?:(?:a|b|rc|\.post|\.dev)[0-9]{1,4})?")


def release_number(text: str) -> str:
    if not _RELEASE.fullmatch(text):
        raise argparse.ArgumentTypeError(f"{text[:60]!r} is not a release number such as 0.30.0")
    return text


def main(argv: list[str] | None = None) -> int:
    pinned = _pinned()
    parser = argparse.ArgumentParser(prog="python -m tools.crosscheck", description=__doc__)
    parser.add_argument(
        "recipes",
        nargs="*",
        type=Path,
        help="recipe files (default: recipes/*.json and the fixture of every multi-node shape, tests/data/multinode)",
    )
    parser.add_argument("--vllm", default=pinned["vllm"], type=release_number)
    parser.add_argument("--vllm-rbln", default=pinned["vllm-rbln"], type=release_number)
    parser.add_argument("--venv", type=Path, help="default: .crosscheck/vllm-X-rbln-Y")
    parser.add_argument("--vocabulary", type=Path, help="default: _ext/recipebook/data/vllm-X.json")
    parser.add_argument(
        "--parse-only",
        action="store_true",
        help="only parse every command (and build its config objects, evaluate its env values): no vocabulary comparison",
    )
    parser.add_argument(
        "--router-chart",
        type=Path,
        help="a git directory or work tree of llm-d/llm-d-router: also render each router's values with the chart "
        "(helm template, through helm-python-sdk)",
    )
    args = parser.parse_args(argv)
    start = time.monotonic()
    paths = args.recipes or [
        *sorted(p for p in (ROOT / "recipes").glob("*.json") if p.name != "schema.json"),
        *sorted((ROOT / "tests" / "data" / "multinode").glob("*.json")),  # every node of every shape, judged too
    ]
    into = args.venv or ROOT / ".crosscheck" / f"vllm-{args.vllm}-rbln-{args.vllm_rbln}"
    python = venv.ensure(into, args.vllm, args.vllm_rbln)
    release = f"vLLM {args.vllm} with vllm-rbln {args.vllm_rbln}"

    recipes, problems = commands.load_recipes(paths)
    if problems:
        for problem in problems:
            print(problem)
        print(f"crosscheck: {len(problems)} problem(s) of the schema or the rules; fix those first (make validate)")
        return 1
    plan = commands.collect(recipes)
    pairings = containers.collect(recipes)
    added = containers.added_envs(pairings)
    for pair in added:  # the manifests' own VLLM_* values
        plan.env_values.setdefault(pair, [])
    vocabulary_file = args.vocabulary or DATA_DIR / f"vllm-{args.vllm}.json"
    request = plan.request(vocabulary_file)
    request["containers"] = containers.request(pairings)
    probes = [] if args.parse_only else spellings.probes()
    request["spellings"] = probes
    request["scheduler_cases"] = scheduler_cases = scheduling.cases()
    answer = run_judge(python, request)
    if answer["vllm"] != args.vllm:
        raise SystemExit(f"crosscheck: the venv at {into} has vLLM {answer['vllm']}, not {args.vllm}")

    differences = [] if args.parse_only else answer["differences"]
    if not args.parse_only:
        differences += [f"spelling {line}" for line in spellings.differences(answer.get("spellings", {}))]
        shipped = sorted(vocabulary.pinned().chat_templates)
        if args.vllm == vocabulary.PINNED_VLLM and shipped != answer.get("chat_templates"):
            differences.append(
                f"removed-flags.json lists the chat templates {shipped}, vLLM installs {answer.get('chat_templates')}"
            )
    for line in differences:
        print(f"crosscheck: {vocabulary_file.name}: {line}")
    found = commands.located(plan, answer, release)
    found += containers.located(pairings, answer["containers"], release)
    for (pair, uses), env_answer in zip(plan.env_values.items(), answer["envs"], strict=True):
        if not uses and pair in added and (problem := containers.env_problem(added[pair], pair, env_answer, release)):
            found.append(problem)
    for problem in found:
        print(problem)
    disagreements = scheduling.differences(scheduler_cases, answer["scheduler"])
    for line in disagreements:
        print(f"crosscheck: rule 30: {line}")
    refused_commands = sum(1 for c in answer["commands"] if c["error"])
    configs = [b for c in answer["commands"] for b in c["configs"]]
    refused_configs = sum(1 for b in configs if b["error"])
    refused_envs = sum(1 for e in answer["envs"] if e["error"] or not e["known"])
    compared = (
        ""
        if args.parse_only
        else (
            f"{answer['options']} parser options and {len(json.loads(vocabulary_file.read_text(encoding='utf-8')).get('env_types', {}))} "
            f"env types compared with {vocabulary_file.name}, {len(probes)} spellings asked: "
            f"{len(differences)} difference(s); "
        )
    )
    print(
        f"crosscheck: {release} ({answer['platform']}): {compared}"
        f"{plan.total_commands} commands of {plan.selections} selections in {len(plan.recipes)} recipe(s) "
        f"({len(plan.commands)} distinct) parsed: {refused_commands} refused; "
        + (f"{plan.omni} handed to vLLM-Omni (--omni), not parsed; " if plan.omni else "")
        + f"{len(configs)} config objects built ({', '.join(answer['config_classes'])}): {refused_configs} refused; "
        f"{len(answer['envs'])} distinct VLLM_* env values evaluated with vLLM's getters: {refused_envs} refused; "
        f"{len(pairings)} distinct Kubernetes server containers ({sum(p.merged for p in pairings.values())} running every "
        f"rank of a role, each rank derived by vLLM's supervisor) compared with their commands: "
        f"{sum(1 for p, a in zip(pairings.values(), answer['containers'], strict=True) if a['error'] or a['differences'] or containers.env_differences(p))} "
        f"differ; rule 30 and vLLM's SchedulerConfig on {len(scheduler_cases)} commands at the edges of its "
        f"conditions: {len(disagreements)} disagreement(s) ({time.monotonic() - start:.0f} s)"
    )
    if args.router_chart is not None:
        from . import helm

        count, refused, version = helm.render(helm.ensure(ROOT / ".crosscheck" / "helm"), recipes, args.router_chart)
        for problem in refused:
            print(problem)
        found += refused
        print(
            f"crosscheck: {count} router install(s) rendered with the chart by Helm SDK {version} (helm template): {len(refused)} refused"
        )
    elif not args.parse_only:
        print(
            "crosscheck: router steps not rendered (no chart checkout: ROUTER_CHART=...); make validate checks them against the chart's vocabulary"
        )
    measured = 0
    if not args.parse_only and args.vllm == pinned["vllm"]:
        from . import benchrun

        measured = benchrun.main(["--venv", str(into)])  # the real vllm bench serve writes a result file
    return 1 if differences or found or measured or disagreements else 0
