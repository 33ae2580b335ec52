"""/dates from the user's side: adding, bad input, listing, changing and deleting hard dates."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, date, datetime

from bot.content_pack.ids import AnswersMsg, DataMsg, DatesMsg, GeneralMsg, Msg
from bot.content_pack.pack import ContentPack
from bot.core.clock import ManualClock
from bot.flows.context import Services
from bot.flows.limits import MOST_HARD_DATES, TextLimit
from bot.storage import hard_dates
from bot.storage.hard_dates import DateKind, HardDate, Moment
from bot.storage.users import find_user, set_checkins_stopped, set_locale, set_timezone
from tests.helpers.conversation import Conversation


async def add_date(
    chat: Conversation,
    text_of: Callable[..., str],
    typed: str,
    label: str,
    kind: Msg = DatesMsg.DATES_KIND_ANNIVERSARY,
    repeat: Msg = DatesMsg.DATES_YEARLY,
) -> None:
    await chat.send("/dates")
    await chat.press(text_of(DatesMsg.DATES_ADD))
    assert chat.text == text_of(DatesMsg.DATES_ASK_KIND)
    await chat.press(text_of(kind))
    assert chat.text == text_of(DatesMsg.DATES_ASK_DATE)
    await chat.send(typed)
    assert chat.text == text_of(DatesMsg.DATES_ASK_REPEAT)
    await chat.press(text_of(repeat))
    assert chat.text == text_of(DatesMsg.DATES_ASK_LABEL)
    await chat.send(label)


async def saved_dates(services: Services) -> list[HardDate]:
    user = await find_user(services.db, "console", "u1")
    assert user is not None
    return await hard_dates.list_dates(services.db, services.cipher, user.id)


async def test_a_yearly_date_is_added_listed_and_its_words_stored_encrypted(
    chat: Conversation, services: Services, text_of: Callable[..., str]
) -> None:
    await chat.send("/dates")
    assert chat.text.startswith(text_of(DatesMsg.DATES_EMPTY))
    await add_date(chat, text_of, "14th February", "The day I left")
    added = text_of(DatesMsg.DATES_ADDED, date="February 14")
    item = text_of(DatesMsg.DATES_ITEM_YEARLY, number=1, label="The day I left", date="February 14")
    assert chat.text == f"{added}\n\n{text_of(DatesMsg.DATES_LIST)}\n\n{item}"
    assert chat.last[-1].protect  # the list quotes the user's own words
    [saved] = await saved_dates(services)
    assert (saved.kind, saved.month, saved.day, saved.year) == (DateKind.ANNIVERSARY, 2, 14, None)
    # 2 March 2026 now: the next is the evening before 14 February 2027, at 19:00 (no
    # evening check-in time set), in UTC for a user who gave no time zone.
    assert saved.upcoming is not None
    assert saved.upcoming.moment is Moment.EVE
    assert saved.upcoming.due_at == datetime(2027, 2, 13, 19, 0, tzinfo=UTC)
    raw = await services.db.fetch_one("SELECT label FROM hard_dates")
    assert raw is not None and b"left" not in bytes(raw["label"])
    await chat.send("/dates")
    assert item in chat.text


async def test_a_date_that_is_not_one_gets_an_example_and_nothing_is_lost(
    chat: Conversation, services: Services, text_of: Callable[..., str]
) -> None:
    await chat.send("/dates")
    await chat.press(text_of(DatesMsg.DATES_ADD))
    await chat.press(text_of(DatesMsg.DATES_KIND_HOLIDAY))
    for typed in ("sometime in spring", "14/14"):
        await chat.send(typed)
        assert chat.text == text_of(DatesMsg.DATES_BAD_DATE)
    await chat.send("2026-12-25")
    await chat.press(text_of(DatesMsg.DATES_ONCE))
    await chat.send("  ")
    assert chat.text == text_of(DatesMsg.DATES_ASK_LABEL)  # an empty name is asked for again
    await chat.send("First one alone")
    [saved] = await saved_dates(services)
    assert (saved.kind, saved.month, saved.day, saved.year) == (DateKind.HOLIDAY, 12, 25, 2026)
    item = text_of(
        DatesMsg.DATES_ITEM_ONCE, number=1, label="First one alone", date="December 25, 2026"
    )
    assert item in chat.text


async def test_a_date_read_two_ways_is_asked_about(
    chat: Conversation, services: Services, text_of: Callable[..., str]
) -> None:
    await chat.send("/dates")
    await chat.press(text_of(DatesMsg.DATES_ADD))
    await chat.press(text_of(DatesMsg.DATES_KIND_CHILDREN))
    await chat.send("3/4")
    assert chat.text == text_of(DatesMsg.DATES_WHICH)
    # English as the user's language writes the month first: that reading leads.
    assert [b.label for b in chat.last[-1].flat_buttons] == ["March 4", "April 3"]
    await chat.press("April 3")
    await chat.press(text_of(DatesMsg.DATES_YEARLY))
    await chat.send("Handover at school")
    [saved] = await saved_dates(services)
    assert (saved.kind, saved.month, saved.day) == (DateKind.CHILDREN, 4, 3)


async def test_a_one_off_date_already_gone_is_refused_kindly(
    chat: Conversation, services: Services, text_of: Callable[..., str]
) -> None:
    await chat.send("/dates")
    await chat.press(text_of(DatesMsg.DATES_ADD))
    await chat.press(text_of(DatesMsg.DATES_KIND_LEGAL))
    await chat.send("2026-02-14")
    await chat.press(text_of(DatesMsg.DATES_ONCE))
    assert chat.text == f"{text_of(DatesMsg.DATES_PAST)}\n\n{text_of(DatesMsg.DATES_ASK_REPEAT)}"
    assert await saved_dates(services) == []
    await chat.press(text_of(DatesMsg.DATES_YEARLY))  # the same date, every year, is fine
    await chat.send("Hearing")
    [saved] = await saved_dates(services)
    assert (saved.month, saved.day, saved.year) == (2, 14, None)


async def test_a_one_off_date_without_a_year_is_the_next_one(
    chat: Conversation, services: Services, text_of: Callable[..., str]
) -> None:
    await add_date(chat, text_of, "1 March", "Moving day", repeat=DatesMsg.DATES_ONCE)
    await add_date(chat, text_of, "2 March", "Today", repeat=DatesMsg.DATES_ONCE)
    assert chat.text.startswith(text_of(DatesMsg.DATES_ADDED_NONE, date="March 2, 2026"))
    first, today = await saved_dates(services)
    assert first.year == 2027  # 1 March 2026 is gone
    assert today.year == 2026  # today is not past: its morning has gone, so it only ends
    assert today.upcoming is not None and today.upcoming.moment is Moment.END
    assert today.upcoming.due_at == datetime(2026, 3, 3, 0, 0, tzinfo=UTC)


async def test_29_february_every_year_falls_on_the_28th_without_a_leap_day(
    chat: Conversation, services: Services, text_of: Callable[..., str]
) -> None:
    await add_date(chat, text_of, "February 29", "Wedding day")
    [saved] = await saved_dates(services)
    assert (saved.month, saved.day) == (2, 29)
    assert saved.upcoming is not None
    assert saved.upcoming.on == date(2027, 2, 28)
    assert saved.upcoming.due_at == datetime(2027, 2, 27, 19, 0, tzinfo=UTC)


async def test_a_date_is_changed_and_deleted_with_buttons(
    chat: Conversation, services: Services, text_of: Callable[..., str]
) -> None:
    await add_date(chat, text_of, "14 February", "Old words")
    await chat.press(text_of(DatesMsg.DATES_EDIT))
    assert chat.text == text_of(DatesMsg.DATES_PICK)
    await chat.press("1")
    item = text_of(DatesMsg.DATES_ITEM_YEARLY, number=1, label="Old words", date="February 14")
    assert chat.text == text_of(DatesMsg.DATES_EDIT_MENU, item=item)
    labels = [b.label for b in chat.last[-1].flat_buttons]
    assert (
        text_of(DatesMsg.DATES_MAKE_ONCE) in labels
        and text_of(DatesMsg.DATES_MAKE_YEARLY) not in labels
    )

    await chat.press(text_of(DatesMsg.DATES_CHANGE_LABEL))
    assert chat.text == text_of(DatesMsg.DATES_ASK_LABEL)
    await chat.send("New words")
    assert chat.text.startswith(text_of(DatesMsg.DATES_CHANGED))
    assert "New words" in chat.text

    await chat.press(text_of(DatesMsg.DATES_CHANGE_DATE))
    await chat.send("not a date")
    assert chat.text == text_of(DatesMsg.DATES_BAD_DATE)
    await chat.send("June 1")
    [saved] = await saved_dates(services)
    assert (saved.label, saved.month, saved.day, saved.year) == ("New words", 6, 1, None)
    assert saved.upcoming is not None and saved.upcoming.on == date(2026, 6, 1)

    await chat.press(text_of(DatesMsg.DATES_MAKE_ONCE))
    once = text_of(DatesMsg.DATES_ITEM_ONCE, number=1, label="New words", date="June 1, 2026")
    assert once in chat.text
    await chat.press(text_of(DatesMsg.DATES_CHANGE_DATE))
    await chat.send("1 June 2025")
    assert chat.text == text_of(DatesMsg.DATES_PAST_TYPED)  # a one-off date: still to come
    await chat.send("1 June 2026")
    await chat.press(text_of(DatesMsg.DATES_MAKE_YEARLY))
    [saved] = await saved_dates(services)
    assert saved.year is None

    await chat.press(text_of(DatesMsg.DATES_DELETE))
    assert chat.text == f"{text_of(DatesMsg.DATES_DELETED)}\n\n{text_of(DatesMsg.DATES_EMPTY)}"
    assert await saved_dates(services) == []
    await chat.press(text_of(DatesMsg.DATES_DONE))
    assert chat.text == text_of(DatesMsg.DATES_CLOSED)


async def test_a_name_too_long_offers_to_keep_the_first_part(
    chat: Conversation, services: Services, text_of: Callable[..., str]
) -> None:
    words = "a very long name for a day " * 5
    await add_date(chat, text_of, "2027-03-02", words, kind=DatesMsg.DATES_KIND_OTHER)
    limit = TextLimit.DATE_LABEL.characters
    assert chat.text == text_of(DatesMsg.DATES_LABEL_TOO_LONG, limit=limit)
    assert await saved_dates(services) == []
    await chat.press(text_of(GeneralMsg.LONG_KEEP_FIRST))
    [saved] = await saved_dates(services)
    assert 0 < len(saved.label) <= limit and words.startswith(saved.label)


async def test_no_more_dates_than_the_limit(
    chat: Conversation, services: Services, text_of: Callable[..., str]
) -> None:
    await add_date(chat, text_of, "1 January", "First")
    user = await find_user(services.db, "console", "u1")
    assert user is not None
    async with services.db.transaction() as tx:
        for number in range(MOST_HARD_DATES - 1):
            await hard_dates.add_date(
                tx, services.cipher, user.id, DateKind.OTHER, f"d{number}", (5, 1, None), None,
                services.clock.now(),
            )  # fmt: skip
    await chat.send("/dates")
    await chat.press(text_of(DatesMsg.DATES_ADD))
    assert chat.text == text_of(DatesMsg.DATES_FULL, limit=MOST_HARD_DATES)
    assert len(await saved_dates(services)) == MOST_HARD_DATES


async def test_mydata_shows_the_dates_and_forget_leaves_no_row(
    chat: Conversation, services: Services, text_of: Callable[..., str]
) -> None:
    await add_date(chat, text_of, "14 February", "The day I left")
    await add_date(
        chat, text_of, "2027-03-02", "Hearing", DatesMsg.DATES_KIND_LEGAL, DatesMsg.DATES_ONCE
    )
    await chat.send("/mydata")
    exported = json.loads(chat.last[-1].text)["hard_dates"]
    assert exported == [
        {
            "kind": "anniversary",
            "label": "The day I left",
            "date": "--02-14",
            "every_year": True,
            "next_at": "2027-02-13T19:00:00+00:00",
            "next_moment": "eve",
        },
        {
            "kind": "legal",
            "label": "Hearing",
            "date": "2027-03-02",
            "every_year": False,
            "next_at": "2027-03-01T19:00:00+00:00",
            "next_moment": "eve",
        },
    ]
    await chat.send("/forget")
    await chat.press(text_of(DataMsg.FORGET_YES))
    left = await services.db.fetch_one("SELECT COUNT(*) AS n FROM hard_dates")
    assert left is not None and left["n"] == 0


async def test_added_says_only_what_will_come(
    chat: Conversation, clock: ManualClock, text_of: Callable[..., str]
) -> None:
    clock.set(datetime(2026, 3, 2, 20, 0, tzinfo=UTC))  # too late for the evening before
    await add_date(chat, text_of, "3 March", "Tomorrow", repeat=DatesMsg.DATES_ONCE)
    assert chat.text.startswith(text_of(DatesMsg.DATES_ADDED_MORNING, date="March 3, 2026"))


async def test_added_while_checkins_are_stopped_says_they_wait_too(
    chat: Conversation, services: Services, text_of: Callable[..., str]
) -> None:
    await chat.send("/dates")
    user = await find_user(services.db, "console", "u1")
    assert user is not None
    async with services.db.transaction() as tx:
        await set_checkins_stopped(tx, user.id, True)
    await add_date(chat, text_of, "14 February", "The day I left")
    added = text_of(DatesMsg.DATES_ADDED, date="February 14")
    assert chat.text.startswith(f"{added} {text_of(DatesMsg.DATES_WHILE_OFF)}")


async def in_language(chat: Conversation, services: Services, locale: str) -> None:
    """The user's language set to `locale` (and /dates opened once to have a user)."""
    await chat.send("/dates")
    user = await find_user(services.db, "console", "u1")
    assert user is not None
    async with services.db.transaction() as tx:
        await set_locale(tx, user.id, locale)


