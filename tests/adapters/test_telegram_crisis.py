"""Crisis help on Telegram that never fails: every link into the private chat lands on a
real command, every text a user can send or change is screened, a stalled database does
not hold the crisis reply back, and a group never learns who is in crisis."""

from __future__ import annotations

import asyncio
import urllib.parse
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime
from typing import Any

import pytest

from bot.content_pack.commands import Command
from bot.content_pack.ids import CheckinMsg, GeneralMsg, OnboardingMsg, SafetyMsg
from bot.content_pack.pack import ContentPack
from bot.core.clock import ManualClock
from bot.engine import router as router_module
from bot.flows.context import Services
from bot.flows.onboarding import OnboardingStep
from bot.storage.flow_positions import get_position
from bot.storage.users import find_user
from tests.fakes.telegram_api import StoredMessage
from tests.helpers.telegram_world import TelegramWorld, running_telegram

CRISIS = "i want to die"
GROUP = -7001
OTHER_GROUP = -7003


def berlin_confirmed(text_of: Callable[..., str]) -> str:
    """The zone question's confirmation for Berlin at the world's clock (09:00 UTC)."""
    return text_of(
        OnboardingMsg.TIMEZONE_CONFIRM, place="Berlin, Germany (Europe/Berlin)", time="10:00"
    )


ANA, BEN = 1101, 1102


async def answered(world: TelegramWorld, update: dict[str, Any]) -> None:
    """Wait until the adapter has finished with the update: every reply is out."""
    await world.settled()


async def sends(world: TelegramWorld, chat: int, text: str, **how: Any) -> dict[str, Any]:
    update = world.tg.user_sends_text(chat, how.pop("user_id", chat), text, **how)
    await answered(world, update)
    return update


def link_payloads(message: StoredMessage, bot_username: str) -> list[str]:
    """The start payloads of the message's link buttons."""
    found = []
    for row in (message.reply_markup or {}).get("inline_keyboard", []):
        for button in row:
            url = urllib.parse.urlsplit(button.get("url", ""))
            if url.netloc == "t.me" and url.path == f"/{bot_username}":
                [payload] = urllib.parse.parse_qs(url.query)["start"]
                found.append(payload)
    return found


async def payloads_the_group_can_show(world: TelegramWorld) -> dict[str, int]:
    """Every start payload Steady puts in a group: pointers for each command, the crisis
    fallback and the reminder post. Payload -> the group message that showed it."""
    tg = world.tg
    shown: dict[str, int] = {}

    def collect() -> None:
        for chat in (GROUP, OTHER_GROUP):
            for message in world.bot_messages(chat):
                for payload in link_payloads(message, tg.bot_username):
                    shown.setdefault(payload, message.message_id)

    for command in Command:
        tg.a_minute_passes_in_groups()  # one pointer a minute: no flood limit reached
        await sends(world, GROUP, f"/{command.value}@{tg.bot_username}", user_id=ANA,
                    chat_type="group")  # fmt: skip
    tg.a_minute_passes_in_groups()
    tg.inject_blocked(BEN, method="sendMessage", times=None)  # never opened a private chat
    await sends(world, GROUP, CRISIS, user_id=BEN, chat_type="group")
    tg.clear_faults()
    tg.set_member_status(GROUP, ANA, "administrator")
    world.clock.set(datetime(2026, 3, 2, 8, 0, tzinfo=UTC))
    await sends(world, GROUP, "/reminder add 09:00 UTC", user_id=ANA, chat_type="group")
    world.clock.set(datetime(2026, 3, 2, 9, 0, tzinfo=UTC))
    await world.dispatcher.tick()
    await world.outbox.drain()
    collect()
    return shown


