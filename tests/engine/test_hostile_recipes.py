"""Recipe text written carelessly or with intent: each mistake is refused at FILE:LINE:COL with a
message that names its cause. Invisible and look-alike characters (recipebook.checking.characters),
near-placeholders and ports (recipebook.checking.safety), links (rule 9), names that differ only in case,
and strings past their length limit.

Each test mutates a shipped recipe as tests/engine/test_rules.py does (recipe_support.check_mutated),
so the expected line and column come from the test's own JSON writer.
"""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest

from recipe_support import check_mutated
from recipebook.checking import characters

GPT, AXK2 = "gpt-oss-120b", "A.X-K2"
GPT_LATENCY = "/strategies/0/options/0/grid"
AX_PD = "/strategies/2/options/0/grid"  # prefill-decode-disaggregated / Latency
SEQS = f"{GPT_LATENCY}/base/0/args/--max-num-seqs"
SPEC = f"{GPT_LATENCY}/deltas/spec_decode=eagle3/main/add_args/--speculative-config"


def grid(data, strategy: int = 0, target: int = 0) -> dict:
    return data["strategies"][strategy]["options"][target]["grid"]


def set_seqs(text: str):
    def mutate(data):
        grid(data)["base"][0]["args"]["--max-num-seqs"] = text

    return mutate


# -- invisible and look-alike characters -------------------------------------------------------

INVISIBLE = "is invisible: it does not show on the page but is part of the text (and of what is copied); remove it"
SPACE = (
    "looks like a space but is not one: the shell does not split words at it and a name or link keeps it; "
    "write a plain space (U+0020 SPACE), or none"
)
FLAG_DASH = (
    "looks like a hyphen but is not one: a flag starts with '--', two U+002D HYPHEN-MINUS; "
    "write '--' (or '-' where one hyphen is meant)"
)
SINGLE = "is a typographic quote, which the shell and JSON read as a plain character; write ' (U+0027 APOSTROPHE)"
DOUBLE = 'is a typographic quote, which the shell and JSON read as a plain character; write " (U+0022 QUOTATION MARK)'


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("\u2014max-num-seqs 8", f"U+2014 EM DASH at character 1 of the value {FLAG_DASH}"),
        ("\u2013-max-num-seqs 8", f"U+2013 EN DASH at character 1 of the value {FLAG_DASH}"),
        ("--max-num-seqs\u00a08", f"U+00A0 NO-BREAK SPACE at character 15 of the value {SPACE}"),
        ("--max-num-seqs 8\u200b", f"U+200B ZERO WIDTH SPACE at character 17 of the value {INVISIBLE}"),
        ("--max-num-seqs \u20188'", f"U+2018 LEFT SINGLE QUOTATION MARK at character 16 of the value {SINGLE}"),
        (
            "--max-num-seqs \uff18",
            "U+FF18 FULLWIDTH DIGIT EIGHT at character 16 of the value looks like '8' but is another "
            "character; write '8' (U+0038 DIGIT EIGHT)",
        ),
    ],
)
def test_a_look_alike_in_an_argument_is_named_instead_of_what_it_breaks(tmp_path, text, message):
    """Without the check these were 'not a flag', 'text must start with its key' or a value
    problem; the character is the cause and the only problem reported at the value."""
    checked = check_mutated(tmp_path, GPT, set_seqs(text))
    assert next(p.message for p in checked.problems if p.pointer == SEQS) == message
    checked.expect_only(SEQS, message)


def test_typographic_quotes_around_json_are_named_not_brace_expansion(tmp_path):
    def mutate(data):
        add = grid(data)["deltas"]["spec_decode=eagle3"]["main"]["add_args"]
        add["--speculative-config"] = (
            add["--speculative-config"].replace("'", "\u2018", 1)[::-1].replace("'", "\u2019", 1)[::-1]
        )

    checked = check_mutated(tmp_path, GPT, mutate)
    assert [p.message.split(" at ")[0] for p in checked.problems] == [
        "U+2018 LEFT SINGLE QUOTATION MARK",
        "U+2019 RIGHT SINGLE QUOTATION MARK",
    ]
    assert all(p.message.endswith(SINGLE) for p in checked.problems)
    assert not any("brace-expanded" in str(p) for p in checked.problems)
    checked.expect(SPEC, "U+2018 LEFT SINGLE QUOTATION MARK at character 22 of the value")


