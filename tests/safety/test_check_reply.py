"""The short check: one kind line and two buttons, answered from the content pack alone,
and a log that says only which kind of reply went out, never which rule matched."""

from __future__ import annotations

import io
from collections.abc import Callable

from bot.content_pack.ids import SafetyMsg
from bot.content_pack.pack import ContentPack
from bot.core.events import Address
from bot.engine.router import Router
from bot.safety.screen import CHECK_HELP, CHECK_SAFE, SafetyScreen
from tests.helpers.conversation import Conversation


async def test_softened_words_get_one_line_and_two_buttons(
    chat: Conversation, text_of: Callable[..., str]
) -> None:
    [reply] = await chat.send("I'm not going to hurt myself, don't worry")
    assert reply.text == text_of(SafetyMsg.SAFETY_CHECK)
    labels = [button.label for button in reply.flat_buttons]
    assert labels == [
        text_of(SafetyMsg.SAFETY_CHECK_SAFE_BUTTON),
        text_of(SafetyMsg.SAFETY_CHECK_HELP_BUTTON),
    ]


async def test_show_me_help_now_gives_the_full_reply(
    chat: Conversation, content: ContentPack, text_of: Callable[..., str]
) -> None:
    await chat.send("my friend died by suicide")
    [reply] = await chat.press(text_of(SafetyMsg.SAFETY_CHECK_HELP_BUTTON))
    full = SafetyScreen(content).screen("i want to die", "en", None, is_group=False)
    assert full is not None
    assert reply.text == full.replies[0].text
    assert reply.text.startswith(text_of(SafetyMsg.SAFETY_CRISIS_INTRO))


async def test_help_after_softened_danger_words_puts_danger_first(
    chat: Conversation, text_of: Callable[..., str]
) -> None:
    await chat.send("he used to hit me, I've been safe for a year")
    [reply] = await chat.press(text_of(SafetyMsg.SAFETY_CHECK_HELP_BUTTON))
    assert reply.text.startswith(text_of(SafetyMsg.SAFETY_DANGER_INTRO))


async def test_i_am_safe_gets_a_short_acknowledgement(
    chat: Conversation, text_of: Callable[..., str]
) -> None:
    await chat.send("I haven't self-harmed in years")
    [reply] = await chat.press(text_of(SafetyMsg.SAFETY_CHECK_SAFE_BUTTON))
    assert reply.text == text_of(SafetyMsg.SAFETY_CHECK_SAFE_REPLY)
    assert reply.flat_buttons == ()


async def test_the_presses_work_without_any_stored_user(router: Router) -> None:
    """Static button data, answered before any database lookup matters: a stranger's press."""
    stranger = Conversation(router, Address("console", "c9", "u9"))
    [safe] = await stranger.press_data(CHECK_SAFE)
    [help_now] = await stranger.press_data(CHECK_HELP)
    assert safe.text and help_now.flat_buttons  # the full reply keeps its misread button


async def test_in_a_group_the_check_goes_privately(router: Router) -> None:
    group = Conversation(router, Address("console", "g1", "u1", is_group=True))
    [reply] = await group.send("my friend died by suicide")
    assert reply.private and reply.group_notice is not None


async def test_ordinary_talk_gets_no_safety_reply(
    chat: Conversation, text_of: Callable[..., str]
) -> None:
    await chat.send("/start")
    replies = await chat.send("had a quiet day and made soup")
    assert all(reply.text != text_of(SafetyMsg.SAFETY_CHECK) for reply in replies)


async def test_logs_name_the_reply_level_and_never_the_rule(
    chat: Conversation, content: ContentPack, log_output: io.StringIO
) -> None:
    for text in ("he strangled me last night", "i want to die", "my friend died by suicide"):
        await chat.send(text)
    logged = log_output.getvalue()
    assert "event=safety.matched" in logged and "reply=danger" in logged
    assert "reply=crisis" in logged and "reply=check" in logged
    files = [content.content("en").detection]
    rule_ids = {rule.id for file in files for rule in file.rules}
    assert "danger-strangled" in rule_ids  # the rule that matched, so the check below can fail
    for line in logged.splitlines():
        assert not any(rule_id in line for rule_id in rule_ids), line
        assert "rule=" not in line and "intent=" not in line
