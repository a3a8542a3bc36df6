"""The service's state: one SQLite database (accounts, usage, glossaries, style rules, document jobs)
and the translation memories read from files at start-up."""
