"""The Fava tests: skipped when Fava is not installed (the site fixtures live in tests/conftest.py)."""

from __future__ import annotations

import pytest

pytest.importorskip("fava", reason="the Fava bench app needs fava (pip install 'agentjit[dev]')")
