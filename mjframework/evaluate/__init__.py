"""Layer ``evaluate``: Win tables, readings, waits, pattern matching, the fast win check and the
scorer.

See docs/architecture.md (the layers and the import rule)."""
