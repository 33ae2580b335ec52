"""Hard dates' extra check-ins: the evening before and the morning of, on the user's clock.

Europe/Berlin moves its clocks forward at 02:00 on Sunday 29 March 2026 and on Sunday
28 March 2027: a date on the 29th has its evening in winter time and its morning in
summer time.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, date, datetime, time, timedelta

from bot.app import open_services
from bot.config import Settings
from bot.content_pack.ids import CheckinMsg, DatesMsg, GeneralMsg, Msg, ReasonsMsg
from bot.core.clock import ManualClock
from bot.core.platform import RecipientUnreachable
from bot.core.replies import Reply
from bot.flows.context import Services
from bot.flows.hard_date_checkins import hard_date_checkins
from bot.scheduling import hard_date_plan, planner
from bot.scheduling.hard_date_due import DateCheckIn
from bot.scheduling.planner import reschedule_user
from bot.storage import hard_dates
from bot.storage.hard_dates import DateKind, HardDate, Moment
from bot.storage.users import (
    QuietHours,
    find_user,
    set_discreet,
    set_paused_until,
    set_quiet_hours,
)
from tests.helpers.conversation import Conversation
from tests.helpers.world import World, build_world

BERLIN = "Europe/Berlin"


def utc(*parts: int) -> datetime:
    return datetime(*parts, tzinfo=UTC)


async def add_date(
    chat: Conversation,
    text_of: Callable[..., str],
    typed: str,
    label: str,
    repeat: Msg = DatesMsg.DATES_YEARLY,
    kind: Msg = DatesMsg.DATES_KIND_ANNIVERSARY,
) -> None:
    await chat.send("/dates")
    await chat.press(text_of(DatesMsg.DATES_ADD))
    await chat.press(text_of(kind))
    await chat.send(typed)
    await chat.press(text_of(repeat))
    await chat.send(label)
    assert text_of(DatesMsg.DATES_LIST) in chat.text


async def run(world: World, end: datetime, step: timedelta) -> list[tuple[datetime, Reply]]:
    """Tick until `end`: each message that reached the platform, with the time it did."""
    sent: list[tuple[datetime, Reply]] = []
    while world.clock.now() < end:
        world.clock.advance(min(step, end - world.clock.now()))
        await world.tick()
        sent += [(world.clock.now(), reply) for _, reply in world.adapter.take()]
    return sent


def date_checkins(
    sent: list[tuple[datetime, Reply]], text_of: Callable[..., str]
) -> list[tuple[datetime, Reply]]:
    return [(at, r) for at, r in sent if r.text.startswith(text_of(DatesMsg.DATES_OPENING))]


async def the_dates(services: Services, user_id: str = "ana") -> list[HardDate]:
    user = await find_user(services.db, "test", user_id)
    assert user is not None
    return await hard_dates.list_dates(services.db, services.cipher, user.id)


def test_the_fallback_zone_is_the_planners() -> None:
    assert hard_date_plan.FALLBACK_TIMEZONE == planner.FALLBACK_TIMEZONE


async def test_a_yearly_date_across_the_clock_change_and_a_restart(
    settings: Settings, clock: ManualClock, text_of: Callable[..., str]
) -> None:
    async with open_services(settings, clock) as services:
        world = await build_world(services, clock)
        chat = await world.onboard("ana", BERLIN, "08:30")
        await add_date(chat, text_of, "29 March", "The day I left")
        clock.set(utc(2026, 3, 28, 12))
        sent = await run(world, utc(2026, 3, 28, 20), timedelta(minutes=10))
        [(at, evening)] = date_checkins(sent, text_of)
        assert at == utc(2026, 3, 28, 18)  # 19:00 CET, her check-in being a morning one
        first, words, question = evening.text.split("\n\n")
        assert first == text_of(DatesMsg.DATES_OPENING)  # all a lock screen shows: neutral
        assert words == text_of(DatesMsg.DATES_EVE_DISCREET)  # discreet: no kind of day named
        assert question == text_of(CheckinMsg.ASK_MOOD)
        assert "left" not in evening.text  # discreet mode (the default): no label
        await world.outbox.stop()

    async with open_services(settings, clock) as services:  # a restart overnight
        world = await build_world(services, clock)
        sent = await run(world, utc(2026, 3, 29, 12), timedelta(minutes=10))
        [(at, morning)] = date_checkins(sent, text_of)
        assert at == utc(2026, 3, 29, 6, 30)  # 08:30 CEST: the clocks went forward at 02:00
        # Her routine check-in opened in the same minute: the date's words come without
        # a second question, and the routine one's buttons stay the ones to tap.
        routine = [r for at_, r in sent if at_ == at and r is not morning]
        assert len(routine) == 1 and text_of(CheckinMsg.ASK_MOOD) in routine[0].text
        assert morning.text.split("\n\n") == [
            text_of(DatesMsg.DATES_OPENING),
            text_of(DatesMsg.DATES_DAY_DISCREET),
            text_of(DatesMsg.DATES_CHECKIN_ABOVE),
        ]
        assert not morning.buttons
        chat = world.chat("ana")
        chat.history = [routine[0]]
        await chat.press(text_of(CheckinMsg.MOOD_2))
        assert chat.text == text_of(CheckinMsg.ASK_URGE)
        [saved] = await the_dates(services)
        assert saved.upcoming is not None
        # Next year's evening before: Sunday 28 March 2027 is itself a clock change day.
        assert (saved.upcoming.moment, saved.upcoming.on) == (Moment.EVE, date(2027, 3, 29))
        assert saved.upcoming.due_at == utc(2027, 3, 28, 17)  # 19:00 CEST
        await world.outbox.stop()


async def test_an_extra_checkin_of_its_own_is_answered_like_any_checkin(
    world: World, text_of: Callable[..., str]
) -> None:
    chat = await world.onboard("ana", BERLIN, "20:00")
    user = await find_user(world.services.db, "test", "ana")
    assert user is not None
    async with world.services.db.transaction() as tx:
        await set_discreet(tx, user.id, False)
    await add_date(
        chat, text_of, "2026-03-10", "Hearing", DatesMsg.DATES_ONCE, DatesMsg.DATES_KIND_LEGAL
    )
    world.clock.set(utc(2026, 3, 9, 18))
    sent = await run(world, utc(2026, 3, 10, 12), timedelta(minutes=15))
    (eve_at, eve), (day_at, day) = date_checkins(sent, text_of)
    # Her check-in is at 20:00: the evening before is then, beside her routine check-in;
    # the morning of is at 09:00, a check-in of its own.
    assert eve_at == utc(2026, 3, 9, 19) and day_at == utc(2026, 3, 10, 8)
    assert text_of(DatesMsg.DATES_YOUR_WORDS, label="Hearing") in eve.text  # discreet mode off
    assert eve.protect and eve.text.startswith(text_of(DatesMsg.DATES_OPENING))
    assert text_of(DatesMsg.DATES_DAY_LEGAL) in day.text
    chat.history = [day]
    await chat.press(text_of(CheckinMsg.MOOD_3))
    await chat.press(text_of(CheckinMsg.URGE_NONE))
    await chat.press(text_of(CheckinMsg.SKIP_NOTE))
    assert chat.text.startswith(text_of(CheckinMsg.CHECKIN_SAVED))


async def test_a_routine_checkin_at_the_same_time_as_the_evening_is_not_doubled(
    world: World, text_of: Callable[..., str]
) -> None:
    chat = await world.onboard("ana", BERLIN, "20:00")
    await add_date(
        chat, text_of, "2026-03-10", "Hearing", DatesMsg.DATES_ONCE, DatesMsg.DATES_KIND_LEGAL
    )
    world.clock.set(utc(2026, 3, 9, 18))
    sent = await run(world, utc(2026, 3, 9, 20), timedelta(minutes=15))
    at_eight = [r for at, r in sent if at == utc(2026, 3, 9, 19)]
    questions = [r for r in at_eight if text_of(CheckinMsg.ASK_MOOD) in r.text]
    assert len(at_eight) == 2 and len(questions) == 1  # one question, and the date's words


async def test_nothing_is_sent_inside_quiet_hours(
    world: World, text_of: Callable[..., str]
) -> None:
    chat = await world.onboard("ana", BERLIN, "08:30")
    await add_date(chat, text_of, "29 March", "The day I left")
    user = await find_user(world.services.db, "test", "ana")
    assert user is not None
    quiet = QuietHours(time(18, 0), time(9, 0))
    async with world.services.db.transaction() as tx:  # as /settings saves quiet hours
        await set_quiet_hours(tx, user.id, quiet)
        await reschedule_user(tx, user.id, world.clock.now())
    world.clock.set(utc(2026, 3, 28, 12))
    sent = await run(world, utc(2026, 3, 29, 12), timedelta(minutes=5))
    zone = planner.user_zone(user)
    assert sent and not [at for at, _ in sent if quiet.contains(at.astimezone(zone).time())]
    # The evening moves to an hour before the quiet hours, the morning to their end.
    assert [at for at, _ in date_checkins(sent, text_of)] == [
        utc(2026, 3, 28, 16),  # 17:00 CET
        utc(2026, 3, 29, 7),  # 09:00 CEST
    ]


async def test_a_one_off_date_ends_after_its_day(world: World, text_of: Callable[..., str]) -> None:
    chat = await world.onboard("ana", "UTC", "08:00")
    await add_date(
        chat, text_of, "4 March", "Moving out", DatesMsg.DATES_ONCE, DatesMsg.DATES_KIND_OTHER
    )
    sent = await run(world, utc(2026, 3, 5, 12), timedelta(minutes=30))
    assert [at for at, _ in date_checkins(sent, text_of)] == [
        utc(2026, 3, 3, 19),
        utc(2026, 3, 4, 8),
    ]
    assert await the_dates(world.services) == []  # removed at midnight after the day
    await chat.send("/dates")
    assert chat.text.startswith(text_of(DatesMsg.DATES_EMPTY))


async def test_a_moment_missed_during_downtime_is_skipped_and_the_next_still_comes(
    settings: Settings, clock: ManualClock, text_of: Callable[..., str]
) -> None:
    async with open_services(settings, clock) as services:
        world = await build_world(services, clock)
        chat = await world.onboard("ana", "UTC", "08:00")
        await add_date(chat, text_of, "2026-03-10", "Court", DatesMsg.DATES_ONCE)
        await world.outbox.stop()
    clock.set(utc(2026, 3, 10, 7))  # down from the 2nd to the morning of the date
    async with open_services(settings, clock) as services:
        world = await build_world(services, clock)
        sent = await run(world, utc(2026, 3, 10, 12), timedelta(minutes=30))
        [(at, morning)] = date_checkins(sent, text_of)
        assert at == utc(2026, 3, 10, 8)
        assert text_of(DatesMsg.DATES_DAY_DISCREET) in morning.text
        await world.outbox.stop()


async def test_a_refused_recipient_gets_no_more_until_they_write(
    world: World, text_of: Callable[..., str]
) -> None:
    chat = await world.onboard("ana", "UTC", "12:00")
    await add_date(chat, text_of, "2026-03-10", "Court", DatesMsg.DATES_ONCE)
    world.clock.set(utc(2026, 3, 9, 18, 55))
    world.adapter.failures.append(RecipientUnreachable("blocked"))
    assert (
        date_checkins(await run(world, utc(2026, 3, 9, 19, 5), timedelta(minutes=5)), text_of) == []
    )
    user = await find_user(world.services.db, "test", "ana")
    assert user is not None and user.unreachable_since is not None
    sent = await run(world, utc(2026, 3, 10, 12), timedelta(minutes=30))
    assert date_checkins(sent, text_of) == []  # the morning is not sent either


async def test_a_deleted_date_sends_nothing_more(world: World, text_of: Callable[..., str]) -> None:
    chat = await world.onboard("ana", "UTC", "08:00")
    await add_date(chat, text_of, "2026-03-10", "Court", DatesMsg.DATES_ONCE)
    await add_date(chat, text_of, "2026-03-05", "Visit", DatesMsg.DATES_ONCE)
    await chat.press(text_of(DatesMsg.DATES_EDIT))
    await chat.press("2")
    await chat.press(text_of(DatesMsg.DATES_DELETE))
    sent = await run(world, utc(2026, 3, 11, 12), timedelta(hours=1))
    assert [at for at, _ in date_checkins(sent, text_of)] == [
        utc(2026, 3, 9, 19),
        utc(2026, 3, 10, 8),
    ]


async def test_while_paused_no_extra_checkins_come(
    world: World, text_of: Callable[..., str]
) -> None:
    chat = await world.onboard("ana", "UTC", "08:00")
    await add_date(chat, text_of, "2026-03-10", "Court", DatesMsg.DATES_ONCE)
    user = await find_user(world.services.db, "test", "ana")
    assert user is not None
    async with world.services.db.transaction() as tx:
        await set_paused_until(tx, user.id, utc(2026, 3, 11))
        await reschedule_user(tx, user.id, world.clock.now())
    sent = await run(world, utc(2026, 3, 11, 12), timedelta(hours=1))
    assert date_checkins(sent, text_of) == []
    assert await the_dates(world.services) == []  # and the one-off date has ended


async def test_a_conversation_in_progress_is_not_interrupted_and_an_older_one_is_closed(
    world: World, text_of: Callable[..., str]
) -> None:
    chat = await world.onboard("ana", "UTC", "12:00")
    await add_date(chat, text_of, "2026-03-10", "Court", DatesMsg.DATES_ONCE)
    world.clock.set(utc(2026, 3, 9, 18, 55))
    await chat.send("/reasons")
    await chat.press(text_of(ReasonsMsg.REASONS_ADD))  # writing a reason when the evening is due
    sent = await run(world, utc(2026, 3, 9, 19, 30), timedelta(minutes=5))
    [(at, evening)] = date_checkins(sent, text_of)
    assert at == utc(2026, 3, 9, 19, 15)  # a little later, not in the middle of it
    assert text_of(GeneralMsg.QUESTION_CLOSED_BY_CHECKIN) in evening.text  # and it says so


# Words that say what kind of day it is, in each locale's texts of the kinds.
KIND_WORDS = {
    "en": ("anniversar", "birthday", "holiday", "court", "legal", "handover", "visit", "children"),
    "es": ("aniversario", "cumplea", "fiestas", "juzgado", "trámite", "entrega", "visita", "hijos"),
}
PREVIEW = 200  # more than the two to four lines a phone's preview shows


async def test_in_discreet_mode_what_a_preview_shows_names_no_kind_of_day(
    world: World, text_of: Callable[..., str]
) -> None:
    await world.onboard("ana", BERLIN, "08:30")
    ana = await find_user(world.services.db, "test", "ana")
    assert ana is not None and ana.discreet  # the default
    for locale, words in KIND_WORDS.items():
        user = replace(ana, locale=locale)
        due = [
            DateCheckIn(1, user, kind, b"", moment, asks=asks)
            for kind in DateKind
            for moment in (Moment.EVE, Moment.DAY)
            for asks in (True, False)
        ]
        async with world.services.db.transaction() as tx:
            outgoing = await hard_date_checkins(world.services, tx, due)
        assert len(outgoing) == len(due)
        for item, message in zip(due, outgoing, strict=True):
            preview = message.reply.text[:PREVIEW].casefold()
            found = [word for word in words if word in preview]
            assert found == [], (locale, item.kind, item.moment, found)
    # With discreet mode off, the words for the kind of day are there.
    open_user = replace(ana, discreet=False)
    sealed = world.services.cipher.encrypt("Hearing", ana.id)
    async with world.services.db.transaction() as tx:
        [message] = await hard_date_checkins(
            world.services,
            tx,
            [DateCheckIn(1, open_user, DateKind.LEGAL, sealed, Moment.EVE, False)],
        )
    assert text_of(DatesMsg.DATES_EVE_LEGAL) in message.reply.text
