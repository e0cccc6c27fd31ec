"""A realistic portal of many recipes, generated from the two shipped ones: `python bench/portal.py DIR N`.

Writes a copy of the project into DIR (no build output, no caches), with N recipes in its
``recipes/`` (the shipped two and N-2 generated), the page of each in ``source/recipes/``,
and the Korean of each generated page's title and overview appended to its
``locale/ko/LC_MESSAGES/recipes.po``; ``make html`` (or :func:`build`) builds it like the real
site. The search evaluation (tests/site/test_portal_search.py, bench/search_report.py) and
``make bench`` use it.

Each generated recipe is one of the shipped ones (the templates) with:

- a model of a real family and publisher, its name as Hugging Face writes it, often long
  (``Llama-3.3-70B-Instruct``, ``DeepSeek-R1-Distill-Qwen-32B-Instruct-Preview-2506``);
- the template's strategies, or some of them (A.X-K2's aggregated ones, its prefill/decode
  one, or all three), so the kinds of strategy vary;
- a device (RBLN-CR13, RBLN-CA22 or RBLN-CA25);
- its features: speculative decoding or KV offload (LMCache) taken out of some.

Every generated recipe is checked as `make validate` checks it; a generated recipe with a
problem stops the generator with the problem.

``python bench/portal.py DIR --recipes FOLDER`` makes the portal of the recipes in FOLDER instead
(real ones, as ``recipebook import`` writes them from vLLM Recipes), beside the shipped two:
each gets the page ``make recipe-page`` would write, its guide sections left out and its
overview the recipe's own English description (a page whose translation has not caught up:
its Korean catalog gains nothing). A recipe with an error stops it as above.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import shutil
from pathlib import Path
from typing import Any

import polib

from recipebook import check_file

ROOT = Path(__file__).resolve().parents[1]

SHIPPED = {"aggregated": "gpt-oss-120b", "disaggregated": "A.X-K2"}
IGNORE = shutil.ignore_patterns(
    ".git", ".venv", "node_modules", "_build", "__pycache__", ".pytest_cache", ".crosscheck", "tests"
)

# (publisher, name pattern with {size}, sizes, family words a reader types)
FAMILIES: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("meta-llama", "Llama-3.3-{size}B-Instruct", ("70", "8", "405", "1", "3")),
    ("Qwen", "Qwen2.5-Coder-{size}B-Instruct", ("32", "14", "7", "3", "1.5")),
    ("mistralai", "Mistral-Small-3.2-{size}B-Instruct-2506", ("24", "12", "48", "8", "4")),
    ("deepseek-ai", "DeepSeek-R1-Distill-Qwen-{size}B", ("32", "14", "70", "7", "1.5")),
    ("google", "gemma-3-{size}b-it", ("27", "12", "4", "1", "2")),
    ("LGAI-EXAONE", "EXAONE-4.0-{size}B-Instruct", ("32", "12", "2", "7.8", "2.4")),
    ("microsoft", "Phi-4-reasoning-plus-{size}B", ("14", "7", "28", "3.8", "2")),
    ("upstage", "solar-pro-{size}b-preview-instruct", ("22", "11", "44", "10", "30")),
    ("naver-hyperclovax", "HyperCLOVAX-SEED-Think-{size}B", ("14", "32", "3", "1.5", "0.5")),
    ("kakaocorp", "kanana-1.5-{size}b-instruct-2505", ("8", "2", "32", "2.1", "15")),
    ("ibm-granite", "granite-3.3-{size}b-instruct", ("8", "2", "20", "34", "3")),
    ("Qwen", "Qwen3-{size}B-A22B-Thinking-2507", ("235", "30", "480", "80", "120")),
    ("mistralai", "Mixtral-{size}x22B-Instruct-v0.1", ("8", "4", "16", "2", "6")),
    ("nvidia", "Llama-3.1-Nemotron-Ultra-{size}B-v1", ("253", "70", "49", "8", "340")),
    ("01-ai", "Yi-1.5-{size}B-Chat-16K", ("34", "9", "6", "70", "12")),
    ("tiiuae", "Falcon3-{size}B-Instruct", ("10", "7", "3", "1", "40")),
    ("allenai", "OLMo-2-{size}B-Instruct-1124", ("13", "7", "32", "1", "65")),
    ("CohereLabs", "c4ai-command-r-{size}b-08-2024", ("35", "104", "7", "12", "70")),
    ("Qwen", "QwQ-{size}B-Preview", ("32", "72", "14", "7", "110")),
    ("NousResearch", "Hermes-3-Llama-3.1-{size}B", ("70", "8", "405", "3", "14")),
)
SKUS = ("RBLN-CR13", "RBLN-CA22", "RBLN-CA25")
# the template's strategies a generated recipe keeps (A.X-K2: aggregated twice, then prefill/decode)
STRATEGY_SETS = ((0, 1, 2), (0, 1), (2,), (0, 2))
# features a generated recipe may lose: the mode axis that offers it
FEATURE_AXES = {"speculative decoding": "spec_decode", "KV offload": "lmcache"}


@dataclasses.dataclass(frozen=True)
class Generated:
    name: str
    provider: str
    template: str
    sku: str
    strategies: tuple[int, ...]  # the template's strategies kept, by index
    without: tuple[str, ...]  # features taken out (keys of FEATURE_AXES)


def plan(count: int, taken: frozenset[str] = frozenset()) -> list[Generated]:
    """The generated recipes of a portal of `count` recipes (the shipped two are not in it); a
    name in `taken` (lower case: a recipe the project already has) is passed over."""
    found: list[Generated] = []
    names: set[str] = set()
    index = 0
    while len(found) < max(0, count - len(SHIPPED)):
        publisher, pattern, sizes = FAMILIES[index % len(FAMILIES)]
        round_ = index // len(FAMILIES)
        size = sizes[round_ % len(sizes)]
        name = pattern.format(size=size)
        if round_ >= len(sizes):
            name = f"{name}-r{round_ // len(sizes) + 1}"
        template = "disaggregated" if index % 3 == 1 else "aggregated"
        without = []
        if index % 4 == 2:
            without.append("speculative decoding")
        if index % 5 == 3:
            without.append("KV offload")
        if name.lower() not in names and name.lower() not in taken:
            names.add(name.lower())
            found.append(
                Generated(
                    name=name,
                    provider=publisher,
                    template=template,
                    sku=SKUS[index % len(SKUS)],
                    strategies=STRATEGY_SETS[index % len(STRATEGY_SETS)] if template == "disaggregated" else (0,),
                    without=tuple(without),
                )
            )
        index += 1
    return found


def project_links(project: Path) -> None:
    """The copy uses the project's virtual environment and Node packages (as a worktree does)."""
    for name in (".venv", "node_modules"):
        source = ROOT / name
        if source.exists() and not (project / name).exists():
            (project / name).symlink_to(source.resolve())


