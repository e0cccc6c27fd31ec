"""Golden tests: the commands of chosen selections, written out by hand from the recipe JSON.

The expected texts are not produced by the engine. They are written literally, or built by
explicit steps for one selection (take this role's base arguments, drop these named keys,
append those texts), read from the fixture recipe files (tests/data/recipes). Then: pasting a command into bash
runs exactly that invocation, and every command of every offered selection passes bash -n.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
from functools import cache

import pytest

import recipebook
from recipe_support import AXK2_NAME, GPT_NAME, RECIPES, fixture

# Texts copied from the recipes by hand.
GPT_KV_LMCACHE = (
    '--kv-transfer-config \'{\n      "kv_connector": "RBLNLMCacheConnectorV1",\n      "kv_role": "kv_both"\n    }\''
)
GPT_SPEC_EAGLE3 = (
    "--speculative-config '{\n"
    '      "method": "eagle3",\n'
    '      "model": "nvidia/gpt-oss-120b-Eagle3-v3",\n'
    '      "num_speculative_tokens": 3\n'
    "    }'"
)
GPT_SPEC_SUFFIX = (
    "--speculative-config '{\n"
    '      "method": "suffix",\n'
    '      "num_speculative_tokens": 3,\n'
    '      "suffix_decoding_max_cached_requests": 0\n'
    "    }'"
)
AX_SPEC_EAGLE3 = (
    "--speculative-config '{\n"
    '      "method": "eagle3",\n'
    '      "model": "skt/A.X-K2-EAGLE3",\n'
    '      "revision": "24958e91737d760908f73a8af4b6e06080fc5c1d",\n'
    '      "num_speculative_tokens": 3\n'
    "    }'"
)
AX_RDS_EXTRA = (
    "LMCACHE_EXTRA_CONFIG='{\n"
    '  "storage_plugin.RDSBackend.module_path": "lmcache_rbln.storage_plugin.rds_backend",\n'
    '  "storage_plugin.RDSBackend.class_name": "RDSBackend",\n'
    '  "rds_max_chunks": 800\n'
    "}'"
)
AX_KV_NIXL = (
    "--kv-transfer-config '{\n"
    '      "kv_connector": "RblnNixlConnector",\n'
    '      "kv_role": "kv_both",\n'
    '      "kv_buffer_device": "rbln",\n'
    '      "kv_connector_extra_config": {\n'
    '        "name": "nixl"\n'
    "      }\n"
    "    }'"
)
AX_REVISION = "--revision 9e2e804e80f8d1b3afba5d7938173cec1ed46b49"


def layout(envs: list[str], launcher: str, model: str, args: list[str]) -> str:
    """The documented layout: each env then ` \\`, the launcher and model, each arg on its own line."""
    text = "".join(f"{env} \\\n" for env in envs) + f"{launcher} {model}"
    return text + "".join(f" \\\n    {arg}" for arg in args)


@cache
def recipe(name: str) -> recipebook.Recipe:
    return recipebook.load(RECIPES / f"{name}.json")


def expand(name: str, strategy: str, target: str, **given: str) -> recipebook.Expansion:
    return recipebook.expand(recipe(name), strategy, target, given)


def grid_json(name: str, strategy: int, target: int = 0) -> dict:
    return fixture(name)["strategies"][strategy]["options"][target]["grid"]


def assert_command(command, *, envs: list[str], args: list[str], model: str, role: str, rank: int | None) -> None:
    assert (command.role, command.rank, command.launcher, command.model) == (role, rank, "vllm serve", model)
    assert list(command.envs) == envs
    assert list(command.args) == args
    assert command.shell == layout(envs, "vllm serve", model, args)


# gpt-oss-120b


GPT_LATENCY_RECOMMENDED = r"""VLLM_ENGINE_READY_TIMEOUT_S=9600 \
LMCACHE_CHUNK_SIZE=4096 \
LMCACHE_EXTRA_CONFIG='{
  "storage_plugin.RDSBackend.module_path": "lmcache_rbln.storage_plugin.rds_backend",
  "storage_plugin.RDSBackend.class_name": "RDSBackend"
}' \
LMCACHE_LOCAL_CPU=False \
LMCACHE_MAX_LOCAL_CPU_SIZE=0 \
LMCACHE_STORAGE_PLUGINS=RDSBackend \
PYTHONHASHSEED=42 \
vllm serve openai/gpt-oss-120b \
    --block-size 4096 \
    --distributed-executor-backend mp \
    --enable-auto-tool-choice \
    --max-model-len 131072 \
    --max-num-batched-tokens 512 \
    --max-num-seqs 1 \
    --model-impl vllm \
    --reasoning-parser openai_gptoss \
    --tool-call-parser openai \
    --trust-remote-code \
    --gpu-memory-utilization 0.8 \
    --kv-transfer-config '{
      "kv_connector": "RBLNLMCacheConnectorV1",
      "kv_role": "kv_both"
    }' \
    --speculative-config '{
      "method": "eagle3",
      "model": "nvidia/gpt-oss-120b-Eagle3-v3",
      "num_speculative_tokens": 3
    }'"""


