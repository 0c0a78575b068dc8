"""Evaluation: matches between agents, with confidence intervals."""
