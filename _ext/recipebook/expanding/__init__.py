"""Expanding a recipe: selections and the delta rules (``expansion``), each target's line
table (``table``) and what differs between its ranks (``ranks``), the page model every output
renders (``page``), with the memory figures, the client around the servers and the
provenance of each target."""
