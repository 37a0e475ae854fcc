"""Layer ``design``: Tools for variant designers: rule cards, lint, diff, balance, scaffolding.

See docs/architecture.md (the layers and the import rule)."""
