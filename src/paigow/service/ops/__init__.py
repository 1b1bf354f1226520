"""Watching the service: Prometheus metrics (:mod:`.metrics`) and JSON logs with request ids
(:mod:`.logs`). Nothing here does I/O on a step's path."""
