"""The caring check on Telegram and Discord: the offer after the crisis reply, "Yes, please",
and the one message the next day, through the real libraries and the strict fakes."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from bot.adapters.discord.render import escape
from bot.content_pack.ids import CaringMsg, SafetyMsg
from tests.helpers.discord_world import ANA as DISCORD_ANA
from tests.helpers.discord_world import DiscordWorld
from tests.helpers.telegram_checks import mydata_export, onboard
from tests.helpers.telegram_world import TelegramWorld

CRISIS = "i want to die"
TELEGRAM_ANA = 1201
DUE = datetime(2026, 3, 3, 7, 30, tzinfo=UTC)  # 08:30 in Berlin, the day after the clock's start


async def test_on_telegram_the_offer_follows_the_crisis_reply_and_yes_brings_one_message(
    telegram: TelegramWorld, text_of: Callable[..., str]
) -> None:
    await onboard(telegram, TELEGRAM_ANA, text_of)  # Berlin, 08:30
    before = len(telegram.tg.sent_texts(TELEGRAM_ANA))
    await telegram.says(TELEGRAM_ANA, CRISIS)
    crisis, offer = telegram.tg.sent_texts(TELEGRAM_ANA)[before:]
    assert crisis.startswith(text_of(SafetyMsg.SAFETY_CRISIS_INTRO))
    assert offer == text_of(CaringMsg.CARING_OFFER)
    await telegram.taps(TELEGRAM_ANA, text_of(CaringMsg.CARING_OFFER_YES))
    assert telegram.last_text(TELEGRAM_ANA) == text_of(CaringMsg.CARING_SCHEDULED, time="08:30")
    await telegram.says(TELEGRAM_ANA, "/mydata")
    export = mydata_export(telegram, TELEGRAM_ANA, text_of)
    assert export["caring_check"]["due_at"] == DUE.isoformat()
    for when in (DUE - timedelta(minutes=5), DUE, DUE + timedelta(hours=1), DUE + timedelta(1)):
        telegram.clock.set(when)
        await telegram.dispatcher.tick()
        await telegram.outbox.drain()
    texts = telegram.tg.sent_texts(TELEGRAM_ANA)
    assert texts.count(text_of(CaringMsg.CARING_CHECK)) == 1
    await telegram.taps(TELEGRAM_ANA, text_of(CaringMsg.CARING_OKAY_BUTTON))
    assert telegram.last_text(TELEGRAM_ANA) == text_of(CaringMsg.CARING_OKAY_REPLY)


async def test_on_discord_the_offer_follows_the_crisis_reply_and_yes_brings_one_message(
    discord_world: DiscordWorld, text_of: Callable[..., str]
) -> None:
    world = discord_world
    await world.runs(DISCORD_ANA, "start")
    await world.says(DISCORD_ANA, "Europe/Berlin")
    await world.says(DISCORD_ANA, "08:30")
    await world.taps(DISCORD_ANA, "Germany")
    before = len(world.dm_texts(DISCORD_ANA))
    await world.says(DISCORD_ANA, CRISIS)
    crisis, offer = world.dm_texts(DISCORD_ANA)[before:]
    assert crisis.startswith(escape(text_of(SafetyMsg.SAFETY_CRISIS_INTRO)))
    assert offer == escape(text_of(CaringMsg.CARING_OFFER))
    await world.taps(DISCORD_ANA, text_of(CaringMsg.CARING_OFFER_YES))
    scheduled = escape(text_of(CaringMsg.CARING_SCHEDULED, time="08:30"))
    assert world.last_dm(DISCORD_ANA).content == scheduled
    for when in (DUE - timedelta(minutes=5), DUE, DUE + timedelta(hours=1), DUE + timedelta(1)):
        world.clock.set(when)
        await world.dispatcher.tick()
        await world.outbox.drain()
    assert world.dm_texts(DISCORD_ANA).count(escape(text_of(CaringMsg.CARING_CHECK))) == 1
    before = len(world.dm_texts(DISCORD_ANA))
    await world.taps(DISCORD_ANA, text_of(CaringMsg.CARING_SOS_BUTTON))
    sos = world.router.safety.sos_replies("en", "DE", is_group=False)[0]
    # The helplines, then the check-in question that came at the same time, again.
    answer, *_ = world.dm_texts(DISCORD_ANA)[before:]
    assert answer.startswith(escape(sos.text.split("\n")[0]))
