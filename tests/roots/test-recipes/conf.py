from pathlib import Path

import recipebook

extensions = ["myst_parser", "recipebook_sphinx"]
exclude_patterns = ["_build", "recipes"]
# the real recipes of the repository, wherever the test root was copied
recipebook_dir = str(Path(recipebook.__file__).resolve().parents[2] / "recipes")
recipebook_pages = {"recipe": "{name}", "install": "install", "configuration": "install"}
recipebook_versions = {
    "rebel-compiler": "0.12.0",
    "vllm-rbln": "0.12.0",
    "vllm": "0.30.0",
    "arctic-inference": "0.1.1",
    "rbln_index": "https://pypi.rbln.ai/simple",
    "vllm_cpu_index": "https://wheels.vllm.ai/0.30.0/cpu",
    "torch_cpu_index": "https://download.pytorch.org/whl/cpu",
}
html_theme = "basic"
