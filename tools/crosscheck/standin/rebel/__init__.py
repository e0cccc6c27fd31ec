"""A stand-in for the RBLN SDK's ``rebel`` module, installed only into ``make crosscheck``'s venv.

The RBLN SDK is not on the public registry, and vllm-rbln's platform imports it when
vLLM loads its platform plugin. Building the ``vllm serve`` parser (and reading the
env definitions and config classes) runs nothing on an NPU; these two functions are
all the platform calls on that path. Written into the venv by ``tools.crosscheck.venv``
from this file; nothing here is downloaded.
"""

NAME = "RBLN-CA25"


def get_npu_name(device_id: int = 0) -> str:
    """The NPU the parser is built for; no device is opened."""
    return NAME


def manual_seed(seed: int) -> None:
    """Seeding does nothing: nothing runs on an NPU here."""