async def test_every_link_the_bot_shows_lands_on_its_command(
    telegram: TelegramWorld, content: ContentPack, text_of: Callable[..., str]
) -> None:
    shown = await payloads_the_group_can_show(telegram)
    assert {"sos", "checkin", "start"} <= set(shown)
    affirmations = {item.text for item in content.affirmations("en")}
    for number, payload in enumerate(sorted(shown)):
        linked, typed = 5000 + 2 * number, 5001 + 2 * number  # two people who never wrote
        await sends(telegram, linked, f"/start {payload}")  # what tapping the link sends
        await sends(telegram, typed, f"/{payload}")
        via_link, direct = telegram.tg.sent_texts(linked), telegram.tg.sent_texts(typed)
        assert via_link, payload
        assert text_of(GeneralMsg.UNKNOWN_COMMAND) not in via_link, payload
        if payload == Command.AFFIRM.value:  # a random thought each time
            assert {via_link[0], direct[0]} <= affirmations
        else:
            assert via_link == direct, payload


async def test_start_sos_shows_help_at_once_and_onboarding_still_follows(
    telegram: TelegramWorld, content: ContentPack, text_of: Callable[..., str]
) -> None:
    await sends(telegram, ANA, "/start sos")
    [help_now] = telegram.tg.sent_texts(ANA)
    assert help_now == telegram.router.safety.sos_replies("en", None, False)[0].text
    await sends(telegram, ANA, "/start")
    welcome = content.text_on(
        "en", OnboardingMsg.WELCOME, "telegram"
    )  # Telegram's own privacy note
    assert telegram.tg.sent_texts(ANA)[1:] == [welcome, text_of(OnboardingMsg.ASK_TIMEZONE)]
    await sends(telegram, ANA, "Europe/Berlin")
    assert telegram.last_text(ANA) == berlin_confirmed(text_of)


# Edits and captions ---------------------------------------------------------------------


async def test_a_crisis_written_into_an_edit_gets_the_crisis_reply(
    telegram: TelegramWorld, text_of: Callable[..., str]
) -> None:
    first = await sends(telegram, ANA, "hello")
    before = len(telegram.bot_messages(ANA))
    await answered(telegram, telegram.tg.user_edits(ANA, first["message"]["message_id"], CRISIS))
    [reply] = telegram.tg.sent_texts(ANA)[before:]
    assert reply.startswith(text_of(SafetyMsg.SAFETY_CRISIS_INTRO))


async def test_an_ordinary_edit_shows_nothing_and_answers_no_question(
    telegram: TelegramWorld, services: Services, text_of: Callable[..., str]
) -> None:
    first = await sends(telegram, ANA, "/start")
    assert telegram.last_text(ANA) == text_of(OnboardingMsg.ASK_TIMEZONE)
    before = len(telegram.tg.calls_to("sendMessage"))
    edit = telegram.tg.user_edits(ANA, first["message"]["message_id"], "Europe/Berlin")
    await answered(telegram, edit)
    assert len(telegram.tg.calls_to("sendMessage")) == before  # nothing visible
    user = await find_user(services.db, "telegram", str(ANA))
    assert user is not None and user.timezone is None
    position = await get_position(services.db, user.id)
    assert position is not None and position.step == OnboardingStep.TIMEZONE  # still asking


@pytest.mark.parametrize("kind", ["photo", "video", "document"])
async def test_a_crisis_in_a_caption_gets_the_crisis_reply(
    telegram: TelegramWorld, kind: str, text_of: Callable[..., str]
) -> None:
    await answered(telegram, telegram.tg.user_sends_media(ANA, ANA, kind, caption=CRISIS))
    [reply] = telegram.tg.sent_texts(ANA)
    assert reply.startswith(text_of(SafetyMsg.SAFETY_CRISIS_INTRO))


async def test_a_crisis_in_a_changed_caption_gets_the_crisis_reply(
    telegram: TelegramWorld, text_of: Callable[..., str]
) -> None:
    photo = telegram.tg.user_sends_media(ANA, ANA, "photo", caption="the view today")
    await answered(telegram, photo)
    before = len(telegram.bot_messages(ANA))
    await answered(telegram, telegram.tg.user_edits(ANA, photo["message"]["message_id"], CRISIS))
    [reply] = telegram.tg.sent_texts(ANA)[before:]
    assert reply.startswith(text_of(SafetyMsg.SAFETY_CRISIS_INTRO))


