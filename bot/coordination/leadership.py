"""Roles that one worker at a time may hold, chosen through the database.

Telegram lets one client poll a bot's updates (a second getUpdates is refused), and a
bot should hold one Discord gateway connection. With several workers on one PostgreSQL
database they campaign for these roles through advisory locks
(`bot.coordination.advisory_leadership`, which alone loads the PostgreSQL driver).

On SQLite there is one worker (the single-instance lock): it holds every role, and
`OnlyWorker` says so without asking anyone.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Protocol


class Role(StrEnum):
    TELEGRAM_POLLING = "telegram polling"
    DISCORD_GATEWAY = "discord gateway"


# Advisory lock keys, one per role: fixed numbers, so every worker and every version
# asks for the same lock. The high half spells "STDY", apart from keys other software
# on the same database might use.
ROLE_KEYS = {
    Role.TELEGRAM_POLLING: 0x5354_4459_0000_0001,
    Role.DISCORD_GATEWAY: 0x5354_4459_0000_0002,
}

Action = Callable[[], Awaitable[None]]


class Leadership(Protocol):
    def holds(self, role: Role) -> bool: ...

    async def serve(self, role: Role, on_gained: Action, on_lost: Action) -> None:
        """Run for as long as the worker runs (until cancelled): `on_gained` each time
        this worker takes `role`, `on_lost` each time it gives it up (and on cancel)."""
        ...


@dataclass
class OnlyWorker:
    """SQLite: this process is the only worker, so it holds every role it serves."""

    _held: set[Role] = field(default_factory=set)

    def holds(self, role: Role) -> bool:
        return role in self._held

    async def serve(self, role: Role, on_gained: Action, on_lost: Action) -> None:
        self._held.add(role)
        try:
            await on_gained()
            await asyncio.Event().wait()  # held until the worker stops
        finally:
            self._held.discard(role)
            await on_lost()
