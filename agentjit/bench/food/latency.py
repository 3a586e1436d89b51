"""Per-endpoint latency injection for the food site.

Each kind of endpoint has a :class:`Profile`: a lognormal body (median,
sigma) and, with probability ``tail_p``, a slow response drawn uniformly from
``tail`` seconds instead. Some endpoints are fast and tight, some heavy-tailed;
the scheduler's strategies differ exactly where the tails are. The table
:data:`PROFILES` is the one place to tune them.

Draws are common random numbers: the delay of a request depends only on the
seed, the current *draws label*, the endpoint kind, the request (method and
URL) and how many identical requests came before it since the last reset. It
does not depend on what other requests were made, or in which order. So two
runs of one task from a reset with the same label meet the same delays for
the same requests, whatever strategy each uses: a serial run and a hedged one
share the first replica's draw of the search page, and the second replica
gets a fresh, independent draw (the second identical request), as it would
from a real server. Comparing strategies on one demo run is then comparing
them on equal luck. A different label (the bench uses one per repeat) gives
an independent sample.
"""

from __future__ import annotations

import math
import random
import threading
from collections import Counter
from dataclasses import dataclass

__all__ = ["Profile", "PROFILES", "LatencyModel"]


@dataclass(frozen=True)
class Profile:
    median: float
    """Median of the lognormal body, seconds."""
    sigma: float
    """Log-space standard deviation of the body."""
    tail_p: float = 0.0
    """Probability of a slow response."""
    tail: tuple[float, float] = (0.0, 0.0)
    """Range (seconds) of a slow response."""

    def draw(self, rng: random.Random) -> float:
        if self.tail_p and rng.random() < self.tail_p:
            return rng.uniform(*self.tail)
        return rng.lognormvariate(math.log(self.median), self.sigma)


PROFILES: dict[str, Profile] = {
    # tight and fast: plans that only read the start page or a category run best serially
    "home": Profile(0.040, 0.20),
    "category": Profile(0.100, 0.20),
    "stores_api": Profile(0.020, 0.15),
    # slow but tight store pages: a loop over stores gains from fan-out, one store does not
    "store": Profile(1.000, 0.10),
    "reviews": Profile(0.500, 0.20),
    # heavy-tailed search, the first step of the ordering tasks: a race of replicas pays
    "search": Profile(0.300, 0.30, tail_p=0.50, tail=(5.0, 9.0)),
    "cart_api": Profile(0.030, 0.15),
    "cart": Profile(0.040, 0.20),
    "checkout": Profile(0.050, 0.20),
    "place_order": Profile(0.300, 0.30, tail_p=0.10, tail=(1.0, 2.0)),
    "order": Profile(0.040, 0.20),
}
"""Endpoint kind -> latency profile (before ``latency_scale``)."""


class LatencyModel:
    """Seeded, thread-safe draws of per-request delays, scaled by ``scale`` (0 disables them).

    See the module docstring: a delay is a function of ``(seed, label, kind,
    request, occurrence)``; :meth:`restart` starts a new label and forgets the
    occurrence counts.
    """

    def __init__(self, *, seed: int = 0, scale: float = 1.0, profiles: dict[str, Profile] | None = None):
        if scale < 0:
            raise ValueError(f"latency_scale must be >= 0, got {scale}")
        self.scale = scale
        self.seed = seed
        self.profiles = dict(PROFILES if profiles is None else profiles)
        self.label = ""
        self._seen: Counter[tuple[str, str]] = Counter()
        self._lock = threading.Lock()

    def restart(self, label: str = "") -> None:
        """Draw from the stream named ``label`` from now on, as if no request had been made."""
        with self._lock:
            self.label = label
            self._seen.clear()

    def delay(self, kind: str, request: str = "") -> float:
        """Seconds to wait before answering ``request`` (e.g. ``"GET /search?q=x"``) of endpoint ``kind``.

        0 for unknown kinds and with scale 0.
        """
        profile = self.profiles.get(kind)
        if profile is None or self.scale == 0:
            return 0.0
        with self._lock:
            self._seen[kind, request] += 1
            occurrence = self._seen[kind, request]
            label = self.label
        # a str seed is hashed with SHA-512 by random.Random: stable across processes and runs
        rng = random.Random(f"{self.seed}\x1f{label}\x1f{kind}\x1f{request}\x1f{occurrence}")
        return profile.draw(rng) * self.scale
