"""Real result files: the explorer's benchmark script, run with the real ``vllm bench serve`` of
``make crosscheck``'s venv against a small OpenAI-compatible server of our own (loopback), with
a tokenizer made here (nothing downloaded). ``recipebook results add`` must accept what it
writes, and its keys must be those of the test data kept in ``tests/data/results/`` (which an
earlier run of this module wrote: ``python -m tools.crosscheck.benchrun --write tests/data/results``).

    python -m tools.crosscheck.benchrun [--venv DIR] [--write DIR]
"""

from __future__ import annotations

import argparse
import http.server
import json
import os
import runpy
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import recipebook
from recipebook import cli
from recipebook.expanding import client, page

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "results"
# The selection measured: A.X-K2's data-parallel target at its opening selection.
RECIPE, STRATEGY, TARGET = "A.X-K2", "aggregated-data-expert-parallel", "Latency"
# A tiny workload (the server answers at once): prompt and output tokens, concurrent requests.
WORKLOAD = (32, 8, 2)
TOKENIZER = """
import json, os, sys
from tokenizers import Tokenizer, decoders, models, pre_tokenizers
vocab = {"[UNK]": 0, **{f"w{i}": i + 1 for i in range(511)}}
tokenizer = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
tokenizer.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
tokenizer.decoder = decoders.WordPiece()
os.makedirs(sys.argv[1], exist_ok=True)
tokenizer.save(os.path.join(sys.argv[1], "tokenizer.json"))
with open(os.path.join(sys.argv[1], "tokenizer_config.json"), "w") as out:
    json.dump({"tokenizer_class": "PreTrainedTokenizerFast", "unk_token": "[UNK]", "model_max_length": 1000000}, out)
"""


class _Server(http.server.BaseHTTPRequestHandler):
    """Chat completions, streamed as vLLM streams them: one token a chunk, then the usage."""

    protocol_version = "HTTP/1.1"

    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:  # /v1/models
        body = json.dumps({"object": "list", "data": [{"id": self.server.model, "object": "model"}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length", 0))
        request = json.loads(self.rfile.read(length))
        if request.get("model") != self.server.model:
            self.send_error(404, "no such model")
            return
        words = []
        for message in request.get("messages", []):
            content = message.get("content")
            parts = content if isinstance(content, list) else [{"text": content}]
            words += [w for part in parts if isinstance(part, dict) for w in str(part.get("text") or "").split()]
        out = int(request.get("max_completion_tokens") or request.get("max_tokens") or 16)
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "close")
        self.end_headers()
        for _ in range(out):
            chunk = {"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"content": " w1"}}]}
            self.wfile.write(b"data: " + json.dumps(chunk).encode() + b"\n\n")
            self.wfile.flush()
            time.sleep(0.002)
        usage = {"choices": [], "usage": {"prompt_tokens": len(words), "completion_tokens": out}}
        self.wfile.write(b"data: " + json.dumps(usage).encode() + b"\n\ndata: [DONE]\n\n")
        self.wfile.flush()


def script(tokenizer: Path, base_url: str, result_dir: Path) -> tuple[str, str]:
    """The page's benchmark script for the selection, pointed at our server and tokenizer, with
    the tiny workload; and the model it asks for."""
    recipe = recipebook.load(ROOT / "recipes" / f"{RECIPE}.json")
    target = page.page_of(recipe).target(STRATEGY, TARGET)
    text = target.bench_at(target.opening)
    model = client.served_model(target.opening_commands()[0])
    lines = []
    for line in text.splitlines():
        if line.strip().startswith("--base-url "):
            line = f"    --base-url {base_url} \\"
            lines.append(line)
            lines.append(f"    --tokenizer {tokenizer} \\")
            continue
        if line.strip().startswith("--result-dir "):
            line = f"    --result-dir {result_dir} \\"
        if line.startswith(f"{client.BENCH_FUNCTION} "):
            continue  # the standard workloads: one tiny one instead
        lines.append(line)
    lines.append(f"{client.BENCH_FUNCTION} {' '.join(map(str, WORKLOAD))}")
    return "\n".join(lines) + "\n", model


def run(venv: Path, into: Path) -> list[Path]:
    """Run the script once; the result files it wrote."""
    python = venv / "bin" / "python"
    tokenizer = into / "tokenizer"
    subprocess.run([str(python), "-c", TOKENIZER, str(tokenizer)], check=True)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Server)
    text, model = script(tokenizer, f"http://127.0.0.1:{server.server_address[1]}", into / "out")
    server.model = model  # type: ignore[attr-defined]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        (into / "bench.sh").write_text(text, encoding="utf-8")
        environment = {**os.environ, "PATH": f"{venv / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}"}
        with (into / "bench.log").open("w", encoding="utf-8") as log:
            done = subprocess.run(
                ["bash", str(into / "bench.sh")],
                env=environment,
                stdout=log,
                stderr=subprocess.STDOUT,
                timeout=600,
                check=False,
            )
    finally:
        server.shutdown()
    if done.returncode != 0:
        sys.stderr.write((into / "bench.log").read_text(encoding="utf-8")[-3000:])
        raise SystemExit(f"benchrun: vllm bench serve failed (exit {done.returncode})")
    return sorted(p for p in (into / "out").glob("*.json") if not p.name.endswith(".pytorch.json"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.crosscheck.benchrun", description=__doc__)
    parser.add_argument("--venv", type=Path, default=None)
    parser.add_argument("--write", type=Path, help="keep the result (and the script that wrote it) as test data here")
    args = parser.parse_args(argv)
    versions = cli_versions()
    venv = args.venv or ROOT / ".crosscheck" / f"vllm-{versions['vllm']}-rbln-{versions['vllm-rbln']}"
    with tempfile.TemporaryDirectory(prefix="benchrun-") as scratch:
        files = run(venv, Path(scratch))
        if len(files) != 1:
            raise SystemExit(f"benchrun: expected one result file, found {len(files)}")
        (written,) = files
        with tempfile.TemporaryDirectory(prefix="benchrun-store-") as store:
            status = cli.main(["results", "add", str(written), "--results", store])
        fresh = json.loads(written.read_text(encoding="utf-8"))
        problems = []
        if status != 0:
            problems.append(f"results add refused the file vllm bench serve wrote (exit {status})")
        kept = sorted(DATA.glob("*.json")) if DATA.is_dir() else []
        if kept and not args.write:
            keys = list(json.loads(kept[0].read_text(encoding="utf-8")))
            if keys != list(fresh):
                problems.append(f"the result's keys changed: test data {keys}, vLLM now {list(fresh)}")
        if args.write:
            args.write.mkdir(parents=True, exist_ok=True)
            for old in args.write.glob("*.json"):
                old.unlink()
            shutil.copy(written, args.write / written.name)
            (args.write / "bench.sh").write_text(
                (Path(scratch) / "bench.sh").read_text(encoding="utf-8"), encoding="utf-8"
            )
    for problem in problems:
        print(f"benchrun: {problem}")
    print(f"benchrun: vllm bench serve wrote {written.name} ({len(fresh)} keys); results add: exit {status}")
    return 1 if problems else 0


def cli_versions() -> dict[str, str]:
    return runpy.run_path(str(ROOT / "conf.py"))["recipebook_versions"]


if __name__ == "__main__":
    raise SystemExit(main())
