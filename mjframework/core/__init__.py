"""Layer ``core``: Tiles, hands, melds, the kinds vocabularies, errors, atomic files, processes: no
ruleset, no engine.

See docs/architecture.md (the layers and the import rule)."""