def test_gpt_oss_latency_recommended():
    # lmcache=rds, prefix_caching=on_sub_block, spec_decode=eagle3, tool_calling=on
    expansion = expand(GPT_NAME, "aggregated", "Latency")
    assert expansion.recommended is True
    assert dict(expansion.selection) == {
        "lmcache": "rds",
        "prefix_caching": "on_sub_block",
        "spec_decode": "eagle3",
        "tool_calling": "on",
    }
    [command] = expansion.commands
    assert command.shell == GPT_LATENCY_RECOMMENDED
    assert expansion.router == ()
    assert expansion.shell() == "# main\n" + GPT_LATENCY_RECOMMENDED + "\n"


def test_gpt_oss_throughput_non_default():
    expansion = expand(
        GPT_NAME,
        "aggregated",
        "Throughput",
        lmcache="cpu",
        prefix_caching="on",
        spec_decode="suffix",
        tool_calling="off",
    )
    assert expansion.recommended is False
    [command] = expansion.commands
    # base, minus --enable-auto-tool-choice and --tool-call-parser (tool_calling=off)
    # and --no-enable-prefix-caching (prefix_caching=on); then lmcache=cpu, then spec_decode=suffix
    args = [
        "--block-size 4096",
        "--distributed-executor-backend mp",
        "--max-model-len 131072",
        "--max-num-batched-tokens 512",
        "--max-num-seqs 8",
        "--model-impl vllm",
        "--reasoning-parser openai_gptoss",
        "--trust-remote-code",
        GPT_KV_LMCACHE,
        GPT_SPEC_SUFFIX,
    ]
    envs = [
        "VLLM_ENGINE_READY_TIMEOUT_S=9600",
        "LMCACHE_CHUNK_SIZE=256",  # lmcache=cpu
        "LMCACHE_MAX_LOCAL_CPU_SIZE=10.0",
        "PYTHONHASHSEED=42",
        "VLLM_RBLN_SUB_BLOCK_CACHE=0",  # prefix_caching=on
    ]
    assert_command(command, envs=envs, args=args, model="openai/gpt-oss-120b", role="main", rank=None)


def test_gpt_oss_partial_selection_takes_recommended_values():
    expansion = expand(GPT_NAME, "aggregated", "Throughput", spec_decode="off")
    assert dict(expansion.selection) == {
        "lmcache": "rds",
        "prefix_caching": "on_sub_block",
        "spec_decode": "off",
        "tool_calling": "on",
    }
    [command] = expansion.commands
    assert command.args[-1] == GPT_KV_LMCACHE
    assert GPT_SPEC_EAGLE3 not in command.args
    assert "--max-num-seqs 8" in command.args


# A.X-K2 aggregated-data-expert-parallel


AX_DEP_BASE_ARGS = [
    "--block-size 2048",
    "--data-parallel-size 8",
    "--enable-auto-tool-choice",
    "--enable-expert-parallel",
    "--max-model-len 262144",
    "--max-num-batched-tokens 512",
    "--max-num-seqs 1",
    "--model-impl vllm",
    "--no-enable-prefix-caching",
    "--prefix-caching-hash-algo sha256_cbor",
    "--reasoning-parser deepseek_v3",
    AX_REVISION,
    "--safetensors-load-strategy prefetch",
    "--tool-call-parser hermes",
    "--trust-remote-code",
]
AX_BASE_ENVS = ["VLLM_ENGINE_READY_TIMEOUT_S=9600", "VLLM_WORKER_MULTIPROC_METHOD=fork"]


