from __future__ import annotations

import json
from collections.abc import Callable

from bot.content_pack.commands import Command
from bot.content_pack.ids import AnswersMsg, GeneralMsg, PauseMsg
from bot.content_pack.pack import ContentPack
from bot.flows.affirm import AffirmStep
from bot.flows.context import Services
from bot.flows.names import FlowName
from bot.storage.affirmations_seen import seen_affirmations
from bot.storage.users import find_user
from tests.helpers.conversation import Conversation


async def test_help_lists_every_command_once(chat: Conversation, content: ContentPack) -> None:
    await chat.send("/help")
    lines = chat.text.splitlines()
    for command in Command:
        matching = [line for line in lines if line.startswith(f"/{command.value} - ")]
        assert len(matching) == 1, command


async def test_help_and_unknown_input_store_nothing(
    chat: Conversation, services: Services, text_of: Callable[..., str]
) -> None:
    await chat.send("/help")
    await chat.send("/about")
    assert chat.text == text_of(GeneralMsg.ABOUT)
    await chat.send("/nonsense")
    assert chat.text == text_of(GeneralMsg.UNKNOWN_COMMAND)
    await chat.send("hello there")
    assert chat.text == text_of(AnswersMsg.BEFORE_START)  # never begun: how to begin
    assert await find_user(services.db, "console", "u1") is None


async def test_commands_addressed_to_the_bot_by_name_work(
    chat: Conversation, text_of: Callable[..., str]
) -> None:
    await chat.send("/ABOUT@steady_bot")
    assert chat.text == text_of(GeneralMsg.ABOUT)


async def test_affirmations_do_not_repeat_until_all_were_seen(
    chat: Conversation, services: Services, content: ContentPack
) -> None:
    pack_texts = [affirmation.text for affirmation in content.affirmations("en")]
    shown = []
    for _ in pack_texts:
        await chat.send("/affirm")
        shown.append(chat.text)
    assert sorted(shown) == sorted(pack_texts)

    await chat.send("/affirm")  # a new round starts, but never with the last one shown
    assert chat.text != shown[-1]
    user = await find_user(services.db, "console", "u1")
    assert user is not None
    assert len(await seen_affirmations(services.db, user.id)) == 1


async def test_mydata_shows_everything_decrypted(chat: Conversation) -> None:
    await chat.send("/start")
    await chat.send("Asia/Kathmandu")
    await chat.send("06:45")
    await chat.send("/checkin")
    await chat.send("1")
    await chat.send("some")
    await chat.send("rough morning <b>really</b>")
    await chat.send("/affirm")
    affirmation = chat.last[-1]
    await chat.send("/mydata")
    document = chat.last[-1]
    assert document.protect  # it quotes the user's own words
    data = json.loads(document.text)
    assert data["profile"]["timezone"] == "Asia/Kathmandu"
    assert data["profile"]["checkin_times"] == ["06:45"]
    assert (data["profile"]["platform_user_id"], data["profile"]["chat_id"]) == ("u1", "c1")
    assert data["pending_snooze_at"] is None and data["sent_message_ids_kept"] == 0
    assert data["profile"]["days"] == "daily"
    assert [(c["mood"], c["urge"], c["note"]) for c in data["checkins"]] == [
        (1, "some", "rough morning <b>really</b>")
    ]
    assert len(data["affirmations_seen"]) == 1
    # /affirm left its "Another thought" button on offer; nothing else is open.
    assert data["current_flow"] == {
        "flow": FlowName.AFFIRM,
        "step": AffirmStep.SHOWN,
        "draft_waiting": None,
        "text_waiting": None,
        "question_asked": affirmation.text,  # kept to be asked again after a restart
        "question_buttons": [button.label for button in affirmation.flat_buttons],
    }


async def test_mydata_shows_a_draft_still_waiting_for_keep_or_let_go(
    chat: Conversation, text_of: Callable[..., str]
) -> None:
    await chat.send("/pause")
    await chat.press(text_of(PauseMsg.PAUSE_WRITE))
    await chat.send("the words I did not send, kiwi-77")
    await chat.send("/mydata")
    data = json.loads(chat.last[-1].text)
    assert data["current_flow"]["draft_waiting"] == "the words I did not send, kiwi-77"
