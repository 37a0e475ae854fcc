"""Layer ``play``: The table: wall, turns, claims, endings, players and bots, what each seat sees,
events, the stepper, seat logs.

See docs/architecture.md (the layers and the import rule)."""
