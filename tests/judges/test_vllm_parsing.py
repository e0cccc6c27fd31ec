"""Commands judged as vLLM parses them (issue 26.3): spellings vLLM accepts are never "not a flag",
dotted JSON fields are judged field by field, JSON bodies hold prose, --omni is recognised, one option
under two names is refused, and the real problems (removed flags, examples/ chat templates, misspelt
flags, unknown fields and env names) stay refused with their cause.

Every recipe here is the fixture tests/roots/test-vllm-parsing/parsing-fixture.json, changed by the test.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import recipebook
from recipebook import shell
from recipebook.problems import Level, Problem
from recipebook.reading import vocabulary

FIXTURE = Path(__file__).resolve().parents[1] / "roots" / "test-vllm-parsing" / "parsing-fixture.json"
GRID = "/strategies/0/options/0/grid"
BASE = f"{GRID}/base/0/args"
EAGLE = f"{GRID}/deltas/spec_decode=eagle3/main/add_args"


class Changed:
    """The fixture, changed, written to tmp_path and checked by the engine."""

    def __init__(self, tmp_path: Path, mutate: Callable[[Any], object]) -> None:
        data = copy.deepcopy(json.loads(FIXTURE.read_text(encoding="utf-8")))
        data["$schema"] = str(FIXTURE.parents[2].parent / "recipes" / "schema.json")
        mutate(data)
        self.path = tmp_path / FIXTURE.name
        self.text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
        self.path.write_text(self.text, encoding="utf-8")
        self.recipe, self.problems = recipebook.check_file(self.path)

    def listing(self) -> str:
        return "\n".join(map(str, self.problems)) or "(no problems)"

    def at(self, pointer: str) -> list[Problem]:
        return [p for p in self.problems if p.pointer == pointer]

    def position(self, needle: str) -> tuple[int, int]:
        assert self.text.count(needle) == 1, f"{needle!r} is not unique"
        offset = self.text.index(needle)
        return self.text.count("\n", 0, offset) + 1, offset - (self.text.rfind("\n", 0, offset) + 1) + 1

    def one(self, pointer: str, fragment: str, *, key: str | None = None) -> Problem:
        """The only problem of the recipe, at a pointer, holding a fragment; located at the key when given."""
        assert len(self.problems) == 1, self.listing()
        problem = self.problems[0]
        assert problem.pointer == pointer and fragment in problem.message, self.listing()
        if key is not None:
            assert (problem.line, problem.column) == self.position(json.dumps(key, ensure_ascii=False) + ":")
        return problem

    def valid(self) -> None:
        assert self.problems == [], self.listing()
        assert self.recipe is not None


def base_args(data: Any) -> dict[str, str]:
    return data["strategies"][0]["options"][0]["grid"]["base"][0]["args"]


def eagle(data: Any) -> dict[str, Any]:
    return data["strategies"][0]["options"][0]["grid"]["deltas"]["spec_decode=eagle3"]["main"]


def with_args(**texts: str) -> Callable[[Any], None]:
    """Add args to the base command; keyword names stand for their keys (the first word of the text)."""

    def mutate(data: Any) -> None:
        for text in texts.values():
            key = shell.words(text)[0].split("=")[0]
            base_args(data)[key] = text

    return mutate


def test_the_fixture_is_valid(tmp_path: Path) -> None:
    Changed(tmp_path, lambda data: None).valid()


# --------------------------------------------------------------------------- spellings vLLM accepts


def test_an_underscore_spelling_is_a_style_problem_not_an_unknown_flag(tmp_path: Path) -> None:
    changed = Changed(tmp_path, with_args(a="--tokenizer_mode mistral"))
    problem = changed.one(f"{BASE}/--tokenizer_mode", "write '--tokenizer-mode'", key="--tokenizer_mode")
    assert "not a flag" not in problem.message
    assert "vLLM reads '--tokenizer_mode' as --tokenizer-mode" in problem.message
    # a warning: vLLM runs the command as shown, so the recipe is built (issue 39.2)
    assert problem.level is Level.WARNING and changed.recipe is not None
    assert str(problem).endswith(f"{BASE}/--tokenizer_mode: warning: {problem.message}")


def test_an_underscore_spelling_still_has_its_value_checked(tmp_path: Path) -> None:
    changed = Changed(tmp_path, with_args(a="--max_num_seqs eight"))
    found = changed.at(f"{BASE}/--max_num_seqs")
    assert any(p.message.startswith("write '--max-num-seqs'") and not p.is_error for p in found), changed.listing()
    assert any("takes an integer" in p.message and p.is_error for p in found), changed.listing()
    assert changed.recipe is None  # the value is an error: the recipe is not built


def test_an_abbreviation_argparse_expands_is_a_style_problem(tmp_path: Path) -> None:
    changed = Changed(tmp_path, lambda data: base_args(data).update({"--gpu-memory-util": "--gpu-memory-util 0.8"}))
    problem = changed.one(f"{BASE}/--gpu-memory-util", "write '--gpu-memory-utilization'", key="--gpu-memory-util")
    assert "not a flag" not in problem.message
    assert problem.level is Level.WARNING and changed.recipe is not None


def test_an_ambiguous_start_of_a_name_is_refused_as_vllm_refuses_it(tmp_path: Path) -> None:
    changed = Changed(tmp_path, lambda data: base_args(data).update({"--max-num": "--max-num 4"}))
    problem = changed.one(f"{BASE}/--max-num", "the start of several flags", key="--max-num")
    assert "--max-num-seqs" in problem.message and "--max-num-batched-tokens" in problem.message


@pytest.mark.parametrize("key,text", [("-O3", "-O3"), ("-O", "-O 2"), ("-O", "-O=1")])
def test_optimization_levels_as_vllm_converts_them(tmp_path: Path, key: str, text: str) -> None:
    Changed(tmp_path, lambda data: base_args(data).update({key: text})).valid()


def test_a_case_vllm_does_not_fold_stays_unknown(tmp_path: Path) -> None:
    changed = Changed(tmp_path, with_args(a="--Tokenizer-Mode mistral"))
    changed.one(f"{BASE}/--Tokenizer-Mode", "is not a flag of vllm serve")


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(sorted(vocabulary.pinned().flags)), st.data())
def test_any_underscore_spelling_reads_as_its_flag(flag: str, data: st.DataObject) -> None:
    """vLLM turns every '_' of a flag's name into '-': any mix of them names the same flag."""
    name = flag[2:]
    positions = [i for i, ch in enumerate(name) if ch == "-"]
    chosen = data.draw(st.sets(st.sampled_from(positions)) if positions else st.just(set()))
    key = "--" + "".join("_" if i in chosen else ch for i, ch in enumerate(name))
    reading = vocabulary.pinned().reading(key)
    assert reading.flag == flag
    assert reading.how == ("underscore" if chosen else "exact")
    assert vocabulary.pinned().unknown_flag(key) is None


