"""The audit core: validation → statistics → metrics → reliability table → audit.

Layering inside the core (each module imports only those to its left):
``_validation`` → ``_binning``/``_intervals`` → ``_stats`` → ``_formulas`` →
``_smooth``/``_honest`` → ``_metrics`` → ``_reliability`` → ``_audit``.
``_text`` and ``_parallel`` are leaf utilities. This is the bottom layer: nothing here
imports a package above it (``tests/test_layering.py`` checks every import, inside
functions too). What the core shows but does not compute is registered by the package
that computes it: the audit's honest sections (``_sections``, by ``veracity.honest``) and
the frame form of each public function (``_frameform``, by ``veracity.sources``). The
one call up is ``Display.plot()`` (``_display``), which asks ``veracity.plotting.draw``.
"""