async def test_a_kind_typed_in_words_is_read_in_the_users_language_and_english(
    chat: Conversation, services: Services, content: ContentPack, text_of: Callable[..., str]
) -> None:
    for typed in ("birthday", "Court"):
        await chat.send("/dates")
        await chat.press(text_of(DatesMsg.DATES_ADD))
        await chat.send(typed)
        assert chat.text == text_of(DatesMsg.DATES_ASK_DATE), typed
        await chat.send("2027-05-01")
        await chat.press(text_of(DatesMsg.DATES_ONCE))
        await chat.send(typed)
    assert [d.kind for d in await saved_dates(services)] == [DateKind.BIRTHDAY, DateKind.LEGAL]
    await chat.send("/dates")
    await chat.press(text_of(DatesMsg.DATES_ADD))
    await chat.send("a blue one")
    assert chat.text == text_of(
        AnswersMsg.USE_BUTTONS_BELOW
    )  # no kind, no date: the buttons, kindly
    assert chat.last[-1].buttons  # shown again, so a number or a tap works at once

    await in_language(chat, services, "es")
    for typed, kind in (("CUMPLEANOS", DateKind.BIRTHDAY), ("juzgado", DateKind.LEGAL),
                        ("handover", DateKind.CHILDREN)):  # fmt: skip
        await chat.send("/dates")
        await chat.press(content.text("es", DatesMsg.DATES_ADD))
        await chat.send(typed)
        assert chat.text == content.text("es", DatesMsg.DATES_ASK_DATE), typed
        await chat.send("1/6/2027")
        await chat.press(content.text("es", DatesMsg.DATES_ONCE))
        await chat.send("X")
        assert (await saved_dates(services))[-1].kind is kind