def test_a_trailing_space_in_a_model_id_or_name(tmp_path):
    def mutate(data):
        data["model"] += " "
        grid(data)["model"] += " "

    checked = check_mutated(tmp_path, GPT, mutate)
    checked.expect("/model", "the value ends with U+0020 SPACE; remove it")
    checked.expect(f"{GPT_LATENCY}/model", "the value ends with U+0020 SPACE; remove it")
    assert len(checked.ours) == 2, "\n".join(map(str, checked.problems))  # not also "does not match the pattern"


def test_a_look_alike_in_a_key_is_named(tmp_path):
    def mutate(data):
        args = grid(data)["base"][0]["args"]
        args["\u2014max-num-seqs"] = args.pop("--max-num-seqs").replace("--", "\u2014", 1)

    checked = check_mutated(tmp_path, GPT, mutate)
    checked.expect(
        f"{GPT_LATENCY}/base/0/args/\u2014max-num-seqs",
        f"U+2014 EM DASH at character 1 of the key {FLAG_DASH}",
        key=True,
    )


def test_invisible_characters_are_refused_in_korean_prose_too(tmp_path):
    def mutate(data):
        data["text"]["ko"]["sub"] = data["text"]["ko"]["sub"][:3] + "\u200b" + data["text"]["ko"]["sub"][3:]
        data["text"]["ko"]["tag"] = "\u202e" + data["text"]["ko"]["tag"]

    checked = check_mutated(tmp_path, GPT, mutate)
    checked.expect("/text/ko/sub", f"U+200B ZERO WIDTH SPACE at character 4 of the value {INVISIBLE}")
    checked.expect(
        "/text/ko/tag",
        "U+202E RIGHT-TO-LEFT OVERRIDE at character 1 of the value is a bidirectional control: it can make text "
        "show in another order than it is read; remove it",
    )


def test_prose_may_hold_typography_but_its_code_and_links_may_not(tmp_path):
    """A Korean or English sentence may use typographic quotes, dashes and no-break spaces; the
    code spans and link targets of the same text carry meaning."""

    def mutate(data):
        data["text"]["ko"]["sub"] = "\u201c빠른\u201d 서빙\u00a0\u2014 A.X-K2\u3000모델"
        data["text"]["en"]["tag"] = 'Use <code>\u2014port</code>, see <a href="https://example.com/\u00a0x">this</a>.'

    checked = check_mutated(tmp_path, GPT, mutate)
    assert [p.pointer for p in checked.ours] == ["/text/en/tag", "/text/en/tag"]
    checked.expect("/text/en/tag", f"U+2014 EM DASH at character 11 of the value {FLAG_DASH}")
    checked.expect("/text/en/tag", f"U+00A0 NO-BREAK SPACE at character 58 of the value {SPACE}")


def test_every_occurrence_is_counted_and_each_character_named_once(tmp_path):
    checked = check_mutated(tmp_path, GPT, set_seqs("--max-num-seqs 8\u200b\u200b \u200b"))
    checked.expect_only(SEQS, f"U+200B ZERO WIDTH SPACE at characters 17, 18 and 20 of the value {INVISIBLE}")


def test_the_class_of_invisible_characters_is_unicode_s():
    """Every format, control (but tab, LF, CR), line and paragraph separator character of the
    Unicode version Python ships, the default-ignorable code points beyond those (fillers, tags,
    reserved ones) and the braille blank; variation selectors are judged as marks instead."""
    categories = {
        chr(cp)
        for cp in range(0x110000)
        if unicodedata.category(chr(cp)) in ("Cc", "Cf", "Zl", "Zp") and chr(cp) not in "\t\n\r"
    }
    found = {chr(cp) for cp in range(0x110000) if characters.INVISIBLE.match(chr(cp))}
    assert categories <= found
    fillers_and_reserved = "\u034f\u115f\u1160\u17b4\u17b5\u2065\u2800\u3164\uffa0\ufff0\U000e0000\U000e0080"
    assert set(fillers_and_reserved) <= found
    assert not found & {"\t", "\n", "\r", " ", "a", "가", "\ufe0f", "\U000e0100", "\u00a0"}


