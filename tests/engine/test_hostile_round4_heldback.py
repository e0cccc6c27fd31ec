"""Round 4's held-back probes: cases of each class (translations, shared grids, every argument of
every subcommand, the rest of round 2) written before the checks were tuned to the probes of
test_hostile_round4.py, and run once against them at the end (the report gives the figure); kept
here so the suite runs them from now on. Each case is refused with a located problem naming its
cause (a recipe or a catalog) or with one line and exit 2 (an argument); the controls pass."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from recipe_support import REPO, check_mutated, in_process

GPT, AXK2 = "gpt-oss-120b", "A.X-K2"
HEADER = (
    'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n"Plural-Forms: nplurals=1; plural=0;\\n"\n\n'
)
ENV = {"PYTHONPATH": str(REPO / "_ext"), "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}


def po(body: str, name: str = "index.po", header: str = HEADER) -> list[str]:
    from recipebook_sphinx.i18n import po_check

    return [str(p) for p in po_check.check_text(header + body, name)]


def entry(english: str, translation: str) -> str:
    quoted = [json.dumps(text, ensure_ascii=False) for text in (english, translation)]
    return f"msgid {quoted[0]}\nmsgstr {quoted[1]}\n"


# -- 1. translations --------------------------------------------------------------------------
# (English, translation, a fragment every problem list must hold; None: a control, no problem)
TRANSLATIONS = {
    "literalinclude fence": ("See the example.", "예제:\n\n```{literalinclude} /etc/hostname\n```", "literalinclude"),
    "include colon fence": ("See the example.", "예제:\n\n:::{include} ../README.md\n:::", "include"),
    "image by hex references": ("A picture.", "그림 ![x](https:&#x2F;&#x2F;evil.example&#x2F;a.png)", "evil.example"),
    "javascript link by reference": ("Read more.", "[더 보기](javascript&#58;alert(1))", "javascript"),
    "autolink": ("Read more.", "더 보기 <https://evil.example/x>", "evil.example"),
    "download another file": (
        "Get {download}`the file <files/a.txt>`.",
        "{download}`파일 <../../../etc/passwd>` 받기.",
        "passwd",
    ),
    "ref elsewhere": ("See {ref}`rules <rule-1>`.", "{ref}`규칙 <rule-2>` 참고.", "rule-2"),
    "choseong filler": ("Recipes", "레시피\u115f", "U+115F"),
    "tag letter": ("Recipes", "레시피\U000e0041", "U+E0041"),
    "braille blank": ("Recipes", "레시피\u2800", "U+2800"),
    "halfwidth filler": ("Recipes", "\uffa0레시피", "U+FFA0"),
    "conversion": ("Served: {variant}", "서빙: {variant!r}", "{variant!r}"),
    "index": ("Served: {variant}", "서빙: {variant[0]}", "{variant[0]}"),
    "centred width": ("Served: {variant}", "서빙: {variant:^500}", "{variant:^500}"),
    "percent width": ("%(copyright)s.", "%(copyright)-999s.", "%(copyright)-999s"),
    "raw html block": ("Recipes", '<div style="position:fixed">레시피</div>', "div"),
    "longer than it may be": ("Recipes", "레시피" * 2000, "characters long"),
    "control: same doc target": ("See {doc}`the guide </translating>`.", "{doc}`번역 안내 </translating>` 참고.", None),
    "control: entity the English has": ("Tom &amp; Jerry", "톰 &amp; 제리", None),
    "control: reordered placeholders": ("{a} of {b}", "{b}의 {a}", None),
}


@pytest.mark.parametrize("case", list(TRANSLATIONS))
def test_a_held_back_translation(case):
    english, translation, fragment = TRANSLATIONS[case]
    found = po(entry(english, translation))
    if fragment is None:
        assert found == [], found
    else:
        assert found and all(line.startswith("index.po:7: msgstr: ") for line in found), found
        assert any(fragment in line for line in found), found


@pytest.mark.parametrize(
    "forms",
    [
        "nplurals=2; plural=n/0;",
        "nplurals=1; plural=n**2;",
        "nplurals=1; plural=" + "(" * 60 + "0" + ")" * 60 + ";",
        "nplurals=3; plural=n>1 ? 5 : 0;",
        "nplurals=2; plural=__import__('os');",
    ],
)
def test_a_held_back_plural_rule(forms):
    header = HEADER.replace("nplurals=1; plural=0;", forms)
    found = po('msgid "a"\nmsgstr "b"\n', header=header)
    assert found and found[0].startswith("index.po:4: Plural-Forms"), found


def test_held_back_catalog_files(tmp_path):
    from recipebook_sphinx.i18n import po_check

    folder = tmp_path / "locale" / "ko" / "LC_MESSAGES"
    folder.mkdir(parents=True)
    os.mkfifo(folder / "pipe.po")
    (folder / "far.po").symlink_to("/etc/hostname")
    (folder / "index.mo").write_bytes(b"\xde\x12\x04\x95" + bytes(24))
    (folder / "sphinx.js").write_text("alert(1)", encoding="utf-8")
    (tmp_path / "outside.po").write_text(HEADER, encoding="utf-8")
    (folder / "near.po").symlink_to(tmp_path / "outside.po")
    found = [str(p) for p in po_check.check_language([tmp_path / "locale"], "ko", relative_to=tmp_path)]
    for name in ("pipe.po", "far.po", "index.mo", "sphinx.js", "near.po"):
        assert any(line.startswith(f"locale/ko/LC_MESSAGES/{name}:1: ") for line in found), (name, found)


# -- 3. shared grids --------------------------------------------------------------------------

SHARED = REPO / "tests" / "roots" / "sharing" / "recipes" / "shared-model.json"


def _validate_data(tmp_path: Path, data, name: str = "shared-model", capsys=None):
    """validate in a real process (a chain or cycle of grids: no recursion in any process); given
    ``capsys``, by its main in this process."""
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    if capsys is not None:
        return path, in_process(capsys, "validate", path)
    return path, subprocess.run(
        [sys.executable, "-m", "recipebook", "validate", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        env=ENV,
        cwd=REPO,
    )


def test_held_back_a_chain_of_1500_grids(tmp_path):
    data = json.loads(SHARED.read_text(encoding="utf-8"))
    previous = "agg"
    for i in range(1500):
        data["grids"][f"step{i}"] = {"extends": previous}
        previous = f"step{i}"
    data["strategies"][0]["options"][0]["grid"] = {"extends": previous}
    _path, result = _validate_data(tmp_path, data)
    assert "Traceback" not in result.stderr and result.returncode in (0, 1), result.stderr[-2000:]


def test_held_back_a_cycle_of_600_grids(tmp_path):
    data = json.loads(SHARED.read_text(encoding="utf-8"))
    for i in range(600):
        data["grids"][f"loop{i}"] = {"extends": f"loop{(i + 1) % 600}"}
    data["strategies"][0]["options"][0]["grid"] = {"extends": "loop0"}
    _path, result = _validate_data(tmp_path, data)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert "cycle" in result.stderr


def test_held_back_change_base_in_a_recipe_that_shares_nothing(tmp_path):
    def mutate(data):
        data["strategies"][0]["options"][0]["grid"]["change_base"] = {"main": {"add_args": {"--seed": "--seed 1"}}}

    checked = check_mutated(tmp_path, GPT, mutate)
    pointers = [p.pointer for p in checked.problems]
    assert "/strategies/0/options/0/grid/change_base" in pointers, pointers


@pytest.mark.parametrize("misspelt", ["Extends", "extnds", "extend"])
def test_held_back_a_misspelt_extends_is_named_once(tmp_path, capsys, misspelt):
    data = json.loads(SHARED.read_text(encoding="utf-8"))
    grid = data["strategies"][0]["options"][0]["grid"]
    grid[misspelt] = grid.pop("extends")
    _path, result = _validate_data(tmp_path, data, capsys=capsys)
    lines = [line for line in result.stderr.splitlines() if "/strategies/0/options/0/grid" in line]
    assert len(lines) == 1 and misspelt in lines[0] and "'extends'" in lines[0], result.stderr


# -- 5. every argument of every subcommand ---------------------------------------------------

RECIPE = str(REPO / "recipes" / f"{GPT}.json")
SELECT = ["--strategy", "aggregated", "--target", "Latency"]


def cli(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "recipebook", *args], capture_output=True, text=True, timeout=60, env=ENV, cwd=cwd
    )


def refused(result: subprocess.CompletedProcess) -> None:
    lines = result.stderr.strip().splitlines()
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr[-2000:]
    assert len(lines) == 1 or (len(lines) == 2 and lines[0].startswith("usage:")), result.stderr


@pytest.fixture
def fifo(tmp_path):
    path = tmp_path / "pipe.json"
    os.mkfifo(path)
    return str(path)


def test_held_back_arguments(tmp_path, fifo, capsys):
    """Real processes for what could wait or reach a device (a FIFO, /dev/zero, /dev/full) and for
    fit; the others run by the command's main in this process (each command's exit status 2 is
    seen from a real process in test_cli.py and test_hostile_round4.py)."""
    afile = tmp_path / "file.txt"
    afile.write_text("x", encoding="utf-8")
    schema = str(REPO / "recipes" / "schema.json")
    refused(in_process(capsys, "validate", ""))
    refused(in_process(capsys, "validate", "--verdicts", str(afile), RECIPE))
    refused(cli("validate", "--verdicts", "/dev/full", RECIPE))
    refused(in_process(capsys, "validate", RECIPE, str(Path(RECIPE).parent / "." / Path(RECIPE).name)))
    refused(in_process(capsys, "drift", "--vocabulary", schema))
    refused(cli("drift", "--vocabulary", "/dev/zero"))
    refused(cli("drift", "--vocabulary", fifo))
    pinned = str(REPO / "_ext" / "recipebook" / "data" / "vllm-0.33.0.json")
    refused(in_process(capsys, "drift", "--vocabulary", pinned, "--against", pinned))
    refused(in_process(capsys, "expand", str(tmp_path), *SELECT))
    refused(in_process(capsys, "matrix", str(tmp_path / "missing.json")))
    refused(cli("files", RECIPE, *SELECT, "--archive", "/dev/full"))
    refused(in_process(capsys, "files", RECIPE, *SELECT, "--out", str(afile)))
    refused(cli("fit", RECIPE, *SELECT, "--max-model-len", "1" + "0" * 30))


def test_held_back_the_recipe_is_not_its_own_archive(tmp_path, capsys):
    recipe = tmp_path / f"{GPT}.json"
    recipe.write_bytes(Path(RECIPE).read_bytes())
    refused(in_process(capsys, "files", str(recipe), *SELECT, "--archive", str(recipe)))
    assert recipe.read_bytes() == Path(RECIPE).read_bytes()


def test_held_back_placeholders_that_do_not_exist(tmp_path, capsys):
    axk2 = str(REPO / "recipes" / f"{AXK2}.json")
    pd = ["--strategy", "prefill-decode-disaggregated", "--target", "Latency", "--out", str(tmp_path / "o")]
    refused(in_process(capsys, "files", axk2, *pd, "--set-placeholder", "NO_SUCH_NAME=x"))
    refused(in_process(capsys, "files", axk2, *pd, "--set-placeholder", "POD_IP@99=10.0.0.1"))


def test_held_back_recipe_page_outside_the_pages(tmp_path):
    from third_recipe import copy_project

    project = copy_project(tmp_path / "project")
    result = subprocess.run(
        ["make", "--no-print-directory", "recipe-page", "NAME=../../x"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode != 0 and "Traceback" not in result.stderr
    assert not (project / "x.md").exists() and not (project.parent / "x.md").exists()


# -- 6. the rest of round 2 -------------------------------------------------------------------

LATENCY = "/strategies/0/options/0/grid"


def _arg(flag: str, value: str):
    def mutate(data):
        data["strategies"][0]["options"][0]["grid"]["base"][0]["args"][flag] = f"{flag} '{value}'"

    return mutate


ROUND2 = {
    "cyrillic a in a model": (
        _arg(
            "--speculative-config",
            '{"method": "eagle3", "model": "nvidia/gpt-oss-120b-E\u0430gle3-v3", "num_speculative_tokens": 3}',
        ),
        f"{LATENCY}/base/0/args/--speculative-config",
        "U+0430",
    ),
    "greek omicron in an override": (
        _arg("--hf-overrides", '{"architectures": ["GptOssF\u03bfrCausalLM"]}'),
        f"{LATENCY}/base/0/args/--hf-overrides",
        "U+03BF",
    ),
    "duplicate key": (
        _arg("--speculative-config", '{"method": "ngram", "num_speculative_tokens": 3, "method": "suffix"}'),
        f"{LATENCY}/base/0/args/--speculative-config",
        "method",
    ),
    "5001 digits": (
        _arg("--speculative-config", '{"method": "ngram", "num_speculative_tokens": ' + "7" * 5001 + "}"),
        f"{LATENCY}/base/0/args/--speculative-config",
        "digits",
    ),
    "deep": (
        _arg("--hf-overrides", '{"a": ' + "[" * 3000 + "]" * 3000 + "}"),
        f"{LATENCY}/base/0/args/--hf-overrides",
        "deep",
    ),
}


@pytest.mark.parametrize("case", list(ROUND2))
def test_a_held_back_round2_case(tmp_path, case):
    mutate, pointer, fragment = ROUND2[case]
    checked = check_mutated(tmp_path, GPT, mutate)
    here = [p for p in checked.problems if p.pointer == pointer]
    assert any(fragment in p.message for p in here), "\n".join(map(str, checked.problems))


@pytest.mark.parametrize("name", ["gpt-oss-120b.", "nul", "COM1", "aux.x", "schema"])
def test_held_back_a_name_that_is_not_portable(tmp_path, name):
    def mutate(data):
        data["name"] = name

    checked = check_mutated(tmp_path, GPT, mutate, file_name=f"{name}.json")
    assert any(p.pointer == "/name" for p in checked.problems), "\n".join(map(str, checked.problems))


def test_held_back_a_prompt_in_another_script_is_still_prose(tmp_path):
    def mutate(data):
        data["client"] = data["client"].replace('"content": "Hello"', '"content": "Привет, мир"')

    checked = check_mutated(tmp_path, GPT, mutate)
    assert [p for p in checked.problems if p.pointer == "/client"] == []


def test_held_back_a_symlinked_recipe_out_of_its_folder(tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / f"{GPT}.json").write_bytes(Path(RECIPE).read_bytes())
    folder = tmp_path / "recipes"
    folder.mkdir()
    (folder / f"{GPT}.json").symlink_to(elsewhere / f"{GPT}.json")
    result = cli("validate", str(folder / f"{GPT}.json"))
    assert result.returncode != 0 and "Traceback" not in result.stderr
    assert "link" in result.stderr


def test_held_back_two_targets_in_one_archive_folder(tmp_path):
    def mutate(data):
        strategies = data["strategies"]
        twin = copy.deepcopy(strategies[0])
        strategies[0]["slug"] = "aggregated-latency"
        strategies[0]["options"] = strategies[0]["options"][
            1:
        ]  # Throughput: gpt-oss-120b-aggregated-latency-Throughput
        twin["slug"] = "aggregated"
        twin["label"] = twin["label"] + " (twin)"
        twin["options"][0]["target"] = "latency-Throughput"
        strategies.append(twin)

    checked = check_mutated(tmp_path, GPT, mutate)
    assert any("folder" in p.message for p in checked.problems), "\n".join(map(str, checked.problems))


def test_held_back_the_shipped_recipes_still_validate():
    result = cli("validate")
    assert result.returncode == 0, result.stderr


# -- the commands merged since (fit, results add, the benchmark, stored results) ---------------
# Written before they were run against the argument types of the merge, and run once at the end.


def run_here(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    from recipebook import cli as recipebook_cli

    try:
        status = recipebook_cli.main(list(args))
    except SystemExit as stop:
        status = stop.code if isinstance(stop.code, int) else 1
    return status, capsys.readouterr().err


@pytest.fixture
def result_file(tmp_path):
    path = tmp_path / "result.json"
    path.write_text("{}", encoding="utf-8")
    return str(path)


HELD_BACK_MERGED = {
    "results a null device": ["results", "add", "/dev/null"],
    "results twice through a link": ["results", "add", "{file}", "{link}"],
    "results into an empty path": ["results", "add", "{file}", "--results", ""],
    "results under a device": ["results", "add", "{file}", "--results", "/dev/null/sub"],
    "results recipes a file": ["results", "add", "{file}", "--recipes", "/etc/hostname"],
    "results run with markup": ["results", "add", "{file}", "--run", "https://x.example/<script>"],
    "results run empty": ["results", "add", "{file}", "--run", ""],
    "results run far too long": ["results", "add", "{file}", "--run", "https://x.example/" + "a" * 5000],
    "results time zone with seconds": ["results", "add", "{file}", "--timezone", "+09:00:00"],
    "results time zone empty": ["results", "add", "{file}", "--timezone", ""],
    "results release with a command": ["results", "add", "{file}", "--vllm", "0.30.0;id"],
    "results release empty": ["results", "add", "{file}", "--vllm-rbln", ""],
    "results among the recipes by another name": ["results", "add", "{file}", "--results", "{recipes}/."],
    "results a folder through a link": ["results", "add", "{folder_link}"],
    "fit seqs past the bound": ["fit", RECIPE, *SELECT, "--max-num-seqs", "1073741825"],
    "fit empty checkpoint": ["fit", RECIPE, *SELECT, "--checkpoint", ""],
    "fit sku in lower case": ["fit", RECIPE, *SELECT, "--sku", "rbln-ca22"],
    "fit hexadecimal": ["fit", RECIPE, *SELECT, "--max-model-len", "0x10"],
}


@pytest.mark.parametrize("case", list(HELD_BACK_MERGED))
def test_held_back_merged_arguments(tmp_path, result_file, capsys, monkeypatch, case):
    monkeypatch.chdir(REPO)
    link = tmp_path / "alias.json"
    link.symlink_to(result_file)
    folder_link = tmp_path / "folder.json"
    folder_link.symlink_to(tmp_path)
    names = {"file": result_file, "link": str(link), "recipes": str(REPO / "recipes"), "folder_link": str(folder_link)}
    status, stderr = run_here(capsys, *(a.format(**names) for a in HELD_BACK_MERGED[case]))
    assert status == 2 and "Traceback" not in stderr and len(stderr.strip().splitlines()) == 1, stderr[-2000:]


def test_held_back_stored_results_that_are_not_files(tmp_path):
    from recipebook.expanding import results

    folder = tmp_path / "results" / AXK2
    folder.mkdir(parents=True)
    (folder / "random.json").symlink_to("/dev/urandom")
    with (folder / "big.json").open("wb") as handle:
        handle.truncate(2 * 1024 * 1024)
    (folder / "passwd.json").symlink_to("/etc/passwd")
    found, wrong = results.load(tmp_path / "results", AXK2)
    assert found == () and len(wrong) == 3, wrong
