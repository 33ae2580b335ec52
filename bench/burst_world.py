"""The world of bench/burst.py: a data folder of users whose check-ins fall due at one
minute, `steady run` on it against a Bot API that keeps Telegram's limits, and the people
who write to the bot meanwhile (the probes), each reply timed.

A probe is one person doing one thing and waiting for the answer:

* `crisis`: writes words of crisis or of danger from someone (each phrase screened to that
  level), and waits for the crisis reply;
* `sos`: sends /sos, and waits for the helplines;
* `press`: opens a check-in with /checkin (untimed), then presses a mood button, and
  waits for the next question;
* `answer`: opens a check-in and answers its buttons (untimed), then types the note the
  check-in asks for, and waits for its thanks.

The time is from the update pushed into the fake to the first message (sendMessage, or
editMessageText for a press) the fake accepted for that chat after it, both on the
fake's monotonic clock (`RecordedCall.arrived`).
"""

from __future__ import annotations

import asyncio
import math
import os
import signal
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import IO

from bench.common import REPO
from bench.telegram_roundtrip import find_button
from bot.scheduling.planner import plan_slot
from bot.scheduling.rules import ALL_DAYS
from bot.storage.db import Database
from bot.storage.queries import to_epoch
from bot.storage.users import get_user, weekdays_to_mask
from tests.fakes.telegram_api import FakeTelegram, RecordedCall

FIRST_BURST_CHAT = 1_000_001
FIRST_PROBE_CHAT = 9_000_001
PROBE_USERS = 600  # each probe is a person of its own: no chat's limit is ever in play
KINDS = ("crisis", "sos", "press", "answer")
URGENT_KINDS = ("crisis", "sos")
CRISIS_WORDS = (
    "i want to die",
    "he is going to kill me",
    "i want to kill myself",
    "my ex hits me and i am scared",
)
NOTE = "slept badly but got up anyway"
ZONE = "UTC"
STEP_TIMEOUT_S = 30.0
READY_TIMEOUT_S = 60.0
STOP_TIMEOUT_S = 30.0
MESSAGES = ("sendMessage", "sendPhoto")
SHOWN = ("sendMessage", "editMessageText")  # what a person sees change in the chat


def due_minute(lead_s: float) -> datetime:
    """The first whole minute at least `lead_s` from now (UTC)."""
    soon = datetime.now(UTC) + timedelta(seconds=lead_s)
    return (soon + timedelta(minutes=1)).replace(second=0, microsecond=0)


async def prepare(db_path: Path, burst: int, due: datetime) -> None:
    """`burst` users whose one daily check-in falls due at `due`, and PROBE_USERS more
    whose check-in is twelve hours away; all onboarded in UTC, country GB (the crisis
    reply names its numbers)."""
    now = datetime.now(UTC)
    created = to_epoch(now - timedelta(days=30))
    days = weekdays_to_mask(ALL_DAYS)
    chats = [*range(FIRST_BURST_CHAT, FIRST_BURST_CHAT + burst),
             *range(FIRST_PROBE_CHAT, FIRST_PROBE_CHAT + PROBE_USERS)]  # fmt: skip
    db = await Database.open(db_path)  # applies the migrations
    try:
        async with db.transaction() as tx:
            await tx.executemany(
                "INSERT INTO users (id, platform, platform_user_id, chat_id, locale, timezone,"
                " weekdays, created_at, onboarded_at, country)"
                " VALUES (?, 'telegram', ?, ?, 'en', ?, ?, ?, ?, 'GB')",
                [
                    (n + 1, str(c), str(c), ZONE, days, created, created)
                    for n, c in enumerate(chats)
                ],
            )
        user = await get_user(db, 1)
        assert user is not None
        later = due + timedelta(hours=12)
        slots = []
        for number, chat in enumerate(chats):
            at = due if chat < FIRST_PROBE_CHAT else later
            planned = plan_slot(user, at.strftime("%H:%M"), now, None)
            assert planned is not None and planned[0] == at, (planned, at)
            slots.append((number + 1, at.strftime("%H:%M"), to_epoch(at), planned[1].isoformat()))
        async with db.transaction() as tx:
            await tx.executemany(
                "INSERT INTO checkin_slots (user_id, local_time, next_due_at, next_local_date)"
                " VALUES (?, ?, ?, ?)",
                slots,
            )
    finally:
        await db.close()


def environment(tg: FakeTelegram, data_dir: Path) -> dict[str, str]:
    """What an operator would set for `steady run`, pointed at the fake."""
    kept = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("TELEGRAM_", "DISCORD_", "STEADY_"))
    }
    return kept | {
        "TELEGRAM_BOT_TOKEN": tg.token,
        "TELEGRAM_API_BASE_URL": f"{tg.url}/bot",
        "STEADY_DATA_DIR": str(data_dir),
        "STEADY_CONTENT_DIR": str(REPO / "content"),
        "STEADY_LOG_LEVEL": "INFO",
    }


