"""What produces text: the engine seam, the pseudo-translation engine, markup, language detection,
Write's corrections, style-rule application, glossary and translation-memory matching."""
