"""Soak run: 1,000 simulated users live a few simulated days with Steady on Telegram, against
the fake Bot API with faults injected, through a kill -9 and a restart.

Run from the repo root:

    .venv/bin/python bench/soak.py                 # the spec: 1,000 users, 3 simulated days
    .venv/bin/python bench/soak.py --users 100 --days 1 --no-write   # a quick look

With `--json` its last line is one JSON object with every figure and its target.

It prints its figures, says per target met / not met, writes the "Soak" section of
bench/RESULTS.md, and exits 1 when a target is missed. This is a soak run, not a test: it
shows how the whole bot behaves for a while under trouble, with figures, rather than
checking one behaviour.

How it is built, and why:

* One process (this one) runs the fake Bot API server (tests/fakes/telegram_api.py, through
  bench/soak_faults.py, which adds random faults) and the simulated users. The bot runs as a
  real child process, bench/soak_bot.py, which is `steady run`'s `run_platforms` with the
  real Telegram adapter (PTB polling) on an accelerated clock: that is what lets it be killed
  with SIGKILL and restarted on the same data directory, as an operator's process would be.
* Simulated time is `anchor + real seconds elapsed x speed` (default 1,080: three simulated
  days take four real minutes), computed from the same three numbers in both processes, so
  the fake's message dates and the bot's clock agree, and a restarted bot carries on where
  the world is. The simulated days start in 2031: the tick runner plans its wake-up job on
  the real clock, and with simulated time ahead of it that job is never planned, so every
  tick is the 1-second interval tick (STEADY_TICK_SECONDS=1, one tick = 18 simulated
  minutes at the default speed). A check-in therefore leaves up to a tick after its minute;
  the figures count per local date, not per minute, so that lateness does not matter here.
* Telegram's flood limits for the bot and a private chat (30 messages a second, about one
  a second in a chat, kept by the lanes) are switched off in the bot process, as in
  bench/telegram_roundtrip.py: they count real seconds, and compressed days would
  otherwise be held to a thousandth of their rate. A 429 holds the message it refused for
  its retry_after (the bot's own handling, in the refused message's lane).
* Faults (bench/soak_faults.py): from the first user on, every Bot API call but getUpdates
  has a 5 % chance of a 429 with retry_after 1-3 s and a 2 % chance of a stall of 11 s, past
  the bot's 10 s request timeout (TelegramConfig.request_timeout; no setting changes it),
  after which the fake handles the call normally: the message arrives (dated when the call
  came in) although the bot saw a timeout, as on a real network. 3 % of users block the
  bot at a random moment. Midway the bot gets SIGKILL and is restarted at once on the same
  data directory.
* Users: each is onboarded (/start, a time zone from ten confirmed with its button, a
  check-in time from 07:00 to 20:59 local, "Skip" for the country). Then each reacts to
  what the bot sends: a scheduled check-in (recognised by its "ci:mood:" buttons with a
  snooze row, which only the scheduled one has) is answered 85 % of the time by pressing a
  mood and an urge, then typing a note
  (40 %) or pressing Skip; a strong pull's pause offer gets "Not now"; an urge-timer
  follow-up (its "pa:followup:" buttons) gets "It passed". On their own, users start /pause
  and set a wait timer (10, 20 or 30 minutes) on 30 % of days and ask /affirm on 20 % of
  days. Each user does one thing at a time and waits for the bot's answer to each step (up
  to 40 s) before the next.
* Check-ins due: from each user's time zone, check-in time and onboarding instant in SQLite
  (bot/scheduling/rules.py), every (user, local date) whose check-in fell due between
  onboarding and 3 simulated hours before the end (time for the last tick and retries);
  for a user who blocked the bot, only those due more than 3 hours before the block.
  Delivered: the scheduled check-in messages the fake stored, by (user, local date of the
  message). A busy user's check-in is deferred by the bot, not dropped, and times are chosen
  so that it stays on its local date; users never press the snooze buttons, so every second
  message for one (user, local date) is a duplicate.
* Check-ins in flight at the kill: read from SQLite right after the kill, before the
  restart: slots the bot had claimed (moved on to their next date) whose check-in the fake
  had not yet stored, for users not marked unreachable and not deferred, as (user, local
  date) pairs. A lost check-in is put down to the kill only if it is one of those pairs;
  any other lost check-in is a bug.
* Answers: a check-in answer is sent when the user sends its last step (the note or Skip).
  It is confirmed when the bot's "Saved" arrives, refused when the bot says the buttons
  expired or asks for buttons (the conversation had moved on: told, so not lost), silent
  when nothing came within 40 s. Stored answers are rows of the checkins table per user;
  lost = confirmed + silent - stored, per user, never below 0. Follow-ups are due for each
  wait the bot confirmed (and each unconfirmed one SQLite holds a row for), delivered when
  the fake stored the follow-up question; as for check-ins, follow-ups due after the
  3-hour cutoff, or less than 3 hours before the user blocked the bot, are not counted.
* Crashes: bot exits the soak did not cause (a kill -9 is caused; a start-up that fails on
  an injected fault is not), a non-zero exit at the final SIGTERM, and tracebacks in the
  bot's stderr. Peak RSS: VmHWM of each bot process from /proc. Latency: from the instant a
  user's update is queued in the fake to the instant the fake stores the bot's first
  message in that chat after it (a press's reply message, not its answerCallbackQuery);
  stalls and retries count, since a user waits through them too.

What it does not cover is listed in the section it writes (see NOT_COVERED).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import heapq
import math
import os
import random
import re
import signal
import sqlite3
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from datetime import time as wall_time
from enum import StrEnum
from pathlib import Path
from zoneinfo import ZoneInfo

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run as a script

from bench.common import (
    REPO,
    Check,
    commit,
    machine,
    percentile,
    print_json_figures,
    shown_command,
)
from bench.results import write_section
from bench.soak_faults import FaultRates, FaultyTelegram
from bot.content_pack.ids import CheckinMsg, GeneralMsg, Msg, OnboardingMsg, PauseMsg
from bot.content_pack.loader import load_pack
from bot.flows.checkin import CheckInStep
from bot.flows.names import FlowName
from bot.flows.onboarding import OnboardingStep
from bot.flows.pause_steps import PauseStep
from bot.scheduling.rules import LocalRule, occurrences_between
from tests.fakes.telegram_api import StoredMessage

SECTION = "Soak"
THIS_DIR = Path(__file__).resolve().parent
BOT_SCRIPT = THIS_DIR / "soak_bot.py"

SEED = 20_261_130
DEFAULT_USERS = 1_000
DEFAULT_DAYS = 3.0
DEFAULT_SPEED = 1_080.0  # simulated seconds per real second: 3 days in 4 minutes
SIM_START = datetime(2031, 6, 2, 0, 0, tzinfo=UTC)  # a Monday; no DST change in 3 days
FIRST_USER_ID = 8_000_001
ZONES = (
    "Europe/Berlin",
    "Europe/London",
    "America/New_York",
    "America/Los_Angeles",
    "America/Sao_Paulo",
    "Asia/Kolkata",
    "Asia/Tokyo",
    "Australia/Sydney",
    "Africa/Nairobi",
    "Pacific/Auckland",
)
NOTES = (
    "slept badly but work was fine",
    "long walk with the dog",
    "called my sister",
    "quiet evening with a book",
    "a <b>good</b> & quiet day",
)
ANSWER_SHARE = 0.85
NOTE_SHARE = 0.4
URGES = ("none", "none", "none", "some", "some", "strong")
PAUSE_DAY_SHARE = 0.3
AFFIRM_DAY_SHARE = 0.2
BLOCK_SHARE = 0.03
KILL_AT = 0.5  # share of the simulated window
STEP_TIMEOUT_S = 40.0  # real seconds a user waits for the answer to one step
ONBOARDING_AT_ONCE = 1_000
BOT_READY_TIMEOUT_S = 60.0
SETTLE_S = 5.0
CUTOFF = timedelta(hours=3)  # due this close to the end: not counted
MAX_RESTARTS = 5
GRACE = timedelta(hours=2)  # STEADY_MISSED_GRACE's default; the bot runs with it
MB = 1024 * 1024

TARGETS = (
    "Users onboarded",
    "Answers lost",
    "Duplicate check-ins",
    "Follow-ups lost",
    "Crashes",
    "Check-ins lost",
)

NOT_COVERED = (
    "Webhook mode, groups, Discord and the console: users talk in private chats over polling.",
    "Users change no settings (time zone, extra check-in times, days, quiet hours, pause),"
    " never snooze or /forget, and use a few flows only (check-in, /pause with a wait timer,"
    " /affirm); breathing countdowns (message edits) and charts (photos) are not exercised.",
    "No daylight-saving change falls in the default window.",
    "Simulated time runs 1,080x: minute-level timing (a check-in on its minute, the"
    " 10-minute busy window, 2-minute follow-up leases) is far coarser than one tick, and"
    " Telegram's flood limits are off in the bot and not modelled by the fake (its 429s"
    " come at random, not by rate).",
    "One kill -9, at one moment; no disk-full, database corruption or clock jump.",
    "Faults are independent per call; Telegram outages come in bursts.",
)


# --- simulated time ------------------------------------------------------------------------


@dataclass(frozen=True)
class SimClock:
    """The formula bench/soak_bot.py uses too: both processes read the same simulated time."""

    sim_anchor: float
    real_anchor: float
    speed: float

    def timestamp(self, real: float | None = None) -> float:
        real = time.time() if real is None else real
        return self.sim_anchor + (real - self.real_anchor) * self.speed

    def now(self) -> datetime:
        return datetime.fromtimestamp(self.timestamp(), UTC)

    def real_for(self, sim: datetime) -> float:
        return self.real_anchor + (sim.timestamp() - self.sim_anchor) / self.speed


# --- what the bot says, as the fake stores it ----------------------------------------------


@dataclass(frozen=True)
class Texts:
    ask_timezone: str
    ask_time: str
    country_skipped: str
    saved: str
    saved_with_note: str
    not_now: str
    wait_started: str  # the part before the time
    passed: str
    refusals: frozenset[str]  # "use the buttons", "that button has expired", ...

    @classmethod
    def load(cls) -> Texts:
        pack = load_pack(REPO / "content", "en")

        def plain(message: Msg, **values: str) -> str:
            return pack.text("en", message, **values).strip()

        return cls(
            ask_timezone=plain(OnboardingMsg.ASK_TIMEZONE),
            ask_time=plain(OnboardingMsg.ASK_TIME),
            country_skipped=plain(OnboardingMsg.COUNTRY_SKIPPED),
            saved=plain(CheckinMsg.CHECKIN_SAVED),
            saved_with_note=plain(CheckinMsg.CHECKIN_SAVED_WITH_NOTE),
            not_now=plain(PauseMsg.PAUSE_NOT_NOW),
            wait_started=plain(PauseMsg.WAIT_STARTED, time="\x00").split("\x00")[0],
            passed=plain(PauseMsg.PASSED_REPLY),
            refusals=frozenset(
                plain(message)
                for message in (
                    GeneralMsg.USE_BUTTONS,
                    GeneralMsg.UNEXPECTED_TEXT,
                    GeneralMsg.BUTTON_EXPIRED,
                    GeneralMsg.BUTTON_NOT_YOURS,
                )
            ),
        )


def buttons(message: StoredMessage) -> list[str]:
    rows = (message.reply_markup or {}).get("inline_keyboard", [])
    return [button.get("callback_data", "") for row in rows for button in row]


def buttons_of(flow: FlowName, step: StrEnum) -> str:
    """How the button data of a step's buttons begins: `flow:step:`."""
    return f"{flow}:{step}:"


