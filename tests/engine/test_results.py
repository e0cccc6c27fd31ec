"""Measured results (issue 40, item 2): `recipebook results add` reads what the pinned vLLM's
`vllm bench serve --save-result` writes (a real file in tests/data/results, written by the
crosscheck venv's vLLM: see its README), refuses a file whose counts do not add up, that
names another model, a selection the recipe does not offer or commands it no longer has, or
that is not a result at all, each at its line and column, and stores the accepted ones with
their provenance."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_cli import LOCATED, no_traceback, run

import recipebook
from recipe_support import FIXTURES, in_process
from recipebook.expanding import client, page, results

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "results"
(REAL,) = sorted(DATA.glob("openai-chat-*.json"))


def real() -> dict:
    """The real result, its commands hash refreshed to the selection's commands now (the recipe may
    have changed since the file was written; everything else is as vLLM wrote it)."""
    data = json.loads(REAL.read_text(encoding="utf-8"))
    recipe = recipebook.load(FIXTURES / f"{data['recipe']}.json")
    target = page.page_of(recipe).target(data["strategy"], data["target"])
    chosen = target.index(results.parse_selection(data["selection"]))
    data["commands"] = client.commands_hash(target.commands_at(chosen))
    return data


def write(tmp_path: Path, data, name: str = "result.json") -> Path:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data, indent=1), encoding="utf-8")
    return path


def add(tmp_path: Path, *files, extra=(), capsys=None):
    """results add, in a real process; given ``capsys``, by its main in this process (a test of
    what it says: each exit status keeps its real process, 0 and 1 in
    test_versions_and_zone_may_come_from_the_command_line, 2 in test_bad_arguments_exit_2)."""
    args = ("results", "add", *files, "--recipes", FIXTURES, "--results", tmp_path / "store", *extra)
    if capsys is not None:
        return in_process(capsys, *args)
    result = run(*args)
    no_traceback(result)
    return result


def test_the_real_file_has_the_keys_vllm_writes():
    data = json.loads(REAL.read_text(encoding="utf-8"))
    assert set(results.REQUIRED) <= set(data) and set(results.METADATA) <= set(data)
    assert data["date"][8] == "-" and data["request_rate"] == "inf"  # vLLM's local time, no zone


def test_an_accepted_result_is_stored_with_its_provenance(tmp_path, capsys):
    data = real()
    path = write(tmp_path, data)
    result = add(tmp_path, path, extra=("--run", "https://ci.example.org/job/1"), capsys=capsys)
    assert result.returncode == 0, result.stderr
    (stored,) = (tmp_path / "store" / data["recipe"]).glob("*.json")
    kept = json.loads(stored.read_text(encoding="utf-8"))
    assert kept["date"].startswith(f"{data['date'][:4]}-{data['date'][4:6]}-{data['date'][6:8]}T")
    assert kept["date"].endswith(data["timezone"][:3] + ":" + data["timezone"][3:])  # with its time zone
    assert (kept["vllm"], kept["vllm_rbln"], kept["sku"], kept["npus"]) == ("0.30.0", "0.12.0", data["sku"], 8)
    assert kept["commands"] == data["commands"] and kept["run"] == "https://ci.example.org/job/1"
    assert kept["workload"] == {"input_len": 32, "output_len": 8, "concurrency": 2, "prompts": data["num_prompts"]}
    assert kept["per_npu_output_throughput"] == pytest.approx(data["output_throughput"] / 8)
    assert kept["ttft_ms"]["p50"] == data["median_ttft_ms"] and kept["tpot_ms"]["p99"] == data["p99_tpot_ms"]
    again = add(tmp_path, path, capsys=capsys)
    assert again.returncode == 0 and "already stored" in again.stdout


def _refused(tmp_path, capsys, data, pointer: str, fragment: str):
    path = write(tmp_path, data)
    result = add(tmp_path, path, capsys=capsys)
    assert result.returncode == 1, result.stdout
    lines = [line for line in result.stderr.splitlines() if LOCATED.match(line)]
    assert any(LOCATED.match(line)["pointer"] == pointer and fragment in line for line in lines), result.stderr
    assert not (tmp_path / "store").exists()
    return lines


@pytest.mark.parametrize(
    ("change", "pointer", "fragment"),
    [
        (lambda d: d.update(completed=d["num_prompts"] - 1), "/completed", "the counts do not add up"),
        (lambda d: d.update(failed=1), "/failed", "failed"),
        (lambda d: d.update(model_id="openai/gpt-oss-120b"), "/model_id", "the selection serves"),
        (lambda d: d.update(commands="sha256:0000000000000000"), "/commands", "the recipe changed since"),
        (lambda d: d.update(selection="lmcache=zzz"), "/selection", "not an offered selection"),
        (lambda d: d.update(recipe="nope"), "/recipe", "no recipe 'nope'"),
        (lambda d: d.update(strategy="nope"), "/strategy", "has no strategy"),
        (lambda d: d.update(sku="RBLN-CA12"), "/sku", "not an SKU of the target"),
        (lambda d: d.update(npus="4"), "/npus", "the target uses 8"),
        (lambda d: d.update(timezone="nowhere"), "/timezone", "time zone"),
        (lambda d: d.update(vllm="latest"), "/vllm", "not a release number"),
        (lambda d: d.update(median_ttft_ms=-1), "/median_ttft_ms", "must be a number"),
        (lambda d: d.update(completed=True), "/completed", "whole number"),
        (lambda d: d.pop("recipe"), "/", "names no recipe"),
    ],
)
def test_a_broken_result_is_refused_at_its_place(tmp_path, capsys, change, pointer, fragment):
    data = real()
    change(data)
    _refused(tmp_path, capsys, data, pointer, fragment)


@pytest.mark.parametrize(
    "text",
    ["[1, 2]", json.dumps({"hello": "world"}), "{not json", json.dumps([{"benchmark": {"name": "x"}}])],
)
def test_what_is_not_a_result_is_refused(tmp_path, capsys, text):
    path = write(tmp_path, text)
    result = add(tmp_path, path, capsys=capsys)
    assert result.returncode == 1
    (line, *_rest) = result.stderr.splitlines()
    assert LOCATED.match(line) or line.startswith(str(path)), line


def test_every_file_is_judged_and_the_good_ones_stored(tmp_path, capsys):
    good = write(tmp_path, real(), "good.json")
    bad = real()
    bad["failed"] = 2
    broken = write(tmp_path, bad, "bad.json")
    result = add(tmp_path, good, broken, capsys=capsys)
    assert result.returncode == 1 and "stored as" in result.stdout and "bad.json" in result.stderr
    assert len(list((tmp_path / "store").rglob("*.json"))) == 1


def test_versions_and_zone_may_come_from_the_command_line(tmp_path):
    data = real()
    for key in ("timezone", "vllm", "vllm_rbln"):
        data.pop(key)
    path = write(tmp_path, data)
    refused = add(tmp_path, path)
    assert refused.returncode == 1 and "names no timezone, vllm, vllm_rbln" in refused.stderr
    given = add(tmp_path, path, extra=("--timezone", "+0900", "--vllm", "0.30.0", "--vllm-rbln", "0.12.0"))
    assert given.returncode == 0, given.stderr
    (stored,) = (tmp_path / "store").rglob("*.json")
    assert json.loads(stored.read_text(encoding="utf-8"))["date"].endswith("+09:00")


def test_stale_when_commands_or_releases_move():
    data = real()
    doc_result = results.Result.from_json(
        {
            "recipe": "A.X-K2",
            "strategy": data["strategy"],
            "target": data["target"],
            "selection": results.parse_selection(data["selection"]),
            "commands": data["commands"],
            "sku": data["sku"],
            "npus": 8,
            "date": "2026-12-06T17:28:32+00:00",
            "vllm": "0.30.0",
            "vllm_rbln": "0.12.0",
            "run": None,
            "workload": {"input_len": 32, "output_len": 8, "concurrency": 2, "prompts": 16},
            "output_throughput": 1.0,
            "request_throughput": 1.0,
            "ttft_ms": {"p50": 1.0, "p99": 2.0, "mean": 1.0},
            "tpot_ms": {"p50": 1.0, "p99": 2.0, "mean": 1.0},
            "duration": 1.0,
            "completed": 16,
            "total_input_tokens": 512,
            "total_output_tokens": 128,
            "file": "x.json",
            "sha256": "0" * 64,
        }
    )
    pinned = {"vllm": "0.30.0", "vllm-rbln": "0.12.0"}
    assert results.stale(doc_result, data["commands"], pinned) == ()
    assert results.stale(doc_result, "sha256:1111111111111111", pinned) == ("commands",)
    assert results.stale(doc_result, data["commands"], {"vllm": "0.33.0", "vllm-rbln": "0.12.0"}) == ("versions",)


def test_bad_arguments_exit_2(tmp_path):
    path = write(tmp_path, real())
    twice = add(tmp_path, path, path)
    assert twice.returncode == 2 and len(twice.stderr.strip().splitlines()) == 1
