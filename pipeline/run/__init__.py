"""A translation run as stages, one module each, in call order.

``settled`` -> ``scan`` -> ``plan`` -> ``cached`` -> ``send`` -> ``gate`` -> ``write`` -> ``report``;
:mod:`pipeline.run.orchestrate` is the only module that imports the stages and holds the entry
points (``run_translate``). The stages share the records of :mod:`pipeline.run.records` and the
helpers :mod:`~pipeline.run.request` (request parameters and cache key),
:mod:`~pipeline.run.plurals` (plural forms), :mod:`~pipeline.run.state` (what runs remember) and
:mod:`~pipeline.run.progress`; :mod:`~pipeline.run.collector` tunes garbage collection while a
run works. Nothing is imported here, so naming the package stays free.
"""
