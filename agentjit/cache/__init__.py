"""The on-disk tool cache: tools, page schemas, latency fits, plan cache; atomic writes."""

from .store import (
    CACHE_FORMAT,
    CACHE_FORMAT_VERSION,
    CacheInfo,
    ToolCache,
    atomic_write_json,
    atomic_write_text,
)
from .suspects import SuspectStore

__all__ = ["CACHE_FORMAT", "CACHE_FORMAT_VERSION", "CacheInfo", "ToolCache", "atomic_write_json", "atomic_write_text", "SuspectStore"]
