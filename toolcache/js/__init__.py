"""The in-page JavaScript of generated tools, shipped as package files.

``page.js`` names the page the browser is on (``__pageOf``, ``__page``: the
rules of :func:`toolcache.pages.page_name`); ``prelude.js`` holds the helpers
every generated tool body may call (``__clean``, ``__find``, ``__setValue``,
``__settle``, ``__watchWrites``, ...). :func:`source` reads one.
"""

from __future__ import annotations

from functools import cache
from importlib import resources

__all__ = ["source"]


@cache
def source(name: str) -> str:
    """The text of the package file ``name`` (``"prelude.js"``)."""
    return resources.files(__name__).joinpath(name).read_text(encoding="utf-8")
