"""Checking and exporting game logs.

- ``check.py``: the checks of ``companion/verify_log.py`` (the log format and the
  standalone verifier, which the store writes with: outside this package, so that the
  store and the audit do not import each other) on a database, plus what only the
  database can show.
"""
