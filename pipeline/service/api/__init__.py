"""The endpoints, one module per route group; each exports ``routes`` for ``app`` to mount."""
