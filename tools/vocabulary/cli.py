"""The command line: ``python -m tools.vocabulary --vllm X --vllm-rbln Y``."""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from pathlib import Path

from .envs import LMCACHE_RELEASE
from .extract import DATA_DIR, ROOT, extract
from .fetch import _unpack, download

# a release as PyPI spells one (0.30.0, 0.12.0rc1): it names files and a pip requirement, so nothing else
_RELEASE = re.compile(r"[0-9]{1,4}(?:\.[0-9]{1,6}){0,3}(?:(?:a|b|rc|\.post|\.dev)[0-9]{1,4})?")


def release(text: str) -> str:
    if not _RELEASE.fullmatch(text):
        raise argparse.ArgumentTypeError(f"{text[:60]!r} is not a release number such as 0.30.0")
    return text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vllm", required=True, type=release, help="vLLM version, e.g. 0.30.0")
    parser.add_argument("--vllm-rbln", type=release, help="vllm-rbln version, e.g. 0.12.0")
    parser.add_argument(
        "--lmcache",
        default=LMCACHE_RELEASE,
        type=lambda text: text and release(text),
        help=f"the upstream LMCache release whose LMCACHE_* settings are recorded (default {LMCACHE_RELEASE}; '' for none)",
    )
    parser.add_argument("--source", type=Path, help="an unpacked tree holding vllm/ (and vllm_rbln/)")
    parser.add_argument("--dist", type=Path, help="a directory of already downloaded wheels or sdists")
    parser.add_argument("--output", type=Path, help="default: _ext/recipebook/data/vllm-VERSION.json")
    parser.add_argument("--strict", action="store_true", help="fail when something could not be followed")
    parser.add_argument(
        "--cross-check",
        action="store_true",
        help="also compare the flags, choices and types with vLLM's real parser (vLLM must be importable)",
    )
    args = parser.parse_args(argv)
    output = args.output or DATA_DIR / f"vllm-{args.vllm}.json"

    with tempfile.TemporaryDirectory(prefix="vocabulary-") as scratch:
        root = args.source
        if root is None:
            root = Path(scratch) / "src"
            root.mkdir()
            archives = sorted(args.dist.iterdir()) if args.dist else None
            if archives is None:
                wanted = [f"vllm=={args.vllm}"] + ([f"vllm-rbln=={args.vllm_rbln}"] if args.vllm_rbln else [])
                wanted += [f"lmcache=={args.lmcache}"] if args.lmcache else []
                archives = download(wanted, Path(scratch))
            for archive in archives:
                if archive.name.endswith((".whl", ".tar.gz", ".zip")):
                    _unpack(archive, root)
        data, warnings = extract(root, args.vllm, args.vllm_rbln, args.lmcache or None)

    for message in warnings:
        print(f"vocabulary: warning: {message}", file=sys.stderr)
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
    envs = sum(len(v) for v in data["envs"].values())
    print(
        f"wrote {output.relative_to(ROOT) if output.is_relative_to(ROOT) else output}: "
        f"{len(data['flags'])} flags, {envs} environment names"
    )
    status = 1 if args.strict and warnings else 0
    if args.cross_check:
        from .crosscheck import cross_check

        differences = cross_check(data)
        for line in differences:
            print(f"cross-check: {line}", file=sys.stderr)
        print(f"cross-check: {len(differences)} difference(s) with the installed vLLM's parser")
        status = status or (1 if differences else 0)
    return status
