"""Layer ``run``: Running many hands: simulate, match, replay, conformance, the pytest plugin, the
learning-agent environment, external bots.

See docs/architecture.md (the layers and the import rule)."""
