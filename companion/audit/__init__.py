"""Checking and exporting game logs.

- ``verify_log.py``: the log format (canonical bytes, chain rule) and the standalone,
  standard-library-only verifier of an exported game. The store writes with it.
- ``check.py``: the same checks on a database, plus what only the database can show.
"""
