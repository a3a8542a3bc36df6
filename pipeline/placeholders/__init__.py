"""Placeholders: the spans of a text that must come back verbatim.

:mod:`~pipeline.placeholders.protect` replaces them by ``<x id="N"/>`` tags before sending and puts
them back after; :mod:`~pipeline.placeholders.icu` parses ICU MessageFormat. Nothing is imported
here: the grammars cost start-up time the no-op run must not pay.
"""
