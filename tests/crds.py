"""The pinned CustomResourceDefinitions (``tests/data/crds/``, see its ``SOURCE.md``) as strict
validators, and the InferencePool the llm-d router chart renders from a recipe's values.

A CRD's ``openAPIV3Schema`` is an OpenAPI v3 subset that jsonschema reads as it is; what the
API server adds is said here: an object schema that names its fields and neither takes
``additionalProperties`` nor keeps unknown fields (``x-kubernetes-preserve-unknown-fields``)
refuses any other field (kubeconform's ``-strict``; the API server prunes or refuses them).
The CEL rules (``x-kubernetes-validations``) are not evaluated by jsonschema: the callers check
the ones that concern what they build (``CEL_UNIQUE_PORTS``).
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from recipebook import shell

FOLDER = Path(__file__).resolve().parent / "data" / "crds"
LWS = "leaderworkerset.x-k8s.io_leaderworkersets.yaml"
INFERENCE_POOL = "inference.networking.k8s.io_inferencepools.yaml"
CEL_UNIQUE_PORTS = "self.all(p1, self.exists_one(p2, p1.number==p2.number))"

# The router chart (llm-d/llm-d-router v0.10.0, config/charts/routerlib): the defaults its
# InferencePool template reads when the values leave them out (values.yaml: modelServers
# protocol "http", targetPorts [8000], inferencePool failureMode "FailOpen"; the template:
# extProcPort 9002) and the name it gives the endpoint picker (_helpers.tpl llm-d-router.name).
CHART_DEFAULTS = {"protocol": "http", "targetPorts": [{"number": 8000}], "failureMode": "FailOpen", "extProcPort": 9002}


def digest(name: str) -> str:
    return hashlib.sha256((FOLDER / name).read_bytes()).hexdigest()


def strict(schema: Any) -> Any:
    """A copy of a CRD schema in which every object that names its fields takes no others."""
    if isinstance(schema, list):
        return [strict(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {key: strict(value) for key, value in schema.items()}
    if (
        "properties" in out
        and "additionalProperties" not in out
        and not out.get("x-kubernetes-preserve-unknown-fields")
    ):
        out["additionalProperties"] = False
    return out


@functools.cache
def crd_schema(name: str) -> tuple[str, str, dict]:
    """The CRD's group/version, kind and strict schema of its stored version."""
    crd = yaml.load((FOLDER / name).read_text(encoding="utf-8"), Loader=yaml.CSafeLoader)
    version = next(v for v in crd["spec"]["versions"] if v.get("storage"))
    api_version = f"{crd['spec']['group']}/{version['name']}"
    return api_version, crd["spec"]["names"]["kind"], strict(version["schema"]["openAPIV3Schema"])


@functools.cache
def validator(name: str) -> jsonschema.Validator:
    _api, _kind, schema = crd_schema(name)
    return jsonschema.validators.Draft7Validator(schema)


def validate(name: str, obj: Mapping[str, Any]) -> None:
    """Raise jsonschema.ValidationError unless the object is one the CRD takes."""
    api_version, kind, _schema = crd_schema(name)
    if obj.get("apiVersion") != api_version or obj.get("kind") != kind:
        raise jsonschema.ValidationError(f"not a {api_version} {kind}: {obj.get('apiVersion')} {obj.get('kind')}")
    validator(name).validate(obj)


def release_name(steps: list[str]) -> str:
    """The release name of the router step that installs the chart (``helm install NAME ...``)."""
    for step in steps:
        words = shell.words(step.replace("\\\n", " "))
        for i, word in enumerate(words[:-2]):
            if word == "helm" and words[i + 1] in ("install", "upgrade"):
                rest = [w for w in words[i + 2 :] if not w.startswith("-")]
                return rest[0]
    raise ValueError("no helm install step")


def inference_pool(values: Mapping[str, Any], release: str, namespace: str = "default") -> dict | None:
    """The InferencePool ``routerlib/templates/_inferencepool.yaml`` renders from the values
    (None when ``router.inferencePool.create`` is false): targetPorts item by item, appProtocol
    from the protocol, the matchLabels quoted (strings), the endpoint picker's name and port."""
    router = values.get("router") or {}
    servers = router.get("modelServers") or {}
    pool = router.get("inferencePool") or {}
    if pool.get("create") is False:
        return None
    name = release.lower().strip()[:40] + "-epp"
    protocol = servers.get("protocol", CHART_DEFAULTS["protocol"])
    spec: dict[str, Any] = {
        "targetPorts": [{"number": p["number"]} for p in servers.get("targetPorts", CHART_DEFAULTS["targetPorts"])]
    }
    if protocol == "grpc":
        spec["appProtocol"] = "kubernetes.io/h2c"
    elif protocol == "http":
        spec["appProtocol"] = "http"
    spec["selector"] = {"matchLabels": {str(k): str(v) for k, v in (servers.get("matchLabels") or {}).items()}}
    spec["endpointPickerRef"] = {
        "name": name,
        "port": {"number": (router.get("epp") or {}).get("extProcPort") or CHART_DEFAULTS["extProcPort"]},
        "failureMode": pool.get("failureMode") or CHART_DEFAULTS["failureMode"],
    }
    return {
        "apiVersion": "inference.networking.k8s.io/v1",
        "kind": "InferencePool",
        "metadata": {"name": release, "namespace": namespace, "labels": {"app.kubernetes.io/name": name}},
        "spec": spec,
    }


def unique_ports(pool: Mapping[str, Any]) -> bool:
    """The CRD's CEL rule on targetPorts (``CEL_UNIQUE_PORTS``): no port number twice."""
    numbers = [p["number"] for p in pool["spec"]["targetPorts"]]
    return len(numbers) == len(set(numbers))
