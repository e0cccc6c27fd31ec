"""The page of a role that spans nodes, built and read in Chromium: a tab per node, each node's own
command and values, the start order, the head's health check and client (issue 39 item 3).

The page is the fixture of every multi-node shape (tests/data/multinode) in the test root
roots/test-multinode, built once per session. Expectations come from the engine (the commands
of each selection, the files' value rules), never from the page's own markup.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from browser_support import open_page, settle
from conftest import ROOTS, built_once, served
from judge_support import SHOWN_COMMANDS, VNU_JAVA_OPTIONS, node_tool
from recipebook import load
from recipebook.expanding import client
from recipebook.expanding.page import expansion_at, page_of
from recipebook.rendering import files

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "data" / "multinode" / "Kimi-K2-Instruct.json"
PAGE = "Kimi-K2-Instruct.html"
VALUES = {"POD_IP@1": "10.0.0.1", "POD_IP@2": "10.0.0.2", "POD_IP@3": "10.0.0.3", "POD_IP@4": "10.0.0.4"}


def _build(folder: Path) -> None:
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "sphinx",
            "-W",
            "--keep-going",
            "-q",
            "-b",
            "html",
            str(ROOTS / "test-multinode"),
            str(folder),
        ],
        capture_output=True,
        text=True,
        check=False,
        env={"PYTHONPATH": str(ROOT / "_ext"), "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"},
    )
    assert result.returncode == 0, result.stderr[-4000:]


@pytest.fixture(scope="session")
def multinode_site(tmp_path_factory) -> Path:
    return built_once(tmp_path_factory, "multinode-site", _build)


@pytest.fixture(scope="session")
def multinode_server(multinode_site):
    with served(multinode_site) as base:
        yield base


def _grid(soup: BeautifulSoup, strategy: str, target: str):
    return soup.select_one(f'form.rb-grid[data-strategy="{strategy}"][data-target="{target}"]')


def _opening_text(pre, chosen: tuple[int, ...]) -> str:
    """A block's text at the opening selection: without the lines its classes hide there
    (h-A-V: hidden while value V of axis A is chosen), the struck-through copies and the
    words only a screen reader reads."""
    for span in pre.select("span[class]"):
        if span.decomposed:
            continue  # inside a line taken out already
        classes = span.get("class") or []
        hidden = any(c.startswith("h-") and tuple(map(int, c[2:].split("-"))) in enumerate(chosen) for c in classes)
        if hidden or {"rb-del", "rb-sr"} & set(classes):
            span.decompose()
    return pre.get_text()


def _open_tabs(page, gid: str) -> None:
    """Click the strategy and target tabs that hold a grid, as a reader would."""
    for input_id in page.eval_on_selector(
        f"#{gid}",
        """g => { const out = []; for (let n = g; n; n = n.parentElement) {
                 if (n.classList && n.classList.contains('sd-tab-content')) out.unshift(n.previousElementSibling.htmlFor); }
                 return out; }""",
    ):
        page.click(f'label[for="{input_id}"]')


def test_each_node_has_its_own_block_with_its_own_values(multinode_site):
    """Without a browser: one block per node, named by its node and its head, holding exactly
    that node's command; the node picker names the head; a follower's block is hidden by the
    rank classes while another node is chosen."""
    soup = BeautifulSoup((multinode_site / PAGE).read_text(encoding="utf-8"), "html.parser")
    recipe = load(FIXTURE)
    for target in page_of(recipe).targets:
        grid = _grid(soup, target.strategy.slug, target.target.target)
        roles = grid.select(".rb-cmds .rb-role:not(.rb-router)")
        for role, block in zip(target.table.roles, roles, strict=True):
            commands = role.commands(target.opening)
            pres = block.select("pre")
            if not role.spans:
                assert len(pres) == 1 and not block.select(".rb-node")
                continue
            assert [int(p["data-node"]) for p in pres] == [c.node for c in commands] == list(role.nodes)
            assert {p["data-head"] for p in pres} == {str(role.nodes[0])}
            labels = [label.get_text() for label in block.select(".rb-nodes label")]
            assert labels == [f"Node {role.nodes[0]} (head)", *(f"Node {n}" for n in role.nodes[1:])]
            for k, node in enumerate(block.select(".rb-node")):
                hidden = {c for c in node["class"] if c.startswith("q-")}
                assert len(hidden) == len(commands) - 1 and not any(c.endswith(f"-{k}") for c in hidden)
                assert _opening_text(node.select("pre")[0], target.opening) == commands[k].shell


def test_the_head_alone_is_checked_and_asked(multinode_site):
    soup = BeautifulSoup((multinode_site / PAGE).read_text(encoding="utf-8"), "html.parser")
    grid = _grid(soup, "dp-ep-across-nodes", "Throughput")
    steps = grid.select(".rb-serving .rb-steps li")
    assert "on nodes 1–2 (start node 1, the head, first)" in steps[0].get_text()
    checks = steps[0].select("pre")
    assert len(checks) == 1 and checks[0]["data-node"] == "1"
    assert checks[0].get_text() == f"curl -sf 'http://{client.NODE_HOST}:8000/health'"
    request, bench = grid.select(".rb-serving pre")[1:3]
    assert request["data-node"] == "1" and f"http://{client.NODE_HOST}:8000" in request.get_text()
    assert bench["data-node"] == "1" and f"--base-url 'http://{client.NODE_HOST}:8000'" in bench.get_text()


def test_the_markdown_view_gives_every_nodes_command(multinode_site):
    text = (multinode_site / "Kimi-K2-Instruct.md").read_text(encoding="utf-8")
    recipe = load(FIXTURE)
    target = page_of(recipe).target("tp-pp-across-nodes", "Throughput")
    for command in target.opening_commands():
        assert f"```bash\n{command.shell}\n```" in text
    assert "Node 1, the head: start it first" in text and "Node 4\n" in text
    assert "| `--node-rank` | `--headless` |" in text  # switches and keys as code: both dashes kept


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_a_reader_picks_each_node_and_sees_its_command(browser, multinode_server, javascript):
    context = browser.new_context(java_script_enabled=javascript)
    page = context.new_page()
    recipe = load(FIXTURE)
    # the page opened once: a reader's tab clicks choose no value, and SHOWN_COMMANDS puts each
    # rank picker back as it found it, so every grid still holds the selection the page opened on
    open_page(page, f"{multinode_server}/{PAGE}")
    for target in page_of(recipe).targets:
        gid = page.eval_on_selector(
            f'form.rb-grid[data-strategy="{target.strategy.slug}"][data-target="{target.target.target}"]', "f => f.id"
        )
        _open_tabs(page, gid)
        shown = page.evaluate(SHOWN_COMMANDS, gid)
        assert shown == [c.shell for c in target.opening_commands()], target.strategy.slug
    context.close()


def test_each_nodes_values_fill_its_own_command_and_the_heads_address(browser, multinode_server):
    """Values typed in the panel (one per node) fill each node's block: its own address, and the
    head's wherever a head placeholder stands; the copied text is the engine's file text."""
    context = browser.new_context(permissions=["clipboard-read", "clipboard-write"])
    page = context.new_page()
    open_page(page, f"{multinode_server}/{PAGE}#s=pd-across-nodes&t=Latency")
    recipe = load(FIXTURE)
    target = page_of(recipe).target("pd-across-nodes", "Latency")
    gid = page.eval_on_selector('form.rb-grid[data-strategy="pd-across-nodes"]', "f => f.id")
    fields = page.locator(f"#{gid} .rb-phform input[data-key]")
    keys = [fields.nth(i).get_attribute("data-key") for i in range(fields.count())]
    assert keys == ["POD_IP@1", "POD_IP@2", "POD_IP@3", "PREFILL_HOST", "DECODE_HOST", "ROUTER_HOST"]
    assert page.locator(f"#{gid} .rb-phform .rb-phname").all_text_contents() == ["<DECODE_HEAD_IP>"]
    for i, key in enumerate(keys):
        if key in VALUES:
            fields.nth(i).fill(VALUES[key])
            fields.nth(i).dispatch_event("change")
    expansion = expansion_at(recipe, target, target.opening)
    filled = files.head_values(VALUES, expansion)
    decode = page.locator(f"#{gid} .rb-cmds .rb-role").nth(1)
    for k, command in enumerate(dict(expansion.roles())["decode"]):
        radio = decode.locator(".rb-nodes input").nth(k)
        page.click(f'label[for="{radio.get_attribute("id")}"]')
        decode.locator(".rb-node").nth(k).locator(".rb-copy").click()
        expected = files.substitute(command.shell, filled, command.node)
        assert page.evaluate("navigator.clipboard.readText()") == expected
        assert "'10.0.0.2'" in expected  # the decode pool's head, on both of its nodes
        assert f"VLLM_NIXL_SIDE_CHANNEL_HOST='10.0.0.{command.node}'" in expected
    check = page.locator(f"#{gid} .rb-serving .rb-steps li").nth(1).locator("pre")
    assert check.inner_text() == "curl -sf 'http://10.0.0.2:8200/health'"
    context.close()


def test_the_page_is_valid_html(multinode_site):
    """The Nu Html Checker finds no error in the page of every multi-node shape."""
    java = shutil.which("java")
    if java is None:
        pytest.fail("java is not installed; make test installs default-jre-headless (tools/system-packages)")
    result = subprocess.run(
        [java, *VNU_JAVA_OPTIONS, "-jar", str(node_tool("vnu-jar/build/dist/vnu.jar")), "--errors-only", "--format", "json",
         "--exit-zero-always", PAGE],
        capture_output=True,
        text=True,
        check=False,
        cwd=multinode_site,
    )  # fmt: skip
    report = json.loads(result.stderr or result.stdout)  # vnu writes its report to stderr
    errors = [m for m in report["messages"] if m.get("type") in ("error", "non-document-error")]
    assert not errors, errors[:10]


def test_no_serious_accessibility_violation_with_each_node_picked(browser, multinode_server):
    """axe-core on every grid of the page (tabs opened) as it opens, each role that spans nodes on
    its first node; then each other node of each such role picked in turn, and that role judged
    again (what the pick changes: its picker and the node's block; the rest of the grid is as
    judged). No violation of serious or critical impact."""
    axe = node_tool("axe-core/axe.min.js").read_text(encoding="utf-8")
    # scope: a selector, or the id of a node picker's input (its role is judged)
    run = """async ([scope, picker]) => {
      const context = picker ? document.getElementById(picker).closest('.rb-role') : {include: [[scope]]};
      return (await axe.run(context, {resultTypes: ['violations']})).violations
        .filter(v => v.impact === 'serious' || v.impact === 'critical')
        .map(v => v.id + ': ' + v.nodes.map(n => n.target.join(' ')).slice(0, 3).join('; '));
    }"""
    # each role's node pickers: the ids of its inputs, the first (checked as the page opens) first
    pickers = """gid => [...document.getElementById(gid).querySelectorAll('.rb-nodes')].map(
      f => [...f.querySelectorAll('input')].map(i => [i.id, i.checked]))"""
    context = browser.new_context()
    page = context.new_page()
    open_page(page, f"{multinode_server}/{PAGE}")
    page.add_script_tag(content=axe)
    found = []
    picked = 0
    for gid in page.eval_on_selector_all("form.rb-grid", "forms => forms.map(f => f.id)"):
        _open_tabs(page, gid)
        settle(page)
        found += [f"#{gid}: {v}" for v in page.evaluate(run, [f"#{gid}", None])]
        for role in page.evaluate(pickers, gid):
            assert role and role[0][1] and not any(checked for _id, checked in role[1:]), role  # on node 0
            for k, (input_id, _checked) in enumerate(role[1:], 1):
                page.click(f'label[for="{input_id}"]')
                settle(page)
                assert page.is_checked(f"#{input_id}")
                found += [f"#{gid} node {k}: {v}" for v in page.evaluate(run, [None, input_id])]
                picked += 1
    context.close()
    assert picked, "no role of the page spans nodes"
    assert not found, "\n".join(found)
