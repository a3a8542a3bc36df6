"""Workflows around runs: ``pipeline check`` (:mod:`~pipeline.workflows.check`, the release gate needing no
service) and ``pipeline refresh`` (:mod:`~pipeline.workflows.refresh`, merge templates then re-translate; the merge
step: :mod:`~pipeline.workflows.merge`)."""