def log_file(data_dir: Path) -> IO[bytes]:
    """Where the bot's own output goes (its log is in its data folder)."""
    return open(data_dir / "output.log", "wb")


async def start_bot(tg: FakeTelegram, data_dir: Path) -> asyncio.subprocess.Process:
    """`steady run`, as an operator starts it, until it polls."""
    with log_file(data_dir) as output:
        bot = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot", "run",
            cwd=data_dir, env=environment(tg, data_dir),
            stdin=asyncio.subprocess.DEVNULL, stdout=output, stderr=output,
        )  # fmt: skip
    deadline = time.monotonic() + READY_TIMEOUT_S
    while not tg.calls_to("getUpdates"):
        if bot.returncode is not None or time.monotonic() > deadline:
            raise RuntimeError(f"steady run did not start polling (exit {bot.returncode})")
        await asyncio.sleep(0.02)
    return bot


async def stop_bot(bot: asyncio.subprocess.Process) -> int:
    if bot.returncode is None:
        bot.send_signal(signal.SIGTERM)
        try:
            await asyncio.wait_for(bot.wait(), STOP_TIMEOUT_S)
        except TimeoutError:
            bot.kill()
            await bot.wait()
    return bot.returncode if bot.returncode is not None else -1


@dataclass(frozen=True)
class Sample:
    kind: str
    latency_s: float
    answered: bool
    at: float  # when it was pushed (monotonic)


class Probes:
    """People writing to the bot, one probe each; `samples` holds their timed replies."""

    def __init__(self, tg: FakeTelegram) -> None:
        self.tg = tg
        self.samples: list[Sample] = []
        self._next_chat = FIRST_PROBE_CHAT
        self._phrase = 0

    def person(self) -> int:
        chat = self._next_chat
        if chat >= FIRST_PROBE_CHAT + PROBE_USERS:
            raise RuntimeError("more probes than probe users: raise PROBE_USERS")
        self._next_chat += 1
        return chat

    async def probe(self, kind: str) -> None:
        chat = self.person()
        steps: dict[str, Callable[[int], Awaitable[Sample]]] = {
            "crisis": self._crisis,
            "sos": self._sos,
            "press": self._press,
            "answer": self._answer,
        }
        try:
            sample = await steps[kind](chat)
        except (TimeoutError, LookupError):  # counted as unanswered
            sample = Sample(kind, math.nan, False, time.monotonic())
        self.samples.append(sample)

    async def _crisis(self, chat: int) -> Sample:
        words = CRISIS_WORDS[self._phrase % len(CRISIS_WORDS)]
        self._phrase += 1
        return await self._timed("crisis", chat, lambda: self.tg.user_sends_text(chat, chat, words))

    async def _sos(self, chat: int) -> Sample:
        return await self._timed("sos", chat, lambda: self.tg.user_sends_text(chat, chat, "/sos"))

    async def _press(self, chat: int) -> Sample:
        self.tg.user_sends_text(chat, chat, "/checkin")
        message_id, data = await self._button(chat, "4")
        return await self._timed(
            "press", chat, lambda: self.tg.user_presses(chat, chat, message_id, data)
        )

    async def _answer(self, chat: int) -> Sample:
        self.tg.user_sends_text(chat, chat, "/checkin")
        for choice, after in (("3", "none"), ("none", "skip")):
            message_id, data = await self._button(chat, choice)
            self.tg.user_presses(chat, chat, message_id, data)
            await self._button(chat, after)  # the next question is on screen
        return await self._timed("answer", chat, lambda: self.tg.user_sends_text(chat, chat, NOTE))

    async def _button(self, chat: int, choice: str) -> tuple[int, str]:
        """The button `choice` on the chat's newest keyboard, once the bot has shown it."""
        deadline = time.monotonic() + STEP_TIMEOUT_S
        while True:
            since = len(self.tg.calls)
            try:
                return find_button(self.tg, chat, choice)
            except LookupError:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise
            await self.tg.wait_for(_shown_in(chat), left, since=since)

    async def _timed(self, kind: str, chat: int, act: Callable[[], object]) -> Sample:
        since, pushed = len(self.tg.calls), time.monotonic()
        act()
        shown = await self.tg.wait_for(_shown_in(chat), STEP_TIMEOUT_S, since=since)
        return Sample(kind, shown.arrived - pushed, True, pushed)


def _shown_in(chat: int) -> Callable[[RecordedCall], bool]:
    return lambda call: call.method in SHOWN and call.ok and call.params.get("chat_id") == chat
