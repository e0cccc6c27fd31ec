"""Reading a recipe file: its JSON with the place of every value (``source``), the grids it
writes once (``sharing``), the typed model (``model``, with the model facts of ``facts``), and
``load``, which reads, checks and builds a recipe."""