def _drop_axis(grid: dict[str, Any], axis: str) -> None:
    grid["modes"].pop(axis, None)
    grid["deltas"] = {key: value for key, value in grid["deltas"].items() if not key.startswith(f"{axis}=")}
    grid["excluded"] = [entry for entry in grid["excluded"] if axis not in entry]
    grid["excluded"] = [entry for entry in grid["excluded"] if entry]
    if grid.get("recommended"):
        grid["recommended"].pop(axis, None)


def recipe(item: Generated) -> dict[str, Any]:
    """The recipe document of a generated recipe."""
    template_name = SHIPPED[item.template]
    text = (ROOT / "recipes" / f"{template_name}.json").read_text(encoding="utf-8")
    template = json.loads(text)
    model = f"{item.provider}/{item.name}"
    text = text.replace(template["model"], model).replace(template_name, item.name)
    data = json.loads(text)
    data["provider"] = item.provider
    data["hf"] = f"https://huggingface.co/{model}"
    data["strategies"] = [data["strategies"][i] for i in item.strategies]
    if "placeholders" in data:  # only the prefill/decode strategy's router steps hold them
        held = json.dumps(data["strategies"])
        data["placeholders"] = {key: value for key, value in data["placeholders"].items() if f"<{key}>" in held}
        if not data["placeholders"]:
            del data["placeholders"]
    for strategy in data["strategies"]:
        for option in strategy["options"]:
            option["skus"] = [item.sku]
            for feature in item.without:
                _drop_axis(option["grid"], FEATURE_AXES[feature])
    used = {axis for s in data["strategies"] for o in s["options"] for axis in o["grid"]["modes"]}
    used |= {axis for s in data["strategies"] for o in s["options"] for axis in o["grid"]["options"]}
    data["axes"] = [axis for axis in data["axes"] if axis["axis"] in used]
    kinds = _kinds(item)
    if kinds != "aggregated and prefill/decode disaggregated":  # the template's tag names both
        data["text"]["en"]["tag"] = f"{kinds.capitalize()} vllm serve, verified on RBLN-CR13."
        data["text"]["ko"]["tag"] = f"RBLN-CR13으로 검증된 {kinds} vllm serve 구성입니다."
    for language in data["text"].values():
        for key, value in language.items():
            language[key] = value.replace("RBLN-CR13", item.sku)
    _template_facts_only(data)
    return data


