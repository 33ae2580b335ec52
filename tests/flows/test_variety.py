"""A month of check-ins, three a day, with no repeated reply or opening.

Run over a synthetic pack of the brief's minimum size (20 replies per category, 30 neutral
openings per part of the day), so the rotation is proven whatever the shipped items are,
and over the shipped pack itself.
"""

from __future__ import annotations

import random
from collections.abc import AsyncIterator, Callable
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from bot.app import open_services
from bot.config import Settings
from bot.content_pack.ids import CheckinMsg
from bot.content_pack.loader import load_pack
from bot.content_pack.schema import CheckInReply, Opening
from bot.core.clock import ManualClock
from bot.core.events import Address, CheckInDue
from bot.engine.router import Router
from bot.flows.checkin import opening_period, pick_opening, pick_reply
from bot.flows.context import Services
from bot.storage.users import find_user
from tests.helpers.conversation import Conversation
from tests.helpers.synthetic_pack import REPO_CONTENT, write_pack

BERLIN = ZoneInfo("Europe/Berlin")
# How the days go, in turn: every reply category comes up, as over a real month.
DAYS = (("1", "none", False), ("3", "none", False), ("5", "none", False),
        ("3", "strong", False), ("3", "none", True))  # fmt: skip


@pytest.fixture(params=["synthetic", "shipped"])
async def synthetic(
    request: pytest.FixtureRequest,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    clock: ManualClock,
) -> AsyncIterator[Services]:
    for name in ("TELEGRAM_BOT_TOKEN", "DISCORD_BOT_TOKEN", "STEADY_ENCRYPTION_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("STEADY_DATA_DIR", str(tmp_path / "data"))
    pack = write_pack(tmp_path / "pack") if request.param == "synthetic" else REPO_CONTENT
    monkeypatch.setenv("STEADY_CONTENT_DIR", str(pack))
    async with open_services(Settings(_env_file=None), clock) as opened:
        yield opened


async def test_a_month_of_three_checkins_a_day_repeats_nothing(
    synthetic: Services, clock: ManualClock, text_of: Callable[..., str]
) -> None:
    router = Router(synthetic, rng=random.Random(3))
    chat = Conversation(router, Address("console", "c1", "u1"))
    await chat.send("/cancel")  # the user exists
    await chat.send("/checkin")
    await chat.send("/cancel")
    user = await find_user(synthetic.db, "console", "u1")
    assert user is not None
    openings, replies = [], []
    start = clock.now().astimezone(BERLIN).replace(hour=0, minute=0)
    for day in range(30):
        for hour in (8, 13, 19):
            local = start + timedelta(days=day, hours=hour)
            clock.set(local)
            [asked] = await router.handle(
                CheckInDue(Address("console", "c1", "u1"), local, user.id, "en", local)
            )
            chat.history.append(asked)
            openings.append(asked.text.split("\n\n", 1)[0])
            mood, urge, still_there = DAYS[(day * 3 + hour) % len(DAYS)]
            await chat.press(f"{mood} ·")
            if still_there:
                await chat.press(text_of(CheckinMsg.CHECKIN_STILL_THERE))
            await chat.press({"none": "None", "strong": "Strong"}[urge])
            await chat.press(text_of(CheckinMsg.SKIP_NOTE))
            replies.append(chat.last[0].text.split("\n\n", 1)[1])
    assert len(openings) == len(replies) == 90
    assert len(set(openings)) == 90, "an opening came back within the month"
    assert len(set(replies)) == 90, "a reply came back within the month"
    by_text = {o.text: o for o in synthetic.content.openings("en")}
    assert all(by_text[text].register == "neutral" for text in openings)  # discreet default
    assert all(by_text[text].time_of_day in ("morning", "any") for text in openings[0::3])
    assert all(by_text[text].time_of_day in ("evening", "any") for text in openings[2::3])


def test_openings_follow_local_time_and_discreet_mode() -> None:
    pack = load_pack(Path(__file__).resolve().parents[2] / "content", "en")
    items = [
        Opening.model_validate({"id": i, "time_of_day": t, "register": r, "text": i})
        for i, t, r in (("m", "morning", "neutral"), ("e", "evening", "neutral"),
                        ("a", "any", "neutral"), ("w", "evening", "warm"))
    ]  # fmt: skip
    rng = random.Random(1)
    night = datetime(2026, 3, 3, 5, 12, tzinfo=BERLIN) - timedelta(hours=1)  # 04:12
    assert opening_period(night) is None
    assert {pick_opening(items, night, True, {}, rng).id for _ in range(20)} == {"a"}
    evening = datetime(2026, 3, 3, 21, 0, tzinfo=BERLIN)
    discreet = {pick_opening(items, evening, True, {}, rng).id for _ in range(40)}
    assert discreet == {"e", "a"}
    warm_allowed = {pick_opening(items, evening, False, {}, rng).id for _ in range(60)}
    assert warm_allowed == {"e", "a", "w"}
    assert pick_opening(items, evening, True, {"e": evening}, rng).id == "a"
    assert pack.openings("en")  # the shipped pack loads with its openings


def test_a_reply_for_the_evening_is_never_given_at_dawn() -> None:
    replies = [
        CheckInReply(id="bed", category="hard_day", time_of_day="evening", text="Before bed?"),
        CheckInReply(id="any", category="hard_day", text="Any hour."),
    ]
    dawn = datetime(2026, 3, 3, 5, 12, tzinfo=BERLIN)
    night = datetime(2026, 3, 3, 2, 0, tzinfo=BERLIN)
    evening = datetime(2026, 3, 3, 21, 0, tzinfo=BERLIN)
    rng = random.Random(2)
    for when in (dawn, night):
        assert {pick_reply(replies, "hard_day", when, {}, rng).id for _ in range(20)} == {"any"}
    assert {pick_reply(replies, "hard_day", evening, {}, rng).id for _ in range(40)} == {
        "bed",
        "any",
    }
