"""What ``make crosscheck`` asks vLLM about the Kubernetes manifests: does each server container
run what the recipe's commands run?

Pure: uses the recipe engine, never vLLM. ``collect`` writes the manifests of every offered
selection (``recipebook.rendering.kubernetes``) and pairs each server container with the
commands it runs: its own command, or every rank of a role whose data-parallel ranks run in
one container. The judge (``judge.judge_containers``) parses the container's argv with vLLM's
parser; for a merged role it asks vLLM's own node-local supervisor
(``vllm.entrypoints.launchers.dp_supervisor``) to check the arguments and derive each rank's,
then compares each rank's namespace with the one vLLM parses from the recipe's rank command.
A role that spans nodes is a LeaderWorkerSet: its leader's container is paired with the head's
command, and its workers' one container with each follower's, as worker k runs it: the
container's env resolved as Kubernetes resolves it with the variables the LWS controller sets
(``LWS_LEADER_ADDRESS`` the head's address, ``LWS_WORKER_INDEX`` k), and the start-rank
script run by the real /bin/sh (``worker_argv``).
What the manifests change on purpose (``kubernetes.differences``) is compared as such: the
devices (a rank's count of NPUs, numbered within the container), KV events left out when
nothing reads them, and the NIXL side-channel port each rank derives from rank 0's. The env
values the manifests add are judged by vLLM's getters with the others.
"""

from __future__ import annotations

import dataclasses
import json
import re
import subprocess
import sys
from collections.abc import Iterable, Mapping
from typing import Any

import yaml

import recipebook
from recipebook import shell
from recipebook.problems import Kind, Problem
from recipebook.reading import source
from recipebook.reading.model import Recipe
from recipebook.rendering import files, kubernetes

from .commands import PLACEHOLDER_DEFAULT, PLACEHOLDER_SAMPLES, fill_placeholders

_REFERENCE = re.compile(r"\$\$\(|\$\(([A-Za-z_][A-Za-z0-9_]*)\)")


def from_kubernetes(word: str, env: Mapping[str, str] | None = None) -> str:
    """A container's word as the container runs it: ``$(NAME)`` is the env value (``env``, the
    container's own as Kubernetes resolved them, else the sample the recipe's commands are
    given), ``$$(`` a literal ``$(``."""

    def put(match: re.Match[str]) -> str:
        name = match.group(1)
        if name is None:
            return "$("
        if env is not None and name in env:
            return env[name]
        return PLACEHOLDER_SAMPLES.get(name, PLACEHOLDER_DEFAULT)

    return _REFERENCE.sub(put, word)


def resolved_env(entries: Iterable[Mapping[str, Any]], given: Mapping[str, str]) -> dict[str, str]:
    """A container's env as Kubernetes resolves it: ``given`` first (what a controller puts in
    front), then each entry in order, a ``$(NAME)`` read from those before it; the pod's IP
    from the downward API is the sample the recipe's ``<POD_IP>`` is given."""
    env = dict(given)
    for entry in entries:
        if "value" in entry:
            # a value left as <NAME> is the reader's to fill in, as in the commands
            env[entry["name"]] = fill_placeholders(from_kubernetes(str(entry["value"]), env))
        elif (entry.get("valueFrom") or {}).get("fieldRef", {}).get("fieldPath") == "status.podIP":
            env[entry["name"]] = fill_placeholders("<POD_IP>")
    return env


_PRINT_ARGV = "import json, sys; print(json.dumps(sys.argv[1:]))"


