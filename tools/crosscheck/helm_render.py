"""Run in the helm venv (``helm-python-sdk``, Helm's Go SDK through ctypes): render a chart with values.

    .crosscheck/helm/bin/python -m tools.crosscheck.helm_render request.json answer.json

The request lists renders: the chart directory, the release name and namespace, the values
files' texts (in order) and the ``--set`` assignments. The answer gives, for each, Helm's error
or the names of the manifests it rendered, and the text of those that hold an InferencePool or
an HTTPRoute: what ``helm template`` (and so ``helm install``) does with them.
"""

from __future__ import annotations

import json
import sys
from typing import Any


def render(job: dict[str, Any]) -> dict[str, Any]:
    import helm_python

    values: dict[str, Any] = {}
    try:
        for text in job["values"]:
            values = _merge(values, helm_python.values_from_yaml(text) or {})
        for option, assignment in job["sets"]:
            parse = helm_python.parse_set_string_values if option == "--set-string" else helm_python.parse_set_string
            values = _merge(values, parse(assignment))
        with helm_python.Chart.load(job["chart"]) as chart:
            manifests = chart.render(
                values, name=job["name"], namespace=job.get("namespace", "default"), is_install=True
            )
    except helm_python.HelmError as error:
        return {"error": str(error), "manifests": [], "texts": {}}
    kept = ("kind: InferencePool", "kind: HTTPRoute")  # what the Kubernetes files' check reads
    return {
        "error": None,
        "manifests": sorted(k for k, v in manifests.items() if v.strip()),
        "texts": {k: v for k, v in manifests.items() if any(kind in v for kind in kept)},
    }


def _merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in over.items():
        out[key] = _merge(out[key], value) if isinstance(value, dict) and isinstance(out.get(key), dict) else value
    return out


def main() -> int:
    request_path, answer_path = sys.argv[1:]
    with open(request_path, encoding="utf-8") as f:
        jobs = json.load(f)
    import helm_python

    answer = {"helm": helm_python.helm_sdk_version(), "renders": [render(job) for job in jobs]}
    with open(answer_path, "w", encoding="utf-8") as f:
        json.dump(answer, f)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
