"""The tests' helpers, reached one way: ``from tests.helpers.<module> import ...`` (the service's
clients and servers, the browser tests' site, PostgreSQL clusters, the references the exhaustive
checks compare against). Fixtures stay in each folder's ``conftest.py``."""
