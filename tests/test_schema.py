"""recipes/schema.json: a valid 2020-12 schema, documented everywhere, strict about keys."""

from __future__ import annotations

import json

import jsonschema
import pytest

from recipe_support import AXK2_NAME, GPT_NAME, NAMES, RECIPES, check_mutated, shipped
from recipebook import problems
from recipebook.checking import schema
from recipebook.reading import source

SCHEMA = json.loads((RECIPES / "schema.json").read_text(encoding="utf-8"))


def test_schema_is_a_valid_draft_2020_12_schema():
    assert SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    assert jsonschema.validators.validator_for(SCHEMA) is jsonschema.Draft202012Validator
    assert schema.load_schema() == SCHEMA


@pytest.mark.parametrize("name", NAMES)
def test_shipped_recipes_validate(name):
    jsonschema.Draft202012Validator(SCHEMA).validate(shipped(name))
    document, problems = source.read(RECIPES / f"{name}.json")
    assert problems == []
    assert schema.check(document) == []


def _resolve(reference: str) -> dict:
    assert reference.startswith("#/"), reference
    node = SCHEMA
    for token in reference[2:].split("/"):
        node = node[token.replace("~1", "/").replace("~0", "~")]
    return node


def _properties(node, where="#"):
    """Every (place, name, subschema) of every "properties" object anywhere in the schema."""
    if isinstance(node, dict):
        for name, sub in node.get("properties", {}).items():
            yield f"{where}/properties/{name}", name, sub
        for key, value in node.items():
            yield from _properties(value, f"{where}/{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _properties(value, f"{where}/{i}")


def test_every_property_has_a_description():
    found = list(_properties(SCHEMA))
    assert len(found) > 60  # the walk reaches into $defs, items, anyOf
    missing = []
    for place, _, sub in found:
        described = "description" in sub or ("$ref" in sub and "description" in _resolve(sub["$ref"]))
        if not described:
            missing.append(place)
    assert missing == []


def test_every_ref_resolves():
    def refs(node):
        if isinstance(node, dict):
            if "$ref" in node:
                yield node["$ref"]
            for value in node.values():
                yield from refs(value)
        elif isinstance(node, list):
            for value in node:
                yield from refs(value)

    for reference in refs(SCHEMA):
        assert isinstance(_resolve(reference), dict)


# An unknown key anywhere is an error at that key's line and column.
AXK2_PD = "/strategies/2/options/0/grid"
UNKNOWN_KEY_PLACES = [
    (GPT_NAME, "", "$schema, attn, axes, badges"),
    (GPT_NAME, "/features", "api, mm, text"),
    (GPT_NAME, "/badges/3", "hl, text"),
    (GPT_NAME, "/axes/2", "axis, options, title"),
    (GPT_NAME, "/axes/2/options/1", "label, value"),
    (GPT_NAME, "/text", "en, ko"),
    (GPT_NAME, "/text/ko", "strategyNote, sub, tag"),
    (GPT_NAME, "/strategies/0", "label, nodes, options, slug, tag, variant"),
    (GPT_NAME, "/strategies/0/options/1", "attn, features, grid, label"),
    (GPT_NAME, "/strategies/0/options/1/features", "api, mm, text"),
    (
        GPT_NAME,
        "/strategies/0/options/1/grid",
        "add_deltas, add_excluded, add_router_steps, base, change_base, del_deltas",
    ),
    (GPT_NAME, "/strategies/0/options/1/grid/base/0", "args, envs, launcher, nodes, ranks, role, scale, varies"),
    (GPT_NAME, "/strategies/0/options/1/grid/deltas/tool_calling=off/main", "add_args, add_envs, del_args, del_envs"),
    (AXK2_NAME, f"{AXK2_PD}/base/1", "args, envs, launcher"),
    (AXK2_NAME, f"{AXK2_PD}/base/1/ranks/3", "args, envs"),
    (AXK2_NAME, f"{AXK2_PD}/router", "nodes, note, role"),
    (AXK2_NAME, f"{AXK2_PD}/router/nodes/1", "cmd, node"),
    (AXK2_NAME, f"{AXK2_PD}/deltas/lmcache=rds/decode", "add_args"),
]


def _container(data, pointer: str):
    node = data
    for token in pointer.split("/")[1:]:
        node = node[int(token)] if isinstance(node, list) else node[token]
    return node


@pytest.mark.parametrize(
    ("name", "where", "allowed"), UNKNOWN_KEY_PLACES, ids=[p[1] or "root" for p in UNKNOWN_KEY_PLACES]
)
def test_unknown_key_is_reported_at_the_key(tmp_path, name, where, allowed):
    checked = check_mutated(tmp_path, name, lambda data: _container(data, where).__setitem__("colour", "blue"))
    problem = checked.expect_only(f"{where}/colour", "unknown key 'colour'", key=True)
    assert f"allowed here: {allowed}" in problem.message
    line, column = checked.position(f"{where}/colour", key=True)
    assert checked.dumped.text.splitlines()[line - 1][column - 1 :].startswith('"colour": "blue"')


def test_several_unknown_keys_are_each_reported(tmp_path):
    def mutate(data):
        data["strategies"][0]["options"][0]["grid"]["base"][0].update(gpu=1, cpu=2)
        data["extra"] = True

    checked = check_mutated(tmp_path, GPT_NAME, mutate)
    role = "/strategies/0/options/0/grid/base/0"
    expected = [
        checked.expect(f"{role}/gpu", "unknown key 'gpu'", key=True),
        checked.expect(f"{role}/cpu", "unknown key 'cpu'", key=True),
        checked.expect("/extra", "unknown key 'extra'", key=True),
    ]
    assert checked.ours == sorted(expected)


def test_dollar_schema_key_is_allowed_at_the_root_only(tmp_path):
    def mutate(data):
        items = list(data.items())
        data.clear()
        data.update([("$schema", "./schema.json"), *items])

    assert check_mutated(tmp_path, GPT_NAME, mutate).problems == []
    checked = check_mutated(tmp_path, GPT_NAME, lambda data: data["strategies"][0].update({"$schema": "x"}))
    checked.expect_only("/strategies/0/$schema", "unknown key '$schema'", key=True)


@pytest.mark.parametrize(
    ("where", "value", "fragment"),
    [
        ("/strategies/0/options/0/npus", "1", "must be of type 'integer'"),
        ("/strategies/0/nodes", 2, "must be of type 'string' or 'null'"),
        ("/badges/0", 5, "must be of type 'string' or 'object'"),
        ("/strategies/0/options/0/grid/recommended", "rds", "must be of type 'null' or 'object'"),
        ("/strategies/0/options/0/grid/router", [], "must be of type 'null' or 'object'"),
        ("/strategies/0/options/0/grid/base/0/ranks", {}, "must be of type 'null' or 'array'"),
        ("/strategies/0/options/0/skus", ["RBLN-CR13", "RBLN-CR13"], "has repeated items"),
        ("/strategies/0/options/0/skus/0", "rbln-cr13", "does not match the pattern ^RBLN-[A-Z0-9]+$"),
        ("/hf", "https://example.com/openai", "does not match the pattern"),
        ("/strategies/0/options/0/grid/model", "gpt-oss-120b", "is not a Hugging Face model id"),
    ],
)
def test_schema_messages_are_short_and_located(tmp_path, where, value, fragment):
    def mutate(data):
        parent, _, last = where.rpartition("/")
        container = _container(data, parent)
        container[int(last) if isinstance(container, list) else last] = value

    checked = check_mutated(tmp_path, GPT_NAME, mutate)
    problem = checked.expect(where, fragment)
    assert len(problem.message) < 120
    assert checked.ours == [problem]


def test_inside_an_alternative_the_fitting_one_is_reported(tmp_path):
    # ranks is null or a list of objects: an object in the list is checked as a rank
    def mutate(data):
        rank = data["strategies"][2]["options"][0]["grid"]["base"][0]["ranks"][0]
        rank["envs"]["BAD NAME"] = "BAD NAME=1"

    checked = check_mutated(tmp_path, AXK2_NAME, mutate)
    rank = f"{AXK2_PD}/base/0/ranks/0"
    envs = checked.expect(f"{rank}/envs/BAD NAME", "key 'BAD NAME' does not match the pattern", key=True)
    assert checked.ours == [envs]


def test_key_patterns_point_at_the_key(tmp_path):
    def mutate(data):
        g = data["strategies"][0]["options"][0]["grid"]
        g["base"][0]["args"]["max-model-len"] = g["base"][0]["args"].pop("--max-model-len")
        g["modes"]["Spec-Decode"] = g["modes"].pop("spec_decode")

    checked = check_mutated(tmp_path, GPT_NAME, mutate)
    g = "/strategies/0/options/0/grid"
    checked.expect(f"{g}/base/0/args/max-model-len", "key 'max-model-len' does not match the pattern", key=True)
    checked.expect(f"{g}/modes/Spec-Decode", "key 'Spec-Decode' does not match the pattern", key=True)
    assert len(checked.problems) == 2


@pytest.mark.parametrize("missing", ["grid", "verified", "npus"])
def test_required_keys(tmp_path, missing):
    checked = check_mutated(tmp_path, GPT_NAME, lambda data: data["strategies"][0]["options"][1].pop(missing))
    checked.expect_only("/strategies/0/options/1", f"'{missing}' is required")


def _patterns(node) -> set[str]:
    if isinstance(node, dict):
        found = {node["pattern"]} if isinstance(node.get("pattern"), str) else set()
        return found.union(*(_patterns(v) for v in node.values()))
    if isinstance(node, list):
        return set().union(*(_patterns(v) for v in node))
    return set()


def _strings(node) -> set[str]:
    """Every string value and key of a document."""
    if isinstance(node, dict):
        return set(node).union(*(_strings(v) for v in node.values()))
    if isinstance(node, list):
        return set().union(*(_strings(v) for v in node))
    return {node} if isinstance(node, str) else set()


def test_a_pattern_rejects_a_final_newline_in_both_validators():
    # JSON Schema patterns are ECMA-262: "$" is the end of the string; Python's "$" also
    # matches before a final newline, which the full validator must not accept either
    import jsonschema_rs

    strings = set().union(*(_strings(shipped(name)) for name in NAMES))
    rejected = 0
    for pattern in sorted(_patterns(schema.load_schema())):
        full = schema._Draft({"type": "string", "pattern": pattern})
        fast = jsonschema_rs.Draft202012Validator({"type": "string", "pattern": pattern})
        for text in (s for s in strings if full.is_valid(s)):
            assert fast.is_valid(text), (pattern, text)
            # the two agree on the text with a final newline ([^=]+ may take one; [a-z]+ may not)
            assert full.is_valid(text + "\n") == fast.is_valid(text + "\n"), (pattern, text)
            rejected += not full.is_valid(text + "\n")
    assert rejected > 0


def test_a_name_with_a_final_newline_is_reported(tmp_path):
    checked = check_mutated(tmp_path, GPT_NAME, lambda data: data.update(name=data["name"] + "\n"))
    # the character check names the cause, in place of the schema's "does not match the pattern"
    checked.expect_only("/name", "the value ends with U+000A LINE FEED; remove it")
    document, _ = source.read(checked.path)
    assert [p.message for p in schema.check(document)] == [
        '"gpt-oss-120b\\n" does not match the pattern ^[A-Za-z0-9][A-Za-z0-9._-]*$'
    ]


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [("^a$", r"^a\Z"), ("^[$]$", r"^[$]\Z"), (r"^\$x$", r"^\$x\Z")],
)
def test_ecma_pattern_ends_only_a_bare_dollar(pattern, expected):
    assert schema.ecma_pattern(pattern) == expected


