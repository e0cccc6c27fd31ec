"""``make crosscheck``: every command of every recipe judged by vLLM itself.

    python -m tools.crosscheck                 # the pinned vLLM and vllm-rbln (conf.py)
    python -m tools.crosscheck --vllm 0.33.0 --vllm-rbln 0.12.0 --parse-only

The modules:

* ``venv``: the venv with the real vLLM and vllm-rbln (pip only; set up once, cached);
* ``standin/rebel``: the stand-in for the RBLN SDK's ``rebel`` module, copied into that venv;
* ``judge``: run in that venv, it builds vLLM's ``vllm serve`` parser and answers a request:
  the vocabulary's differences with it, each command's parse and config objects, each env value;
* ``commands``: the request from the recipes (``recipebook.matrix``) and the answer's refusals
  located in them (engine only, no vLLM: the tests run it on answers they write);
* ``cli``: the command line.
"""