# How the data of each step's buttons begins, for finding the message a step sent.
COUNTRY_BUTTONS = buttons_of(FlowName.ONBOARDING, OnboardingStep.COUNTRY)
ZONE_CONFIRM_BUTTONS = buttons_of(FlowName.ONBOARDING, OnboardingStep.TZCONFIRM)
FOLLOWUP_BUTTONS = buttons_of(FlowName.PAUSE, PauseStep.FOLLOWUP)
MENU_BUTTONS = buttons_of(FlowName.PAUSE, PauseStep.MENU)
MOOD_BUTTONS = buttons_of(FlowName.CHECKIN, CheckInStep.MOOD)
NOTE_BUTTONS = buttons_of(FlowName.CHECKIN, CheckInStep.NOTE)
OFFER_BUTTONS = buttons_of(FlowName.PAUSE, PauseStep.OFFER)
URGE_BUTTONS = buttons_of(FlowName.CHECKIN, CheckInStep.URGE)
WAIT_BUTTONS = buttons_of(FlowName.PAUSE, PauseStep.WAIT)


def has_prefix(message: StoredMessage, prefix: str) -> bool:
    return any(data.startswith(prefix) for data in buttons(message))


def is_scheduled_checkin(message: StoredMessage) -> bool:
    """The scheduled check-in's mood question alone has a snooze row (a /checkin has none)."""
    data = buttons(message)
    return any(d.startswith(MOOD_BUTTONS) for d in data) and any(
        d.endswith(":later-tomorrow") for d in data
    )


def is_followup(message: StoredMessage) -> bool:
    return has_prefix(message, FOLLOWUP_BUTTONS)


def button_for(message: StoredMessage, prefix: str, value: str) -> str | None:
    return next(
        (d for d in buttons(message) if d.startswith(prefix) and d.endswith(f":{value}")), None
    )


def token_of(message: StoredMessage, prefix: str) -> str:
    data = next(d for d in buttons(message) if d.startswith(prefix))
    return data.split(":")[2]


# --- users -----------------------------------------------------------------------------------


@dataclass
class Answer:
    mood: int
    urge: str
    note: bool
    outcome: str  # "confirmed", "refused" or "silent"


@dataclass
class Wait:
    sent_sim: float
    minutes: int
    outcome: str