def test_ax_k2_data_expert_parallel_recommended():
    expansion = expand(AXK2_NAME, "aggregated-data-expert-parallel", "Latency")
    assert expansion.recommended is True
    [command] = expansion.commands
    rds = grid_json(AXK2_NAME, 0)["deltas"]["lmcache=rds"]["main"]
    args = [a for a in AX_DEP_BASE_ARGS if a != "--no-enable-prefix-caching"]  # prefix_caching=on_sub_block
    args += ["--gpu-memory-utilization 0.85", rds["add_args"]["--kv-transfer-config"], AX_SPEC_EAGLE3]
    assert rds["add_args"]["--kv-transfer-config"] == GPT_KV_LMCACHE  # the same connector text as gpt-oss
    envs = [
        *AX_BASE_ENVS,
        "LMCACHE_CHUNK_SIZE=2048",
        AX_RDS_EXTRA,
        "LMCACHE_LOCAL_CPU=False",
        "LMCACHE_MAX_LOCAL_CPU_SIZE=0",
        "LMCACHE_STORAGE_PLUGINS=RDSBackend",
        "PYTHONHASHSEED=42",
    ]
    assert_command(command, envs=envs, args=args, model="skt/A.X-K2-NVFP4", role="main", rank=None)


def test_ax_k2_data_expert_parallel_reasoning_parser_off():
    expansion = expand(
        AXK2_NAME,
        "aggregated-data-expert-parallel",
        "Latency",
        lmcache="off",
        prefix_caching="off",
        spec_decode="off",
        reasoning_parser="off",
    )
    [command] = expansion.commands
    assert command.shell == (
        "VLLM_ENGINE_READY_TIMEOUT_S=9600 \\\n"
        "VLLM_WORKER_MULTIPROC_METHOD=fork \\\n"
        "vllm serve skt/A.X-K2-NVFP4 \\\n"
        "    --block-size 2048 \\\n"
        "    --data-parallel-size 8 \\\n"
        "    --enable-auto-tool-choice \\\n"
        "    --enable-expert-parallel \\\n"
        "    --max-model-len 262144 \\\n"
        "    --max-num-batched-tokens 512 \\\n"
        "    --max-num-seqs 1 \\\n"
        "    --model-impl vllm \\\n"
        "    --no-enable-prefix-caching \\\n"
        "    --prefix-caching-hash-algo sha256_cbor \\\n"
        "    --revision 9e2e804e80f8d1b3afba5d7938173cec1ed46b49 \\\n"
        "    --safetensors-load-strategy prefetch \\\n"
        "    --tool-call-parser hermes \\\n"
        "    --trust-remote-code"
    )


# A.X-K2 aggregated-pipeline-parallel: recommended is null, so the page opens on the base command


AX_PP_BASE = r"""VLLM_ENGINE_READY_TIMEOUT_S=9600 \
VLLM_WORKER_MULTIPROC_METHOD=fork \
vllm serve skt/A.X-K2-NVFP4 \
    --block-size 2048 \
    --enable-auto-tool-choice \
    --max-model-len 262144 \
    --max-num-batched-tokens 512 \
    --max-num-seqs 8 \
    --model-impl vllm \
    --no-enable-prefix-caching \
    --pipeline-parallel-size 8 \
    --prefix-caching-hash-algo sha256_cbor \
    --reasoning-parser deepseek_v3 \
    --revision 9e2e804e80f8d1b3afba5d7938173cec1ed46b49 \
    --safetensors-load-strategy prefetch \
    --tool-call-parser hermes \
    --trust-remote-code"""


def test_ax_k2_pipeline_parallel_default_is_the_base_command():
    expansion = expand(AXK2_NAME, "aggregated-pipeline-parallel", "Throughput")
    assert expansion.recommended is False
    assert dict(expansion.selection) == {
        "lmcache": "off",
        "prefix_caching": "off",
        "spec_decode": "off",
        "reasoning_parser": "on",  # option_base
        "tool_calling": "on",
    }
    [command] = expansion.commands
    assert command.shell == AX_PP_BASE
    base = grid_json(AXK2_NAME, 1)["base"][0]
    assert command.shell == layout(
        list(base["envs"].values()), "vllm serve", "skt/A.X-K2-NVFP4", list(base["args"].values())
    )


