"""Rule 13: a router's Helm steps judged by the chart they install (the committed vocabulary of the
llm-d router chart), each problem at the very character of the step's JSON string; the generator
of that vocabulary run on a small chart written here; positions inside a JSON string."""

from __future__ import annotations

import copy
import importlib
import json
import sys
from pathlib import Path

import pytest

import recipebook
from recipebook.checking import helmcharts
from recipebook.reading import source

REPO = Path(__file__).resolve().parents[2]
AXK2 = REPO / "recipes" / "A.X-K2.json"
ROUTER = "/strategies/2/options/0/grid/router"
VALUES_CMD = f"{ROUTER}/nodes/0/cmd"
HELM_CMD = f"{ROUTER}/nodes/1/cmd"
CHART = "chart llm-d-router-gateway v0.10.0"
REFERENCE = "oci://ghcr.io/llm-d/charts/llm-d-router-gateway"

# The router steps as A.X-K2 shipped them before issue 21: keys the chart does not read, and a
# bare chart name.
OLD_VALUES = (
    "cat > router-values.yaml <<'EOF'\nendpoint_picker:\n  image: ghcr.io/llm-d/llm-d-router-endpoint-picker:v0.10.0\n"
    "  ext_proc_port: 9002\n  plugins:\n  - type: prefix-based-pd-decider\n    parameters:\n      nonCachedTokens: 1\n"
    "  - type: disagg-profile-handler\n    parameters:\n      deciders:\n        prefill: prefix-based-pd-decider\n"
    "  - type: prefill-filter\n  - type: decode-filter\n  - type: approx-prefix-cache-producer\n    parameters:\n"
    "      maxPrefixTokensToMatch: 131072\n      lruCapacityPerServer: 1024\n  - type: prefix-cache-scorer\n"
    "    parameters:\n      prefixMatchInfoProducerName: approx-prefix-cache-producer\n  - type: queue-scorer\n"
    "  - type: max-score-picker\n  scheduling_profiles:\n  - name: prefill\n    plugins:\n    - ref: prefill-filter\n"
    "    - ref: max-score-picker\n    - ref: prefix-cache-scorer\n      weight: 2\n    - ref: queue-scorer\n"
    "      weight: 1\n  - name: decode\n    plugins:\n    - ref: decode-filter\n    - ref: max-score-picker\n"
    "    - ref: prefix-cache-scorer\n      weight: 2\n    - ref: queue-scorer\n      weight: 1\ninference_pool:\n"
    "  failure_mode: FailOpen\n  match_labels:\n    llm-d.ai/guide: pd-disaggregation\n  target_ports:\n  - 8000\n"
    "  - 8001\n  - 8002\n  - 8003\n  - 8004\n  - 8005\n  - 8006\n  - 8007\nEOF"
)
OLD_HELM = "helm install router llm-d-router-gateway \\\n    --version v0.10.0 \\\n    --values router-values.yaml"


class Written:
    """A copy of A.X-K2 with its router steps changed, written and checked by the engine."""

    def __init__(self, tmp_path: Path, values: str | None = None, helm: str | None = None) -> None:
        data = copy.deepcopy(json.loads(AXK2.read_text(encoding="utf-8")))
        nodes = data["strategies"][2]["options"][0]["grid"]["router"]["nodes"]
        if values is not None:
            nodes[0]["cmd"] = values
        if helm is not None:
            nodes[1]["cmd"] = helm
        self.path = tmp_path / "A.X-K2.json"
        self.text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
        self.path.write_text(self.text, encoding="utf-8")
        _, self.problems = recipebook.check_file(self.path)

    def at(self, needle: str) -> tuple[int, int]:
        """Line and column of the one place the raw JSON text holds ``needle`` (a newline in it is
        written ``\\n``, as in the file); what comes before a "\\0" is context, not counted."""
        context, _, piece = needle.rpartition("\0")
        raw_context, raw = (json.dumps(t, ensure_ascii=False)[1:-1] for t in (context, piece))
        assert self.text.count(raw_context + raw) == 1, f"{needle!r} is not unique"
        offset = self.text.index(raw_context + raw) + len(raw_context)
        return self.text.count("\n", 0, offset) + 1, offset - self.text.rfind("\n", 0, offset)

    def find(self, pointer: str, fragment: str) -> list:
        return [p for p in self.problems if p.pointer == pointer and fragment in p.message]

    def expect(self, pointer: str, fragment: str, *, at: str) -> str:
        found = self.find(pointer, fragment)
        listing = "\n".join(map(str, self.problems)) or "(none)"
        assert len(found) == 1, f"{fragment!r} at {pointer}:\n{listing}"
        assert (found[0].line, found[0].column) == self.at(at), str(found[0])
        return found[0].message


