"""Training entry points: one readable script per experiment, seeded and smoke-tested."""