@dataclass
class User:
    id: int
    zone: str
    checkin_at: str  # HH:MM local
    rng: random.Random
    queue: asyncio.Queue[tuple[str, StoredMessage | None]] = field(default_factory=asyncio.Queue)
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    onboarded: bool = False
    blocked_sim: float | None = None
    answers: list[Answer] = field(default_factory=list)
    waits: list[Wait] = field(default_factory=list)
    handled_tokens: set[str] = field(default_factory=set)
    busy: bool = False

    def notify(self) -> None:
        self.changed.set()
        self.changed = asyncio.Event()


@dataclass
class Step:
    """What came back for one update a user sent."""

    outcome: str  # "ok", "refused", "silent"
    message: StoredMessage | None = None


@dataclass
class Stats:
    updates: int = 0
    latencies_ms: list[float] = field(default_factory=list)
    unanswered_steps: int = 0
    refused_steps: int = 0
    onboarding_failed: int = 0
    checkins_ignored: int = 0
    duplicate_checkin_messages_seen: int = 0
    affirms: int = 0
    offers_declined: int = 0
    followups_answered: int = 0


class World:
    """The fake server, the users and the bookkeeping of everything they saw."""

    def __init__(self, fake: FaultyTelegram, clock: SimClock, texts: Texts) -> None:
        self.fake = fake
        self.clock = clock
        self.texts = texts
        self.users: dict[int, User] = {}
        self.stats = Stats()
        self.checkins_received: dict[int, list[StoredMessage]] = defaultdict(list)
        self.followups_received: dict[int, list[StoredMessage]] = defaultdict(list)
        self.stopping = False
        fake.on_message = self._on_message
        fake.on_answer = self._on_answer

    def _on_message(self, message: StoredMessage) -> None:
        user = self.users.get(message.chat_id)
        if user is None:
            return
        if is_scheduled_checkin(message):
            self.checkins_received[user.id].append(message)
            user.queue.put_nowait(("checkin", message))
        elif is_followup(message):
            self.followups_received[user.id].append(message)
            user.queue.put_nowait(("followup", message))
        user.notify()

    def _on_answer(self, chat_id: int, notice: str | None) -> None:
        user = self.users.get(chat_id)
        if user is not None:
            user.notify()

    # One step: push, then wait for the wanted answer --------------------------------------

    async def step(
        self,
        user: User,
        want: Callable[[StoredMessage], bool],
        *,
        text: str | None = None,
        press: tuple[StoredMessage, str] | None = None,
    ) -> Step:
        chat = user.id
        since = self.fake._last_message_id.get(chat, 0)
        query_id = None
        started = time.monotonic()
        try:
            if text is not None:
                self.fake.user_sends_text(chat, chat, text)
            else:
                assert press is not None
                query_id = self.fake.user_presses(chat, chat, press[0].message_id, press[1])
        except LookupError:  # the button is gone (the message was edited): nothing sent
            return Step("refused")
        self.stats.updates += 1
        deadline = started + STEP_TIMEOUT_S
        first_reply_at: float | None = None
        while True:
            replies = [
                m
                for mid, m in self.fake.messages.get(chat, {}).items()
                if mid > since and m.from_bot and not is_scheduled_checkin(m) and not is_followup(m)
            ]
            if replies and first_reply_at is None:
                first_reply_at = min(self.fake.stored_at[chat, m.message_id] for m in replies)
                self.stats.latencies_ms.append((first_reply_at - started) * 1000)
            wanted = next((m for m in replies if want(m)), None)
            if wanted is not None:
                return Step("ok", wanted)
            if query_id is not None:
                query = self.fake.callback_queries[query_id]
                if query.answered and query.answer_text:  # expired: said as a notice
                    self.stats.refused_steps += 1
                    return Step("refused")
            # The bot said the conversation had moved on. Any other reply may be the first
            # of several (a welcome, then the question), so it is waited out.
            if any(m.text in self.texts.refusals for m in replies):
                self.stats.refused_steps += 1
                return Step("refused")
            now = time.monotonic()
            if now >= deadline:
                if replies:
                    self.stats.refused_steps += 1
                    return Step("refused")
                self.stats.unanswered_steps += 1
                return Step("silent")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(user.changed.wait(), min(0.5, deadline - now))

    # What users do -------------------------------------------------------------------------

    async def onboard(self, user: User) -> None:
        t = self.texts
        started = await self.step(user, lambda m: m.text == t.ask_timezone, text="/start")
        # The zone typed is confirmed with a tap (it shows the local time there).
        zone = await self.step(user, lambda m: has_prefix(m, ZONE_CONFIRM_BUTTONS), text=user.zone)
        if started.outcome != "ok" or zone.outcome != "ok" or zone.message is None:
            self.stats.onboarding_failed += 1
            return
        right = button_for(zone.message, ZONE_CONFIRM_BUTTONS, "yes")
        assert right is not None
        asked = await self.step(user, lambda m: m.text == t.ask_time, press=(zone.message, right))
        result = await self.step(
            user, lambda m: has_prefix(m, COUNTRY_BUTTONS), text=user.checkin_at
        )
        if asked.outcome != "ok" or result.outcome != "ok":
            self.stats.onboarding_failed += 1
            return
        assert result.message is not None
        skip = button_for(result.message, COUNTRY_BUTTONS, "skip")
        assert skip is not None
        done = await self.step(
            user, lambda m: m.text == t.country_skipped, press=(result.message, skip)
        )
        # The check-in time was saved with the third step; the country is only helplines.
        user.onboarded = True
        if done.outcome != "ok":
            self.stats.onboarding_failed += 1

    async def answer_checkin(self, user: User, question: StoredMessage) -> None:
        token = token_of(question, MOOD_BUTTONS)
        if token in user.handled_tokens:  # a second copy of a question already handled
            self.stats.duplicate_checkin_messages_seen += 1
            return
        user.handled_tokens.add(token)
        if user.rng.random() > ANSWER_SHARE:
            self.stats.checkins_ignored += 1
            return
        mood = user.rng.randint(1, 5)
        urge = user.rng.choice(URGES)
        note = user.rng.random() < NOTE_SHARE
        mood_button = button_for(question, MOOD_BUTTONS, str(mood))
        assert mood_button is not None
        asked = await self.step(
            user,
            lambda m: has_prefix(m, URGE_BUTTONS),
            press=(question, mood_button),
        )
        if asked.message is None:
            return
        urge_button = button_for(asked.message, URGE_BUTTONS, urge)
        assert urge_button is not None
        asked = await self.step(
            user,
            lambda m: has_prefix(m, NOTE_BUTTONS),
            press=(asked.message, urge_button),
        )
        if asked.message is None:
            return
        t = self.texts
        if note:
            final = await self.step(
                user,
                lambda m: (m.text or "").startswith(t.saved_with_note),
                text=user.rng.choice(NOTES),
            )
        else:
            skip = button_for(asked.message, NOTE_BUTTONS, "skip")
            assert skip is not None
            final = await self.step(
                user, lambda m: (m.text or "").startswith(t.saved), press=(asked.message, skip)
            )
        outcome = {"ok": "confirmed"}.get(final.outcome, final.outcome)
        user.answers.append(Answer(mood, urge, note, outcome))
        if urge == "strong" and final.outcome == "ok":
            await self.decline_offer(user, since_message=final.message)

    async def decline_offer(self, user: User, since_message: StoredMessage | None) -> None:
        """The pause offer that follows a strong pull's "Saved": "Not now"."""
        assert since_message is not None
        deadline = time.monotonic() + STEP_TIMEOUT_S
        while time.monotonic() < deadline:
            offer = next(
                (
                    m
                    for mid, m in self.fake.messages.get(user.id, {}).items()
                    if mid > since_message.message_id and has_prefix(m, OFFER_BUTTONS)
                ),
                None,
            )
            if offer is not None:
                no = button_for(offer, OFFER_BUTTONS, "no")
                assert no is not None
                await self.step(user, lambda m: m.text == self.texts.not_now, press=(offer, no))
                self.stats.offers_declined += 1
                return
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(user.changed.wait(), 0.5)

    async def pause_with_timer(self, user: User) -> None:
        menu = await self.step(user, lambda m: has_prefix(m, MENU_BUTTONS), text="/pause")
        if menu.message is None:
            return
        wait = button_for(menu.message, MENU_BUTTONS, "wait")
        assert wait is not None
        asked = await self.step(
            user,
            lambda m: has_prefix(m, WAIT_BUTTONS),
            press=(menu.message, wait),
        )
        if asked.message is None:
            return
        minutes = user.rng.choice((10, 20, 30))
        choice = button_for(asked.message, WAIT_BUTTONS, str(minutes))
        assert choice is not None
        sent_sim = self.clock.timestamp()
        started = await self.step(
            user,
            lambda m: (m.text or "").startswith(self.texts.wait_started),
            press=(asked.message, choice),
        )
        user.waits.append(Wait(sent_sim, minutes, started.outcome))

    async def answer_followup(self, user: User, question: StoredMessage) -> None:
        token = token_of(question, FOLLOWUP_BUTTONS)
        if token in user.handled_tokens:
            return
        user.handled_tokens.add(token)
        passed = button_for(question, FOLLOWUP_BUTTONS, "passed")
        assert passed is not None
        await self.step(user, lambda m: m.text == self.texts.passed, press=(question, passed))
        self.stats.followups_answered += 1

    async def affirm(self, user: User) -> None:
        await self.step(user, lambda m: bool(m.text), text="/affirm")
        self.stats.affirms += 1

    async def live(self, user: User) -> None:
        """One thing at a time, in the order things happen to this user."""
        while True:
            kind, message = await user.queue.get()
            if kind == "stop":
                return
            if user.blocked_sim is not None or not user.onboarded:
                continue
            if self.stopping and kind in {"pause", "affirm"}:
                continue
            user.busy = True
            try:
                if kind == "checkin" and message is not None:
                    await self.answer_checkin(user, message)
                elif kind == "followup" and message is not None:
                    await self.answer_followup(user, message)
                elif kind == "pause":
                    await self.pause_with_timer(user)
                elif kind == "affirm":
                    await self.affirm(user)
                elif kind == "block":
                    user.blocked_sim = self.clock.timestamp()
                    self.fake.user_blocks_bot(user.id)
            finally:
                user.busy = False


