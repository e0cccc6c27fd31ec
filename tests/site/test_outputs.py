"""Machine-readable outputs: JSON API, ready-to-run files, Markdown views, llms.txt, sitemap, Open Graph."""

from __future__ import annotations

import json
import os
import re
import runpy
import shlex
import shutil
import stat
import subprocess
from pathlib import Path

import pytest
import yaml
from bs4 import BeautifulSoup

from recipebook import expand, load, matrix, offered
from recipebook.expanding.expansion import API_VERSION, find, reference_role
from recipebook.rendering.files import selection_files, selection_key

ROOT = Path(__file__).resolve().parents[2]
RECIPES = {p.stem: load(p) for p in sorted((ROOT / "recipes").glob("*.json")) if p.name != "schema.json"}
LANGUAGES = tuple(runpy.run_path(str(ROOT / "conf.py"))["recipebook_languages"])  # the site's languages


def test_api_index_lists_every_recipe_with_its_pages(site):
    index = json.loads((site / "api" / "index.json").read_text())
    assert index["version"] == API_VERSION
    assert [r["name"] for r in index["recipes"]] == [r.name for r in RECIPES.values()]
    for entry in index["recipes"]:
        recipe = RECIPES[entry["name"]]
        assert entry["model"] == recipe.model and entry["provider"] == recipe.provider
        assert [s["slug"] for s in entry["strategies"]] == [s.slug for s in recipe.strategies]
        for lang in LANGUAGES:
            assert (site / "api" / entry["pages"][lang]).resolve().is_file()
            assert (site / "api" / entry["markdown"][lang]).resolve().is_file()
        assert (site / "api" / entry["matrix"]).is_file()
    assert json.loads((site / "api" / "schema.json").read_text()) == json.loads(
        (ROOT / "recipes/schema.json").read_text()
    )


def _document(site: Path, name: str) -> dict:
    return json.loads((site / "api" / "recipes" / f"{name}.json").read_text())


def commands_in_document(target: dict, selection: dict) -> list[dict]:
    """A selection's commands read from an API target document as a reader of the API would:
    each role's lines whose ``when`` admits the selection and whose ``ranks`` hold the rank."""
    chosen = [values.index(selection[axis]) for axis, values in target["axes"]]
    out = []
    for role in target["roles"]:
        shown = [
            line
            for line in role["lines"]
            if all(allowed is None or chosen[a] in allowed for a, allowed in enumerate(line["when"]))
        ]
        for rank in [None] if role["ranks"] is None else range(role["ranks"]):
            lines = [line for line in shown if line["ranks"] is None or rank in line["ranks"]]
            out.append(
                {"role": role["role"], "rank": rank, "launcher": role["launcher"], "model": role["model"]}
                | {"envs": [x["text"] for x in lines if x["kind"] == "env"]}
                | {"args": [x["text"] for x in lines if x["kind"] == "arg"]}
            )
    return out


def test_api_equals_the_engine_for_every_selection(site):
    for name, recipe in RECIPES.items():
        document = _document(site, name)
        assert document["version"] == API_VERSION and document["recipe"] == name
        assert [(t["strategy"], t["target"]) for t in document["targets"]] == [
            (s.slug, t.target) for s, t in recipe.targets()
        ]
        count = 0
        for target, (_strategy, engine_target) in zip(document["targets"], recipe.targets(), strict=True):
            assert target["selections"] == sum(1 for _ in offered(engine_target.grid))
            assert target["router"] == [{"node": s.node, "cmd": s.cmd} for s in engine_target.grid.router]
            grid = engine_target.grid
            for selection in offered(grid):
                # the delta rules step by step, not the table the document was written from
                commands = [c for role in grid.base for c in reference_role(grid, role, selection)]
                expected = [
                    {"role": c.role, "rank": c.rank, "launcher": c.launcher, "model": c.model}
                    | {"envs": list(c.envs), "args": list(c.args)}
                    for c in commands
                ]
                assert commands_in_document(target, selection) == expected
                count += 1
            # each role says the node it runs on, each node its roles
            nodes = {role: n["node"] for n in target["nodes"] for role in n["roles"]}
            assert {r["role"]: r["node"] for r in target["roles"]} == nodes
            assert set(nodes) == {role.role for role in grid.base}
        assert count == sum(1 for _ in matrix(recipe))


