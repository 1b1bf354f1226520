"""The command line (``paigow``): every command group and the terminal game.

The rules engine and the service never import this package."""

from paigow.cli.main import app, main

__all__ = ["app", "main"]
