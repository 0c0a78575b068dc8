"""Paper 004 (Ritson 2019, thesis): Fifth Aeon's competition formats (``fifth_aeon_formats``: ``cardboard
fifth-aeon-tournament``) and card balancer (``fifth_aeon_balancer``: ``cardboard fifth-aeon-balance``; the
thesis's questions: ``fifth_aeon_balance``)."""