async def test_a_date_typed_at_the_kind_step_is_kept_and_not_asked_again(
    chat: Conversation, services: Services, text_of: Callable[..., str]
) -> None:
    await chat.send("/dates")
    await chat.press(text_of(DatesMsg.DATES_ADD))
    await chat.send("14 February")
    assert chat.text == text_of(DatesMsg.DATES_DATE_KEPT, date="February 14")
    await chat.press(text_of(DatesMsg.DATES_KIND_ANNIVERSARY))
    assert chat.text == text_of(DatesMsg.DATES_ASK_REPEAT)  # the date is not asked again
    await chat.press(text_of(DatesMsg.DATES_YEARLY))
    await chat.send("Then")
    # A date read two ways, typed first: asked about after the kind.
    await chat.press(text_of(DatesMsg.DATES_ADD))
    await chat.send("3/4")
    assert chat.text == text_of(DatesMsg.DATES_DATE_KEPT, date="March 4 / April 3")
    await chat.send("holiday")
    assert chat.text == text_of(DatesMsg.DATES_WHICH)
    await chat.press("April 3")
    await chat.press(text_of(DatesMsg.DATES_YEARLY))
    await chat.send("Easter")
    saved = [(d.kind, d.month, d.day, d.year) for d in await saved_dates(services)]
    assert saved == [(DateKind.ANNIVERSARY, 2, 14, None), (DateKind.HOLIDAY, 4, 3, None)]


