"""Rendering each recipe's router values with the chart itself (``helm template``), when a checkout is given.

Helm is not a Debian package, and its release binaries come from a site the project's machines
do not reach; ``helm-python-sdk`` (PyPI) carries Helm's Go SDK (v4) as a shared library and
renders charts as ``helm template`` does. It is installed with pip into a small venv of its own
(``.crosscheck/helm``). The chart's source is what the maintainer fetched for ``make routerchart``
(``ROUTER_CHART=`` a git directory or work tree of llm-d/llm-d-router): it is laid out in a
scratch folder with its ``file://`` dependencies in ``charts/``, as ``helm dependency build``
would, and never copied into the project.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import yaml
from tools.routerchart.generate import CHARTS, Source

from recipebook import shell
from recipebook.checking import helmcharts
from recipebook.problems import Kind, Problem, pointer_join
from recipebook.reading import source
from recipebook.reading.model import Recipe

SDK = "helm-python-sdk==0.2.2"
STAMP = ".helm-stamp"


def ensure(into: Path) -> Path:
    python = into / "bin" / "python"
    if (into / STAMP).is_file() and (into / STAMP).read_text(encoding="utf-8") == SDK and python.exists():
        return python
    subprocess.run([sys.executable, "-m", "venv", "--clear", str(into)], check=True)
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", SDK], check=True)
    (into / STAMP).write_text(SDK, encoding="utf-8")
    return python


def assemble(checkout: Path, ref: str, chart: str, into: Path) -> Path:
    """The chart laid out for rendering: its files at ``ref``, each file:// dependency under charts/."""
    where = Source(git=checkout, ref=ref) if (checkout / "HEAD").is_file() else Source(tree=checkout, ref=ref)

    def copy(folder: str, to: Path) -> None:
        for name in where.files(folder):
            target = to / name.removeprefix(folder + "/")
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(where.read(name) or "", encoding="utf-8")

    base = into / chart
    copy(f"{CHARTS}/{chart}", base)
    meta = yaml.safe_load((base / "Chart.yaml").read_text(encoding="utf-8"))
    for dependency in meta.get("dependencies", []):
        folder = f"{CHARTS}/{str(dependency['repository']).removeprefix('file://../')}"
        copy(folder, base / "charts" / dependency["name"])
    return base


def jobs(
    recipes: Iterable[tuple[str, Recipe]], chart_dirs: dict[str, Path]
) -> list[tuple[dict[str, Any], str, str, int]]:
    """(render job, recipe path, pointer of the helm step's cmd, index of its chart reference) per install."""
    found = []
    for path, recipe in recipes:
        for _, target in recipe.targets():
            steps = tuple(step.cmd for step in target.grid.router)
            files = shell.here_documents(steps)
            for step, words in helmcharts._installs(steps):
                positional, options = helmcharts._parse_install(words)
                if len(positional) < 2:
                    continue
                chart, _ = helmcharts._chart_for(positional[1][0])
                if chart is None or chart.name not in chart_dirs:
                    continue
                texts = [files[f].text for name in ("--values", "-f") for f, _ in options.get(name, []) if f in files]
                sets = [[name, v] for name in ("--set", "--set-string") for v, _ in options.get(name, [])]
                job = {"chart": str(chart_dirs[chart.name]), "name": positional[0][0], "values": texts, "sets": sets}
                cmd = pointer_join(target.grid.router[step].ptr, "cmd")
                found.append((job, path, cmd, positional[1][1]))
    return found


def render(python: Path, recipes: list[tuple[str, Recipe]], checkout: Path) -> tuple[int, list[Problem], str]:
    """(installs rendered, refusals located at the helm step, the Helm SDK version)."""
    with tempfile.TemporaryDirectory(prefix="routerchart-") as scratch:
        chart_dirs = {
            name: assemble(checkout, chart.version, name, Path(scratch) / "charts")
            for name, chart in helmcharts.charts().items()
        }
        planned = jobs(recipes, chart_dirs)
        request, answer = Path(scratch) / "request.json", Path(scratch) / "answer.json"
        request.write_text(json.dumps([job for job, *_ in planned]), encoding="utf-8")
        root = Path(__file__).resolve().parents[2]
        subprocess.run(
            [str(python), "-m", "tools.crosscheck.helm_render", str(request), str(answer)],
            cwd=root,
            env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"},
            check=True,
        )
        result = json.loads(answer.read_text(encoding="utf-8"))
    problems = []
    for (job, path, pointer, index), rendered in zip(planned, result["renders"], strict=True):
        if rendered["error"]:
            document, _ = source.read(path)
            assert document is not None
            message = f"helm template refuses it (Helm SDK {result['helm']}): {rendered['error']}"
            problems.append(document.problem_inside(pointer, index, message, kind=Kind.RULE))
        del job
    return len(planned), sorted(problems), result["helm"]
