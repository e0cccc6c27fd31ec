"""Rendering a selection's outputs that are files: ready-to-run files (``files``), Kubernetes
manifests (``kubernetes``) and the site API's document of a recipe (``portable``)."""
