"""OpenAPI examples every API shares: the problems any authenticated, throttled or idempotent
endpoint can answer."""

from __future__ import annotations

from goat.web.problems import problem_example

UNAUTHENTICATED = problem_example(401, "not_authenticated", "Authentication credentials were not provided.")
THROTTLED = problem_example(429, "throttled", "Request was throttled. Expected available in 2 seconds.")
KEY_REUSED = problem_example(422, "idempotency_key_reused", "This Idempotency-Key was used for a different request.")
IN_PROGRESS = problem_example(409, "request_in_progress",
                              "A request with this Idempotency-Key is still being processed.")