async def test_today_tomorrow_and_manana_are_the_users_days(
    chat: Conversation, services: Services, content: ContentPack, text_of: Callable[..., str]
) -> None:
    await chat.send("/dates")
    user = await find_user(services.db, "console", "u1")
    assert user is not None
    async with services.db.transaction() as tx:
        # 09:00 UTC on 2 March is 23:00 on 1 March in Honolulu: her tomorrow is the 2nd.
        await set_timezone(tx, user.id, "Pacific/Honolulu")
    await add_date(
        chat, text_of, "tomorrow", "Hearing", DatesMsg.DATES_KIND_LEGAL, DatesMsg.DATES_ONCE
    )
    await add_date(chat, text_of, "Today", "Also", repeat=DatesMsg.DATES_ONCE)
    await in_language(chat, services, "es")
    for typed in ("mañana", "pasado mañana", "hoy"):
        await chat.send("/dates")
        await chat.press(content.text("es", DatesMsg.DATES_ADD))
        await chat.press(content.text("es", DatesMsg.DATES_KIND_LEGAL))
        await chat.send(typed)  # at the date question "mañana" is tomorrow, not the morning
        assert chat.text == content.text("es", DatesMsg.DATES_ASK_REPEAT), typed
        await chat.press(content.text("es", DatesMsg.DATES_ONCE))
        await chat.send("Juicio")
    days = [(d.month, d.day, d.year) for d in await saved_dates(services)]
    assert sorted(days) == sorted(
        [(3, 2, 2026), (3, 1, 2026), (3, 2, 2026), (3, 3, 2026), (3, 1, 2026)]
    )


