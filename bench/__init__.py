"""Benchmarks: scripts that print figures."""
