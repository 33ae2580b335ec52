"""What the bot sent in private chats, kept for /wipe: ids and times only, never words.

Sends are noted in memory and written in batches (a write per message would put the
database in the path of every reply); /wipe writes what is pending before it reads.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import timedelta

from bot.content_pack.ids import DataMsg
from bot.content_pack.pack import ContentPack
from bot.core.clock import Clock
from bot.core.events import Address
from bot.core.replies import Reply
from bot.logs import get_logger, log_event
from bot.storage import sent_messages
from bot.storage.db import Database
from bot.storage.sent_messages import SentRecord
from bot.storage.users import find_user

log = get_logger("sent_log")

RECORD_FLUSH_SECONDS = 2.0


@dataclass(frozen=True, slots=True)
class DeleteWindow:
    """How long a platform lets a bot delete its own messages, and how long records are
    kept: longer than that, so /wipe can say how many older messages it could not delete."""

    deletable: timedelta
    kept: timedelta


class SentLog:
    def __init__(self, db: Database, clock: Clock, platform: str, window: DeleteWindow) -> None:
        self._db = db
        self._clock = clock
        self._platform = platform
        self._window = window
        self._unrecorded: list[SentRecord] = []

    def remember(self, address: Address, message_id: str) -> None:
        """Note a message sent in a private chat (group messages are not the user's own)."""
        if not address.is_group:
            self._unrecorded.append(
                SentRecord(
                    self._platform, address.user_id, address.chat_id, message_id, self._clock.now()
                )
            )

    async def flush(self) -> None:
        records = self._unrecorded[:]
        if not records:
            return
        async with self._db.transaction() as tx:
            await sent_messages.record(tx, records)  # old ones go in the daily purge
        del self._unrecorded[: len(records)]  # only what was written: newer ones wait

    async def flush_forever(self) -> None:
        while True:
            await asyncio.sleep(RECORD_FLUSH_SECONDS)
            try:
                await self.flush()
            except Exception as error:  # try again next time; the records are kept
                log_event(log, "sent_log.records_failed", logging.WARNING, exc_info=error)

    async def wipe(
        self,
        address: Address,
        delete: Callable[[Address, str], Awaitable[bool]],
        content: ContentPack,
    ) -> Reply:
        """/wipe: delete the bot's messages in this chat that the platform still allows
        deleting (`delete(address, message_id)`, False when it could not); the reply says
        plainly how many could not be (too old)."""
        await self.flush()
        mine = await sent_messages.tracked(
            self._db, self._platform, address.user_id, address.chat_id
        )
        cutoff = self._clock.now() - self._window.deletable
        deleted = kept = 0
        for message in mine:
            if message.sent_at <= cutoff:
                kept += 1
            elif await delete(address, message.message_id):
                deleted += 1
            # else: already gone (the user deleted it), or the platform refused this one:
            # not counted as "too old", which would be untrue.
        async with self._db.transaction() as tx:
            await sent_messages.forget_tracked(tx, [message.id for message in mine])
        user = await find_user(self._db, self._platform, address.user_id)
        locale = user.locale if user is not None else content.default_locale
        said = content.text(locale, DataMsg.WIPE_DONE, deleted=deleted)
        if kept:  # each count in its own sentence, so each agrees with its own number
            said = f"{said} {content.text(locale, DataMsg.WIPE_PARTLY, kept=kept)}"
        return Reply(said)