def test_shipped_recipes_pass_the_router_rule() -> None:
    for path in sorted((REPO / "recipes").glob("*.json")):
        if path.name != "schema.json":
            assert recipebook.check_file(path)[1] == [], path


def test_the_recipe_as_it_was_is_refused_at_the_right_lines_naming_the_chart_s_keys(tmp_path) -> None:
    old = Written(tmp_path, OLD_VALUES, OLD_HELM)
    message = old.expect(VALUES_CMD, "'endpoint_picker' is not a value", at="endpoint_picker:")
    assert (
        message.startswith("router-values.yaml line 1: ")
        and "at the top level it reads: httpRoute, provider, router" in message
    )
    assert "helm drops an unknown key silently" in message
    named = {
        "endpoint_picker.image": ("router.epp.image", "\n  \0image: ghcr.io"),
        "endpoint_picker.ext_proc_port": ("router.epp.extProcPort", "ext_proc_port"),
        "inference_pool.failure_mode": ("router.inferencePool.failureMode", "failure_mode"),
        "inference_pool.match_labels": ("router.modelServers.matchLabels", "match_labels"),
        "inference_pool.target_ports": ("router.modelServers.targetPorts", "target_ports"),
    }
    for key, (chart_key, where) in named.items():
        found = old.expect(
            VALUES_CMD, f"{key!r} is not read by the {CHART} either; did you mean {chart_key!r}?", at=where
        )
        assert found.startswith("router-values.yaml line ")  # the values file's own line is named too
    old.expect(VALUES_CMD, "'inference_pool' is not a value", at="inference_pool:")
    assert "did you mean 'router.inferencePool'?" in old.find(VALUES_CMD, "'inference_pool' is not")[0].message
    old.expect(
        HELM_CMD,
        f"'llm-d-router-gateway' names no repository the reader has added; write {REFERENCE!r}",
        at="llm-d-router-gateway \\",
    )
    old.expect(HELM_CMD, "router.modelServers.matchLabels is required by the", at="llm-d-router-gateway \\")
    assert (
        "the install fails with '.Values.router.modelServers.matchLabels is required'"
        in old.find(HELM_CMD, "required")[0].message
    )
    assert len(old.problems) == 9, "\n".join(map(str, old.problems))
    # every problem sits on the line of its step's "cmd" in the file
    for problem in old.problems:
        assert old.text.splitlines()[problem.line - 1].lstrip().startswith('"cmd": ')


def _current(step: int) -> str:
    data = json.loads(AXK2.read_text(encoding="utf-8"))
    return data["strategies"][2]["options"][0]["grid"]["router"]["nodes"][step]["cmd"]


def test_a_missing_required_key(tmp_path) -> None:
    values = _current(0).replace("    matchLabels:\n      llm-d.ai/guide: pd-disaggregation\n", "")
    written = Written(tmp_path, values)
    message = written.expect(HELM_CMD, "router.modelServers.matchLabels is required", at="router \0" + REFERENCE)
    assert CHART in message
    assert len(written.problems) == 1


def test_a_required_key_is_not_needed_when_its_condition_is_off(tmp_path) -> None:
    values = _current(0).replace("    matchLabels:\n      llm-d.ai/guide: pd-disaggregation\n", "")
    values = values.replace("  inferencePool:\n", "  inferencePool:\n    create: false\n")
    assert Written(tmp_path, values).problems == []