def test_controls_are_named_by_their_alias():
    assert characters.describe("\x1b") == "U+001B ESCAPE"
    assert characters.describe("\u2014") == "U+2014 EM DASH"


# -- placeholders -------------------------------------------------------------------------------

PLACEHOLDER_RULE = "a placeholder is a name of capital letters, digits and '_' in angle brackets, such as '<POD_IP>'"


@pytest.mark.parametrize("near", ["<POD IP>", "<pod_ip>", "<POD-IP>", "<Pod.Ip>"])
def test_a_near_placeholder_is_refused_with_the_placeholder_it_should_be(tmp_path, near):
    def mutate(data):
        grid(data, 2)["base"][1]["args"]["--data-parallel-address"] = f"--data-parallel-address '{near}'"

    checked = check_mutated(tmp_path, AXK2, mutate)
    checked.expect_only(
        f"{AX_PD}/base/1/args/--data-parallel-address",
        f"{near!r} is not a placeholder: {PLACEHOLDER_RULE}; write '<POD_IP>'",
    )


def test_near_placeholders_in_json_envs_and_router_steps(tmp_path):
    def mutate(data):
        g = grid(data, 2)
        ranks = g["base"][0]["ranks"][0]
        ranks["args"]["--kv-events-config"] = ranks["args"]["--kv-events-config"].replace("<EPP_HOST>", "<epp host>")
        ranks["envs"]["VLLM_NIXL_SIDE_CHANNEL_HOST"] = "VLLM_NIXL_SIDE_CHANNEL_HOST='<POD-IP>'"
        g["router"]["nodes"][1]["cmd"] += " --set host=<epp_host>"

    checked = check_mutated(tmp_path, AXK2, mutate)
    rank = f"{AX_PD}/base/0/ranks/0"
    checked.expect(f"{rank}/args/--kv-events-config", "'<epp host>' is not a placeholder")
    checked.expect(f"{rank}/envs/VLLM_NIXL_SIDE_CHANNEL_HOST", "'<POD-IP>' is not a placeholder")
    checked.expect(
        f"{AX_PD}/router/nodes/1/cmd", f"'<epp_host>' is not a placeholder: {PLACEHOLDER_RULE}; write '<EPP_HOST>'"
    )


def test_a_here_document_is_no_placeholder(tmp_path):
    """`cat <<'EOF'` and `a < b` hold angle brackets but nothing name-like between them."""
    assert check_mutated(tmp_path, AXK2, lambda data: None).problems == []


# -- ports --------------------------------------------------------------------------------------

PORT = "a whole number from 1 to 65535 (or a placeholder such as '<PORT>')"


@pytest.mark.parametrize(
    ("where", "key", "text", "message"),
    [
        ("base/0/ranks/0/args", "--port", "--port 80000", f"--port takes a port, {PORT}; got '80000'"),
        ("base/0/ranks/0/args", "--port", "--port=0", f"--port takes a port, {PORT}; got '0'"),
        (
            "base/1/args",
            "--data-parallel-rpc-port",
            "--data-parallel-rpc-port 65536",
            f"--data-parallel-rpc-port takes a port, {PORT}; got '65536'",
        ),
        (
            "base/0/ranks/0/envs",
            "VLLM_NIXL_SIDE_CHANNEL_PORT",
            "VLLM_NIXL_SIDE_CHANNEL_PORT=99999",
            f"VLLM_NIXL_SIDE_CHANNEL_PORT is a port, {PORT}; got '99999'",
        ),
        (
            "base/0/ranks/0/envs",
            "VLLM_NIXL_SIDE_CHANNEL_PORT",
            "VLLM_NIXL_SIDE_CHANNEL_PORT=auto",
            f"VLLM_NIXL_SIDE_CHANNEL_PORT is a port, {PORT}; got 'auto'",
        ),
    ],
)
def test_a_port_outside_1_to_65535_is_refused(tmp_path, where, key, text, message):
    def mutate(data):
        node = grid(data, 2)
        for part in where.split("/"):
            node = node[int(part)] if part.isdigit() else node[part]
        node[key] = text

    checked = check_mutated(tmp_path, AXK2, mutate)
    checked.expect(f"{AX_PD}/{where}/{key}", message)
    # a server moved off the router's targetPorts is also one the router no longer reaches (rule 19)
    others = [p for p in checked.problems if p.pointer != f"{AX_PD}/{where}/{key}"]
    assert all(p.pointer.endswith("/router/nodes/0/cmd") and "targetPorts" in p.message for p in others), others


