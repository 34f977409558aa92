"""The API's plumbing every app shares: problem details, parsing, paging, token auth, idempotency, rate limits,
strict list filters, content negotiation and the OpenAPI schema's shared pieces."""
