"""What the scale benchmark's parts share: the recording platform their worker processes
send through, the tables copied from SQLite into PostgreSQL, and dropping a database."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

import asyncpg

from bot.core.events import Address
from bot.core.platform import SentMessage
from bot.core.replies import Reply

COPIED_TABLES = ("users", "checkin_slots")


@dataclass
class RecordingSends:
    """The platform: notes each user a message went to, on stdout as it happens (a
    worker killed mid-dispatch has told the parent everything it sent)."""

    delay_s: float
    platform: str = "bench"
    sent: int = 0

    async def start(self) -> None:
        return None

    async def stop(self) -> None:
        return None

    async def send(self, address: Address, reply: Reply) -> SentMessage | None:
        if self.delay_s:
            await asyncio.sleep(self.delay_s)
        self.sent += 1
        print(f"sent {address.user_id}", flush=True)
        return None

    async def delete(self, message: SentMessage) -> bool:
        return False


async def drop_database(server: str, url: str) -> None:
    admin = await asyncpg.connect(server)
    try:
        await admin.execute(f'DROP DATABASE IF EXISTS "{url.rsplit("/", 1)[1]}" WITH (FORCE)')
    finally:
        await admin.close()