async def test_an_ordinary_caption_is_a_text_message(
    telegram: TelegramWorld, text_of: Callable[..., str]
) -> None:
    await sends(telegram, ANA, "/start")
    media = telegram.tg.user_sends_media(ANA, ANA, "document", caption="Europe/Berlin")
    await answered(telegram, media)
    assert telegram.last_text(ANA) == berlin_confirmed(text_of)  # taken as the answer it is
    await answered(telegram, telegram.tg.user_sends_media(ANA, ANA, "photo"))  # no words
    assert telegram.last_text(ANA) == berlin_confirmed(text_of)


# A stalled database ---------------------------------------------------------------------


async def test_a_hanging_database_read_does_not_delay_the_crisis_reply(
    telegram: TelegramWorld,
    stalled_reads: Callable[[], asyncio.Event],
    monkeypatch: pytest.MonkeyPatch,
    text_of: Callable[..., str],
) -> None:
    for said in ("/start", "Europe/Berlin", "08:30"):
        await sends(telegram, ANA, said)
    before = len(telegram.tg.calls)
    release = stalled_reads()
    pushed = asyncio.get_running_loop().time()
    telegram.tg.user_sends_text(ANA, ANA, CRISIS)
    sent = await telegram.tg.wait_for("sendMessage", timeout=1.0, since=before)
    assert asyncio.get_running_loop().time() - pushed < 1.0
    found = telegram.router.safety.screen(CRISIS, "en", None, is_group=False)
    assert found is not None
    assert telegram.last_text(ANA) == found.replies[0].text  # for a country not known yet
    assert sent.ok
    # In a group too: the help privately, the neutral line in public.
    before = len(telegram.tg.calls)
    telegram.tg.user_sends_text(GROUP, BEN, CRISIS, chat_type="group")
    await telegram.tg.wait_for(
        lambda call: call.method == "sendMessage" and call.params["chat_id"] == GROUP,
        timeout=1.0,
        since=before,
    )
    assert telegram.tg.sent_texts(BEN)[0].startswith(text_of(SafetyMsg.SAFETY_CRISIS_INTRO))
    # Anything else waits on the database, then hears kindly that it could not be done.
    monkeypatch.setattr(router_module, "USER_LOOKUP_GIVE_UP_SECONDS", 0.2)
    await sends(telegram, ANA, "/checkin")
    assert telegram.last_text(ANA) == text_of(GeneralMsg.SOMETHING_WENT_WRONG)
    release.set()
    await sends(telegram, ANA, "/checkin")  # the disk is back: all as usual
    assert text_of(CheckinMsg.ASK_MOOD) in telegram.last_text(ANA)


# Groups: nothing points at anyone -------------------------------------------------------


def public_after(world: TelegramWorld, count: int) -> list[StoredMessage]:
    return world.bot_messages(GROUP)[count:]


async def test_the_group_hears_a_neutral_line_not_who_is_in_crisis(
    telegram: TelegramWorld, text_of: Callable[..., str]
) -> None:
    await sends(telegram, GROUP, CRISIS, user_id=ANA, chat_type="group", first_name="Ana",
                username="ana_h")  # fmt: skip
    [public] = public_after(telegram, 0)
    assert public.text == text_of(SafetyMsg.SAFETY_GROUP_PUBLIC)
    assert telegram.tg.sent_texts(ANA)[0].startswith(text_of(SafetyMsg.SAFETY_CRISIS_INTRO))
    # Blocked from the private chat: the public line only adds a link, to anyone.
    telegram.tg.inject_blocked(BEN, method="sendMessage", times=None)
    await sends(telegram, GROUP, CRISIS, user_id=BEN, chat_type="group", first_name="Ben")
    [fallback] = public_after(telegram, 1)
    assert fallback.text == text_of(SafetyMsg.SAFETY_GROUP_FALLBACK)
    assert link_payloads(fallback, telegram.tg.bot_username) == ["sos"]
    for message in (public, fallback):
        said = (message.text or "").casefold()
        assert message.reply_to_message_id is None  # not an answer to anyone's message
        assert "/sos" in said or link_payloads(message, telegram.tg.bot_username) == ["sos"]
        assert not message.entities  # no mention, no markup
        for name in ("ana", "ben", "you"):
            assert name not in said.split()  # addressed to no one
    assert "/sos" in (public.text or "")


