"""The words, second edition, as users meet them: true promises, counts that agree,
a path for someone who lives with them or went back, handovers, pressure, looking."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import timedelta

import pytest

from bot.content_pack.commands import Command
from bot.content_pack.ids import (
    AffirmMsg,
    CheckinMsg,
    ContactedMsg,
    DataMsg,
    NoContactMsg,
    PauseMsg,
    ReasonsMsg,
    ThemeMsg,
)
from bot.content_pack.pack import ContentPack
from bot.content_pack.schema import Theme
from bot.core.clock import ManualClock
from bot.core.events import Address
from bot.engine.router import Router
from bot.flows.affirm import FIRST_THEMES, THEME_GROUPS, theme_label
from bot.flows.context import Services
from bot.storage import users
from bot.storage.urges import get_no_contact, pause_counts
from bot.storage.user_texts import TextKind, list_texts
from tests.flows.test_pause import LONG_AGO, user_id
from tests.helpers.conversation import Conversation

# Words that foretell what will happen, or judge where the reader is.
FORECASTS = (
    *("will happen", "going to happen", "it will get", "you will", "should leave"),
    *("if you stay", "if you go back", "mistake", "again and again", "always ends"),
)


async def let_go(chat: Conversation, text_of: Callable[..., str]) -> str:
    await chat.send("/pause")
    await chat.press(text_of(PauseMsg.PAUSE_WRITE))
    await chat.send("come back, I'll change")
    await chat.press(text_of(PauseMsg.WRITE_LET_GO))
    return chat.text


async def test_letting_go_says_what_is_still_in_the_chat(
    chat: Conversation, text_of: Callable[..., str]
) -> None:
    said = await let_go(chat, text_of)
    assert said.startswith("Let go. I kept nothing of it. What you typed is still in this chat")
    assert "Nothing of it was kept" not in said


@pytest.mark.parametrize(
    ("platform", "how"),
    [
        ("telegram", "press and hold it (or right-click it) and choose Delete. /wipe"),
        ("discord", "Discord doesn't let me delete it"),
    ],
)
async def test_each_platform_hears_how_to_delete_it_there(
    router: Router, text_of: Callable[..., str], platform: str, how: str
) -> None:
    chat = Conversation(router, Address(platform, "9", "9"))
    said = await let_go(chat, text_of)
    assert "still in this chat above" in said and how in said


async def test_a_kept_draft_can_be_read_and_deleted_in_reasons(
    chat: Conversation, services: Services, text_of: Callable[..., str]
) -> None:
    await chat.send("/pause")
    await chat.press(text_of(PauseMsg.PAUSE_WRITE))
    await chat.send("a draft to read later")
    await chat.press(text_of(PauseMsg.WRITE_KEEP))
    assert "/reasons shows it again" in chat.text and "still in this chat" in chat.text
    await chat.send("/reasons")
    await chat.press(text_of(ReasonsMsg.REASONS_DRAFTS))
    [shown] = chat.last
    assert shown.protect and "1. a draft to read later" in shown.text
    await chat.press(text_of(ReasonsMsg.DRAFTS_REMOVE))
    await chat.press("1")
    assert (
        chat.text == f"{text_of(ReasonsMsg.DRAFTS_REMOVED)}\n\n{text_of(ReasonsMsg.DRAFTS_EMPTY)}"
    )
    uid = await user_id(services)
    assert await list_texts(services.db, services.cipher, TextKind.DRAFT, uid) == []
    await chat.press(text_of(ReasonsMsg.DRAFTS_BACK))
    assert chat.text == text_of(ReasonsMsg.REASONS_EMPTY)


async def test_a_restarted_count_reads_right_for_0_1_and_2_days(
    chat: Conversation, clock: ManualClock, text_of: Callable[..., str]
) -> None:
    await chat.send("/nocontact")
    await chat.press(text_of(NoContactMsg.NC_START))
    await chat.send("/nocontact")
    assert chat.text == (
        "Today is the first day of your count. Your longest stretch will show here as it grows."
    )
    await chat.press(text_of(NoContactMsg.NC_RESET))
    assert chat.text == "That happened, and it's all right. The count begins again from today."
    clock.advance(timedelta(days=1))
    await chat.send("/nocontact")
    assert chat.text == "1 day without contact. Your longest stretch so far: 1 day."
    await chat.press(text_of(NoContactMsg.NC_RESET))
    assert chat.text.endswith("your longest stretch, 1 day, stays yours.")
    clock.advance(timedelta(days=2))
    await chat.send("/nocontact")
    assert chat.text == "2 days without contact. Your longest stretch so far: 2 days."
    await chat.press(text_of(NoContactMsg.NC_RESET))
    assert chat.text.endswith("your longest stretch, 2 days, stays yours.")


async def test_a_handover_never_resets_the_count(
    chat: Conversation, services: Services, clock: ManualClock, text_of: Callable[..., str]
) -> None:
    await chat.send("/nocontact")
    await chat.press(text_of(NoContactMsg.NC_START))
    clock.advance(timedelta(days=5))
    await chat.send("/nocontact")
    await chat.press("Only practical contact (handover, bill)")
    assert chat.text == text_of(NoContactMsg.NC_PRACTICAL_NOTED)
    clock.advance(timedelta(days=1))
    await chat.send("/nocontact")
    assert chat.text.startswith("6 days without contact.")
    assert chat.text.endswith("1 practical contact noted, apart from your count.")
    counter = await get_no_contact(services.db, await user_id(services))
    assert counter is not None and (counter.restarts, counter.practical_contacts) == (0, 1)


async def test_someone_who_went_back_gets_a_check_in_with_no_forecast(
    chat: Conversation, services: Services, text_of: Callable[..., str]
) -> None:
    await chat.send("/checkin")
    # Not on the first screen, which anyone glancing at the phone may see.
    assert text_of(CheckinMsg.CHECKIN_STILL_THERE) not in [
        b.label for b in chat.last[0].flat_buttons
    ]
    await chat.press(text_of(CheckinMsg.MOOD_3))
    await chat.press(text_of(CheckinMsg.CHECKIN_STILL_THERE))
    assert chat.text == f"{text_of(CheckinMsg.STILL_THERE_INTRO)}\n\n{text_of(CheckinMsg.ASK_URGE)}"
    assert text_of(CheckinMsg.CHECKIN_STILL_THERE) not in [
        b.label for b in chat.last[0].flat_buttons
    ]
    await chat.press(text_of(CheckinMsg.URGE_NONE))
    await chat.press(text_of(CheckinMsg.SKIP_NOTE))
    assert chat.text.startswith(text_of(CheckinMsg.CHECKIN_SAVED))
    saved = chat.text.split("\n\n", 1)[1]
    replies = services.content.checkin_replies("en")
    assert saved in {r.text for r in replies if r.category == "still_there"}
    for words in (chat.history[-3].text, chat.text):
        assert not any(forecast in words.lower() for forecast in FORECASTS)


async def test_the_pause_has_a_path_for_someone_still_there(
    chat: Conversation, text_of: Callable[..., str]
) -> None:
    await chat.send("/pause")
    await chat.press(text_of(PauseMsg.PAUSE_MORE))
    await chat.press(text_of(PauseMsg.PAUSE_STILL_THERE))
    assert chat.text.endswith(text_of(PauseMsg.PAUSE_STILL_THERE_REPLY))
    assert not any(forecast in chat.text.lower() for forecast in FORECASTS)
    labels = [b.label for b in chat.last[0].flat_buttons]
    assert labels == [
        text_of(m)
        for m in (PauseMsg.PAUSE_GROUND, PauseMsg.PAUSE_BREATHE, PauseMsg.PAUSE_NEED_REST)
    ]
    await chat.press(text_of(PauseMsg.PAUSE_NEED_REST))
    assert chat.text == text_of(PauseMsg.PAUSE_REST_REPLY)


async def test_the_pause_menu_offers_three_choices_then_more(
    chat: Conversation, text_of: Callable[..., str]
) -> None:
    await chat.send("/pause")
    first = [b.label for b in chat.last[0].flat_buttons]
    assert first == [
        text_of(m)
        for m in (
            PauseMsg.PAUSE_BREATHE,
            PauseMsg.PAUSE_WAIT,
            PauseMsg.PAUSE_WRITE,
            PauseMsg.PAUSE_MORE,
        )
    ]
    await chat.press(text_of(PauseMsg.PAUSE_MORE))
    more = [b.label for b in chat.last[0].flat_buttons]
    assert text_of(PauseMsg.PAUSE_CHECKING) in more and text_of(PauseMsg.PAUSE_DONE) in more
    await chat.press(text_of(PauseMsg.PAUSE_BACK))
    assert chat.text == text_of(PauseMsg.PAUSE_MENU)


async def test_the_urge_to_look_them_up_is_its_own_start(
    chat: Conversation, services: Services, text_of: Callable[..., str]
) -> None:
    await chat.send("/pause")
    await chat.press(text_of(PauseMsg.PAUSE_MORE))
    await chat.press(text_of(PauseMsg.PAUSE_CHECKING))
    assert chat.text == text_of(PauseMsg.PAUSE_CHECKING_REPLY)
    assert "unblock" in chat.text
    await chat.press(text_of(PauseMsg.CHECKING_PASSED))
    assert chat.text == text_of(PauseMsg.PAUSE_DONE_REPLY)
    counts = await pause_counts(services.db, await user_id(services), since=LONG_AGO)
    assert (counts.paused, counts.passed) == (1, 1)


@pytest.mark.parametrize(("country", "number"), [("DE", "112 (Germany)"), (None, "your local")])
async def test_a_threat_to_self_harm_belongs_with_emergency_services(
    chat: Conversation,
    services: Services,
    text_of: Callable[..., str],
    country: str | None,
    number: str,
) -> None:
    await chat.send("/contacted")
    async with services.db.transaction() as tx:
        await users.set_country(tx, await user_id(services), country)
    await chat.press(text_of(ContactedMsg.CT_PRESSURE))
    await chat.press(text_of(ContactedMsg.CT_THREAT_SELF))
    assert "emergency belongs with emergency services, not with you to carry" in chat.text
    assert f"you can call {number}" in chat.text
    assert chat.last[0].buttons == ()
    assert chat.last[-1].text == text_of(ContactedMsg.CT_WHAT_NOW) and chat.last[-1].buttons


async def test_the_first_affirmation_makes_sense_without_context(
    router: Router, content: ContentPack
) -> None:
    first_ok = set()
    for number in range(12):
        chat = Conversation(router, Address("console", f"n{number}", f"n{number}"))
        await chat.send("/affirm")
        [shown] = [a for a in content.affirmations("en") if a.text == chat.text]
        first_ok.add(
            shown.first
            if any(a.first for a in content.affirmations("en"))
            else shown.theme in FIRST_THEMES
        )
    assert first_ok == {True}


async def test_an_affirmation_can_be_asked_for_by_theme(
    chat: Conversation, content: ContentPack, text_of: Callable[..., str]
) -> None:
    await chat.send("/affirm")
    await chat.press(text_of(AffirmMsg.AFFIRM_BY_THEME))
    assert chat.text == text_of(AffirmMsg.AFFIRM_PICK_GROUP)
    await chat.press(text_of(AffirmMsg.AFFIRM_GROUP_FEELINGS))
    assert text_of(ThemeMsg.THEME_GUILT) in [b.label for b in chat.last[0].flat_buttons]
    await chat.press(text_of(ThemeMsg.THEME_GUILT))
    guilt = {a.text for a in content.affirmations("en") if a.theme is Theme.GUILT}
    shown = {chat.text}
    for _ in range(len(guilt) - 1):
        await chat.press(text_of(AffirmMsg.AFFIRM_ANOTHER))
        shown.add(chat.text)
    assert shown == guilt  # every one of the theme, none twice, before any repeats


def test_every_theme_has_a_plain_label_and_a_group(content: ContentPack) -> None:
    grouped = {theme for _, themes in THEME_GROUPS.values() for theme in themes}
    assert grouped == set(Theme)
    for theme in Theme:
        assert content.text("en", theme_label(theme))


async def test_text_after_an_affirmation_is_read_as_if_no_flow_were_open(
    chat: Conversation, text_of: Callable[..., str]
) -> None:
    await chat.send("/affirm")
    await chat.send("i really want to text him right now")
    assert chat.text == text_of(PauseMsg.PAUSE_OFFER)


async def test_what_was_shown_lately_is_in_mydata_and_gone_after_forget(
    chat: Conversation, services: Services, text_of: Callable[..., str]
) -> None:
    await chat.send("/checkin")
    await chat.press(text_of(CheckinMsg.MOOD_4))
    await chat.press(text_of(CheckinMsg.URGE_NONE))
    await chat.press(text_of(CheckinMsg.SKIP_NOTE))
    await chat.send("/mydata")
    export = json.loads(chat.last[-1].text)
    [reply_id] = export["content_seen"]["reply"]
    assert chat.history[-3].text.endswith(
        next(r.text for r in services.content.checkin_replies("en") if r.id == reply_id)
    )
    await chat.send("/forget")
    await chat.press(text_of(DataMsg.FORGET_YES))
    assert await services.db.fetch_all("SELECT * FROM content_seen") == []


async def test_a_breath_written_out_reads_as_one_sentence(
    chat: Conversation, content: ContentPack, text_of: Callable[..., str]
) -> None:
    await chat.send("/pause")
    await chat.press(text_of(PauseMsg.PAUSE_BREATHE))
    longer_out = content.exercise("en", "breathe-long-out")
    assert longer_out is not None
    await chat.press(longer_out.title)
    assert (
        "One breath: breathe in for 4 seconds, breathe out for 6 seconds. "
        "Repeat it 6 times, at your own pace."
    ) in chat.text


async def test_the_followup_reads_like_an_app_unless_discreet_mode_is_off(
    services: Services, router: Router, text_of: Callable[..., str]
) -> None:
    for who, discreet in (("d1", True), ("d2", False)):
        chat = Conversation(router, Address("console", who, who))
        await chat.send("/pause")
        found = await users.find_user(services.db, "console", who)
        assert found is not None
        async with services.db.transaction() as tx:
            await users.set_discreet(tx, found.id, discreet)
            found = await users.get_user(tx, found.id)
            assert found is not None
            [sent] = await router.pause.followups_due(tx, services, [(1, found)])
        assert sent.reply.text == text_of(PauseMsg.FOLLOWUP if discreet else PauseMsg.FOLLOWUP_WARM)
    assert text_of(PauseMsg.FOLLOWUP) == "Your timer has ended. Tap below whenever you're ready."


async def test_reflections_do_not_repeat_until_all_were_asked(
    chat: Conversation, content: ContentPack, text_of: Callable[..., str]
) -> None:
    await chat.send("/reasons")
    await chat.press(text_of(ReasonsMsg.REASONS_ADD))
    await chat.send("the way I felt on Sundays")
    await chat.send("/pause")
    await chat.press(text_of(PauseMsg.PAUSE_MORE))
    await chat.press(text_of(PauseMsg.PAUSE_REMEMBER))
    questions = {q.text for q in content.reflections("en")}
    asked = [chat.last[-1].text.split("\n\n", 1)[1]]
    for _ in range(len(questions) - 1):
        await chat.press(text_of(PauseMsg.PAUSE_ANOTHER))
        asked.append(chat.text.split("\n\n", 1)[1])
    assert sorted(asked) == sorted(questions)


async def test_help_in_a_group_uses_the_neutral_descriptions(
    router: Router, content: ContentPack
) -> None:
    group = Conversation(router, Address("console", "g1", "u7", is_group=True))
    await group.send("/help")
    assert "/nocontact - A day counter" in group.text
    assert "last contact" not in group.text
    private = Conversation(router, Address("console", "u7", "u7"))
    await private.send("/help")
    assert f"/nocontact - {content.command_descriptions('en')[Command.NOCONTACT]}" in private.text