def test_a_wrong_type(tmp_path) -> None:
    written = Written(tmp_path, _current(0).replace("extProcPort: 9002", "extProcPort: [9002]"))
    message = written.expect(VALUES_CMD, "'router.epp.extProcPort' takes an integer", at="[9002]")
    assert (
        message == f"router-values.yaml line 19: 'router.epp.extProcPort' takes an integer in the {CHART}, got a list"
    )
    ports = Written(tmp_path, _current(0).replace("    - number: 8003\n", "    - 8003\n"))
    found = ports.expect(VALUES_CMD, "'router.modelServers.targetPorts' takes a map", at="- \08003\n")
    assert found.endswith("got an integer '8003'")
    port_key = Written(tmp_path, _current(0).replace("- number: 8005", "- port: 8005"))
    port_key.expect(VALUES_CMD, "'router.modelServers.targetPorts.port' is not a value", at="port: 8005")


def test_an_unknown_chart_reference(tmp_path) -> None:
    typo = REFERENCE.replace("gateway", "gatway")
    written = Written(tmp_path, helm=_current(1).replace(REFERENCE, typo))
    message = written.expect(HELM_CMD, "is not a chart the router vocabulary knows", at=typo)
    assert message.endswith(f"did you mean {REFERENCE!r}?")
    other = Written(tmp_path, helm=_current(1).replace(REFERENCE, "oci://ghcr.io/example/charts/llm-d-router-gateway"))
    other.expect(
        HELM_CMD, f"is not where llm-d-router-gateway is published; write {REFERENCE!r}", at="oci://ghcr.io/example"
    )


def test_a_chart_version_the_vocabulary_is_not_of(tmp_path) -> None:
    written = Written(tmp_path, helm=_current(1).replace("v0.10.0", "v0.11.0"))
    written.expect(HELM_CMD, f"--version v0.11.0: the router vocabulary is of {CHART}", at="--version \0v0.11.0")
    unpinned = Written(tmp_path, helm=f"helm install router {REFERENCE} --values router-values.yaml")
    unpinned.expect(
        HELM_CMD, "without --version takes the newest chart; pin --version v0.10.0", at="router \0" + REFERENCE
    )


def test_a_key_that_fails_the_install_is_refused_with_the_chart_s_message(tmp_path) -> None:
    values = _current(0).replace("router:\n", "inferencePool:\n  create: true\nrouter:\n", 1)
    written = Written(tmp_path, values)
    message = written.expect(VALUES_CMD, "'inferencePool' fails the install", at="inferencePool:\n  create")
    assert message.endswith(
        "Top-level 'inferencePool' is deprecated. Please migrate your values to 'router.modelServers' and 'router.inferencePool'."
    )


def test_set_and_values_files_not_written_by_a_step(tmp_path) -> None:
    helm = _current(1) + " \\\n    --set router.epp.replicaz=2 \\\n    --values other.yaml"
    written = Written(tmp_path, helm=helm)
    written.expect(
        HELM_CMD, "--set router.epp.replicaz: 'router.epp.replicaz' is not a value", at="router.epp.replicaz=2"
    )
    written.expect(HELM_CMD, "'other.yaml' is not written by a step before it", at="other.yaml")
    open_map = Written(tmp_path, helm=_current(1) + " \\\n    --set router.modelServers.matchLabels.app=x")
    assert open_map.problems == []  # matchLabels takes any keys


def test_values_that_are_not_yaml(tmp_path) -> None:
    written = Written(tmp_path, _current(0).replace("extProcPort: 9002", "extProcPort: [9002"))
    assert any("router-values.yaml is not YAML" in p.message for p in written.problems), written.problems


def test_committed_chart_vocabulary() -> None:
    chart = helmcharts.charts()["llm-d-router-gateway"]
    assert (chart.reference, chart.version, chart.schema_file) == (REFERENCE, "v0.10.0", False)
    required = {e["path"]: e for e in chart.required}
    assert required["router.modelServers.matchLabels"]["unless"] == {
        "path": "router.inferencePool.create",
        "equals": False,
    }
    assert required["router.modelServers.matchLabels"]["default"] is False
    assert required["router.epp.resources.requests.cpu"]["default"] is True
    assert set(chart.forbidden) == {
        "inferenceExtension",
        "inferencePool",
        "experimentalHttpRoute",
        "inferenceObjectives",
    }
    assert chart.node(("router", "modelServers", "targetPorts"))["items"] == {
        "keys": {"number": {"type": "integer"}},
        "open": False,
        "type": "object",
    }
    assert chart.node(("router", "epp", "pluginsCustomConfig"))["open"] is True
    assert chart.node(("router", "epp", "extProcPort")) == {"type": "integer"}


