"""What happened to each plan of the corpus, and the report over all of them."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any


@dataclass
class PlanVerdict:
    """What happened to one plan, and whether that is what its label asks for."""

    id: str
    cls: str
    expect: str
    check_valid: bool | None = None
    check_codes: list[str] = field(default_factory=list)
    outcome: str = "not run"
    """``ok`` (the plan finished), ``error`` (an agentjit error), ``hang``, ``crash``."""
    error_type: str | None = None
    error: str | None = None
    value: str | None = None
    elapsed_s: float = 0.0
    escapes: list[str] = field(default_factory=list)
    hang: str | None = None
    crash: str | None = None
    mismatch: str | None = None
    gate: bool = False
    solo: bool = False
    """The plan ran alone in its worker (a re-run after a hang or a crash beside it)."""

    @property
    def clean(self) -> bool:
        return not (self.escapes or self.hang or self.crash or self.mismatch)

    def problems(self) -> list[str]:
        out = [f"ESCAPE: {e}" for e in self.escapes]
        if self.hang:
            out.append(f"HANG: {self.hang}")
        if self.crash:
            out.append(f"CRASH: {self.crash}")
        if self.mismatch:
            out.append(f"MISMATCH: {self.mismatch}")
        return out

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclass
class SandboxReport:
    """The whole corpus run: verdicts, per-class counts, totals, wall time."""

    corpus: str
    verdicts: list[PlanVerdict]
    wall_s: float
    time_limit_s: float
    grace_s: float
    limits_supported: bool
    browser: str | None = None
    worker_restarts: int = 0

    def classes(self) -> list[dict[str, Any]]:
        rows: dict[str, dict[str, Any]] = {}
        for v in self.verdicts:
            row = rows.setdefault(v.cls, _count_row(v.cls))
            _add(row, v)
        return [rows[k] for k in sorted(rows)]

    @property
    def totals(self) -> dict[str, Any]:
        row = _count_row("total")
        for v in self.verdicts:
            _add(row, v)
        return row

    @property
    def failures(self) -> list[PlanVerdict]:
        return [v for v in self.verdicts if not v.clean]

    @property
    def ok(self) -> bool:
        return not self.failures

    def to_dict(self) -> dict[str, Any]:
        return {
            "corpus": self.corpus,
            "wall_s": round(self.wall_s, 2),
            "time_limit_s": self.time_limit_s,
            "grace_s": self.grace_s,
            "limits_supported": self.limits_supported,
            "browser": self.browser,
            "worker_restarts": self.worker_restarts,
            "totals": self.totals,
            "classes": self.classes(),
            "plans": [v.to_dict() for v in self.verdicts],
        }

    def failure_listing(self, limit: int | None = None) -> str:
        """One block per offending plan: its file and what happened (for test failures)."""
        lines = []
        for v in self.failures[:limit]:
            lines.append(f"{v.id} (expect {v.expect}, outcome {v.outcome}):")
            lines += [f"    {p}" for p in v.problems()]
        return "\n".join(lines)


def _count_row(name: str) -> dict[str, Any]:
    return {"class": name, "plans": 0, "reject": 0, "stopped": 0, "ok": 0, "escapes": 0, "hangs": 0,
            "crashes": 0, "mismatches": 0, "gate": 0, "time_s": 0.0}  # fmt: skip


def _add(row: dict[str, Any], v: PlanVerdict) -> None:
    row["plans"] += 1
    row[v.expect] += 1
    row["escapes"] += bool(v.escapes)
    row["hangs"] += bool(v.hang)
    row["crashes"] += bool(v.crash)
    row["mismatches"] += bool(v.mismatch)
    row["gate"] += v.gate
    row["time_s"] = round(row["time_s"] + v.elapsed_s, 2)

