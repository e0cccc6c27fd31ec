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
from recipebook.expanding.page import expansion_at, page_of
from recipebook.problems import Kind, Problem, pointer_join
from recipebook.reading import source
from recipebook.reading.model import Recipe
from recipebook.rendering import files, kubernetes
from recipebook.rendering.files import selection_files

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


def kubernetes_jobs(
    recipes: Iterable[tuple[str, Recipe]], chart_dirs: dict[str, Path]
) -> list[tuple[dict[str, Any], str, str, dict[str, str]]]:
    """(render job, recipe path, the target's pointer, the selection's Kubernetes files) per target
    whose router installs a chart: the install ``kubernetes/router/install.sh`` runs, with the
    recipe's values and the cluster's, as the release and namespace the files name."""
    found = []
    for path, recipe in recipes:
        for target in page_of(recipe).targets:
            steps = tuple(cmd for _n, cmd in target.router)
            if kubernetes.router_of(steps) is None:
                continue
            expansion = expansion_at(recipe, target, target.opening)
            written = selection_files(expansion)
            where = files.kubernetes_where(expansion)
            settings = kubernetes.settings_of(None, where.defaults())
            for _step, words in helmcharts._installs(steps):
                positional, options = helmcharts._parse_install(words)
                if len(positional) < 2:
                    continue
                chart, _ = helmcharts._chart_for(positional[1][0])
                if chart is None or chart.name not in chart_dirs:
                    continue
                values = [
                    text
                    for name, text in written.items()
                    if name.startswith(f"{kubernetes.ROUTER_FOLDER}/") and name.endswith(".yaml")
                ]
                values.sort(key=lambda text: text is written[f"{kubernetes.ROUTER_FOLDER}/{kubernetes.CLUSTER_VALUES}"])
                sets = [[name, v] for name in ("--set", "--set-string") for v, _ in options.get(name, [])]
                job = {
                    "chart": str(chart_dirs[chart.name]),
                    "name": where.release,
                    "namespace": settings["namespace"],
                    "values": values,
                    "sets": sets,
                }
                found.append((job, path, target.target.ptr, written))
    return found


def pool_problems(rendered: dict[str, str], written: dict[str, str], gateway: str) -> list[str]:
    """What the chart rendered from the Kubernetes files' values would get wrong: its
    InferencePool must select exactly their prefill and decode pods, on the ports those pods
    serve, and its HTTPRoute must send the named Gateway's traffic to that pool."""
    objects = [d for text in rendered.values() for d in yaml.safe_load_all(text) if isinstance(d, dict)]
    pools = [d for d in objects if d.get("kind") == "InferencePool"]
    routes = [d for d in objects if d.get("kind") == "HTTPRoute"]
    if len(pools) != 1 or len(routes) != 1:
        return [f"the chart renders {len(pools)} InferencePool(s) and {len(routes)} HTTPRoute(s), not one of each"]
    pool, route = pools[0], routes[0]
    selector = pool["spec"]["selector"]["matchLabels"]
    targets = {p["number"] for p in pool["spec"]["targetPorts"]}
    out = []
    served: set[int] = set()
    for name, text in written.items():
        if (
            not name.startswith(f"{kubernetes.FOLDER}/")
            or name.startswith(f"{kubernetes.ROUTER_FOLDER}/")
            or not name.endswith(".yaml")
        ):
            continue
        for document in yaml.safe_load_all(text):
            if document.get("kind") != "Deployment":
                continue
            template = document["spec"]["template"]
            labels = template["metadata"]["labels"]
            chosen = all(labels.get(k) == v for k, v in selector.items())
            meant = labels.get(kubernetes.ROLE_LABEL) in kubernetes.DISAGGREGATED
            if chosen != meant:
                out.append(f"the chart's pool {'selects' if chosen else 'misses'} the pods of {name}")
            if chosen:
                active = {int(p) for p in template["metadata"]["annotations"][kubernetes.ACTIVE_PORTS].split(",")}
                pod = template["spec"]
                ports = {
                    p["containerPort"] for c in (*pod.get("initContainers", ()), *pod["containers"]) for p in c["ports"]
                }
                if not active <= ports:
                    out.append(f"{name}: the pool reaches ports {sorted(active - ports)} the pod does not serve")
                served |= active & targets
    if served != targets:
        out.append(f"the chart's pool targets ports {sorted(targets)}, the pods serve {sorted(served)} of them")
    parents = [ref.get("name") for ref in route["spec"].get("parentRefs", ())]
    backends = [ref for rule in route["spec"].get("rules", ()) for ref in rule.get("backendRefs", ())]
    if parents != [gateway]:
        out.append(f"the chart's HTTPRoute is attached to {parents}, not the Gateway {gateway!r}")
    if [(b.get("kind"), b.get("name")) for b in backends] != [("InferencePool", pool["metadata"]["name"])]:
        out.append(f"the chart's HTTPRoute sends to {backends}, not the pool {pool['metadata']['name']!r}")
    return out


def render(python: Path, recipes: list[tuple[str, Recipe]], checkout: Path) -> tuple[int, list[Problem], str]:
    """(installs rendered, refusals located at the helm step, the Helm SDK version): the recipes'
    router steps, and the install of each prefill/decode target's Kubernetes files."""
    with tempfile.TemporaryDirectory(prefix="routerchart-") as scratch:
        chart_dirs = {
            name: assemble(checkout, chart.version, name, Path(scratch) / "charts")
            for name, chart in helmcharts.charts().items()
        }
        planned = jobs(recipes, chart_dirs)
        clusters = kubernetes_jobs(recipes, chart_dirs)
        request, answer = Path(scratch) / "request.json", Path(scratch) / "answer.json"
        request.write_text(json.dumps([job for job, *_ in planned] + [job for job, *_ in clusters]), encoding="utf-8")
        root = Path(__file__).resolve().parents[2]
        subprocess.run(
            [str(python), "-m", "tools.crosscheck.helm_render", str(request), str(answer)],
            cwd=root,
            env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"},
            check=True,
        )
        result = json.loads(answer.read_text(encoding="utf-8"))
    problems = []
    renders = result["renders"]
    for (job, path, pointer, written), rendered in zip(clusters, renders[len(planned) :], strict=True):
        document, _ = source.read(path)
        assert document is not None
        gateway = kubernetes.settings_of(None, {})["gateway"]
        reasons = [rendered["error"]] if rendered["error"] else pool_problems(rendered["texts"], written, gateway)
        for reason in reasons:
            message = f"helm template of the Kubernetes files' router install (Helm SDK {result['helm']}): {reason}"
            problems.append(document.problem(pointer, message, kind=Kind.RULE))
        del job
    for (job, path, pointer, index), rendered in zip(planned, renders[: len(planned)], strict=True):
        if rendered["error"]:
            document, _ = source.read(path)
            assert document is not None
            message = f"helm template refuses it (Helm SDK {result['helm']}): {rendered['error']}"
            problems.append(document.problem_inside(pointer, index, message, kind=Kind.RULE))
        del job
    return len(planned) + len(clusters), sorted(problems), result["helm"]
