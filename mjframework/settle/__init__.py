"""Layer ``settle``: Settlement: who pays whom for a scored win (pure arithmetic over the ruleset's
payouts; it needs no evaluation, so it sits below it).

See docs/architecture.md (the layers and the import rule)."""
