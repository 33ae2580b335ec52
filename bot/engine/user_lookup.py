"""The user's row for an event, read once and within a bound: a stalled or failed read
must never hold a crisis reply back."""

from __future__ import annotations

import asyncio
import logging

from bot.core.events import Event
from bot.flows.context import KnownUser, Services
from bot.logs import get_logger, log_event
from bot.storage.users import find_user

# The router's logger: these events were always logged as the router's, and stay so.
log = get_logger("router")

# The user's row is read before the screen only for their country's helplines and their
# language. A stalled read must not hold a crisis reply back: past this, the screen answers
# as for a user whose country is unknown (the emergency line and the worldwide directory).
USER_LOOKUP_SECONDS = 0.3


async def known_user(services: Services, event: Event) -> KnownUser:
    db, address = services.db, event.address
    version = db.user_rows_version  # of before the read: a change meanwhile is seen
    try:
        # Bounded by the caller (USER_LOOKUP_SECONDS): read where that bound holds.
        user = await find_user(db.bounded, address.platform, address.user_id)
    except Exception as error:  # no lookup failure may keep a reply (or a crisis reply) back
        log_event(log, "user.lookup_failed", logging.WARNING, exc_info=error)
        return KnownUser()  # unknown, not absent: a step that needs it reads again
    return KnownUser(user, version)


async def within(lookup: asyncio.Future[KnownUser], seconds: float) -> tuple[KnownUser, bool]:
    """The lookup's user if it finishes within `seconds`, and whether it was late
    (the lookup goes on: the caller may still wait for it, or cancel it)."""
    try:
        return await asyncio.wait_for(asyncio.shield(lookup), seconds), False
    except TimeoutError:
        return KnownUser(), True
