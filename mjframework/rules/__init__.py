"""Layer ``rules``: YAML with locations, options and presets, the typed ruleset model, loading a
ruleset (``extends``, schema, checks).

See docs/architecture.md (the layers and the import rule)."""
