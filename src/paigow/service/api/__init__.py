"""HTTP: shared dependencies, request and response schemas, idempotency keys and one router per
resource (:mod:`paigow.service.api.routes`)."""
