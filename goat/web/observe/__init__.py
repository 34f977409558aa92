"""Observability: request logs, the /metrics middleware and view, /health/."""
