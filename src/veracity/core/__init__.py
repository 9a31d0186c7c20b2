"""The audit core: validation → statistics → metrics → reliability table → audit.

Layering inside the core (each module imports only those to its left):
``_validation`` → ``_binning``/``_intervals`` → ``_stats`` → ``_formulas`` →
``_smooth``/``_honest`` → ``_metrics`` → ``_reliability`` → ``_audit``.
``_text`` and ``_parallel`` are leaf utilities. Nothing here imports the
calibrators, decisions, engines, monitoring, reporting or the CLI.
"""
