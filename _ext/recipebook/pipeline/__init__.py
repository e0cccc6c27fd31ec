"""The pipeline: a recipe file read, checked and built (``load``: ``check_file``, ``load``), and
each file's verdict kept on disk for the processes of one build (``verdicts``). It stands on
every other layer of the engine; only the command line and the package's own exports stand on it."""