def make_users(count: int, seed: int) -> list[User]:
    rng = random.Random(seed)
    users = []
    for number in range(count):
        minute = rng.randrange(7 * 60, 21 * 60)  # 07:00-20:59: a deferral stays on its date
        users.append(
            User(
                id=FIRST_USER_ID + number,
                zone=ZONES[number % len(ZONES)],
                checkin_at=f"{minute // 60:02d}:{minute % 60:02d}",
                rng=random.Random(rng.random()),
            )
        )
    return users


def plan_actions(
    users: Sequence[User], clock: SimClock, begin: datetime, end: datetime, seed: int
) -> list[tuple[float, int, str]]:
    """(real instant, user id, action): pauses and /affirm on some days, some blocks."""
    rng = random.Random(seed + 1)
    actions: list[tuple[float, int, str]] = []
    last_start = end - CUTOFF
    for user in users:
        zone = ZoneInfo(user.zone)
        day = begin.astimezone(zone).date()
        while datetime.combine(day, wall_time(0), zone) < last_start:
            for kind, share in (("pause", PAUSE_DAY_SHARE), ("affirm", AFFIRM_DAY_SHARE)):
                if rng.random() < share:
                    minute = rng.randrange(8 * 60, 22 * 60)
                    local = datetime.combine(day, wall_time(minute // 60, minute % 60), zone)
                    if begin < local < last_start:
                        actions.append((clock.real_for(local), user.id, kind))
            day += timedelta(days=1)
        if rng.random() < BLOCK_SHARE:
            span = (end - begin).total_seconds()
            at = begin + timedelta(seconds=span * rng.uniform(0.2, 0.8))
            actions.append((clock.real_for(at), user.id, "block"))
    heapq.heapify(actions)
    return actions


async def feed_actions(world: World, actions: list[tuple[float, int, str]]) -> None:
    while actions and not world.stopping:
        at, user_id, kind = heapq.heappop(actions)
        delay = at - time.time()
        if delay > 0:
            await asyncio.sleep(delay)
        if not world.stopping:
            world.users[user_id].queue.put_nowait((kind, None))


# --- the bot process -------------------------------------------------------------------------


@dataclass
class BotRun:
    number: int
    pid: int
    log: Path
    peak_rss_kb: int = 0
    exit_code: int | None = None
    killed: bool = False
    stopped: bool = False


class Bot:
    """Starts, watches, kills and restarts bench/soak_bot.py on one data directory."""

    def __init__(self, fake: FaultyTelegram, clock: SimClock, data: Path) -> None:
        self._fake = fake
        self._clock = clock
        self._data = data
        self.runs: list[BotRun] = []
        self._process: asyncio.subprocess.Process | None = None
        self.crashes = 0
        self._watch: asyncio.Task[None] | None = None
        self._sampler: asyncio.Task[None] | None = None

    def _environment(self) -> dict[str, str]:
        environment = {
            key: value
            for key, value in os.environ.items()
            if not key.startswith(("TELEGRAM_", "DISCORD_", "STEADY_"))
        }
        environment |= {
            "TELEGRAM_BOT_TOKEN": self._fake.token,
            "TELEGRAM_API_BASE_URL": f"{self._fake.url}/bot",
            "STEADY_DATA_DIR": str(self._data),
            "STEADY_TICK_SECONDS": "1",
            # A question waits 30 minutes by default: 1.7 real seconds here, less than one
            # injected stall. At the longest setting it waits 80 real seconds, longer than a
            # simulated user waits for any answer, so expiry plays no part in the soak.
            "STEADY_STEP_EXPIRY": "24h",
            "STEADY_LOG_LEVEL": "INFO",
        }
        return environment

    async def start(self) -> float:
        """Start a bot process; return the real seconds until it polls for updates."""
        started = time.monotonic()
        number = len(self.runs) + 1
        log = self._data.parent / f"bot-{number}.log"
        calls_before = len(self._fake.calls)
        stderr = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        try:
            process = await asyncio.create_subprocess_exec(
                sys.executable,
                str(BOT_SCRIPT),
                "--sim-anchor",
                repr(self._clock.sim_anchor),
                "--real-anchor",
                repr(self._clock.real_anchor),
                "--speed",
                repr(self._clock.speed),
                env=self._environment(),
                cwd=self._data.parent,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.DEVNULL,
                stderr=stderr,
            )
        finally:
            os.close(stderr)  # the child has its own copy
        self._process = process
        run = BotRun(number, process.pid, log)
        self.runs.append(run)
        self._watch = asyncio.create_task(self._watch_exit(process, run))
        self._sampler = asyncio.create_task(self._sample_rss(run))
        deadline = started + BOT_READY_TIMEOUT_S
        while not any(c.method == "getUpdates" for c in self._fake.calls[calls_before:]):
            if process.returncode is not None or time.monotonic() > deadline:
                break
            await asyncio.sleep(0.05)
        return time.monotonic() - started

    async def _watch_exit(self, process: asyncio.subprocess.Process, run: BotRun) -> None:
        run.exit_code = await process.wait()
        if run.killed or run.stopped:
            return
        # Not our doing: a crash. Keep the soak going on a fresh process, as a supervisor would.
        self.crashes += 1
        if len(self.runs) < MAX_RESTARTS:
            await self.start()

    async def _sample_rss(self, run: BotRun) -> None:
        while True:
            peak = read_peak_rss_kb(run.pid)
            if peak is None:
                return
            run.peak_rss_kb = max(run.peak_rss_kb, peak)
            await asyncio.sleep(0.5)

    def _sample_now(self) -> None:
        run = self.runs[-1]
        peak = read_peak_rss_kb(run.pid)
        if peak is not None:
            run.peak_rss_kb = max(run.peak_rss_kb, peak)

    async def kill(self) -> None:
        assert self._process is not None
        self._sample_now()
        self.runs[-1].killed = True
        os.kill(self._process.pid, signal.SIGKILL)
        await self._process.wait()

    async def stop(self) -> int | None:
        """SIGTERM, as an operator stops it; the exit code (None: had to be killed)."""
        process = self._process
        if process is None or process.returncode is not None:
            return process.returncode if process else None
        self._sample_now()
        self.runs[-1].stopped = True
        process.send_signal(signal.SIGTERM)
        try:
            return await asyncio.wait_for(process.wait(), 30)
        except TimeoutError:
            process.kill()
            await process.wait()
            return None


def read_peak_rss_kb(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


# --- in flight at the kill, and the database afterwards ------------------------------------


def connect(database: Path) -> sqlite3.Connection:
    connection = sqlite3.connect(database, timeout=30)
    connection.row_factory = sqlite3.Row
    return connection


def in_flight_at_kill(
    database: Path, world: World, clock: SimClock
) -> tuple[frozenset[tuple[int, date]], int]:
    """(check-ins claimed but not yet at the fake, as (user, local date), and Bot API calls
    unanswered) at this moment.

    Called while no bot process runs. A claimed slot has moved on: its last_local_date is
    the date just claimed.
    """
    delivered = delivered_dates(world)
    with contextlib.closing(connect(database)) as db:
        rows = db.execute(
            "SELECT u.platform_user_id, u.timezone, s.last_local_date, s.local_time,"
            " u.unreachable_since FROM checkin_slots AS s JOIN users AS u ON u.id = s.user_id"
            " WHERE s.last_local_date IS NOT NULL AND u.id NOT IN"
            " (SELECT user_id FROM checkin_snoozes)"
        ).fetchall()
    now = clock.now()
    claimed_unsent: set[tuple[int, date]] = set()
    for row in rows:
        if row["unreachable_since"] is not None:
            continue
        user_id, local_date = (
            int(row["platform_user_id"]),
            date.fromisoformat(row["last_local_date"]),
        )
        due = datetime.combine(
            local_date, wall_time.fromisoformat(row["local_time"]), ZoneInfo(row["timezone"])
        )
        if now - due > GRACE:  # claimed too late: skipped by design, not in flight
            continue
        if local_date not in delivered.get(user_id, Counter()):
            claimed_unsent.add((user_id, local_date))
    return frozenset(claimed_unsent), len(world.fake.unanswered())


def delivered_dates(world: World) -> dict[int, Counter[date]]:
    result: dict[int, Counter[date]] = {}
    for user_id, messages in world.checkins_received.items():
        zone = ZoneInfo(world.users[user_id].zone)
        result[user_id] = Counter(
            datetime.fromtimestamp(m.date, UTC).astimezone(zone).date() for m in messages
        )
    return result


@dataclass
class Outcome:
    users: int
    blocked: int
    sim_begin: datetime
    sim_end: datetime
    wall_s: float
    kill: KillReport
    counts: Counts
    missed_logged: int
    updates: int
    bot_messages: int
    api_calls: int
    retry_after_injected: int
    stalls_injected: int
    latency_p50_ms: float
    latency_p99_ms: float
    latency_max_ms: float
    crashes: int
    tracebacks: int
    error_events: Counter[str]
    warning_events: Counter[str]
    peak_rss_mb: list[float]
    final_exit: int | None
    stats: Stats


_EVENT = re.compile(r" (error|warning) (\S+) event=(\S+)")


def read_logs(runs: Sequence[BotRun]) -> tuple[int, Counter[str], Counter[str], int]:
    """(tracebacks, error events, warning events, check-ins skipped as missed) in bot stderr."""
    tracebacks, missed = 0, 0
    errors: Counter[str] = Counter()
    warnings: Counter[str] = Counter()
    for run in runs:
        text = run.log.read_text(encoding="utf-8", errors="replace")
        tracebacks += text.count("Traceback (most recent call last)")
        for level, _logger, kind in _EVENT.findall(text):
            (errors if level == "error" else warnings)[kind] += 1
        missed += sum(int(n) for n in re.findall(r"event=tick\.claimed .*?missed=(\d+)", text))
    return tracebacks, errors, warnings, missed


@dataclass
class Counts:
    """What the database and the fake's messages say, after the run."""

    onboarded: int = 0
    due: int = 0
    delivered: int = 0
    lost: int = 0
    lost_near_kill: int = 0
    examples: list[str] = field(default_factory=list)
    duplicate_examples: list[str] = field(default_factory=list)
    duplicated: int = 0
    after_stall: int = 0
    sent: int = 0
    confirmed: int = 0
    refused: int = 0
    silent: int = 0
    stored: int = 0
    answers_lost: int = 0
    answers_extra: int = 0
    f_due: int = 0
    f_delivered: int = 0
    f_lost: int = 0
    f_dup: int = 0
    f_examples: list[str] = field(default_factory=list)


def dump_chats(fake: FaultyTelegram, counts: Counts, path: Path) -> None:
    """Every call to the chats of the duplicated check-ins, for a closer look (--keep-logs)."""
    chats = {int(line.split()[1]) for line in counts.duplicate_examples}
    lines = []
    for call in fake.calls:
        if call.params.get("chat_id") in chats or call.method == "getUpdates":
            markup = call.params.get("reply_markup") or {}
            data = [b.get("callback_data") for r in markup.get("inline_keyboard", []) for b in r]
            lines.append(
                f"{datetime.fromtimestamp(call.time, UTC):%d %H:%M:%S} {call.method}"
                f" chat={call.params.get('chat_id')} status={call.status} data={data[:1]}"
                f" offset={call.params.get('offset')}"
            )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines), encoding="utf-8")


def per_user(db: sqlite3.Connection, sql: str, parameters: tuple[int, ...] = ()) -> Counter[int]:
    """A `SELECT platform_user_id, COUNT(...)` query as a Counter by Telegram user id."""
    return Counter({int(row[0]): row[1] for row in db.execute(sql, parameters)})


def examine(
    world: World, database: Path, sim_end: datetime, in_flight: frozenset[tuple[int, date]]
) -> Counts:
    cutoff = sim_end - CUTOFF
    with contextlib.closing(connect(database)) as db:
        people = db.execute(
            "SELECT u.platform_user_id, u.timezone, u.onboarded_at, s.local_time"
            " FROM users AS u JOIN checkin_slots AS s ON s.user_id = u.id"
            " WHERE u.onboarded_at IS NOT NULL"
        ).fetchall()
        stored = per_user(
            db,
            "SELECT u.platform_user_id, COUNT(c.id) FROM users AS u"
            " JOIN checkins AS c ON c.user_id = u.id GROUP BY u.id",
        )
        followup_rows = per_user(
            db,
            "SELECT u.platform_user_id, COUNT(f.id) FROM users AS u"
            " JOIN followups AS f ON f.user_id = u.id WHERE f.due_at <= ? GROUP BY u.id",
            (int(cutoff.timestamp()),),
        )
    counts = Counts(onboarded=len(people))
    count_checkins(world, people, cutoff, in_flight, counts)
    for user in world.users.values():
        count_answers(user, stored[user.id], counts)
        count_followups(world, user, followup_rows[user.id], cutoff, sim_end, counts)
    return counts


def count_checkins(
    world: World,
    people: Sequence[sqlite3.Row],
    cutoff: datetime,
    in_flight: frozenset[tuple[int, date]],
    counts: Counts,
) -> None:
    """Due against delivered, per (user, local date). A lost check-in counts against the
    kill only if it was among those claimed and unsent when the process died."""
    delivered = delivered_dates(world)
    for row in people:
        user_id = int(row["platform_user_id"])
        blocked = world.users[user_id].blocked_sim
        end = cutoff
        if blocked is not None:
            end = min(end, datetime.fromtimestamp(blocked, UTC) - CUTOFF)
        rule = LocalRule(row["timezone"], wall_time.fromisoformat(row["local_time"]))
        begin = datetime.fromtimestamp(row["onboarded_at"], UTC)
        got = delivered.get(user_id, Counter())
        for instant, local_date in occurrences_between(rule, begin, end):
            counts.due += 1
            if got[local_date]:
                counts.delivered += 1
                continue
            counts.lost += 1
            if (user_id, local_date) in in_flight:
                counts.lost_near_kill += 1
            if len(counts.examples) < 5:
                counts.examples.append(
                    f"user {user_id} ({row['timezone']}, {row['local_time']}):"
                    f" {local_date} due {instant:%Y-%m-%d %H:%M} UTC"
                )
    counts.duplicated = sum(
        max(0, n - 1) for by_date in delivered.values() for n in by_date.values()
    )
    for user_id, messages in world.checkins_received.items():
        zone = ZoneInfo(world.users[user_id].zone)
        first: dict[date, StoredMessage] = {}
        for message in messages:
            day = datetime.fromtimestamp(message.date, UTC).astimezone(zone).date()
            if day not in first:
                first[day] = message
                continue
            # The stalled call is stored last: the bot's retry got through while it hung.
            stalled = any(
                (user_id, m.message_id) in world.fake.stalled_messages
                for m in (first[day], message)
            )
            counts.after_stall += stalled
            if len(counts.duplicate_examples) < 5:
                counts.duplicate_examples.append(
                    f"user {user_id} ({zone.key}): {day}, sent at"
                    f" {datetime.fromtimestamp(first[day].date, UTC):%Y-%m-%d %H:%M} and"
                    f" {datetime.fromtimestamp(message.date, UTC):%H:%M} UTC"
                    f"{' (one of them a stalled call, retried)' if stalled else ''}"
                )


def count_answers(user: User, stored: int, counts: Counts) -> None:
    outcomes = Counter(answer.outcome for answer in user.answers)
    counts.sent += len(user.answers)
    counts.confirmed += outcomes["confirmed"]
    counts.refused += outcomes["refused"]
    counts.silent += outcomes["silent"]
    counts.stored += stored
    # A silent answer may have been stored without its "Saved" reaching the user.
    counts.answers_lost += max(0, outcomes["confirmed"] + outcomes["silent"] - stored)
    counts.answers_extra += max(0, stored - outcomes["confirmed"] - outcomes["silent"])


def count_followups(
    world: World, user: User, rows: int, cutoff: datetime, sim_end: datetime, counts: Counts
) -> None:
    # As for check-ins: due before the cutoff, and, for a user who blocked the bot, due
    # more than the cutoff's margin before the block (a send can take that long here).
    margin = (sim_end - cutoff).total_seconds()
    counted = [
        wait
        for wait in user.waits
        if wait.sent_sim + 60 * wait.minutes <= cutoff.timestamp()
        and (
            user.blocked_sim is None
            or wait.sent_sim + 60 * wait.minutes < user.blocked_sim - margin
        )
    ]
    expected = sum(wait.outcome == "ok" for wait in counted)
    if any(wait.outcome == "silent" for wait in counted):  # unconfirmed: due if kept
        expected = max(expected, min(rows, len(counted)))
    got = sum(m.date <= sim_end.timestamp() for m in world.followups_received.get(user.id, []))
    counts.f_due += expected
    counts.f_delivered += min(expected, got)
    counts.f_lost += max(0, expected - got)
    counts.f_dup += max(0, got - expected)
    if expected > got and len(counts.f_examples) < 5:
        blocked = (
            "never"
            if user.blocked_sim is None
            else f"{datetime.fromtimestamp(user.blocked_sim, UTC):%Y-%m-%d %H:%M}"
        )
        dues = ", ".join(
            f"{datetime.fromtimestamp(w.sent_sim + 60 * w.minutes, UTC):%m-%d %H:%M} ({w.outcome})"
            for w in counted
        )
        counts.f_examples.append(
            f"user {user.id}: due {dues}; {got} received; {rows} rows; blocked {blocked}"
        )


# --- the run ---------------------------------------------------------------------------------


@dataclass
class KillReport:
    sim: datetime
    restart_sim: datetime
    downtime_s: float
    in_flight: frozenset[tuple[int, date]]
    calls_unanswered: int

    @property
    def claimed_unsent(self) -> int:
        return len(self.in_flight)


async def kill_and_restart(bot: Bot, world: World, data: Path) -> KillReport:
    """SIGKILL, count what was in flight (nothing runs then), start again on the same data."""
    clock = world.clock
    killed_sim = clock.now()
    await bot.kill()
    killed_at = time.monotonic()
    in_flight, calls = in_flight_at_kill(data / "steady.db", world, clock)
    await bot.start()
    report = KillReport(killed_sim, clock.now(), time.monotonic() - killed_at, in_flight, calls)
    print(
        f"killed at {report.sim:%Y-%m-%d %H:%M} (simulated); {len(in_flight)} check-ins"
        f" claimed and unsent, {calls} calls unanswered; polling again after"
        f" {report.downtime_s:.1f} s",
        file=sys.stderr,
    )
    return report


async def onboard_everyone(world: World, users: Sequence[User]) -> None:
    gate = asyncio.Semaphore(ONBOARDING_AT_ONCE)  # a crowd, but not all 1,000 in one burst

    async def onboard(user: User) -> None:
        async with gate:
            await world.onboard(user)

    await asyncio.gather(*(onboard(user) for user in users))


async def soak(args: argparse.Namespace) -> Outcome:
    clock = SimClock(SIM_START.timestamp(), time.time(), args.speed)
    rates = FaultRates(retry_after=args.retry_after_share, stall=args.stall_share)
    fake = FaultyTelegram(rates=rates, seed=args.seed, clock=clock.timestamp)
    users = make_users(args.users, args.seed)
    world = World(fake, clock, Texts.load())
    world.users = {user.id: user for user in users}
    sim_end = SIM_START + timedelta(days=args.days)
    kill_real = clock.real_for(SIM_START + timedelta(days=args.days * KILL_AT))
    began = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="steady-soak-") as temporary:
        data = Path(temporary) / "data"
        async with fake:
            bot = Bot(fake, clock, data)
            await bot.start()
            fake.faults_on = True
            lives = [asyncio.create_task(world.live(user)) for user in users]
            await onboard_everyone(world, users)
            sim_begin = clock.now()
            print(
                f"onboarded {sum(u.onboarded for u in users):,} users by"
                f" {sim_begin:%Y-%m-%d %H:%M} (simulated)",
                file=sys.stderr,
            )
            actions = plan_actions(users, clock, sim_begin, sim_end, args.seed)
            feeder = asyncio.create_task(feed_actions(world, actions))
            await asyncio.sleep(max(0.0, kill_real - time.time()))
            kill = await kill_and_restart(bot, world, data)
            await asyncio.sleep(max(0.0, clock.real_for(sim_end) - time.time()))
            world.stopping = True
            feeder.cancel()
            for user in users:
                user.queue.put_nowait(("stop", None))
            await asyncio.gather(*lives)  # each finishes its step in hand (at most 40 s)
            await asyncio.sleep(SETTLE_S)
            final_exit = await bot.stop()
            fake.faults_on = False
        wall = time.monotonic() - began
        counts = examine(world, data / "steady.db", sim_end, kill.in_flight)
        tracebacks, errors, warnings, missed = read_logs(bot.runs)
        if args.keep_logs:
            dump_chats(fake, counts, Path(args.keep_logs) / "duplicated-chats.txt")
            for run in bot.runs:
                target = Path(args.keep_logs) / run.log.name
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(run.log.read_bytes())
    latencies = world.stats.latencies_ms
    return Outcome(
        users=len(users),
        blocked=sum(user.blocked_sim is not None for user in users),
        sim_begin=sim_begin,
        sim_end=sim_end,
        wall_s=wall,
        kill=kill,
        counts=counts,
        missed_logged=missed,
        updates=world.stats.updates,
        bot_messages=len(fake.stored_at),
        api_calls=len(fake.calls),
        retry_after_injected=fake.counts.retry_after,
        stalls_injected=fake.counts.stalls,
        latency_p50_ms=percentile(latencies, 0.50),
        latency_p99_ms=percentile(latencies, 0.99),
        latency_max_ms=max(latencies, default=math.nan),
        crashes=bot.crashes + (0 if final_exit == 0 else 1),
        tracebacks=tracebacks,
        error_events=errors,
        warning_events=warnings,
        peak_rss_mb=[run.peak_rss_kb / 1024 for run in bot.runs],
        final_exit=final_exit,
        stats=world.stats,
    )