def test_ports_inside_json_and_addresses(tmp_path):
    def mutate(data):
        args = grid(data, 2)["base"][0]["ranks"][0]["args"]
        args["--kv-events-config"] = args["--kv-events-config"].replace("<EPP_HOST>:5557", "<EPP_HOST>:70000")

    checked = check_mutated(tmp_path, AXK2, mutate)
    checked.expect_only(
        f"{AX_PD}/base/0/ranks/0/args/--kv-events-config",
        "the address 'tcp://<EPP_HOST>:70000' in --kv-events-config has the port 70000; a port is 1 to 65535",
    )


def test_a_json_port_field_is_a_port(tmp_path):
    def mutate(data):
        args = grid(data, 2)["base"][0]["args"]
        args["--kv-transfer-config"] = args["--kv-transfer-config"].replace(
            '"kv_role": "kv_both",', '"kv_role": "kv_both",\n      "kv_port": 123456,'
        )

    checked = check_mutated(tmp_path, AXK2, mutate)
    checked.expect_only(
        f"{AX_PD}/base/0/args/--kv-transfer-config",
        f"'kv_port' in the JSON of --kv-transfer-config is a port, {PORT}; got 123456",
    )


def test_a_port_problem_does_not_hide_another_problem_of_the_same_value(tmp_path):
    """One problem per cause, not per value: a JSON value with a bad port and a misspelt field
    gets both (the port check and vLLM's vocabulary judge different things)."""

    def mutate(data):
        args = grid(data, 2)["base"][0]["args"]
        args["--kv-transfer-config"] = args["--kv-transfer-config"].replace(
            '"kv_role": "kv_both",', '"kv_role": "kv_both",\n      "kv_port": 0,\n      "kv_rolee": 1,'
        )

    checked = check_mutated(tmp_path, AXK2, mutate)
    pointer = f"{AX_PD}/base/0/args/--kv-transfer-config"
    checked.expect(pointer, f"'kv_port' in the JSON of --kv-transfer-config is a port, {PORT}; got 0")
    checked.expect(pointer, "'kv_rolee'")
    assert len(checked.problems) == 2


def test_a_port_placeholder_and_an_on_off_switch_named_port_are_fine(tmp_path):
    def mutate(data):
        g = grid(data, 2)
        g["base"][0]["ranks"][0]["args"]["--port"] = "--port '<PREFILL_PORT>'"
        g["base"][0]["envs"]["VLLM_RBLN_AUTO_PORT"] = "VLLM_RBLN_AUTO_PORT=0"

    assert check_mutated(tmp_path, AXK2, mutate).problems == []


# -- links and markup in texts (rule 9) ---------------------------------------------------------


@pytest.mark.parametrize(
    ("markup", "message"),
    [
        (
            '<a href="//evil.example/x">x</a>',
            "link '//evil.example/x' has no scheme but a host ('evil.example'): it leaves the site; write "
            "https://evil.example/x for another site, or a path without '//' on this one",
        ),
        (
            '<a href="/\\evil.example">x</a>',
            "link '/\\\\evil.example' holds a backslash (browsers read it as '/'); write the link without it",
        ),
        ('<a href="https:evil.example">x</a>', "link 'https:evil.example' has no host; write https://HOST/PATH"),
        (
            '<a href="&#106;avascript:alert(1)">x</a>',
            "link scheme 'javascript' is not allowed; use http, https or a relative link",
        ),
        ('<a href="data:text/html,x">x</a>', "link scheme 'data' is not allowed; use http, https or a relative link"),
        (
            '<a href="mailto:a@example.com">x</a>',
            "link scheme 'mailto' is not allowed; use http, https or a relative link",
        ),
        (
            "&lt;script&gt;alert(1)&lt;/script&gt;",
            "'<script>' is markup once character references are decoded (as a Markdown view or a feed reads the "
            "text); write it inside <code>, or reword it",
        ),
    ],
)
def test_rule9_decides_on_the_decoded_text_and_links_stay_on_http_or_the_site(tmp_path, markup, message):
    def mutate(data):
        data["text"]["en"]["sub"] += " " + markup

    checked = check_mutated(tmp_path, GPT, mutate)
    checked.expect_only("/text/en/sub", message)


