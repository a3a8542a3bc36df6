"""A translation run as stages, one module each, in call order.

``settled`` -> ``scan`` -> ``plan`` -> ``reuse`` -> ``cached`` -> ``send`` -> ``gate`` -> ``write`` ->
``report``; :mod:`pipeline.run.orchestrate` (a package) alone imports the stages and holds the
entry points (``run_translate``). The stages take the run's :class:`~pipeline.run.orchestrate.context.RunContext`
and the records of :mod:`pipeline.run.records`, and share the helpers :mod:`~pipeline.run.keys`
(request parameters and cache key), :mod:`~pipeline.run.plurals` (plural forms),
:mod:`~pipeline.run.journal` (what runs remember) and :mod:`~pipeline.run.locks` (runs take
turns on catalogs). Nothing is imported here, so naming the package stays free.
"""