def test_ax_k2_pipeline_parallel_with_two_choices():
    expansion = expand(
        AXK2_NAME, "aggregated-pipeline-parallel", "Throughput", spec_decode="eagle3", tool_calling="off"
    )
    [command] = expansion.commands
    base_args = list(grid_json(AXK2_NAME, 1)["base"][0]["args"].values())
    args = [a for a in base_args if a not in ("--enable-auto-tool-choice", "--tool-call-parser hermes")]
    assert_command(
        command, envs=AX_BASE_ENVS, args=[*args, AX_SPEC_EAGLE3], model="skt/A.X-K2-NVFP4", role="main", rank=None
    )


# A.X-K2 prefill-decode-disaggregated: ranks and router steps


AX_PREFILL_BASE_ARGS = [
    "--block-size 2048",
    "--enable-auto-tool-choice",
    AX_KV_NIXL,
    "--max-model-len 262144",
    "--max-num-batched-tokens 512",
    "--max-num-seqs 8",
    "--model-impl vllm",
    "--no-enable-prefix-caching",
    "--pipeline-parallel-size 8",
    "--prefix-caching-hash-algo sha256_cbor",
    "--reasoning-parser deepseek_v3",
    AX_REVISION,
    "--safetensors-load-strategy prefetch",
    "--tool-call-parser hermes",
    "--trust-remote-code",
]
AX_DECODE_BASE_ARGS = [
    "--block-size 2048",
    "--data-parallel-address '<POD_IP>'",
    "--data-parallel-rpc-port 5555",
    "--data-parallel-size 8",
    "--enable-auto-tool-choice",
    "--enable-expert-parallel",
    AX_KV_NIXL,
    "--max-model-len 262144",
    "--max-num-batched-tokens 512",
    "--max-num-seqs 1",
    "--model-impl vllm",
    "--no-enable-prefix-caching",
    "--prefix-caching-hash-algo sha256_cbor",
    "--reasoning-parser deepseek_v3",
    AX_REVISION,
    "--safetensors-load-strategy prefetch",
    "--tool-call-parser hermes",
    "--trust-remote-code",
]


def kv_events(port: int, endpoint: int) -> str:
    return (
        "--kv-events-config '{\n"
        '      "enable_kv_cache_events": true,\n'
        '      "publisher": "zmq",\n'
        f'      "endpoint": "tcp://<EPP_HOST>:{endpoint}",\n'
        f'      "topic": "kv@<POD_IP>:{port}@skt/A.X-K2-NVFP4"\n'
        "    }'"
    )


def decode_rank(rank: int, extra_args: list[str], extra_envs: list[str], without: tuple[str, ...]) -> dict:
    """What rank r of decode sets (read off the recipe: ports 8200+r, NIXL 5659+r, endpoint 5557-r)."""
    args = [a for a in AX_DECODE_BASE_ARGS if a not in without] + extra_args
    args += [f"--data-parallel-rank {rank}", kv_events(8200 + rank, 5557 - rank), f"--port {8200 + rank}"]
    envs = AX_BASE_ENVS + extra_envs
    envs += [
        f"RBLN_VISIBLE_DEVICES={rank}",
        "VLLM_NIXL_SIDE_CHANNEL_HOST='<POD_IP>'",
        f"VLLM_NIXL_SIDE_CHANNEL_PORT={5659 + rank}",
    ]
    return {"args": args, "envs": envs}


