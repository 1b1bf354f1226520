"""One router per resource, over the dependencies of :mod:`paigow.service.api.deps`."""
