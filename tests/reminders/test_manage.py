"""/reminder through the router: admins manage, nobody else does, and the database agrees."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import timedelta

from bot.content_pack.ids import DataMsg, ReminderMsg
from bot.content_pack.pack import ContentPack
from bot.core.clock import ManualClock
from bot.core.events import Address, CommandIssued
from bot.engine.router import Router
from bot.flows.context import Services
from bot.storage import group_reminders
from bot.storage.group_reminders import MAX_PER_CHAT, PausedBecause
from tests.helpers.conversation import Conversation

GROUP = Address("test", "group-1", "admin-1", is_group=True)
MEMBER = Address("test", "group-1", "member-2", is_group=True)


async def reminder(router: Router, args: str, admin: bool = True, at: Address = GROUP) -> str:
    replies = await router.handle(CommandIssued(at, "reminder", args, admin=admin))
    assert len(replies) == 1
    return replies[0].text


async def stored(services: Services) -> list[group_reminders.GroupReminder]:
    return await group_reminders.list_for_chat(services.db, services.cipher, "test", "group-1")


async def test_an_admin_adds_a_reminder_and_it_is_planned(
    router: Router, services: Services, clock: ManualClock, text_of: Callable[..., str]
) -> None:
    said = await reminder(router, "add 09:00 Europe/Berlin mon-fri theme grief")
    assert said.startswith("Reminder 1 is set: 09:00 Europe/Berlin, mon-fri.")
    assert text_of(ReminderMsg.REMINDER_WHAT_THEME, theme="grief") in said
    [saved] = await stored(services)
    assert saved.creator_user_id == "admin-1"
    assert saved.spec.theme == "grief"
    # Monday 2 March 2026, 09:00 UTC is 10:00 in Berlin: the next post is Tuesday 09:00 CET.
    assert saved.next_due_at == clock.now() + timedelta(days=1) - timedelta(hours=1)


async def test_someone_who_is_not_an_admin_changes_nothing(
    router: Router, services: Services, text_of: Callable[..., str]
) -> None:
    await reminder(router, "add 09:00 UTC")
    for args in ("add 10:00 UTC", "list", "pause 1", "delete 1"):
        assert await reminder(router, args, admin=False, at=MEMBER) == text_of(
            ReminderMsg.REMINDER_ADMINS_ONLY
        )
    [kept] = await stored(services)
    assert kept.paused is None


async def test_in_a_private_chat_reminders_are_explained_not_made(
    router: Router, services: Services, text_of: Callable[..., str]
) -> None:
    private = Address("test", "admin-1", "admin-1")
    said = await reminder(router, "add 09:00 UTC", at=private)
    assert said == text_of(ReminderMsg.REMINDER_GROUPS_ONLY)
    assert await stored(services) == []


async def test_list_pause_resume_delete(
    router: Router, services: Services, clock: ManualClock, text_of: Callable[..., str]
) -> None:
    await reminder(router, "add 09:00 UTC")
    await reminder(router, "add 20:00 America/Chicago weekends text You matter.")
    listed = await reminder(router, "list")
    assert listed.splitlines() == [
        text_of(ReminderMsg.REMINDER_LIST_HEADER),
        "1. 09:00 UTC, daily. It posts an affirmation from any theme. (active)",
        "2. 20:00 America/Chicago, sat,sun. It posts your own text. (active)",
    ]
    assert await reminder(router, "pause 2") == text_of(ReminderMsg.REMINDER_PAUSED, number=2)
    second = (await stored(services))[1]
    assert (second.paused, second.next_due_at) == (PausedBecause.ADMIN, None)
    assert "(paused)" in await reminder(router, "list")

    said = await reminder(router, "resume 2")
    assert said == text_of(ReminderMsg.REMINDER_RESUMED, number=2, next="Sat 07 Mar, 20:00")
    second = (await stored(services))[1]
    assert second.paused is None and second.next_due_at is not None

    assert await reminder(router, "delete 1") == text_of(ReminderMsg.REMINDER_DELETED, number=1)
    assert [r.number for r in await stored(services)] == [2]
    assert await reminder(router, "pause 1") == text_of(ReminderMsg.REMINDER_NOT_FOUND, number=1)


async def test_numbers_are_per_group_and_a_group_has_a_limit(
    router: Router, services: Services, text_of: Callable[..., str]
) -> None:
    other = Address("test", "group-2", "admin-1", is_group=True)
    assert (await reminder(router, "add 09:00 UTC", at=other)).startswith("Reminder 1 ")
    for number in range(1, MAX_PER_CHAT + 1):
        assert (await reminder(router, "add 09:00 UTC")).startswith(f"Reminder {number} ")
    assert await reminder(router, "add 09:00 UTC") == text_of(
        ReminderMsg.REMINDER_TOO_MANY, limit=MAX_PER_CHAT
    )
    assert len(await stored(services)) == MAX_PER_CHAT


async def test_own_text_is_stored_encrypted(router: Router, services: Services) -> None:
    await reminder(router, "add 09:00 UTC text Marker-words-4417 for the group")
    raw = await services.db.fetch_one("SELECT own_text FROM group_reminders")
    assert raw is not None and b"Marker-words-4417" not in raw["own_text"]
    [saved] = await stored(services)
    assert saved.spec.own_text == "Marker-words-4417 for the group"


async def test_a_mistake_gets_help_and_stores_nothing(
    router: Router, services: Services, text_of: Callable[..., str]
) -> None:
    said = await reminder(router, "add 09:00 Mars/Phobos")
    assert said == text_of(ReminderMsg.REMINDER_UNKNOWN_WORD, given="Mars/Phobos")
    assert "Themes: closure, guilt" in await reminder(router, "")
    assert await stored(services) == []


async def test_crisis_words_after_the_command_are_answered_first(
    router: Router, services: Services
) -> None:
    replies = await router.handle(
        CommandIssued(GROUP, "reminder", "add 09:00 UTC text I want to kill myself", admin=True)
    )
    assert replies and all(reply.private for reply in replies)
    assert await stored(services) == []


async def test_forget_keeps_the_groups_reminder_but_not_the_admins_id(
    router: Router, services: Services, text_of: Callable[..., str]
) -> None:
    await reminder(router, "add 09:00 UTC")
    private = Conversation(router, Address("test", "admin-1", "admin-1"))
    await private.send("/start")
    await private.send("/forget")
    await private.press(text_of(DataMsg.FORGET_YES))
    assert private.text == text_of(DataMsg.FORGET_DONE)
    [kept] = await stored(services)
    assert kept.creator_user_id is None
    assert kept.next_due_at is not None  # the group still gets its reminder


async def spanish(router: Router, name: str, args: str) -> str:
    """An admin whose app is in Spanish, in a group that has not met the bot before."""
    event = CommandIssued(GROUP, name, args, language_code="es", admin=True)
    replies = await router.handle(event)
    assert len(replies) == 1
    return replies[0].text


async def test_a_spanish_admin_uses_spanish_words_and_reads_them_back(
    router: Router, services: Services, content: ContentPack
) -> None:
    said = await spanish(router, "recordatorio", "añadir 09:00 Europe/Madrid lun-vie tema duelo")
    assert said.startswith("El recordatorio 1 está listo: 09:00 Europe/Madrid, lun-vie.")
    assert content.text("es", ReminderMsg.REMINDER_WHAT_THEME, theme="duelo") in said
    assert "/recordatorio pausar 1 lo pausa y /recordatorio borrar 1 lo elimina." in said
    await spanish(router, "recordatorio", "agregar 20:00 UTC sáb,dom texto Un respiro.")
    listed = await spanish(router, "recordatorio", "lista")
    assert listed.splitlines()[1:] == [
        '1. 09:00 Europe/Madrid, lun-vie. Publica una afirmación del tema "duelo". (activo)',
        "2. 20:00 UTC, sáb,dom. Publica tu propio texto. (activo)",
    ]
    # What a list shows can be typed back: "lun-vie" and "sáb,dom" are days it reads.
    assert await spanish(router, "reminder", "pausar 2") == content.text(
        "es", ReminderMsg.REMINDER_PAUSED, number=2
    )
    assert [r.spec.weekdays for r in await stored(services)] == [
        frozenset(range(5)),
        frozenset({5, 6}),
    ]
    assert await spanish(router, "recordatorio", "borrar 1") == content.text(
        "es", ReminderMsg.REMINDER_DELETED, number=1
    )


async def test_spanish_help_and_errors_name_the_spanish_words(
    router: Router, services: Services, content: ContentPack
) -> None:
    help_text = await spanish(router, "recordatorio", "")
    assert "/recordatorio añadir 09:00 Europe/Madrid lun-vie tema duelo" in help_text
    assert "Temas: respuestas, culpa, inquietud" in help_text
    for english in ("add", "list", "theme", "text", "mon-fri", "daily", "grief"):
        assert not re.search(rf"(?<![\w-]){english}(?![\w-])", help_text), english
    asked = await spanish(router, "recordatorio", "pausar")
    assert asked == content.text("es", ReminderMsg.REMINDER_NEEDS_NUMBER, action="pausar")
    wrong = await spanish(router, "recordatorio", "añadir 09:00 UTC tema alegría")
    assert wrong.startswith("Elige uno de estos temas: respuestas, culpa,")
    assert await stored(services) == []