def _static_dirs(site: Path):
    """The selection each target opens on: the one whose files are published."""
    for name, recipe in RECIPES.items():
        for strategy, target in recipe.targets():
            expansion = expand(recipe, strategy.slug, target.target)
            folder = site / "api" / "recipes" / name / expansion.strategy / expansion.target
            yield expansion, folder / selection_key(expansion.selection)


def test_each_target_publishes_the_files_of_its_opening_selection_only(site):
    documents = {name: _document(site, name) for name in RECIPES}
    for expansion, folder in _static_dirs(site):
        names = {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}
        assert names == {*selection_files(expansion), "index.html"}
        for file_name, text in selection_files(expansion).items():
            assert (folder / file_name).read_text() == text
        assert {p.name for p in folder.parent.iterdir()} == {folder.name, "index.html"}
        listing = (folder.parent / "index.html").read_text()
        assert f'href="{folder.name}/serve.sh"' in listing and "python -m recipebook files" in listing
        target = next(
            t
            for t in documents[expansion.recipe]["targets"]
            if (t["strategy"], t["target"]) == (expansion.strategy, expansion.target)
        )
        assert target["files"] == f"{folder.name}/"
    # the output grows with targets, not with selections
    published = [p for p in (site / "api" / "recipes").rglob("*") if p.is_file()]
    targets = sum(1 for recipe in RECIPES.values() for _ in recipe.targets())
    assert len(published) < len(RECIPES) + targets * (2 + max(len(e.commands) for e, _f in _static_dirs(site)) * 2 + 1)


