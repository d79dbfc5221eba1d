"""Hypothesis strategies and shared assertions, importable by tests and by users' own suites."""
