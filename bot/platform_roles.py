"""What of each platform this worker runs, and handing over what one worker at a time may.

With several workers every one of them starts each platform as a follower: it sends
(replies, scheduled messages) and, for Telegram in webhook mode, receives too. What a
bot may have only once, Telegram's polling and Discord's gateway connection, is a role
(`bot.coordination.leadership`): the worker that wins it adds that part, and drops it
again when it loses the role.

This wires adapters together, as `bot.app` does, so it sits beside it: the engine uses
`bot.coordination`, which must not reach back up to the adapters.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass

from bot.adapters.discord.adapter import DiscordAdapter
from bot.adapters.telegram.adapter import TelegramAdapter
from bot.coordination.leadership import Leadership, Role
from bot.core.platform import Adapter

Action = Callable[[], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class FollowerStart:
    """An adapter whose `start` begins it as a follower: for `start_with_retries`."""

    adapter: Adapter
    begin: Action

    @property
    def platform(self) -> str:
        return self.adapter.platform

    async def start(self) -> None:
        await self.begin()

    async def stop(self) -> None:
        await self.adapter.stop()


@dataclass(frozen=True, slots=True)
class LedPart:
    """The part of one platform that only the holder of `role` runs."""

    role: Role
    take_lead: Action
    hand_over: Action


def telegram_part(adapter: TelegramAdapter) -> tuple[FollowerStart, LedPart]:
    return (
        FollowerStart(adapter, lambda: adapter.start(poll=False)),
        LedPart(Role.TELEGRAM_POLLING, adapter.start_polling, adapter.stop_polling),
    )


def discord_part(adapter: DiscordAdapter) -> tuple[FollowerStart, LedPart]:
    # discord.py cannot drop a gateway connection and keep its HTTP session: the adapter
    # is started again with or without it. Sends in that moment fail, and the outbox
    # tries them again.
    async def with_gateway() -> None:
        await adapter.stop()
        await adapter.start(gateway=True)

    async def without_gateway() -> None:
        await adapter.stop()
        await adapter.start(gateway=False)

    return (
        FollowerStart(adapter, lambda: adapter.start(gateway=False)),
        LedPart(Role.DISCORD_GATEWAY, with_gateway, without_gateway),
    )


def led_parts(
    adapters: Mapping[str, Adapter], webhook: bool
) -> tuple[list[FollowerStart], list[LedPart]]:
    """How each adapter starts as a follower, and the parts that need the lead. Telegram
    in webhook mode has none: every worker serves the webhook."""
    followers: list[FollowerStart] = []
    parts: list[LedPart] = []
    for adapter in adapters.values():
        if isinstance(adapter, TelegramAdapter) and not webhook:
            follower, part = telegram_part(adapter)
        elif isinstance(adapter, DiscordAdapter):
            follower, part = discord_part(adapter)
        else:
            followers.append(FollowerStart(adapter, adapter.start))
            continue
        followers.append(follower)
        parts.append(part)
    return followers, parts


def campaign(leadership: Leadership, parts: list[LedPart]) -> list[asyncio.Task[None]]:
    """One task per part, for as long as the worker runs: cancel them to stop."""
    return [
        asyncio.create_task(
            leadership.serve(part.role, part.take_lead, part.hand_over),
            name=f"campaign-{part.role.value}",
        )
        for part in parts
    ]
