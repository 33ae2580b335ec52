"""An adapter that records what would have been sent, and can be told to fail like a platform."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

from bot.core.events import Address
from bot.core.platform import DeliveryError, SentMessage
from bot.core.replies import Reply


@dataclass
class RecordingAdapter:
    platform: str = "test"
    sent: list[tuple[Address, Reply]] = field(default_factory=list)
    failures: deque[DeliveryError] = field(default_factory=deque)

    async def start(self) -> None:
        return None

    async def stop(self) -> None:
        return None

    async def send(self, address: Address, reply: Reply) -> SentMessage | None:
        if self.failures:
            raise self.failures.popleft()
        self.sent.append((address, reply))
        return SentMessage(address, str(len(self.sent)))

    async def delete(self, message: SentMessage) -> bool:
        return False

    def take(self) -> list[tuple[Address, Reply]]:
        taken, self.sent = self.sent, []
        return taken