def test_ax_k2_disaggregated_recommended():
    expansion = expand(AXK2_NAME, "prefill-decode-disaggregated", "Latency")
    assert expansion.recommended is True
    assert [(c.role, c.rank) for c in expansion.commands] == [("prefill", 0)] + [("decode", r) for r in range(8)]
    g = grid_json(AXK2_NAME, 2)
    rds = g["deltas"]["lmcache=rds"]["prefill"]

    # prefill, rank 0: lmcache=rds replaces --kv-transfer-config in place (it is in the base) and
    # appends --gpu-memory-utilization; on_sub_block drops --no-enable-prefix-caching; eagle3 appends.
    multi = rds["add_args"]["--kv-transfer-config"]
    assert '"kv_connector": "MultiConnector"' in multi
    args = [multi if a == AX_KV_NIXL else a for a in AX_PREFILL_BASE_ARGS if a != "--no-enable-prefix-caching"]
    args += ["--gpu-memory-utilization 0.85", AX_SPEC_EAGLE3, kv_events(8000, 5557), "--port 8000"]
    envs = [
        *AX_BASE_ENVS,
        "LMCACHE_CHUNK_SIZE=2048",
        "LMCACHE_ENABLE_KV_EVENTS=True",
        AX_RDS_EXTRA,
        "LMCACHE_LOCAL_CPU=False",
        "LMCACHE_MAX_LOCAL_CPU_SIZE=0",
        "LMCACHE_PRE_CACHING_HASH_ALGORITHM=sha256_cbor_64bit",
        "LMCACHE_STORAGE_PLUGINS=RDSBackend",
        "PYTHONHASHSEED=42",
        "VLLM_NIXL_SIDE_CHANNEL_HOST='<POD_IP>'",
        "VLLM_NIXL_SIDE_CHANNEL_PORT=5559",
    ]
    prefill = expansion.commands[0]
    assert_command(prefill, envs=envs, args=args, model="skt/A.X-K2-NVFP4", role="prefill", rank=0)
    assert prefill.args[2] == multi  # in place: still the third argument

    # decode: lmcache=rds changes nothing for decode; every rank adds its own keys at the end
    for rank, command in enumerate(expansion.commands[1:]):
        expected = decode_rank(rank, [AX_SPEC_EAGLE3], [], ("--no-enable-prefix-caching",))
        assert_command(command, **expected, model="skt/A.X-K2-NVFP4", role="decode", rank=rank)

    # decode rank 3, written out
    assert expansion.commands[4].shell == layout(
        [
            "VLLM_ENGINE_READY_TIMEOUT_S=9600",
            "VLLM_WORKER_MULTIPROC_METHOD=fork",
            "RBLN_VISIBLE_DEVICES=3",
            "VLLM_NIXL_SIDE_CHANNEL_HOST='<POD_IP>'",
            "VLLM_NIXL_SIDE_CHANNEL_PORT=5662",
        ],
        "vllm serve",
        "skt/A.X-K2-NVFP4",
        [a for a in AX_DECODE_BASE_ARGS if a != "--no-enable-prefix-caching"]
        + [
            AX_SPEC_EAGLE3,
            "--data-parallel-rank 3",
            kv_events(8203, 5554),
            "--port 8203",
        ],
    )

    # router steps, in order, after the servers
    nodes = g["router"]["nodes"]
    assert expansion.router == ((nodes[0]["node"], nodes[0]["cmd"]), (nodes[1]["node"], nodes[1]["cmd"]))
    assert expansion.router[1] == (
        "helm",
        "helm install router oci://ghcr.io/llm-d/charts/llm-d-router-gateway \\\n    --version v0.10.0 \\\n    --values router-values.yaml",
    )
    text = expansion.shell()
    order = ["# prefill, rank 0\n"] + [f"# decode, rank {r}\n" for r in range(8)]
    order += ["# router: router-values.yaml\ncat > router-values.yaml <<'EOF'\n", "# router: helm\nhelm install"]
    positions = [text.index(marker) for marker in order]
    assert positions == sorted(positions)
    assert text.endswith("--values router-values.yaml\n")


def test_ax_k2_disaggregated_non_default():
    expansion = expand(
        AXK2_NAME,
        "prefill-decode-disaggregated",
        "Latency",
        lmcache="cpu",
        prefix_caching="on",
        spec_decode="off",
        reasoning_parser="off",
        tool_calling="off",
    )
    g = grid_json(AXK2_NAME, 2)
    multi = g["deltas"]["lmcache=cpu"]["prefill"]["add_args"]["--kv-transfer-config"]
    dropped = ("--no-enable-prefix-caching", "--reasoning-parser deepseek_v3", "--enable-auto-tool-choice")
    dropped += ("--tool-call-parser hermes",)
    args = [multi if a == AX_KV_NIXL else a for a in AX_PREFILL_BASE_ARGS if a not in dropped]
    args += [kv_events(8000, 5557), "--port 8000"]
    envs = [
        *AX_BASE_ENVS,
        "LMCACHE_CHUNK_SIZE=256",
        "LMCACHE_ENABLE_KV_EVENTS=True",
        "LMCACHE_MAX_LOCAL_CPU_SIZE=10.0",
        "LMCACHE_PRE_CACHING_HASH_ALGORITHM=sha256_cbor_64bit",
        "PYTHONHASHSEED=42",
        "VLLM_RBLN_SUB_BLOCK_CACHE=0",
        "VLLM_NIXL_SIDE_CHANNEL_HOST='<POD_IP>'",
        "VLLM_NIXL_SIDE_CHANNEL_PORT=5559",
    ]
    assert_command(expansion.commands[0], envs=envs, args=args, model="skt/A.X-K2-NVFP4", role="prefill", rank=0)
    for rank in (0, 7):
        expected = decode_rank(rank, [], ["VLLM_RBLN_SUB_BLOCK_CACHE=0"], dropped)
        assert_command(expansion.commands[1 + rank], **expected, model="skt/A.X-K2-NVFP4", role="decode", rank=rank)


