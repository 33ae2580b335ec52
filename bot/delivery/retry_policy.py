"""How long the outbox keeps at a scheduled message the platform did not take: attempts
after a failure, the wait between them, and how long it waits when the platform says when.

Bounded every way, so a long outage or a long flood wait never holds a sender forever or
becomes a retry storm. The attempts themselves are `Outbox._send`'s (`bot.delivery.outbox`).
"""

from __future__ import annotations

MAX_ATTEMPTS = 5
BACKOFF_BASE_SECONDS = 1.0
BACKOFF_CAP_SECONDS = 30.0
MAX_RETRY_AFTER_SECONDS = 300.0
MAX_RATE_LIMITED_SECONDS = 900.0  # in all, per message, waiting for the platform's 429s


def backoff_seconds(attempt: int) -> float:
    """1, 2, 4, 8 ... seconds, capped: bounded, so a long outage never becomes a retry storm."""
    return float(min(BACKOFF_CAP_SECONDS, BACKOFF_BASE_SECONDS * 2 ** (attempt - 1)))