def worker_argv(container: Mapping[str, Any], env: Mapping[str, str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """A container's launcher words and the argv after them as it runs with ``env``: its args
    resolved, and when its command is ``/bin/sh -c SCRIPT LAUNCHER...`` the script run by the
    real /bin/sh with Python in the launcher's place, printing what it is given."""
    command = [from_kubernetes(str(w), env) for w in container["command"]]
    args = [from_kubernetes(str(w), env) for w in container["args"]]
    if command[:2] != ["/bin/sh", "-c"]:
        return tuple(command), tuple(args)
    script, launcher = command[2], command[3:]
    out = subprocess.run(
        ["/bin/sh", "-c", script, sys.executable, "-c", _PRINT_ARGV, *launcher[1:], *args],
        capture_output=True,
        text=True,
        check=True,
        env={**{k: v for k, v in env.items() if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", k)}, "PATH": "/usr/bin:/bin"},
    )
    ran = json.loads(out.stdout)
    return tuple(launcher), tuple(ran[len(launcher) - 1 :])


@dataclasses.dataclass(kw_only=True)
class Pairing:
    """One distinct server container and the recipe commands it runs."""

    container: tuple[str, ...]  # argv after the launcher
    env: tuple[tuple[str, str], ...]  # the container's env values
    ranks: tuple[tuple[str, ...], ...]  # argv of each command it runs, in rank order
    rank_envs: tuple[tuple[tuple[str, str], ...], ...]
    merged: bool
    kv_events_dropped: bool
    role: str = ""
    uses: list[tuple[str, str, str, str]] = dataclasses.field(default_factory=list)  # (path, strategy, target, role)


def _env_values(entries: Iterable[Mapping[str, Any]]) -> tuple[tuple[str, str], ...]:
    return tuple((e["name"], from_kubernetes(str(e["value"]))) for e in entries if "value" in e)


def collect(recipes: Iterable[tuple[str, Recipe]]) -> dict[tuple, Pairing]:
    """Every distinct server container of every offered selection's manifests, with the commands
    it runs (placeholders given the samples ``commands`` gives them)."""
    pairings: dict[tuple, Pairing] = {}
    for path, recipe in recipes:
        for expansion in recipebook.matrix(recipe):
            steps = [cmd for _n, cmd in expansion.router]
            router = kubernetes.router_of(steps)
            runs = kubernetes.container_names(expansion.roles(), steps, expansion.nodes)
            plans = {p.role: p for p in kubernetes.plans(expansion.roles(), expansion.nodes, router)}
            where = files.kubernetes_where(expansion)
            written = kubernetes.manifests(where, expansion.roles(), expansion.nodes, steps)
            for name, text in written.items():
                if name.startswith(f"{kubernetes.ROUTER_FOLDER}/"):
                    continue
                for document in yaml.load_all(text, Loader=yaml.CSafeLoader):
                    if document.get("kind") == "LeaderWorkerSet":
                        for key, pairing in group_pairings(document, runs, where.heads, router):
                            pairings.setdefault(key, pairing).uses.append(
                                (path, expansion.strategy, expansion.target, pairing.role)
                            )
                        continue
                    if document.get("kind") != "Deployment":
                        continue
                    role_label = document["spec"]["template"]["metadata"]["labels"]["app.kubernetes.io/component"]
                    plan = next(
                        p for p in plans.values() if kubernetes.label_value(kubernetes.dns(p.role)) == role_label
                    )
                    for container in document["spec"]["template"]["spec"]["containers"]:
                        commands = runs[container["name"]]
                        argv = tuple(from_kubernetes(str(w)) for w in container["args"])
                        ranks = tuple(
                            tuple(fill_placeholders(w) for w in (c.model, *(x for t in c.args for x in shell.words(t))))
                            for c in commands
                        )
                        rank_envs = tuple(
                            tuple((n, fill_placeholders(v)) for n, v in map(kubernetes.env_pair, c.envs))
                            for c in commands
                        )
                        key = (argv, ranks)
                        if key not in pairings:
                            pairings[key] = Pairing(
                                container=argv,
                                env=_env_values(container["env"]),
                                ranks=ranks,
                                rank_envs=rank_envs,
                                merged=plan.merged,
                                kv_events_dropped=router is None or not router.kv_events,
                            )
                        pairings[key].uses.append((path, expansion.strategy, expansion.target, plan.role))
    return pairings


def _command_words(command: Any) -> tuple[str, ...]:
    return tuple(fill_placeholders(w) for w in (command.model, *(x for t in command.args for x in shell.words(t))))


def _command_env(command: Any) -> tuple[tuple[str, str], ...]:
    return tuple((n, fill_placeholders(v)) for n, v in map(kubernetes.env_pair, command.envs))


def group_pairings(
    document: Mapping[str, Any], runs: Mapping[str, tuple[Any, ...]], heads: Iterable[str], router: Any
) -> list[tuple[tuple[Any, ...], Pairing]]:
    """A LeaderWorkerSet's containers, each with the command it runs: the leader's with the
    head's, the workers' with each follower's as worker k (from 1) runs it."""
    group = document["spec"]["leaderWorkerTemplate"]
    size = int(group["size"])
    out = []
    for part in ("leaderTemplate", "workerTemplate"):
        template = group[part]
        role = template["metadata"]["labels"]["app.kubernetes.io/component"]
        for container in template["spec"]["containers"]:
            commands = runs[container["name"]]
            said = " ".join(c.shell for c in commands)
            head = next((h for h in heads if f"<{h}>" in said), None)
            address = fill_placeholders(f"<{head}>") if head else fill_placeholders("<HEAD_IP>")
            indices = [0] if part == "leaderTemplate" else list(range(1, size))
            for k, command in zip(indices, commands, strict=True):
                given = {
                    kubernetes.LWS_LEADER_ADDRESS: address,
                    "LWS_GROUP_SIZE": str(size),
                    kubernetes.LWS_WORKER_INDEX: str(k),
                }
                env = resolved_env(container["env"], given)
                _launcher, argv = worker_argv(container, env)
                ranks = (_command_words(command),)
                pairing = Pairing(
                    container=argv,
                    env=tuple((n, v) for n, v in env.items() if n not in given),
                    ranks=ranks,
                    rank_envs=(_command_env(command),),
                    merged=False,
                    kv_events_dropped=router is None or not router.kv_events,
                    role=role,
                )
                out.append(((argv, ranks), pairing))
    return out


def request(pairings: Mapping[tuple, Pairing]) -> list[dict[str, Any]]:
    return [
        {"container": list(p.container), "ranks": [list(r) for r in p.ranks], "merged": p.merged,
         "kv_events_dropped": p.kv_events_dropped}
        for p in pairings.values()
    ]  # fmt: skip


def env_differences(pairing: Pairing) -> list[str]:
    """How the container's env differs from each rank's beyond what the manifests change on
    purpose: every env line a rank keeps is in the container (a rank's own side-channel port
    is rank 0's, to which vLLM adds the rank), and the container's devices are as many as the
    rank's NPUs."""
    out = []
    container = dict(pairing.env)
    for rank, envs in enumerate(pairing.rank_envs):
        for name, value in envs:
            if kubernetes.line_kind("env", f"{name}=x") in ("devices", "cache"):
                continue
            if name == kubernetes.NIXL_PORT_ENV and pairing.merged:
                if container.get(name) != dict(pairing.rank_envs[0]).get(name):
                    out.append(f"rank {rank}: {name} is not rank 0's {dict(pairing.rank_envs[0]).get(name)}")
                continue
            if container.get(name) != value:
                out.append(f"rank {rank}: {name}={value!r} in the command, {container.get(name)!r} in the container")
    return out


def added_envs(pairings: Mapping[tuple, Pairing]) -> dict[tuple[str, str], tuple[str, str, str, str]]:
    """The VLLM_* values the manifests add (their getters judge them with the others), each with
    where it is first written."""
    found: dict[tuple[str, str], tuple[str, str, str, str]] = {}
    for pairing in pairings.values():
        given = {n for envs in pairing.rank_envs for n, _v in envs}
        for name, value in pairing.env:
            if name.startswith("VLLM_") and name not in given:
                found.setdefault((name, value), pairing.uses[0])
    return found


def env_problem(
    use: tuple[str, str, str, str], pair: tuple[str, str], answer: Mapping[str, Any], release: str
) -> Problem | None:
    """A value the manifests add that vLLM does not take, at the target."""
    if answer.get("known") and not answer.get("error"):
        return None
    path, strategy, target, role = use
    recipe = recipebook.load(path)
    pointer = next(t.ptr for s, t in recipe.targets() if s.slug == strategy and t.target == target)
    why = "not a variable vLLM or vllm-rbln defines" if not answer.get("known") else answer["error"]
    document = source.read(path)[0]
    assert document is not None
    message = f"the {role} container of the Kubernetes manifests sets {pair[0]}={pair[1]!r} ({release}): {why}"
    return document.problem(pointer, message, kind=Kind.VOCABULARY)


def located(pairings: Mapping[tuple, Pairing], answers: list[dict[str, Any]], release: str) -> list[Problem]:
    """Each container that does not run what its commands run, at the strategy's target."""
    problems: dict[tuple[str, str, str], None] = {}
    documents: dict[str, source.Document] = {}
    for pairing, answer in zip(pairings.values(), answers, strict=True):
        reasons = (
            ([answer["error"]] if answer.get("error") else [])
            + answer.get("differences", [])
            + env_differences(pairing)
        )
        if not reasons:
            continue
        path, strategy, target, role = pairing.uses[0]
        if path not in documents:
            documents[path] = source.read(path)[0]  # type: ignore[assignment]
        recipe = recipebook.load(path)
        pointer = next(t.ptr for s, t in recipe.targets() if s.slug == strategy and t.target == target)
        for reason in reasons:
            message = (
                f"the {role} container of the Kubernetes manifests does not run its commands ({release}): {reason}"
            )
            problems.setdefault((path, pointer, message))
    return sorted(documents[p].problem(ptr, m, kind=Kind.VOCABULARY) for p, ptr, m in problems)
