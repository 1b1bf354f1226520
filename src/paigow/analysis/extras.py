"""Optional dependencies: the analysis's Dask and matplotlib (``paigow[analysis]``) and the load
client's aiohttp (``paigow[bots]``) are not needed to play or serve; a command that needs one
says which extra to install.

>>> require("json", "analysis").__name__
'json'
>>> require("no_such_module_here", "analysis")
Traceback (most recent call last):
...
paigow.analysis.extras.MissingExtra: no_such_module_here is not installed: pip install 'paigow[analysis]'
"""

from __future__ import annotations

from importlib import import_module
from types import ModuleType

from paigow.errors import PaigowError


class MissingExtra(PaigowError):
    """An optional dependency that this command needs is not installed."""


def require(module: str, extra: str) -> ModuleType:
    """Import ``module``, or raise :class:`MissingExtra` naming the extra that brings it."""
    try:
        return import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name != module.split(".")[0]:
            raise
        raise MissingExtra(f"{module} is not installed: pip install 'paigow[{extra}]'") from None
