"""Checking a recipe: the schema, the rules the schema cannot say (``rules``, with the
characters, bounds, safety, command text, inline markup and Helm chart rules beside it), and
vLLM's vocabulary and value types, with what another release would break (``drift``)."""
