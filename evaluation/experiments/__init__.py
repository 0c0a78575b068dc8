"""Experiment scripts: each writes JSON and PNG results, resumable, small by default and at the papers' size with flags."""
