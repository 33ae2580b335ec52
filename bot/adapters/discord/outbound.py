"""What Discord's two ways of posting share: a channel message and an interaction's
followup are both "send these words, maybe a view, maybe a file", and both come back as
a message that can be edited later."""

from __future__ import annotations

import io
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

import discord

from bot.adapters.discord.render import NO_MENTIONS
from bot.adapters.lanes import Caps
from bot.coordination.send_budget import DISCORD_CHANNEL, DISCORD_OVERALL
from bot.core.replies import Image

# Discord's limits as the lanes keep them: 50 requests a second for the bot, 5 messages
# in 5 seconds in a channel (a DM is a channel too). Looked up when an adapter is made,
# so a bench can switch them off at run time.
DISCORD_CAPS = Caps(DISCORD_OVERALL, group=DISCORD_CHANNEL, private=DISCORD_CHANNEL)


class Editable(Protocol):
    """A sent message we can change: a channel message or an interaction's webhook message."""

    id: int

    async def edit(self, *, content: str, view: Any, allowed_mentions: Any) -> Any: ...


Poster = Callable[[str, discord.ui.View | None, discord.File | None], Awaitable[Editable]]


def poster(send: Callable[..., Awaitable[Any]], **options: Any) -> Poster:
    """`send` (a channel's, or a followup webhook's) as a Poster, with its fixed `options`
    (silent, ephemeral ...) and never a mention."""

    async def post(
        content: str, view: discord.ui.View | None, file: discord.File | None
    ) -> Editable:
        # discord.py takes "not given" rather than None for these two.
        extra: dict[str, Any] = {}
        if view is not None:
            extra["view"] = view
        if file is not None:
            extra["file"] = file
        message: Editable = await send(content, allowed_mentions=NO_MENTIONS, **options, **extra)
        return message

    return post


async def post_piece(
    post: Poster, piece: str, view: discord.ui.View | None, image: Image | None
) -> Editable:
    # A fresh File for every attempt: a file object is read once when it is sent.
    file = None if image is None else discord.File(io.BytesIO(image.png), filename=image.filename)
    return await post(piece, view, file)