# --------------------------------------------------------------------------- dotted JSON fields


@pytest.mark.parametrize(
    "text",
    [
        "--attention-config.backend FLASHINFER",
        "-ac.backend FLASH_ATTN",
        "-cc.pass_config.fuse_allreduce_rms true",
        "-cc.use_inductor_graph_partition true",
        "--limit-mm-per-prompt.video 0",
        "--kernel-config.enable_flashinfer_autotune false",
    ],
)
def test_dotted_fields_vllm_accepts_pass(tmp_path: Path, text: str) -> None:
    Changed(tmp_path, with_args(a=text)).valid()


def test_a_dotted_field_under_an_underscore_flag_name_is_judged_as_a_field(tmp_path: Path) -> None:
    changed = Changed(tmp_path, with_args(a="--compilation_config.pass_config.fuse_allreduce_rms true"))
    problem = changed.one(
        f"{BASE}/--compilation_config.pass_config.fuse_allreduce_rms",
        "write '--compilation-config.pass_config.fuse_allreduce_rms'",
    )
    assert "not a flag" not in problem.message


def test_an_unknown_dotted_field_is_not_a_field_of_its_config(tmp_path: Path) -> None:
    changed = Changed(tmp_path, with_args(a="--attention-config.use_fp4_indexer_cache true"))
    problem = changed.one(
        f"{BASE}/--attention-config.use_fp4_indexer_cache",
        "'use_fp4_indexer_cache' is not a field of --attention-config (AttentionConfig)",
        key="--attention-config.use_fp4_indexer_cache",
    )
    assert "not a flag" not in problem.message