# --- the report ------------------------------------------------------------------------------


def checks(outcome: Outcome) -> list[Check]:
    o, c = outcome, outcome.counts
    outside_kill = c.lost - c.lost_near_kill
    return [
        # Without this a soak whose users never got past onboarding would meet every other
        # target with nothing to count (it did, once the zone question gained a button).
        Check(
            "Users onboarded",
            "all",
            f"{c.onboarded:,} of {o.users:,}",
            c.onboarded == o.users,
        ),
        Check(
            "Answers lost",
            "0",
            f"{c.answers_lost:,} (of {c.confirmed + c.silent:,} confirmed or unanswered)",
            c.answers_lost == 0,
        ),
        Check(
            "Duplicate check-ins",
            "0",
            f"{c.duplicated:,} ({c.after_stall:,} after a stalled send)",
            c.duplicated == 0,
        ),
        Check(
            "Follow-ups lost",
            "0",
            f"{c.f_lost:,} of {c.f_due:,}",
            c.f_lost == 0,
        ),
        Check(
            "Crashes",
            "0",
            f"{o.crashes:,} unexpected exits, {o.tracebacks:,} tracebacks",
            o.crashes == 0 and o.tracebacks == 0,
        ),
        Check(
            "Check-ins lost",
            f"≤ {o.kill.claimed_unsent:,} (claimed, unsent at the kill), no other",
            f"{c.lost:,} ({c.lost_near_kill:,} in flight at the kill, {outside_kill:,} other)",
            c.lost_near_kill <= o.kill.claimed_unsent and outside_kill == 0,
        ),
    ]