def test_serve_scripts_and_env_files_pass_bash_n_and_shellcheck(site):
    scripts = [folder / "serve.sh" for _e, folder in _static_dirs(site)]
    envs = sorted({p for _e, folder in _static_dirs(site) for p in folder.glob("*.env")})
    for path in scripts + envs:
        result = subprocess.run(["bash", "-n", str(path)], capture_output=True, text=True)
        assert result.returncode == 0, (path, result.stderr)
    shellcheck = shutil.which("shellcheck")
    assert shellcheck, "shellcheck is installed by make test (tools/system-packages)"
    result = subprocess.run([shellcheck, "-s", "bash", *map(str, scripts + envs)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout[:3000]


FAKE_VLLM = """#!/bin/sh
out="$FAKE_VLLM_OUT"
printf '%s\\0' "$@" > "$out.args"
env -0 > "$out.env"
"""


def _run_serve(tmp_path: Path, script: Path, *argv: str) -> tuple[list[str], dict[str, str]]:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    fake = bin_dir / "vllm"
    fake.write_text(FAKE_VLLM)
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    out = tmp_path / "call"
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "FAKE_VLLM_OUT": str(out), "POD_IP": "10.1.2.3", "EPP_HOST": "epp.local"}
    result = subprocess.run(["bash", str(script), *argv], env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    args = (out.with_suffix(".args")).read_bytes().decode().split("\0")[:-1]
    environ = dict(item.split("=", 1) for item in out.with_suffix(".env").read_text().split("\0") if "=" in item)
    return args, environ


def _filled(text: str) -> str:
    return text.replace("<POD_IP>", "10.1.2.3").replace("<EPP_HOST>", "epp.local")


@pytest.mark.parametrize(
    "strategy,target,role,rank",
    [
        ("prefill-decode-disaggregated", "Latency", "decode", 3),
        ("prefill-decode-disaggregated", "Latency", "prefill", 0),
        ("aggregated-data-expert-parallel", "Latency", "main", None),
    ],
)
def test_serve_sh_runs_exactly_the_command(site, tmp_path, strategy, target, role, rank):
    expansion = expand(RECIPES["A.X-K2"], strategy, target)
    folder = site / "api" / "recipes" / "A.X-K2" / strategy / target / selection_key(expansion.selection)
    argv = [role] if rank is None else [role, str(rank)]
    if expansion.commands[0].rank is None and len(expansion.commands) == 1:
        argv = []  # a single command runs without arguments
    args, environ = _run_serve(tmp_path, folder / "serve.sh", *argv)
    command = next(c for c in expansion.commands if c.role == role and c.rank == rank)
    expected = ["serve", command.model] + [w for text in command.args for w in shlex.split(_filled(text))]
    assert args == expected
    for text in command.envs:
        key, value = shlex.split(_filled(text))[0].split("=", 1)
        assert environ[key] == value


def _args_from_config(config: dict) -> list[str]:
    """How vLLM's --config turns a YAML mapping into arguments (true: a bare flag)."""
    args = []
    for key, value in config.items():
        if value is True:
            args.append(f"--{key}")
        elif isinstance(value, list):
            args += [f"--{key}", *map(str, value)]
        else:
            args += [f"--{key}", str(value)]
    return args


def test_each_config_yaml_holds_the_commands_arguments():
    """For every selection, its files hold each command's arguments as vLLM's --config reads
    them, and its environment (the commands by the delta rules, step by step)."""
    checked = 0
    for recipe in RECIPES.values():
        for expansion in matrix(recipe):
            files = selection_files(expansion)
            _strategy, target = find(recipe, expansion.strategy, expansion.target)
            grid = target.grid
            for command in (c for role in grid.base for c in reference_role(grid, role, expansion.selection)):
                stem = command.role if command.rank is None else f"{command.role}-rank{command.rank}"
                config = yaml.load(files[f"{stem}.yaml"], Loader=yaml.CSafeLoader) or {}
                assert _args_from_config(config) == [w for text in command.args for w in shlex.split(text)]
                assert files[f"{stem}.env"] == "".join(f"export {e}\n" for e in command.envs)
                checked += 1
    assert checked == sum(len(e.commands) for recipe in RECIPES.values() for e in matrix(recipe))


def _page_names(site: Path, lang: str) -> set[str]:
    tree = site / lang
    return {str(p.relative_to(tree))[:-5] for p in tree.rglob("*.html")} - {"search", "genindex", "404"}


def test_no_sitemap_without_a_site_url(site):
    # the sitemap protocol wants absolute URLs: without recipebook_site_url there is none
    # (tests/site/test_publishing.py builds with one)
    assert not (site / "sitemap.xml").exists()


def test_llms_txt_lists_every_page_and_the_recommended_commands(site):
    for lang in LANGUAGES:
        index = (site / lang / "llms.txt").read_text()
        linked = set(re.findall(r"\]\(([^)]+)\.md\)", index))
        assert linked == _page_names(site, lang)
        for target in linked:
            assert (site / lang / f"{target}.md").is_file()
        full = (site / lang / "llms-full.txt").read_text()
        for recipe in RECIPES.values():
            for strategy, target in recipe.targets():
                for command in expand(recipe, strategy.slug, target.target).commands:
                    assert command.shell in full


def test_recipe_pages_link_their_markdown_view(site):
    for lang in LANGUAGES:
        for name, recipe in RECIPES.items():
            page = site / lang / "recipes" / f"{name}.html"
            soup = BeautifulSoup(page.read_text(), "html.parser")
            link = soup.select_one('a[type="text/markdown"]')
            assert link is not None and (page.parent / link["href"]).is_file()
            markdown = (page.parent / link["href"]).read_text()
            assert recipe.text[lang].sub.split("<")[0][:30] in markdown
            assert "```bash" in markdown


def test_open_graph_tags_and_404_page(site):
    for lang in LANGUAGES:
        for page in (site / lang).rglob("*.html"):
            soup = BeautifulSoup(page.read_text(), "html.parser")
            props = {m["property"] for m in soup.select("meta[property]")}
            assert {"og:title", "og:type", "og:locale", "og:site_name"} <= props, page
    not_found = (site / "404.html").read_text()
    assert 'href="/en/index.html"' in not_found and 'href="/ko/index.html"' in not_found


def test_root_index_sends_readers_to_their_language(site):
    html = (site / "index.html").read_text()
    assert 'href="en/index.html"' in html and 'href="ko/index.html"' in html
    assert "navigator.languages" in html
    assert os.path.exists(site / "en" / "index.html")