# Pasting a command into bash runs exactly that invocation.

FAKE_VLLM = """#!/bin/bash
printf '%s\\0' "$@" > "$CAPTURE.argv"
env -0 > "$CAPTURE.env"
"""

PASTED = [
    (GPT_NAME, "aggregated", "Latency", {}),
    (GPT_NAME, "aggregated", "Throughput", {"lmcache": "cpu", "spec_decode": "suffix", "tool_calling": "off"}),
    (AXK2_NAME, "aggregated-data-expert-parallel", "Latency", {"reasoning_parser": "off"}),
    (AXK2_NAME, "aggregated-pipeline-parallel", "Throughput", {}),
    (AXK2_NAME, "prefill-decode-disaggregated", "Latency", {}),
    (AXK2_NAME, "prefill-decode-disaggregated", "Latency", {"lmcache": "cpu", "prefix_caching": "on"}),
]


def test_pasting_a_command_runs_exactly_that_invocation(tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "vllm").write_text(FAKE_VLLM, encoding="utf-8")
    (bin_dir / "vllm").chmod(0o755)
    commands = [c for name, s, t, given in PASTED for c in expand(name, s, t, **given).commands]
    assert len(commands) == 1 + 1 + 1 + 1 + 9 + 9
    # one script, pasted commands one after another, as a reader would
    script = "".join(f"export CAPTURE={tmp_path}/{i}\n{c.shell}\n" for i, c in enumerate(commands))
    environment = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}
    subprocess.run(["bash", "-c", script], env=environment, cwd=tmp_path, check=True, timeout=60)

    for i, command in enumerate(commands):
        argv = (tmp_path / f"{i}.argv").read_text(encoding="utf-8").split("\0")[:-1]
        expected = ["serve", command.model]
        for arg in command.args:
            expected += shlex.split(arg)
        assert argv == expected
        json_values = [word for word in argv if word.startswith("{")]
        assert all(isinstance(json.loads(word), dict) for word in json_values)  # multi-line JSON, one argument
        assert len(json_values) == sum(1 for arg in command.args if "'{" in arg)
        seen = dict(item.partition("=")[::2] for item in (tmp_path / f"{i}.env").read_text().split("\0")[:-1])
        for env in command.envs:
            name, value = shlex.split(env)[0].split("=", 1)
            assert seen[name] == value, name
        if "LMCACHE_EXTRA_CONFIG" in seen:
            assert json.loads(seen["LMCACHE_EXTRA_CONFIG"])["storage_plugin.RDSBackend.class_name"] == "RDSBackend"


def test_every_offered_command_passes_bash_n(tmp_path):
    texts = sorted(
        {c.shell for name in (GPT_NAME, AXK2_NAME) for e in recipebook.matrix(recipe(name)) for c in e.commands}
    )
    assert len(texts) > 300
    for i, text in enumerate(texts):
        (tmp_path / f"{i:04}.sh").write_text(text + "\n", encoding="utf-8")
    # one bash runs bash -n on each file: a quote left open in one command cannot hide in the next
    check = 'for f in "$1"/*.sh; do bash -n "$f" 2>&1 || echo "FAILED $f"; done'
    result = subprocess.run(["bash", "-c", check, "bash", str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0
    assert result.stdout == "" and result.stderr == ""
    # and as one script, too
    joined = subprocess.run(["bash", "-n"], input="\n".join(texts) + "\n", capture_output=True, text=True)
    assert joined.returncode == 0 and joined.stderr == ""


@pytest.mark.parametrize("name", [GPT_NAME, AXK2_NAME])
def test_every_offered_command_keeps_the_layout(name):
    for expansion in recipebook.matrix(recipe(name)):
        for command in expansion.commands:
            assert command.shell == layout(list(command.envs), command.launcher, command.model, list(command.args))
            assert not command.shell.endswith("\\")