def events(counter: Counter[str]) -> str:
    return ", ".join(f"{kind} × {n:,}" for kind, n in counter.most_common()) or "none"


def render(command: str, outcome: Outcome, args: argparse.Namespace) -> str:
    o, c = outcome, outcome.counts
    results = checks(o)
    met = sum(check.passed for check in results)
    verdict = (
        f"all {len(results)} targets met"
        if met == len(results)
        else f"{len(results) - met} of {len(results)} targets missed"
    )
    downtime_sim = timedelta(seconds=o.kill.downtime_s * args.speed)
    rows = [
        (
            "Users (onboarded / blocked the bot midway)",
            f"{o.users:,} ({c.onboarded:,} / {o.blocked:,})",
        ),
        (
            "Simulated window after onboarding",
            f"{o.sim_begin:%Y-%m-%d %H:%M} → {o.sim_end:%Y-%m-%d %H:%M} UTC"
            f" ({(o.sim_end - o.sim_begin).total_seconds() / 86400:.2f} days)",
        ),
        ("Wall time (s)", f"{o.wall_s:,.0f}"),
        ("Updates sent by users", f"{o.updates:,}"),
        ("Messages the bot sent (stored by the fake)", f"{o.bot_messages:,}"),
        ("Bot API calls (polls included)", f"{o.api_calls:,}"),
        (
            "Injected: 429 retry_after / stalls of 11 s",
            f"{o.retry_after_injected:,} / {o.stalls_injected:,}",
        ),
        (
            "Kill -9 at (simulated) / polling again after",
            f"{o.kill.sim:%Y-%m-%d %H:%M} / {o.kill.downtime_s:.1f} s real"
            f" ({downtime_sim.total_seconds() / 60:.0f} simulated minutes)",
        ),
        (
            "In flight at the kill: check-ins claimed, unsent / Bot API calls unanswered",
            f"{o.kill.claimed_unsent:,} / {o.kill.calls_unanswered:,}",
        ),
        ("Check-ins due", f"{c.due:,}"),
        ("… delivered", f"{c.delivered:,}"),
        (
            "… lost (of them in flight at the kill)",
            f"{c.lost:,} ({c.lost_near_kill:,})",
        ),
        (
            "… duplicated (of them after a stalled send)",
            f"{c.duplicated:,} ({c.after_stall:,})",
        ),
        ("… skipped by the bot as missed (older than the 2 h grace)", f"{o.missed_logged:,}"),
        ("Check-ins ignored by users", f"{o.stats.checkins_ignored:,}"),
        ("Answers sent by users", f"{c.sent:,}"),
        (
            "… confirmed / refused with a notice / no reply",
            f"{c.confirmed:,} / {c.refused:,} / {c.silent:,}",
        ),
        ("… stored (rows in checkins)", f"{c.stored:,}"),
        ("… lost / stored beyond those sent", f"{c.answers_lost:,} / {c.answers_extra:,}"),
        ("Follow-ups due / delivered", f"{c.f_due:,} / {c.f_delivered:,}"),
        ("… lost / duplicated", f"{c.f_lost:,} / {c.f_dup:,}"),
        (
            "Steps with no answer within 40 s / answered from another step",
            f"{o.stats.unanswered_steps:,} / {o.stats.refused_steps:,}",
        ),
        (
            "Reply latency p50 / p99 / max (ms)",
            f"{o.latency_p50_ms:,.0f} / {o.latency_p99_ms:,.0f} / {o.latency_max_ms:,.0f}",
        ),
        ("Peak RSS per bot process (MB)", " / ".join(f"{mb:.1f}" for mb in o.peak_rss_mb)),
        (
            "Crashes / tracebacks / exit code at SIGTERM",
            f"{o.crashes:,} / {o.tracebacks:,} / {o.final_exit}",
        ),
        ("Bot errors logged", events(o.error_events)),
        ("Bot warnings logged", events(o.warning_events)),
    ]
    lines = [
        f"Command, from the repo root: `{command}`",
        "",
        machine(["python-telegram-bot"]).describe(),
        "",
        f"{o.users:,} simulated users in ten time zones talk to Steady (`run_platforms`, the"
        " real Telegram adapter, PTB polling) over the fake Bot API for"
        f" {args.days:g} simulated days at {args.speed:,.0f}x, with"
        f" {100 * args.retry_after_share:g} % of calls answered 429 (retry_after 1-3 s),"
        f" {100 * args.stall_share:g} % stalled past the 10 s request timeout,"
        f" {100 * BLOCK_SHARE:g} % of users blocking the bot, and one kill -9 of the bot"
        " process midway, restarted at once on the same data directory. Seed"
        f" {args.seed}. How each figure is counted is in bench/soak.py's docstring.",
        "",
        f"**Result: {verdict}.**",
        "",
        "| Figure | Value |",
        "|---|---:|",
        *(f"| {name} | {value} |" for name, value in rows),
        "",
        "| Target | Limit | Measured | Result |",
        "|---|---|---|---|",
        *(
            f"| {c.name} | {c.limit} | {c.measured} | {'met' if c.passed else 'NOT MET'} |"
            for c in results
        ),
    ]
    if c.examples:
        lines += ["", "First lost check-ins:", "", *(f"- {line}" for line in c.examples)]
    if c.f_examples:
        lines += ["", "First lost follow-ups:", "", *(f"- {line}" for line in c.f_examples)]
    if c.duplicate_examples:
        lines += ["", "First duplicated check-ins:", ""]
        lines += [f"- {line}" for line in c.duplicate_examples]
    lines += ["", "Not covered:", "", *(f"- {line}" for line in NOT_COVERED)]
    return "\n".join(lines) + "\n"


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--users", type=int, default=DEFAULT_USERS)
    parser.add_argument("--days", type=float, default=DEFAULT_DAYS, help="simulated days")
    parser.add_argument(
        "--speed", type=float, default=DEFAULT_SPEED, help="simulated seconds per real second"
    )
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--retry-after-share", type=float, default=0.05)
    parser.add_argument("--stall-share", type=float, default=0.02)
    parser.add_argument("--keep-logs", help="copy the bot's stderr logs to this folder")
    parser.add_argument("--no-write", action="store_true", help="print only, leave RESULTS.md")
    parser.add_argument("--json", action="store_true", help="print one JSON object last")
    args = parser.parse_args(argv)
    if args.users < 1 or args.days <= 0 or args.speed <= 0:
        parser.error("--users, --days and --speed must be positive")
    return args


