"""Layer ``hooks``: The plugin hook specifications and the pluggy registry that loads and calls
plugins.

See docs/architecture.md (the layers and the import rule)."""
