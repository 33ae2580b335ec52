"""Markup in what users write is shown back as the very characters they typed.

Telegram replies are sent as HTML, and the fake Bot API rejects malformed HTML the
way Telegram does; so a reply that leaked a `<b>` or a stray `&` would either be
refused or show different text. Every place that echoes user text is checked.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from bot.content_pack.ids import CheckinMsg, HistoryMsg, OnboardingMsg, PauseMsg, ReasonsMsg
from tests.helpers.telegram_checks import failed_sends, mydata_export, onboard
from tests.helpers.telegram_world import TelegramWorld

ANA = 2001

HOSTILE = [
    "<b>bold</b> and </i> a stray closing tag",
    '<a href="tg://user?id=1">press here</a> <a href=javascript:x>',
    "*stars* _underscores_ `backtick` ```fence``` ~tilde~ ||spoiler||",
    "&amp; &lt;b&gt; &#x27; &nbsp; & ; &#0; &unknown;",
    "<script>alert(1)</script><tg-spoiler>x</tg-spoiler><pre>",
    "[a link](https://example.org) \\*escaped\\* \"quotes\" 'single' <<>>",
]


@pytest.mark.parametrize("text", HOSTILE)
async def test_hostile_markup_is_echoed_exactly_everywhere(
    telegram: TelegramWorld, text_of: Callable[..., str], text: str
) -> None:
    await onboard(telegram, ANA, text_of)

    await telegram.says(ANA, "/reasons")
    await telegram.taps(ANA, text_of(ReasonsMsg.REASONS_ADD))
    await telegram.says(ANA, text)
    assert f"1. {text}" in telegram.last_text(ANA).splitlines()  # the reasons list
    await telegram.taps(ANA, text_of(ReasonsMsg.REASONS_DONE))

    await telegram.says(ANA, "/checkin")
    await telegram.says(ANA, "3")
    await telegram.says(ANA, "some")
    await telegram.says(ANA, text)
    assert telegram.last_text(ANA).startswith(text_of(CheckinMsg.CHECKIN_SAVED_WITH_NOTE))

    await telegram.says(ANA, "/pause")
    await telegram.taps(ANA, text_of(PauseMsg.PAUSE_WRITE))
    await telegram.says(ANA, text)
    await telegram.taps(ANA, text_of(PauseMsg.WRITE_KEEP))
    await telegram.taps(ANA, text_of(PauseMsg.PAUSE_MORE))
    await telegram.taps(ANA, text_of(PauseMsg.PAUSE_DONE))

    await telegram.says(ANA, "/pause")
    await telegram.taps(ANA, text_of(PauseMsg.PAUSE_MORE))
    await telegram.taps(ANA, text_of(PauseMsg.PAUSE_REMEMBER))
    assert f"• {text}" in telegram.tg.sent_texts(ANA)[-2].splitlines()  # the reasons, quoted

    await telegram.says(ANA, "/mydata")
    export = mydata_export(telegram, ANA, text_of)
    assert [reason["text"] for reason in export["reasons"]] == [text]
    assert [answer["note"] for answer in export["checkins"]] == [text]
    assert [draft["text"] for draft in export["kept_drafts"]] == [text]

    await telegram.says(ANA, "/history")
    summary = text_of(
        HistoryMsg.HISTORY_SUMMARY,
        answered_7=1, mood_7="3.0", urges_7=1, answered_30=1, mood_30="3.0", urges_30=1,
    )  # fmt: skip
    assert telegram.last_text(ANA).startswith(summary)

    assert failed_sends(telegram) == []


async def test_markup_in_a_refused_time_zone_is_not_echoed_or_parsed(
    telegram: TelegramWorld, text_of: Callable[..., str]
) -> None:
    await telegram.says(ANA, "/start")
    await telegram.says(ANA, "<b>Europe/Berlin</b>")
    assert telegram.last_text(ANA) == text_of(OnboardingMsg.BAD_TIMEZONE)
    assert failed_sends(telegram) == []
