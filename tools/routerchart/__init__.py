"""Write the vocabulary of the llm-d router chart a recipe's router step installs.

    python -m tools.routerchart --git /path/to/llm-d-router.git --ref v0.10.0
    python -m tools.routerchart --source /path/to/llm-d-router --ref v0.10.0   # a work tree

The chart's source is read from a checkout the maintainer fetched (the network step is
theirs; the build and the tests read only the committed file,
``_ext/recipebook/data/chart-llm-d-router-gateway-v0.10.0.json``). Nothing of the chart is
copied: the file records

* ``values``: the tree of values the chart reads, with their types: the chart's
  ``values.yaml`` and that of its ``routerlib`` dependency (under its alias ``router``), and
  every ``.Values`` path its templates read (``$x := .Values.a`` then ``$x.b``, ``index $x "b"``
  and ``dig "b" ... $x`` included); a map the templates pass on whole (``toYaml``,
  ``range $k, $v :=``) or whose default is ``{}`` takes any keys (``open``); the items of a
  list the templates ``range`` over take the fields they read (``.number``);
* ``required``: the values a template fails the install without (``fail ".Values.X is
  required"``, ``required "..." .Values.X``), unconditional ones only;
* ``forbidden``: the values whose presence fails the install, with the chart's message
  (``Top-level 'inferencePool' is deprecated ...``);
* ``reference`` and ``version``: where the chart is published (``hack/push-chart.sh`` pushes
  to ``oci://ghcr.io/llm-d/charts``, with the tag as the chart version).
"""

from __future__ import annotations

from .generate import FORMAT, chart_vocabulary, main

__all__ = ["FORMAT", "chart_vocabulary", "main"]