def test_a_dashed_field_name_is_not_a_field(tmp_path: Path) -> None:
    """vLLM keeps a field's name as written after the '.': pydantic refuses 'enable-flashinfer-autotune'."""
    changed = Changed(tmp_path, with_args(a="--kernel-config.enable-flashinfer-autotune false"))
    changed.one(
        f"{BASE}/--kernel-config.enable-flashinfer-autotune",
        "did you mean 'enable_flashinfer_autotune'?",
    )


def _dotted_eagle(data: Any) -> None:
    """The EAGLE-3 delta with its fields dotted: --speculative-config.method eagle3 ..."""
    eagle(data)["add_args"] = {
        "--speculative-config.method": "--speculative-config.method eagle3",
        "--speculative-config.model": "--speculative-config.model RedHatAI/gpt-oss-120b-speculator.eagle3",
    }


def test_dotted_fields_in_the_base_and_a_delta_merge(tmp_path: Path) -> None:
    def mutate(data: Any) -> None:
        _dotted_eagle(data)
        base_args(data)["--speculative-config.num_speculative_tokens"] = "--speculative-config.num_speculative_tokens=3"

    Changed(tmp_path, mutate).valid()


def test_a_dotted_field_value_is_read_as_vllm_reads_it(tmp_path: Path) -> None:
    def mutate(data: Any) -> None:
        _dotted_eagle(data)
        eagle(data)["add_args"]["--speculative-config.num_speculative_tokens"] = (
            "--speculative-config.num_speculative_tokens three"
        )

    changed = Changed(tmp_path, mutate)
    changed.one(f"{EAGLE}/--speculative-config.num_speculative_tokens", "takes an integer")


# --------------------------------------------------------------------------- prose inside JSON bodies


def _client(body: str) -> Callable[[Any], None]:
    def mutate(data: Any) -> None:
        data["client"] = (
            'curl http://localhost:8000/v1/chat/completions \\\n    -H "Content-Type: application/json" \\\n'
            f"    -d '{body}'"
        )

    return mutate


def test_a_prompt_in_a_json_body_is_prose(tmp_path: Path) -> None:
    body = '{"model": "m", "messages": [{"role": "user", "content": "你好，请介绍一下你自己。“谢谢”"}]}'
    Changed(tmp_path, _client(body)).valid()


def test_a_look_alike_outside_the_strings_of_a_json_body_still_counts(tmp_path: Path) -> None:
    changed = Changed(tmp_path, _client('{"model": "m"，"max_tokens": 8}'))
    changed.one("/client", "U+FF0C FULLWIDTH COMMA")


def test_a_look_alike_in_a_json_key_still_counts(tmp_path: Path) -> None:
    changed = Changed(tmp_path, _client('{"max＿tokens": 8}'))
    changed.one("/client", "U+FF3F FULLWIDTH LOW LINE")


def test_an_invisible_character_in_a_prompt_still_counts(tmp_path: Path) -> None:
    changed = Changed(tmp_path, _client('{"messages": [{"role": "user", "content": "hi\u200bthere"}]}'))
    changed.one("/client", "U+200B ZERO WIDTH SPACE")


def test_a_look_alike_in_a_plain_argument_still_counts(tmp_path: Path) -> None:
    changed = Changed(tmp_path, with_args(a="--served-model-name a，b"))
    changed.one(f"{BASE}/--served-model-name", "U+FF0C FULLWIDTH COMMA")


def test_json_prose_spans_are_string_values_only() -> None:
    text = """-d '{"k": "v，w", "list": ["x", 1], "n": {"m": "z"}}' "{\\"q\\": \\"r\\"}" """
    assert [text[a:b] for a, b in shell.json_prose_spans(text)] == ["v，w", "x", "z"]


# --------------------------------------------------------------------------- another entry point