def _template_facts_only(data: dict[str, Any]) -> None:
    """A generated model was never run: the template's observations go, and with them the
    checkpoints only they ran and the sources only they named."""
    facts = data.get("facts")
    if not facts or "observations" not in facts:
        return
    del facts["observations"]
    served = {data["model"]} | {o["grid"]["model"] for s in data["strategies"] for o in s["options"]}
    facts["checkpoints"] = [c for c in facts.get("checkpoints", ()) if c["model"] in served]
    named = set(facts["architecture"]["source"])
    for kind in ("checkpoints", "drafts"):
        named |= {source for entry in facts.get(kind, ()) for source in entry["source"]}
    facts["sources"] = {key: value for key, value in facts["sources"].items() if key in named}


def enlarge(data: dict[str, Any], tabs: int, targets: int) -> dict[str, Any]:
    """A large recipe: each strategy repeated to `tabs` strategies (tabs of the page), each with
    `targets` targets (copies of its own, renamed). Each of the template's grids is written once,
    in the recipe's `grids`, and every copy extends it, as an author writes a large recipe (the
    pages are those of the grids written out in full; a file with them written out would exceed
    the reader's size bound)."""
    template = data["strategies"]
    parts = {}
    for s, strategy in enumerate(template):
        for o, option in enumerate(strategy["options"]):
            parts[f"s{s}o{o}"] = option["grid"]
    strategies = []
    for copy in range(tabs):
        s = copy % len(template)
        strategy = json.loads(json.dumps({k: v for k, v in template[s].items() if k != "options"}))
        strategy["slug"] = f"{strategy['slug']}-{copy + 1}"
        options = template[s]["options"]
        strategy["options"] = []
        for number in range(targets):
            o = number % len(options)
            option = json.loads(json.dumps({k: v for k, v in options[o].items() if k != "grid"}))
            option["target"] = f"{option['target']} {number + 1}"
            option["grid"] = {"extends": f"s{s}o{o}"}
            strategy["options"].append(option)
        strategies.append(strategy)
    used = {option["grid"]["extends"] for strategy in strategies for option in strategy["options"]}
    data["grids"] = {**data.get("grids", {}), **{key: grid for key, grid in parts.items() if key in used}}
    data["strategies"] = strategies
    return data


def _kinds(item: Generated) -> str:
    if item.template == "aggregated":
        return "aggregated"
    kinds = {0: "aggregated", 1: "aggregated", 2: "prefill/decode disaggregated"}
    return " and ".join(sorted({kinds[i] for i in item.strategies}))


_KINDS_KO = {
    "aggregated": "통합(aggregated)",
    "prefill/decode disaggregated": "prefill/decode 분리(disaggregated)",
    "aggregated and prefill/decode disaggregated": "통합(aggregated) 및 prefill/decode 분리(disaggregated)",
}
_FEATURES_KO = {"speculative decoding": "추측 디코딩", "KV offload": "KV 오프로드"}


def page(item: Generated) -> tuple[str, list[tuple[str, str]]]:
    """A generated recipe's page, and the Korean of its sentences that name the model."""
    title = f"Serving {item.name} on RBLN NPU"
    kinds = _kinds(item)
    offered = [f for f in FEATURE_AXES if f not in item.without]
    features = " and ".join(offered) if offered else "no optional features"
    overview = (
        f"{item.name} is a language model published by {item.provider}. On {item.sku}, the RBLN plugin for "
        f"vLLM serves it {kinds}; the recipe offers {features}."
    )
    ko_features = " 및 ".join(_FEATURES_KO[f] for f in offered) if offered else "선택 기능 없음"
    overview_ko = (
        f"{item.name}는 {item.provider}가 공개한 언어 모델입니다. {item.sku}에서 vLLM용 RBLN 플러그인이 "
        f"{_KINDS_KO[kinds]} 방식으로 서빙하며, 레시피는 {ko_features}을 제공합니다."
    )
    text = f"""# {title}

```{{recipe-header}} {item.name}
```

## Prerequisites and installation

```{{recipe-install}} {item.name}
```

## Serving commands

Pick a strategy and a target, then the features you want. The commands follow your
choice; the recommended combination is selected when the page opens.

```{{recipe-explorer}} {item.name}
```

## Client example

```{{recipe-client}} {item.name}
```

## Overview

{overview}
"""
    return text, [(title, f"RBLN NPU에서 {item.name} 서빙"), (overview, overview_ko)]