async def test_spanish_reads_the_day_first_without_asking(
    chat: Conversation, services: Services, content: ContentPack
) -> None:
    await in_language(chat, services, "es")
    await chat.send("/dates")
    await chat.press(content.text("es", DatesMsg.DATES_ADD))
    await chat.press(content.text("es", DatesMsg.DATES_KIND_CHILDREN))
    await chat.send("3/12")
    assert chat.text == content.text("es", DatesMsg.DATES_ASK_REPEAT)
    await chat.press(content.text("es", DatesMsg.DATES_YEARLY))
    await chat.send("Entrega")
    [saved] = await saved_dates(services)
    assert (saved.month, saved.day) == (12, 3)  # 3 de diciembre


async def test_a_date_typed_at_the_which_question_is_the_answer(
    chat: Conversation, services: Services, text_of: Callable[..., str]
) -> None:
    await chat.send("/dates")
    await chat.press(text_of(DatesMsg.DATES_ADD))
    await chat.press(text_of(DatesMsg.DATES_KIND_OTHER))
    await chat.send("3/4")
    assert chat.text == text_of(DatesMsg.DATES_WHICH)
    await chat.send("14 February")
    assert chat.text == text_of(DatesMsg.DATES_ASK_REPEAT)
    await chat.press(text_of(DatesMsg.DATES_YEARLY))
    await chat.send("That day")
    [saved] = await saved_dates(services)
    assert (saved.month, saved.day) == (2, 14)


async def test_29_february_just_once_is_the_next_one_there_is_and_stays_the_29th(
    chat: Conversation, services: Services, text_of: Callable[..., str]
) -> None:
    await add_date(chat, text_of, "29 February", "Leap day", repeat=DatesMsg.DATES_ONCE)
    [saved] = await saved_dates(services)
    assert (saved.month, saved.day, saved.year) == (2, 29, 2028)  # 2027 has none
    assert saved.upcoming is not None and saved.upcoming.on == date(2028, 2, 29)
    await chat.press(text_of(DatesMsg.DATES_EDIT))
    await chat.press("1")
    await chat.press(text_of(DatesMsg.DATES_MAKE_YEARLY))
    [saved] = await saved_dates(services)
    assert (saved.month, saved.day, saved.year) == (2, 29, None)  # still the 29th
    assert saved.upcoming is not None and saved.upcoming.on == date(2027, 2, 28)  # check-ins only


async def test_a_day_the_month_does_not_have_is_said_so(
    chat: Conversation, services: Services, content: ContentPack, text_of: Callable[..., str]
) -> None:
    await chat.send("/dates")
    await chat.press(text_of(DatesMsg.DATES_ADD))
    await chat.press(text_of(DatesMsg.DATES_KIND_OTHER))
    await chat.send("31/02")
    assert chat.text == text_of(DatesMsg.DATES_NO_SUCH_DAY, month="February", last=29)
    await chat.send("31 April")
    assert chat.text == text_of(DatesMsg.DATES_NO_SUCH_DAY, month="April", last=30)
    await in_language(chat, services, "es")
    await chat.send("/dates")
    await chat.press(content.text("es", DatesMsg.DATES_ADD))
    await chat.press(content.text("es", DatesMsg.DATES_KIND_OTHER))
    await chat.send("31/02")
    assert chat.text == content.text("es", DatesMsg.DATES_NO_SUCH_DAY, month="Febrero", last=29)
