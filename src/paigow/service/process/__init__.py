"""One server process: the application assembled, its dealers and their locks, the demo set-up and
the uvicorn launcher."""