def _po_string(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def copy(project: Path) -> None:
    """A copy of the project in `project` (which must not exist), using this one's virtual
    environment and Node packages."""
    shutil.copytree(ROOT, project, ignore=IGNORE, symlinks=True)
    project_links(project)


def write(project: Path, count: int, large: tuple[int, int] | None = None, *, check: bool = True) -> list[Generated]:
    """A copy of the project in `project` (which must not exist) with a portal of `count` recipes;
    with `large` (tabs, targets), every generated recipe is made that large (:func:`enlarge`).
    Each is checked unless `check` is false (as :func:`generate`)."""
    copy(project)
    return generate(project, count, large, check=check)


def generate(project: Path, count: int, large: tuple[int, int] | None = None, *, check: bool = True) -> list[Generated]:
    """Generated recipes (and their pages and Korean) added to a project copy, `count` minus the
    shipped two of them; each is checked as `make validate` checks it unless `check` is false (the
    caller builds the copy with `make html`, which validates every recipe and fails on an error)."""
    # the project's own recipes beside the shipped two (tests/batch's, make test-batch) keep their
    # names and catalog entries: the portal adds `count` minus the shipped two around them
    taken = frozenset(p.stem.lower() for p in (project / "recipes").glob("*.json") if p.name != "schema.json")
    items = plan(count, taken)
    catalog = project / "locale" / "ko" / "LC_MESSAGES" / "recipes.po"
    known = {entry.msgid for entry in polib.pofile(str(catalog))}
    entries = []
    problems = []
    for item in items:
        path = project / "recipes" / f"{item.name}.json"
        data = recipe(item) if large is None else enlarge(recipe(item), *large)
        path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        if check:
            _recipe, found = check_file(path)
            problems += [str(problem) for problem in found]
        text, translations = page(item)
        (project / "source" / "recipes" / f"{item.name}.md").write_text(text, encoding="utf-8")
        entries += [
            f"\nmsgid {_po_string(en)}\nmsgstr {_po_string(ko)}\n" for en, ko in translations if en not in known
        ]
    if problems:
        raise SystemExit("generated recipes are not valid:\n" + "\n".join(problems[:20]))
    with catalog.open("a", encoding="utf-8") as out:
        out.write("".join(entries))
    return items


def real_page(name: str, description: str) -> str:
    """The page of a recipe of a folder: the directives, then its description as the overview."""
    sections = [f"# Serving {name} on RBLN NPU\n\n```{{recipe-header}} {name}\n```\n"]
    for heading, directive in (
        ("Prerequisites and installation", "recipe-install"),
        ("Serving commands", "recipe-explorer"),
        ("Client example", "recipe-client"),
    ):
        sections.append(f"## {heading}\n\n```{{{directive}}} {name}\n```\n")
    if description:
        sections.append(f"## Overview\n\n{description}\n")
    return "\n".join(sections)


def adopt(project: Path, folder: Path) -> list[str]:
    """A copy of the project in `project` (which must not exist) with the recipes of `folder`
    beside its own, each with its page; their names, in order."""
    copy(project)
    return take(project, folder)


def take(project: Path, folder: Path, chosen: tuple[str, ...] | None = None, *, check: bool = True) -> list[str]:
    """The recipes of `folder` (those named in `chosen`, or all) added to a project copy beside
    its own, each with its page; their names, in order. Each is checked unless `check` is false
    (as :func:`generate`)."""
    names, problems = [], []
    sources = sorted(folder.glob("*.json")) if chosen is None else [folder / f"{name}.json" for name in chosen]
    for source in sources:
        path = project / "recipes" / source.name
        if path.exists() or source.name == "schema.json":
            continue  # the project's own recipe of that name stays
        shutil.copyfile(source, path)
        if check:
            checked, found = check_file(path)
            problems += [] if checked is not None else [str(problem) for problem in found]  # warnings alone pass
        data = json.loads(path.read_text(encoding="utf-8"))
        description = " ".join(str(data.get("text", {}).get("en", {}).get("sub", "")).split())
        (project / "source" / "recipes" / f"{path.stem}.md").write_text(
            real_page(path.stem, description), encoding="utf-8"
        )
        names.append(path.stem)
    if problems:
        raise SystemExit(f"recipes of {folder} are not valid:\n" + "\n".join(problems[:20]))
    return names


# The test suite's portal (tests/conftest.py's portal_project; make search-report measures its
# query sets, tests/search_sets/portal and portal-real, on it): a hundred recipes, real ones of
# every shape from tests/data/portal-recipes and generated ones up to the count. A real recipe
# costs more to build than a generated one, by the size of its pages (nine GPU targets to a
# strategy, each target's commands and manifests written out: 2.5 MB of output for two
# strategies where a generated recipe makes 0.5 MB), so the lightest of each shape are taken:
# the portal costs no more processor time than the hundred generated ones did
# (tests/data/portal-recipes/README.md). Left out for their size: ERNIE-4.5-21B-A3B-PT (8
# strategies of 72 targets, 13 MB), Qwen2.5-VL-72B-Instruct, translategemma-27b-it, Ling-2.6-1T
# and -flash, Llama-3.1-8B, plamo-3-nict-31b-base, and the second and third of a kind.
SUITE_FOLDER = ROOT / "tests" / "data" / "portal-recipes"
SUITE_REAL: tuple[str, ...] = (
    # text: a small dense multimodal model, a MoE reasoning model in MXFP4, an instruct model with
    # tool calling, the smallest vision-language model
    "Qwen3.5-0.8B",
    "gpt-oss-20b",
    "LFM2.5-1.2B-Instruct",
    "LFM2.5-VL-450M",
    # six strategies of 39 targets, one of them a prefill/decode cluster
    "Mistral-Small-4-119B-2603",
    # OCR, a multimodal reranker, English/Japanese translation, speech recognition
    "DeepSeek-OCR-2",
    "jina-reranker-m0",
    "plamo-2-translate",
    "whisper-large-v3",
    # vLLM-Omni (no feature axes): speech synthesis, image, video and audio generation, image editing
    "MOSS-TTS",
    "MOSS-TTS-Realtime",
    "MOSS-TTSD-v1.0",
    "VoxCPM2",
    "Voxtral-4B-TTS-2603",
    "GLM-TTS",
    "IndexTTS-2.5",
    "s2-pro",
    "higgs-audio-v3-tts-4b",
    "Ming-omni-tts-0.5B",
    "Qwen-Image",
    "Wan2.2-T2V-A14B-Diffusers",
    "stable-audio-open-1.0",
    "LongCat-Image-Edit",
)
SUITE_COUNT = 100


def suite(project: Path, count: int = SUITE_COUNT) -> tuple[list[str], list[Generated]]:
    """A copy of the project in `project` (which must not exist) with the test suite's portal of
    `count` recipes: the real ones of :data:`SUITE_REAL` and generated ones up to the count. Its
    recipes are not checked here: `make html` validates every one (once, for both languages) and
    fails on an error, and checking them here as well cost an eighth of the portal's build."""
    copy(project)
    real = take(project, SUITE_FOLDER, SUITE_REAL, check=False)
    return real, generate(project, count - len(real), check=False)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("project", type=Path, help="the folder to write (must not exist)")
    parser.add_argument("count", type=int, nargs="?", help="recipes in the portal (the shipped two included)")
    parser.add_argument("--recipes", type=Path, metavar="FOLDER", help="the portal's recipes instead (real ones)")
    parser.add_argument("--suite", action="store_true", help="the test suite's portal (real recipes and generated)")
    args = parser.parse_args(argv)
    if args.suite:
        suite(args.project, args.count or SUITE_COUNT)
    elif args.recipes is not None:
        adopt(args.project, args.recipes)
    elif args.count is not None:
        write(args.project, args.count)
    else:
        parser.error("give a count of generated recipes or --recipes FOLDER")
    print(f"{args.project}: {len(list((args.project / 'recipes').glob('*.json'))) - 1} recipes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
