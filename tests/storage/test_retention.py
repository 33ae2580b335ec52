from __future__ import annotations

from datetime import timedelta

from bot.core.clock import ManualClock
from bot.flows.context import Services
from bot.storage.retention import purge_expired
from bot.storage.user_texts import TextKind, list_texts
from bot.storage.users import find_user
from tests.conversation import Conversation


async def test_history_older_than_the_retention_is_deleted_reasons_stay(
    chat: Conversation, services: Services, clock: ManualClock
) -> None:
    await chat.send("/checkin")
    await chat.send("2")
    await chat.send("none")
    await chat.send("an old note")
    await chat.send("/reasons")
    await chat.press("Add a reason")
    await chat.send("my own reason")
    clock.advance(timedelta(days=100))
    await chat.send("/checkin")
    await chat.send("4")
    await chat.send("none")
    await chat.send("a recent note")

    purged = await purge_expired(services.db, clock.now(), retention_days=90)
    assert purged.checkins == 1
    rows = await services.db.fetch_all("SELECT mood FROM checkins")
    assert [row["mood"] for row in rows] == [4]
    user = await find_user(services.db, "console", "u1")
    assert user is not None
    reasons = await list_texts(services.db, services.cipher, TextKind.REASON, user.id)
    assert [r.text for r in reasons] == ["my own reason"]
    assert (await purge_expired(services.db, clock.now(), retention_days=90)).checkins == 0
