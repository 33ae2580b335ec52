"""/mydata against the schema: every table that holds a user's rows shows in the export."""

from __future__ import annotations

import json
from collections.abc import Callable

from bot.content_pack.ids import CheckinMsg
from bot.flows.context import Services
from bot.flows.mydata import EXPORTED_TABLES, export_fields
from bot.storage.user_data import tables_with_user_data
from tests.helpers.conversation import Conversation
from tests.helpers.schema import blob_type


async def test_every_table_holding_user_data_shows_in_the_export(services: Services) -> None:
    # A migration adding a table with a `user_id` (or a creator) fails here until
    # EXPORTED_TABLES says which part of /mydata shows it, and that part exists.
    assert await tables_with_user_data(services.db) == frozenset(EXPORTED_TABLES)
    shown = {part for parts in EXPORTED_TABLES.values() for part in parts}
    assert shown == export_fields()


async def test_a_new_table_with_user_data_is_noticed(services: Services) -> None:
    async with services.db.transaction() as tx:
        await tx.execute(
            "CREATE TABLE diary"
            f" (id INTEGER PRIMARY KEY, user_id INTEGER, body {blob_type(services.db)})"
        )
    assert await tables_with_user_data(services.db) - frozenset(EXPORTED_TABLES) == {"diary"}


async def test_mydata_shows_the_question_kept_for_the_current_step(chat: Conversation) -> None:
    await chat.send("/checkin")
    question = chat.last[-1]
    assert question.buttons
    await chat.send("/mydata")
    data = json.loads(chat.last[-1].text)
    assert data["current_flow"]["question_asked"] == question.text
    assert data["current_flow"]["question_buttons"] == [b.label for b in question.flat_buttons]


async def test_mydata_shows_which_reply_was_shown_last(
    chat: Conversation, text_of: Callable[..., str]
) -> None:
    await chat.send("/checkin")
    await chat.press(text_of(CheckinMsg.MOOD_4))
    await chat.press(text_of(CheckinMsg.URGE_NONE))
    await chat.press(text_of(CheckinMsg.SKIP_NOTE))
    await chat.send("/mydata")
    data = json.loads(chat.last[-1].text)
    assert data["profile"]["last_reply_shown"] in data["content_seen"]["reply"]
