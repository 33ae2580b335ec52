"""The doctor's findings: one line per check, `ok`, `FAIL` or `skip`, then what it saw."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Status(StrEnum):
    OK = "ok"
    FAIL = "FAIL"  # upper case: the line an operator's eye must catch
    SKIP = "skip"


@dataclass(frozen=True, slots=True)
class Finding:
    check: str  # what was checked, the same words every time: "database", "key"
    status: Status
    detail: str  # what was seen, or what to do; one line, never a secret

    @property
    def line(self) -> str:
        return f"{self.status.value:<5} {self.check}: {self.detail}"


def ok(check: str, detail: str) -> Finding:
    return Finding(check, Status.OK, detail)


def failed(check: str, detail: str) -> Finding:
    return Finding(check, Status.FAIL, detail)


def skipped(check: str, detail: str) -> Finding:
    return Finding(check, Status.SKIP, detail)


def summary(findings: list[Finding]) -> str:
    counts = {status: sum(f.status is status for f in findings) for status in Status}
    return (
        f"steady doctor: {counts[Status.OK]} ok, {counts[Status.FAIL]} failed,"
        f" {counts[Status.SKIP]} skipped."
    )


def size(count: float) -> str:
    """Bytes for a person: 950 B, 12.3 MB, 61 GB."""
    for unit in ("B", "kB", "MB", "GB"):
        if count < 1000:
            return f"{count:.0f} {unit}" if unit == "B" or count >= 100 else f"{count:.1f} {unit}"
        count /= 1000
    return f"{count:.1f} TB"