def main(argv: Sequence[str]) -> int:
    args = parse_args(argv)
    outcome = asyncio.run(soak(args))
    # --keep-logs names a folder of the operator's, and changes no figure: not shown.
    shown = [a for i, a in enumerate(argv) if "--keep-logs" not in (a, *argv[i - 1 : i])]
    report = render(shown_command([sys.argv[0], *shown]), outcome, args)
    print(report)
    defaults = (args.users, args.days, args.speed) == (DEFAULT_USERS, DEFAULT_DAYS, DEFAULT_SPEED)
    if not args.no_write:
        if not defaults:
            print("(not the spec's run: RESULTS.md is written anyway)", file=sys.stderr)
        write_section(SECTION, report)
        print(f"written to {Path('bench') / 'RESULTS.md'}", file=sys.stderr)
    for check in checks(outcome):
        print(f"{check.name}: {'met' if check.passed else 'NOT MET'}", file=sys.stderr)
    if args.json:
        print_json_figures(*figures(outcome), commit())
    return 0 if all(check.passed for check in checks(outcome)) else 1


def figures(outcome: Outcome) -> tuple[dict[str, float | int], dict[str, float]]:
    """Every figure by name, and the targets (upper bounds) of those `checks` judges."""
    o, c = outcome, outcome.counts
    found: dict[str, float | int] = {
        "users": o.users,
        "checkins_due": c.due,
        "checkins_delivered": c.delivered,
        "answers_lost": c.answers_lost,
        "duplicate_checkins": c.duplicated,
        "followups_due": c.f_due,
        "followups_lost": c.f_lost,
        "crashes": o.crashes,
        "tracebacks": o.tracebacks,
        "checkins_lost_at_kill": c.lost_near_kill,
        "checkins_lost_other": c.lost - c.lost_near_kill,
        "claimed_unsent_at_kill": o.kill.claimed_unsent,
        "latency_p50_ms": o.latency_p50_ms,
        "latency_p99_ms": o.latency_p99_ms,
        "latency_max_ms": o.latency_max_ms,
        "wall_s": o.wall_s,
    }
    targets: dict[str, float] = {
        "answers_lost": 0,
        "duplicate_checkins": 0,
        "followups_lost": 0,
        "crashes": 0,
        "tracebacks": 0,
        "checkins_lost_at_kill": o.kill.claimed_unsent,
        "checkins_lost_other": 0,
    }
    return found, targets


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