# --------------------------------------------------------------------------- positions inside strings


@pytest.mark.parametrize(
    ("raw", "index", "column"),
    [
        ('"x\\ny"', 2, 11),  # after an escaped newline (2 characters in the file)
        ('"\\u00e9z"', 1, 14),  # after a \\u escape (6 characters)
        ('"\\ud83d\\ude00z"', 1, 20),  # after a surrogate pair (12 characters, one character)
        ('"ab"', 0, 8),
    ],
)
def test_where_inside_a_json_string(raw: str, index: int, column: int) -> None:
    document, problems = source.parse('{"a": ' + raw + "}", "f.json")
    assert problems == [] and document is not None
    assert document.where_inside("/a", index) == (1, column)


def test_where_inside_follows_lines_of_the_file() -> None:
    document, _ = source.parse('{\n  "a": 1,\n  "b": "one\\ntwo"\n}', "f.json")
    assert document.where_inside("/b", 4) == (3, 14)  # the "t" of two, on the file's third line


# --------------------------------------------------------------------------- the generator


def _generator():
    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))
    return importlib.import_module("tools.routerchart.generate")


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def test_generator_reads_a_chart_and_its_library(tmp_path) -> None:
    base = "config/charts"
    _write(
        tmp_path,
        {
            f"{base}/demo/Chart.yaml": "name: demo\ndependencies:\n- name: lib\n  repository: file://../lib\n  alias: router\n",
            f"{base}/demo/values.yaml": "router:\n  pool:\n    # labels: required\nprovider:\n  name: none\n",
            f"{base}/demo/templates/_validations.tpl": (
                '{{- define "demo.validations" -}}\n{{- if not .Values.router.pool.labels }}\n'
                '{{- fail ".Values.router.pool.labels is required" }}\n{{- end }}\n{{- end -}}\n'
            ),
            f"{base}/lib/Chart.yaml": "name: lib\n",
            f"{base}/lib/values.yaml": "pool:\n  ports:\n  - number: 80\n  kind: web\nextra: {}\nresources:\n  cpu: '1'\n",
            f"{base}/lib/templates/_pool.yaml": (
                '{{- define "lib.pool" -}}\n{{- if ne .Values.router.create false }}\n{{- include "demo.validations" . }}\n{{- end }}\n'
                "ports:\n{{- range .Values.router.pool.ports }}\n- {{ .number }}\n{{- end }}\n"
                "{{- range $k, $v := .Values.router.pool.labels }}{{ $k }}{{- end }}\n"
                "{{- toYaml .Values.router.resources }}\n"
                '{{- $p := .Values.router.proxy | default dict }}{{ $p.mode }}{{ index $p "image" }}\n'
                "{{- if .Values.legacy }}\n{{- fail \"Top-level 'legacy' is gone.\" }}\n{{- end }}\n{{- end -}}\n"
            ),
        },
    )
    generate = _generator()
    data = generate.chart_vocabulary(generate.Source(tree=tmp_path, ref="v1.2.3"), "demo")
    assert (data["chart"], data["version"], data["reference"]) == ("demo", "v1.2.3", "oci://ghcr.io/llm-d/charts/demo")
    router = data["values"]["keys"]["router"]["keys"]
    assert router["pool"]["keys"]["ports"]["items"] == {
        "keys": {"number": {"type": "integer"}},
        "open": False,
        "type": "object",
    }
    assert router["pool"]["keys"]["kind"] == {"type": "string"}
    assert router["pool"]["keys"]["labels"] == {"type": "any"}  # read only by the templates: any value
    assert router["resources"]["open"] is True  # passed on with toYaml
    assert router["extra"]["open"] is True  # {} by default
    assert set(router["proxy"]["keys"]) == {"image", "mode"}  # read through a variable
    assert data["required"] == [
        {
            "path": "router.pool.labels",
            "message": ".Values.router.pool.labels is required",
            "template": "demo/templates/_validations.tpl",
            "unless": {"path": "router.create", "equals": False},
            "default": False,
        }
    ]
    assert data["forbidden"] == [
        {"path": "legacy", "message": "Top-level 'legacy' is gone.", "template": "lib/templates/_pool.yaml"}
    ]
    assert "legacy" not in data["values"]["keys"]