def test_omni_is_recognised_and_its_flags_are_not_vllm_serve_s(tmp_path: Path) -> None:
    def mutate(data: Any) -> None:
        base_args(data).update({"--omni": "--omni", "--stage-configs-path": "--stage-configs-path stages.yaml"})

    changed = Changed(tmp_path, mutate)
    problem = changed.one(f"{BASE}/--omni", "hands the command to vLLM-Omni", key="--omni")
    assert "not a flag" not in problem.message
    assert "vllm_omni" in problem.message
    # without vLLM-Omni in the install line the command stops at once: an error
    assert problem.is_error and "the install line installs no vllm-omni" in problem.message
    assert changed.recipe is None


@pytest.mark.parametrize(
    "install",
    [
        "uv venv && source .venv/bin/activate && uv pip install git+https://github.com/vllm-project/vllm-omni.git",
        "git clone https://github.com/vllm-project/vllm-omni.git && cd vllm-omni && uv pip install -e .",
        "uv pip install vllm-omni",
    ],
)
def test_omni_with_vllm_omni_installed_is_accepted_and_its_flags_not_judged(tmp_path: Path, install: str) -> None:
    def mutate(data: Any) -> None:
        data["installLine"] = install
        base_args(data).update({"--omni": "--omni", "--stage-configs-path": "--stage-configs-path stages.yaml"})
        envs = data["strategies"][0]["options"][0]["grid"]["base"][0]["envs"]
        envs["VLLM_OMNI_TARGET_DEVICE"] = "VLLM_OMNI_TARGET_DEVICE=rocm"  # vLLM-Omni's own setting

    changed = Changed(tmp_path, mutate)
    changed.valid()


def test_a_vllm_omni_name_outside_an_omni_command_is_still_judged(tmp_path: Path) -> None:
    def mutate(data: Any) -> None:
        data["strategies"][0]["options"][0]["grid"]["base"][0]["envs"]["VLLM_OMNI_TARGET_DEVICE"] = (
            "VLLM_OMNI_TARGET_DEVICE=rocm"
        )

    changed = Changed(tmp_path, mutate)
    changed.one(f"{GRID}/base/0/envs/VLLM_OMNI_TARGET_DEVICE", "is not an environment variable", key=None)


# --------------------------------------------------------------------------- one option, two names


def test_one_option_under_two_names_is_refused(tmp_path: Path) -> None:
    changed = Changed(tmp_path, with_args(a="--tensor-parallel-size 4", b="-tp 1"))
    problem = changed.one(f"{BASE}/-tp", "sets --tensor-parallel-size again", key="-tp")
    assert "keeps only the value it reads last" in problem.message


def test_one_option_under_two_names_across_a_delta_is_refused(tmp_path: Path) -> None:
    def mutate(data: Any) -> None:
        base_args(data)["--tensor-parallel-size"] = "--tensor-parallel-size 4"
        eagle(data)["add_args"]["-tp"] = "-tp 2"

    Changed(tmp_path, mutate).one(f"{EAGLE}/-tp", "already gives it as '--tensor-parallel-size'")


def test_a_flag_and_its_negation_together_are_refused(tmp_path: Path) -> None:
    changed = Changed(tmp_path, with_args(a="--enable-prefix-caching", b="--no-enable-prefix-caching"))
    changed.one(f"{BASE}/--no-enable-prefix-caching", "sets --enable-prefix-caching again")


def test_dotted_fields_beside_the_whole_json_are_refused(tmp_path: Path) -> None:
    def mutate(data: Any) -> None:
        eagle(data)["add_args"]["--speculative-config.model"] = "--speculative-config.model other/draft"

    changed = Changed(tmp_path, mutate)
    problem = changed.one(f"{EAGLE}/--speculative-config.model", "replaces the whole --speculative-config value")
    assert "other fields are lost" in problem.message


# --------------------------------------------------------------------------- chat templates


def test_a_chat_template_of_vllm_s_source_checkout_is_refused(tmp_path: Path) -> None:
    changed = Changed(tmp_path, with_args(a="--chat-template examples/tool_chat_template_gemma4.jinja"))
    problem = changed.one(f"{BASE}/--chat-template", "a file of vLLM's source checkout")
    assert "does not install" in problem.message and "absolute path" in problem.message