def test_rule9_allows_escaped_text_that_is_no_markup(tmp_path):
    def mutate(data):
        data["text"]["en"]["sub"] += ' 3 &lt; 4, <code>&lt;POD_IP&gt;</code>, <a href="../install.html#gpu">x</a>'

    assert check_mutated(tmp_path, GPT, mutate).problems == []


# -- names that differ only in case -------------------------------------------------------------


def test_two_recipe_names_that_differ_only_in_case_are_both_located(tmp_path, capsys):
    """By validate's main in this process (a real validate exits 1 with located problems in
    test_cli.py's test_strange_files_are_reported_not_raised)."""
    from recipe_support import fixture, in_process, write

    first = fixture(GPT)
    second = fixture(GPT)
    second["name"] = "GPT-OSS-120b"
    path_a, dumped_a = write(tmp_path, first)
    path_b, dumped_b = write(tmp_path, second)
    result = in_process(capsys, "validate", str(path_a), str(path_b))
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    line_a, column_a = dumped_a.values["/name"]
    line_b, column_b = dumped_b.values["/name"]
    tail = (
        "only in case; recipe names must differ in more than case (their pages, API files and ready-to-run files "
        "would be one on a file system or web server that ignores case)"
    )
    assert result.stderr.splitlines() == [
        f"{path_b}:{line_b}:{column_b}: /name: recipe name 'GPT-OSS-120b' differs from 'gpt-oss-120b' ({path_a}) {tail}",
        f"{path_a}:{line_a}:{column_a}: /name: recipe name 'gpt-oss-120b' differs from 'GPT-OSS-120b' ({path_b}) {tail}",
        "2 problem(s) in 2 of 2 recipe file(s)",
    ]


# -- in a build -----------------------------------------------------------------------------------


@pytest.mark.slow
def test_a_build_with_a_hostile_recipe_reports_every_problem_at_its_place(tmp_path):
    """The site's build (warnings are errors) names each problem as validate does, at FILE:LINE:COL."""
    import copy

    from conftest import build_site
    from recipe_support import fixture, write
    from recipebook import check_file
    from recipebook.checking import safety
    from third_recipe import copy_project

    project = copy_project(tmp_path / "project")
    data = fixture(GPT)
    args = grid(data)["base"][0]["args"]
    args["--max-num-seqs"] = "\u2014max-num-seqs 8"
    args["--port"] = "--port 80000"
    data["text"]["ko"]["sub"] = "\u200b" + data["text"]["ko"]["sub"]
    data["text"]["en"]["sub"] += ' <a href="//evil.example/x">more</a>'
    data["text"]["en"]["tag"] += " &lt;script&gt;alert(1)&lt;/script&gt;"
    grid(data)["base"][0]["envs"]["VLLM_HOST_IP"] = "VLLM_HOST_IP='<POD IP>'"
    twin = copy.deepcopy(fixture(GPT))
    twin["name"] = "GPT-OSS-120b"
    write(project / "recipes", data)
    write(project / "recipes", twin)

    recipes = sorted((project / "recipes").glob("*.json"))
    expected = [p for path in recipes if path.name != "schema.json" for p in check_file(path)[1]]
    expected += safety.names_differ_in_more_than_case(p for p in recipes if p.name != "schema.json")
    assert len(expected) == 8, "\n".join(map(str, expected))

    result = build_site(tmp_path / "out", "en", project=project)
    assert result.returncode != 0
    assert "Traceback" not in result.stderr
    for problem in expected:
        relative = Path(problem.file).relative_to(project)
        line = f"{relative}:{problem.line}:{problem.column}: WARNING: {problem.pointer}: {problem.message}"
        assert line in result.stderr, f"{line}\nnot in:\n{result.stderr}"
