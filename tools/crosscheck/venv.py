"""``make crosscheck``'s own venv: the pinned vLLM and vllm-rbln, importable without an NPU.

    python -m tools.crosscheck.venv --vllm 0.30.0 --vllm-rbln 0.12.0 --into .crosscheck/vllm-0.30.0

The four steps (issue 21), each with pip only:

1. ``pip install vllm==X``: vLLM pins its torch release, which resolves to a CPU build
   here (about 6 minutes and 5.6 GB);
2. ``pip install --no-deps vllm-rbln==Y`` (it asks for ``vllm==X+cpu``, which is no
   release on the public registry);
3. torchvision, torchaudio and torchcodec as pip picks them may not match that torch
   and then fail at import; vLLM imports them only when present, so each one that
   does not import is uninstalled;
4. the RBLN SDK (``import rebel``) is not on the public registry: the stand-in in
   ``standin/rebel`` is copied into the venv's site-packages.

A stamp file records the versions; a venv whose stamp matches is used as it is.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import time
from pathlib import Path

STANDIN = Path(__file__).parent / "standin" / "rebel"
OPTIONAL_IMPORTS = ("torchvision", "torchaudio", "torchcodec")
STAMP = ".crosscheck-stamp"


def stamp_text(vllm: str, vllm_rbln: str, extra: list[str]) -> str:
    return f"vllm=={vllm}\nvllm-rbln=={vllm_rbln}\n" + "".join(f"{e}\n" for e in extra)


def _run(command: list[str]) -> None:
    print("crosscheck venv:", " ".join(command), file=sys.stderr, flush=True)
    subprocess.run(command, check=True)


def _imports(python: Path, module: str) -> bool:
    result = subprocess.run([str(python), "-c", f"import {module}"], capture_output=True, check=False)
    return result.returncode == 0


def _installed(python: Path, distribution: str) -> bool:
    result = subprocess.run(
        [str(python), "-m", "pip", "show", "--quiet", distribution], capture_output=True, check=False
    )
    return result.returncode == 0


def site_packages(python: Path) -> Path:
    out = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    )
    return Path(out.stdout.strip())


def ensure(into: Path, vllm: str, vllm_rbln: str, extra: list[str] | None = None) -> Path:
    """The venv's python, set up once for these versions (and extra requirements)."""
    extra = list(extra or [])
    python = into / "bin" / "python"
    stamp = into / STAMP
    wanted = stamp_text(vllm, vllm_rbln, extra)
    if stamp.is_file() and stamp.read_text(encoding="utf-8") == wanted and python.exists():
        return python
    start = time.monotonic()
    if into.exists():
        shutil.rmtree(into)
    _run([sys.executable, "-m", "venv", str(into)])
    pip = [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    _run([*pip, f"vllm=={vllm}", *extra])
    _run([*pip, "--no-deps", f"vllm-rbln=={vllm_rbln}"])
    for module in OPTIONAL_IMPORTS:
        if _installed(python, module) and not _imports(python, module):
            _run([str(python), "-m", "pip", "uninstall", "--quiet", "--yes", module])
    target = site_packages(python) / "rebel"
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(STANDIN, target, ignore=shutil.ignore_patterns("__pycache__"))
    stamp.write_text(wanted, encoding="utf-8")
    print(f"crosscheck venv: ready in {time.monotonic() - start:.0f} s at {into}", file=sys.stderr)
    return python


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vllm", required=True)
    parser.add_argument("--vllm-rbln", required=True)
    parser.add_argument("--into", type=Path, required=True)
    parser.add_argument("--extra", action="append", default=[], help="another requirement for the venv")
    args = parser.parse_args(argv)
    print(ensure(args.into, args.vllm, args.vllm_rbln, args.extra))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
