"""`mj score` and `mj conformance` (filled in by the evaluator)."""