# Privacy mode ---------------------------------------------------------------------------


@pytest.fixture
async def private_groups(services: Services, clock: ManualClock) -> AsyncIterator[TelegramWorld]:
    async with running_telegram(services, clock, privacy_mode=True) as world:
        yield world


async def test_privacy_mode_on_screens_what_telegram_sends_the_bot(
    private_groups: TelegramWorld, text_of: Callable[..., str]
) -> None:
    world, tg = private_groups, private_groups.tg
    plain = tg.user_sends_text(GROUP, ANA, CRISIS, chat_type="group")
    await world.settled()
    assert plain in [{"update_id": None, **withheld} for withheld in tg.withheld]
    assert world.bot_messages(GROUP) == [] and tg.sent_texts(ANA) == []  # never saw it

    screened = [
        f"/pause {CRISIS}",  # a command's words
        f"@{tg.bot_username} {CRISIS}",  # a mention
    ]
    for user, text in enumerate(screened, start=ANA + 10):
        await sends(world, GROUP, text, user_id=user, chat_type="group")
        assert tg.sent_texts(user)[0].startswith(text_of(SafetyMsg.SAFETY_CRISIS_INTRO)), text
    # A reply to one of the bot's own messages reaches it too.
    own = world.bot_messages(GROUP)[-1].message_id
    await sends(world, GROUP, CRISIS, user_id=BEN, chat_type="group", reply_to=own)
    assert tg.sent_texts(BEN)[0].startswith(text_of(SafetyMsg.SAFETY_CRISIS_INTRO))
    # /sos is a command: anyone may ask for help in the group.
    before = len(world.bot_messages(GROUP))
    await sends(world, GROUP, "/sos", user_id=ANA, chat_type="group")
    assert [m.text for m in public_after(world, before)] == [text_of(SafetyMsg.SAFETY_GROUP_PUBLIC)]
    # A bot made administrator of the group gets everything, privacy mode or not.
    tg.set_member_status(GROUP, tg.bot_id, "administrator")
    caption = tg.user_sends_media(GROUP, ANA + 20, "photo", CRISIS, chat_type="group")
    await answered(world, caption)
    assert tg.sent_texts(ANA + 20)[0].startswith(text_of(SafetyMsg.SAFETY_CRISIS_INTRO))


async def test_privacy_mode_off_screens_every_group_message(
    telegram: TelegramWorld, text_of: Callable[..., str]
) -> None:
    tg = telegram.tg
    assert not tg.privacy_mode
    first = await sends(telegram, GROUP, "morning all", user_id=ANA, chat_type="group")
    assert telegram.bot_messages(GROUP) == []  # ordinary talk: not ours to answer
    await answered(telegram, tg.user_edits(GROUP, first["message"]["message_id"], CRISIS))
    assert tg.sent_texts(ANA)[0].startswith(text_of(SafetyMsg.SAFETY_CRISIS_INTRO))
    caption = tg.user_sends_media(GROUP, BEN, "video", CRISIS, chat_type="group")
    await answered(telegram, caption)
    assert tg.sent_texts(BEN)[0].startswith(text_of(SafetyMsg.SAFETY_CRISIS_INTRO))
    assert [m.text for m in telegram.bot_messages(GROUP)] == [
        text_of(SafetyMsg.SAFETY_GROUP_PUBLIC)
    ] * 2
