"""The contract every platform adapter keeps. The core never sees a platform object."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from bot.core.events import Address
from bot.core.replies import Reply


@dataclass(frozen=True, slots=True)
class SentMessage:
    """What an adapter reports back about a delivered message, so it can be edited later."""

    address: Address
    message_id: str


class Adapter(Protocol):
    """One platform. The core sends every platform the same `Reply`; each adapter shows it
    as well as its platform can (see `Reply`): frames only where a message can be edited,
    numbered choices for buttons on the console, text cut to the platform's length."""

    platform: str

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


class DeliveryError(Exception):
    """A send failed. Adapters raise the subclasses below; nothing platform-specific leaks."""


class RecipientUnreachable(DeliveryError):
    """The user blocked the bot or closed their DMs: stop sending until they write again."""


class RetryAfter(DeliveryError):
    """The platform asked us to wait before sending again."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"retry after {seconds} s")
        self.seconds = seconds


class TransientDeliveryError(DeliveryError):
    """A network error or timeout: worth another try after a pause."""


class DeliveryUncertain(DeliveryError):
    """The request went out but its answer never came (a read timeout): the platform may
    well have delivered it. Scheduled sends count it as sent, so a check-in is never
    doubled; a reply to what a user just did is tried again: better twice than never."""


class LoginRefused(Exception):
    """The platform refused the bot's token at start-up: nothing to retry, tell the operator."""