@pytest.mark.parametrize(
    "value",
    ["/opt/templates/tool_chat_template_gemma4.jinja", "template_chatml.jinja", "'<TEMPLATE>'"],
)
def test_chat_templates_vllm_finds_pass(tmp_path: Path, value: str) -> None:
    Changed(tmp_path, with_args(a=f"--chat-template {value}")).valid()


# --------------------------------------------------------------------------- what stays refused


def test_a_removed_flag_is_named_as_removed_without_a_suggestion_of_another_meaning(tmp_path: Path) -> None:
    changed = Changed(tmp_path, with_args(a="--device cuda"))
    problem = changed.one(f"{BASE}/--device", "vLLM 0.10.0 removed it", key="--device")
    assert "did you mean" not in problem.message
    assert "a flag of another meaning" in problem.message  # argparse would read it as --device-ids


@pytest.mark.parametrize("flag", ["--disable-log-requests", "--swap-space 4"])
def test_other_removed_flags_say_what_to_do(tmp_path: Path, flag: str) -> None:
    key = flag.split()[0]
    changed = Changed(tmp_path, with_args(a=flag))
    problem = changed.one(f"{BASE}/{key}", "removed it")
    assert "remove the flag" in problem.message


def test_a_misspelt_plugin_flag_is_not_a_flag_with_its_fix(tmp_path: Path) -> None:
    changed = Changed(tmp_path, with_args(a="--tool-parser-plugn /opt/parsers/mine.py"))
    changed.one(f"{BASE}/--tool-parser-plugn", "did you mean '--tool-parser-plugin'?")


def test_an_env_name_vllm_never_reads_is_reported_as_vllm_warns_of_it(tmp_path: Path) -> None:
    def mutate(data: Any) -> None:
        data["strategies"][0]["options"][0]["grid"]["base"][0]["envs"]["VLLM_USE_V1"] = "VLLM_USE_V1=1"

    changed = Changed(tmp_path, mutate)
    problem = changed.one(f"{GRID}/base/0/envs/VLLM_USE_V1", "is not an environment variable")
    assert not problem.is_error and "the variable has no effect" in problem.message


@settings(max_examples=80, deadline=None)
@given(st.sampled_from(sorted(vocabulary.pinned().long_options)), st.integers(min_value=3, max_value=12))
def test_a_suggestion_never_merely_extends_the_word(flag: str, cut: int) -> None:
    """A "did you mean" never leads from a word to a longer name that merely starts with it."""
    word = flag[: max(3, len(flag) - cut)] + "q"
    message = vocabulary.pinned().unknown_flag(word)
    if message and "did you mean" in message:
        suggestion = message.rsplit("did you mean ", 1)[1].strip("'?")
        assert not suggestion.startswith(word)


# --------------------------------------------------------------------------- make crosscheck asks the parser


def _crosscheck_spellings():
    import importlib
    import sys

    root = str(Path(__file__).resolve().parents[2])
    if root not in sys.path:
        sys.path.insert(0, root)
    return importlib.import_module("tools.crosscheck.spellings")


def test_crosscheck_asks_every_kind_of_spelling() -> None:
    probes = _crosscheck_spellings().probes()
    known = vocabulary.pinned()
    kinds = {known.reading(key).how for key in probes}
    assert {"underscore", "alias", "abbreviation", "ambiguous", "unknown"} <= kinds
    assert set(known.removed) <= set(probes)
    assert any(known.reading(key).field for key in probes)


def test_crosscheck_reports_where_the_engine_and_the_parser_disagree() -> None:
    spellings = _crosscheck_spellings()
    agree = {
        "--tokenizer_mode": {"option": "--tokenizer-mode", "error": None},
        "-ac.backend": {"option": "-ac", "error": None},
        "--max-num": {"option": None, "error": "ambiguous option"},
        "--device": {"option": "--device-ids", "error": None},  # removed: the engine refuses it, as it must
    }
    assert list(spellings.differences(agree)) == []
    disagree = {
        "--tokenizer_mode": {"option": None, "error": "unrecognized arguments"},
        "--Tokenizer-Mode": {"option": "--tokenizer-mode", "error": None},
    }
    found = list(spellings.differences(disagree))
    assert len(found) == 2 and found[0].startswith("--Tokenizer-Mode: the engine refuses it")
