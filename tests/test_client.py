"""The client, benchmark, roles and report helpers (recipebook.expanding.client),
as the page model's serving groups (recipebook.expanding.page) give them per selection.

Expectations are derived from the recipe JSON itself (ports, parallel sizes, router,
exclusions), independently of the engine's own parsing, plus one case derived by hand. The
nearest offered selection is the explorer's, tested where it runs (tests/js/nearest.test.js).
"""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
import urllib.parse
from functools import cache

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import recipebook
from recipe_support import NAMES, RECIPES
from recipebook import shell
from recipebook.expanding import client
from recipebook.expanding.expansion import offered
from recipebook.expanding.page import expand_selection, page_of

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@cache
def recipe(name: str) -> recipebook.Recipe:
    return recipebook.load(RECIPES / f"{name}.json")


TARGETS = [(name, s.slug, t.target) for name in NAMES for s, t in recipe(name).targets()]


@st.composite
def expansions(draw):
    name, slug, target_name = draw(st.sampled_from(TARGETS))
    rec = recipe(name)
    strategy, target = recipebook.expanding.expansion.find(rec, slug, target_name)
    choices = list(offered(target.grid))
    selection = draw(st.sampled_from(choices))
    return strategy, target, expand_selection(rec, strategy, target, selection)


def serving(expansion):
    """The serving group the page model gives a selection."""
    model = page_of(recipe(expansion.recipe)).target(expansion.strategy, expansion.target)
    return model.serving_at(model.index(expansion.selection))


def words_of(text: str) -> list[str]:
    return shlex.split(text)


def option(words: list[str], flag: str) -> str | None:
    return words[words.index(flag) + 1] if flag in words else None


@SETTINGS
@given(expansions())
def test_client_and_bench_go_where_the_selection_serves(case):
    _strategy, target, expansion = case
    group = serving(expansion)
    client_words = words_of(group.client)
    script = page_of(recipe(expansion.recipe)).target(expansion.strategy, expansion.target)
    text = script.bench_at(script.index(expansion.selection))
    words = shlex.split(text, comments=True)
    bench_words = words[words.index("vllm") :]
    url = next(w for w in client_words if w.startswith("http"))
    base = option(bench_words, "--base-url")
    assert url == base + client.CHAT_PATH
    if target.grid.router:
        # prefill/decode: the router, never a server's port
        assert urllib.parse.urlsplit(base).netloc == client.ROUTER_HOST
    else:
        first = expansion.commands[0]
        ports = [w for a in first.args for w in shlex.split(a)]
        want = ports[ports.index("--port") + 1] if "--port" in ports else "8000"
        assert base == f"http://localhost:{want}"  # the server's own host, as the recipe's client example
    body = json.loads(client_words[client_words.index("-d") + 1])
    assert body["model"] == option(bench_words, "--model") == target.grid.model
    assert bench_words[:3] == ["vllm", "bench", "serve"]
    assert option(bench_words, "--dataset-name") == "random"
    assert option(bench_words, "--random-input-len") == "$1" and option(bench_words, "--random-output-len") == "$2"
    assert "--save-result" in bench_words and option(bench_words, "--max-concurrency") == "$3"
    metadata = dict(w.split("=", 1) for w in bench_words[bench_words.index("--metadata") + 1 : -1] if "=" in w)
    assert metadata["recipe"] == expansion.recipe and metadata["strategy"] == expansion.strategy
    assert metadata["target"] == expansion.target and metadata["sku"] == target.skus[0]
    assert metadata["selection"] == ",".join(f"{a}={v}" for a, v in expansion.selection.items())
    assert metadata["commands"] == client.commands_hash(expansion.commands)
    # the standard workloads: each within --max-model-len, at concurrency 1 and at the capacity
    calls = [line.split() for line in text.splitlines() if line.startswith(f"{client.BENCH_FUNCTION} ")]
    lengths = [int(w.split()[1]) for c in expansion.commands for w in c.args if w.startswith("--max-model-len ")]
    capacity = client.capacity(expansion.commands)
    assert {int(c[3]) for c in calls} == {1, capacity}
    assert calls and all(int(c[1]) + int(c[2]) <= min(lengths) for c in calls)