@pytest.mark.parametrize(
    ("pointer", "limit"),
    [("/text/en/sub", 500), ("/text/ko/strategyNote", 4000), ("/provider", 200), ("/client", 10000)],
)
def test_a_multi_megabyte_string_is_refused_by_its_length_alone(tmp_path, monkeypatch, pointer, limit):
    """Every string has a maxLength: a 3 MB text is refused by the schema at its place, by its
    length (the message does not repeat it), and never reaches the rules or the markup parser."""
    from recipebook.checking import inline, rules

    def never(*args, **kwargs):
        raise AssertionError("an oversized recipe reached the rules")

    monkeypatch.setattr(rules, "check", never)
    monkeypatch.setattr(inline, "parse", never)
    huge = "Served on RBLN <strong>NPUs</strong>. " * 75_000

    def mutate(data):
        node = data
        *parents, last = pointer.strip("/").split("/")
        for part in parents:
            node = node[part]
        node[last] = huge

    checked = check_mutated(tmp_path, GPT_NAME, mutate)
    checked.expect_only(pointer, f"is {len(huge):,} characters long; the limit here is {limit:,}")


def test_every_string_of_the_schema_has_a_length_limit():
    """Strings that only a pattern of fixed length bounds (a date) need none."""

    def strings(node, path=""):
        if isinstance(node, dict):
            types = node.get("type")
            if types == "string" or (isinstance(types, list) and "string" in types):
                yield path, node
            for key, child in node.items():
                yield from strings(child, f"{path}/{key}")
        elif isinstance(node, list):
            for i, child in enumerate(node):
                yield from strings(child, f"{path}/{i}")

    unbounded = [path for path, node in strings(schema.load_schema()) if "maxLength" not in node]
    assert unbounded == ["/$defs/target/properties/verified"]


def test_a_long_value_in_a_message_is_shortened():
    assert problems.excerpt("x" * 100) == repr("x" * 60) + "… (100 characters)"
    assert problems.excerpt("short") == "'short'"


def test_a_long_wrong_value_is_shortened_in_every_message(tmp_path):
    """The vocabulary's and the value types' messages show a long value by its start and its
    length too: a message stays one readable line (the schema's limits allow 20,000 characters)."""
    long = "8" * 19_000

    def mutate(data):
        grid = data["strategies"][0]["options"][0]["grid"]
        grid["base"][0]["args"]["--max-num-seqs"] = f"--max-num-seqs x{long}"
        grid["base"][0]["envs"]["VLLM_ENGINE_READY_TIMEOUT_S"] = f"VLLM_ENGINE_READY_TIMEOUT_S=x{long}"

    checked = check_mutated(tmp_path, GPT_NAME, mutate)
    assert len(checked.problems) == 2, checked.problems
    for problem in checked.problems:
        assert "(19,001 characters)" in problem.message and len(problem.message) < 300, problem.message
