"""What each command does once its arguments are parsed: loaded by name (``module:function``) when it runs.

The parsers (:mod:`pipeline.cli`'s modules) stay light, so that building one command's parser costs
nothing of the others' work; the command's own module here imports what it needs at its top.
"""