@SETTINGS
@given(expansions())
def test_role_npus_come_from_each_servers_own_arguments(case):
    strategy, target, expansion = case
    plans = serving(expansion).roles
    assert [p.role for p in plans] == [r.role for r in target.grid.base]
    assert [p.step for p in plans] == list(range(1, len(plans) + 1))
    for plan, (_role, commands) in zip(plans, expansion.roles(), strict=True):
        assert plan.servers == len(commands)
        for command, used in zip(commands, plan.npus_per_server, strict=True):
            words = [w for a in command.args for w in shlex.split(a)]
            size = {f: int(option(words, f) or 1) for f in ("--tensor-parallel-size", "--pipeline-parallel-size")}
            dp = 1 if "--data-parallel-rank" in words else int(option(words, "--data-parallel-size") or 1)
            assert used == size["--tensor-parallel-size"] * size["--pipeline-parallel-size"] * dp
            assert used <= target.npus
        assert len(plan.wait) == plan.servers
        assert all(f":{p}/health" in w for p, w in zip(plan.ports, plan.wait, strict=True))
        assert 1 <= plan.node <= max(1, strategy.nodes or 1)
        # a check runs against the node's own address across nodes, else on the host itself
        host = "<POD_IP>" if (strategy.nodes or 1) > 1 else "localhost"
        assert all(f"http://{host}:" in w for w in plan.wait)


def test_prefill_decode_roles_by_hand():
    """A.X-K2's prefill server is one 8-stage pipeline; decode is eight 1-NPU ranks."""
    rec = recipe("A.X-K2") if "A.X-K2" in NAMES else None
    if rec is None:
        pytest.fail("the hand-derived case needs the shipped A.X-K2 recipe")
    expansion = recipebook.expand(rec, "prefill-decode-disaggregated", "Latency")
    group = serving(expansion)
    plans = {p.role: p for p in group.roles}
    assert plans["prefill"].npus_per_server == (8,)
    assert plans["prefill"].node == 1 and plans["decode"].node == 2
    assert plans["decode"].npus_per_server == (1,) * 8
    assert plans["decode"].ports == tuple(range(8200, 8208))
    assert group.endpoint.base_url == "http://<ROUTER_HOST>"


def test_client_and_bench_pass_bash_and_shellcheck(tmp_path):
    texts = set()
    for name in NAMES:
        rec = recipe(name)
        for target in page_of(rec).targets:
            for group in target.serving:
                texts.add(group.client)
                texts.add(group.bench)
                for plan in group.roles:
                    texts.update(plan.wait)
            texts.add(target.bench_at(target.opening))
    assert texts
    files = []
    for n, text in enumerate(sorted(texts)):
        assert shell.bash_syntax_error(text + "\n") is None, text
        path = tmp_path / f"{n}.sh"
        path.write_text(text + "\n", encoding="utf-8")
        files.append(str(path))
    checker = shutil.which("shellcheck")
    assert checker, "shellcheck is not installed"
    result = subprocess.run(
        [checker, "-s", "bash", "--enable=all", *files], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout


@SETTINGS
@given(expansions(), st.sampled_from(["https://github.com/example/recipes", "https://github.com/example/recipes/"]))
def test_report_url_carries_the_selection(case, repository):
    strategy, target, expansion = case
    versions = {"vllm": "0.30.0", "vllm-rbln": "0.12.0"}
    pairs = ", ".join(f"{a}={v}" for a, v in expansion.selection.items())
    url = client.issue_url(
        repository, *client.report_fields(expansion.recipe, expansion.strategy, expansion.target, pairs, versions)
    )
    parts = urllib.parse.urlsplit(url)
    assert f"{parts.scheme}://{parts.netloc}{parts.path}" == "https://github.com/example/recipes/issues/new"
    query = urllib.parse.parse_qs(parts.query)
    body = query["body"][0]
    for axis, value in expansion.selection.items():
        assert f"{axis}={value}" in body and f"{axis}={value}" in query["title"][0]
    for line in (f"Recipe: {expansion.recipe}", f"Strategy: {strategy.slug}", f"Target: {target.target}"):
        assert line in body.splitlines()
    assert "vLLM: 0.30.0" in body and "vllm-rbln: 0.12.0" in body
    for field in ("Hardware", "Throughput", "Latency", "Works (yes/no)"):
        assert any(line.startswith(field) and line.endswith(": ") for line in body.splitlines())


@given(st.lists(st.sampled_from("abcde")), st.lists(st.sampled_from("abcde")))
def test_line_diff_rebuilds_the_chosen_lines(base, chosen):
    added, removed = client.line_diff(base, chosen)
    assert sorted(base + added) == sorted(chosen + removed)
    # a line in both lists would be a change that cancels itself
    assert not set(added) & set(removed)
