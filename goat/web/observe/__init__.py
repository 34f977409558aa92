"""Observability: request logs, the Prometheus metrics every layer counts into, the /metrics middleware
and view, /health/."""
