"""The contract every platform adapter keeps. The core never sees a platform object."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from bot.core.events import Address
from bot.core.replies import Reply


@dataclass(frozen=True, slots=True)
class Capabilities:
    buttons: bool
    edits: bool
    max_text_length: int
    ephemeral: bool
    images: bool


@dataclass(frozen=True, slots=True)
class SentMessage:
    """What an adapter reports back about a delivered message, so it can be edited later."""

    address: Address
    message_id: str


class Adapter(Protocol):
    platform: str
    capabilities: Capabilities

    async def start(self) -> None:
        """Connect and begin delivering inbound events to the router."""
        ...

    async def stop(self) -> None:
        """Stop receiving, finish what is in flight, disconnect."""
        ...

    async def send(self, address: Address, reply: Reply) -> SentMessage | None:
        """Deliver one reply (or edit `reply.edit_of`)."""
        ...

    async def delete(self, message: SentMessage) -> bool:
        """Remove an earlier message; False if the platform no longer allows it."""
        ...
