"""Telegram round trip: 5,000 updates from 500 users through Steady's full Telegram path,
and the same updates through a bare python-telegram-bot echo bot, against the fake Bot API.

Run from the repo root:

    .venv/bin/python bench/telegram_roundtrip.py

The parent builds one workload from a fixed seed: 500 private chats, each user onboarded
first (untimed: /start, time zone, the zone confirmed with its button, check-in time, country
button), then ten timed updates (two check-ins answered by button presses and typed text, one
free-text message, /affirm, in a shuffled order). It runs each variant in a fresh child
process of its own ("driver" children, one variant after the other):

* the driver runs a fresh `FakeTelegram` (tests/fakes/telegram_api.py) on 127.0.0.1 and the
  simulated users, and starts the bot under test as a child process of its own, so the bot
  has a CPU to itself and its CPU time and memory are its own;
* `--variant steady` is the bot as `steady run` starts it: `run_platforms` (open_services,
  Router, TelegramAdapter with PTB polling, scheduled delivery), INFO logging to a file;
* `--variant echo` is a bare PTB `Application` with the same builder options
  (concurrent_updates(True)) and PTB's AIORateLimiter, one MessageHandler echoing every text and one
  CallbackQueryHandler answering every press and sending a message.

Each user is a closed loop: it sends its next update only once the bot has answered the
previous one, and all 500 users act at once. Latency is measured in the driver, on one
clock (time.perf_counter), from the instant the update is pushed into the fake to the
instant the fake receives the first sendMessage/editMessageText for that chat (for a press:
that reply message, not the answerCallbackQuery before it). For context the same is timed
with a crowd of 50 other users, and for one more user alone (the round trip of an idle bot).

Telegram's flood limits: 30 messages a second would cap both bots at the same rate and
measure only the limit. By default both variants run their limiter with the limits so high
that its code runs and it never waits: the echo bot PTB's AIORateLimiter with its overall
and group limits set to 0, Steady its lanes (bot/adapters/lanes.py) with no limit to speak
of (the Steady child sets bot.adapters.telegram.outbound.TELEGRAM_CAPS to lanes.UNLIMITED
at run time; no file is changed). `--telegram-limits` keeps 30/s for both instead (slow:
minutes a variant).

The parent prints a table and writes it, with the command, to the "Telegram round trip"
section of bench/RESULTS.md. The exit status is 1 when the target is missed or the run is
not valid (an update unanswered or answered from another step of the conversation, a press
answered as expired, a call refused, a check-in not saved).

To profile Steady: `--only steady --profile` (cProfile in the bot process, main thread,
during the 500-user crowd only; printed to stderr; RESULTS.md is left as it is);
`--profile light` profiles the 50-user crowd instead.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import json
import math
import os
import pstats
import random
import re
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, TextIO
from zoneinfo import ZoneInfo

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, Update
from telegram.ext import (
    AIORateLimiter,
    Application,
    CallbackQueryHandler,
    ContextTypes,
    MessageHandler,
    filters,
)

import bot.adapters.telegram.outbound as telegram_outbound
from bench.common import REPO, Check, Machine, machine, percentile, shown_command
from bench.results import write_section
from bot.adapters.lanes import UNLIMITED
from bot.app import run_platforms
from bot.config import Settings
from bot.content_pack.countries import country_for_timezone
from bot.content_pack.ids import (
    ALL_MESSAGES,
    AnswersMsg,
    CheckinMsg,
    ContactedMsg,
    GeneralMsg,
    OnboardingMsg,
    PauseMsg,
)
from bot.content_pack.loader import load_pack
from bot.logs import configure_logging
from bot.safety.rules import Intent
from bot.safety.screen import SafetyScreen
from tests.fakes.telegram_api import FakeTelegram

THIS_FILE = Path(__file__).resolve()
SECTION = "Telegram round trip"

STEADY = "steady"
ECHO = "echo"
VARIANTS = (ECHO, STEADY)  # run in this order, each in a fresh process

SEED = 20_261_129
DEFAULT_USERS = 500
LIGHT_USERS = 50  # the smaller crowd, for context: how the ratio moves with the load
FIRST_USER_ID = 7_000_001  # private chats: the chat id is the user id
TARGET_RATIO = 1.5  # Steady costs at most 1.5x the bare echo, in throughput and p99 latency
PROFILE_CROWD, PROFILE_LIGHT = "crowd", "light"  # which timed crowd --profile watches

STEP_TIMEOUT_S = 60.0  # nothing back for an update this long: that user stops
BOT_READY_TIMEOUT_S = 60.0
BOT_STOP_TIMEOUT_S = 30.0
SETTLE_S = 1.0  # quiet time after a phase: late or extra replies show up as strays
POLL_TIMEOUT_S = 10  # getUpdates long poll, as Steady's adapter sets it
MB = 1_000_000
DISTURBED_SHARE = 0.15  # other processes busier than this (of one core): say so in the report

# PTB's limiter with Telegram's flood limits switched off (0 disables each limit).
NO_FLOOD_LIMITS: dict[str, float] = {"overall_max_rate": 0, "group_max_rate": 0}
# The echo bot's limiter: no retry of a 429 inside PTB, no group limit (as Steady's lanes:
# a refused message alone waits, and groups are paced by their own window).
ECHO_LIMITER: dict[str, int] = {"max_retries": 0, "group_max_rate": 0}

# The zones users live in; each must map to a country, so onboarding can tap it.
ZONES = (
    "Europe/Berlin",
    "Europe/London",
    "America/New_York",
    "America/Chicago",
    "America/Sao_Paulo",
    "Asia/Kolkata",
    "Asia/Tokyo",
    "Australia/Sydney",
    "Africa/Nairobi",
    "Europe/Madrid",
)

NOTES = (
    "slept badly but work was fine",
    "long walk with the dog, felt lighter after",
    "called my sister, we laughed a lot",
    "tired, quiet evening with a book",
    "made soup and watched a film",
    "a <b>good</b> & quiet day",
    "busy at work, no time to think about anything",
    "went to the gym for the first time in weeks",
    "a bit lonely tonight but okay",
    "coffee with an old friend <3",
)
FREE_TEXTS = (
    "thanks",
    "good morning",
    "just saying hi",
    "what can you do?",
    "the weather is lovely today",
    "ok",
    "my ex texted me again today",
    "I really want to message him right now",
    "I miss her so much, I want to call her",
    "is this thing on",
)
MOODS = ("1", "2", "3", "4", "5")
URGES = ("none", "none", "some", "some", "strong")  # "strong" adds a pause offer to the save
SOLO_ROUNDS = 10  # the lone user's timed updates: ten rounds of ten
TYPED_MOOD_SHARE = 0.3  # the check-in's mood step takes a typed "3" as well as a tap


# --- the workload ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Step:
    """One update a user sends, and what Steady answers it with.

    `kind` is "text" or "press". A press names the value of the button to press; the
    driver reads that button's callback_data from the newest keyboard the bot showed (the
    echo bot's buttons carry no values: there the newest keyboard's button is pressed).
    `replies` counts Steady's messages (the echo bot always sends one), and `expect` names
    the content-pack message (a `Msg` member) Steady's first reply must contain when the
    conversation is where the user believes it is ("" when any reply will do).
    """

    kind: str
    category: str  # for the mix and the latency by kind: command, press, typed, free text
    text: str = ""
    choice: str = ""
    replies: int = 1
    expect: str = ""


@dataclass(frozen=True, slots=True)
class UserPlan:
    user_id: int
    onboarding: tuple[Step, ...]
    timed: tuple[Step, ...]


def checkin_time(zone: str, now: datetime) -> str:
    """A check-in time twelve hours away in the user's zone: no scheduled check-in can fall
    due during the run and open a check-in that would make the user's buttons stale."""
    local = (now + timedelta(hours=12)).astimezone(ZoneInfo(zone))
    return f"{local:%H:%M}"


def screen_workload_texts() -> dict[str, str]:
    """What Steady says to each free text outside a flow (the router's `_outside_flow`).

    No text may set off the safety screen: a crisis reply changes the number of messages,
    and the closed loop counts on knowing how many replies each update gets.
    """
    pack = load_pack(REPO / "content", "en")
    screen = SafetyScreen(pack)
    for text in (*NOTES, *FREE_TEXTS):
        assert screen.screen(text, "en", None, False) is None, f"{text!r} sets off the screen"
    replies = {}
    for text in FREE_TEXTS:
        intents = screen.detect(text, "en").intents
        if Intent.CONTACTED in intents:
            replies[text] = ContactedMsg.CT_OFFER.name
        elif Intent.URGE in intents:
            replies[text] = PauseMsg.PAUSE_OFFER.name
        else:
            replies[text] = GeneralMsg.UNEXPECTED_TEXT.name
    return replies


@dataclass(frozen=True, slots=True)
class Workload:
    crowd: tuple[UserPlan, ...]  # the timed crowd the target is about
    light: tuple[UserPlan, ...]  # a smaller crowd, timed the same way, for context
    solo: UserPlan  # one more user, alone, for the round trip of an idle bot

    @property
    def everyone(self) -> tuple[UserPlan, ...]:
        return (*self.crowd, *self.light, self.solo)

    @property
    def checkins(self) -> int:
        """Check-ins the timed updates save: one for each /checkin."""
        return sum(step.text == "/checkin" for plan in self.everyone for step in plan.timed)


def build_workload(
    users: int, light_users: int, seed: int, now: datetime, free_text_replies: dict[str, str]
) -> Workload:
    rng = random.Random(seed)

    def plans(first: int, count: int) -> tuple[UserPlan, ...]:
        return tuple(
            user_plan(rng, number, now, free_text_replies, rounds=1)
            for number in range(first, first + count)
        )

    crowd = plans(0, users)
    light = plans(users, light_users)
    solo = user_plan(rng, users + light_users, now, free_text_replies, rounds=SOLO_ROUNDS)
    return Workload(crowd, light, solo)


def user_plan(
    rng: random.Random,
    number: int,
    now: datetime,
    free_text_replies: dict[str, str],
    rounds: int,
) -> UserPlan:
    """Onboarding, then `rounds` times the four blocks of ten updates, shuffled."""
    zone = ZONES[number % len(ZONES)]
    country = country_for_timezone(zone)
    assert country is not None, zone
    onboarding = (
        Step("text", "command", "/start", replies=2, expect=OnboardingMsg.WELCOME.name),
        Step("text", "typed", zone, expect=OnboardingMsg.TIMEZONE_CONFIRM.name),
        Step(
            "press", "press", choice="yes", expect=OnboardingMsg.ASK_TIME.name
        ),  # its time now: right
        Step(  # done, then the country question
            "text",
            "typed",
            checkin_time(zone, now),
            replies=2,
            expect=OnboardingMsg.ONBOARDING_DONE.name,
        ),
        Step("press", "press", choice=country, expect=OnboardingMsg.COUNTRY_SAVED.name),
    )
    blocks = []
    for _ in range(rounds):
        round_blocks = [
            checkin_steps(rng, finish_with_note=True),
            checkin_steps(rng, finish_with_note=False),
            [Step("text", "free text", rng.choice(FREE_TEXTS))],
            [Step("text", "command", "/affirm")],
        ]
        rng.shuffle(round_blocks)
        blocks += round_blocks
    return UserPlan(FIRST_USER_ID + number, onboarding, expect_free_text(blocks, free_text_replies))


def checkin_steps(rng: random.Random, finish_with_note: bool) -> list[Step]:
    """/checkin, mood (a tap, or typed), urge (a tap), then a typed note or the Skip button."""
    mood = rng.choice(MOODS)
    urge = rng.choice(URGES)
    saved_replies = 2 if urge == "strong" else 1  # a strong pull: saved, then a pause offer
    steps = [Step("text", "command", "/checkin", expect=CheckinMsg.ASK_MOOD.name)]
    if rng.random() < TYPED_MOOD_SHARE:
        steps.append(Step("text", "typed", mood, expect=CheckinMsg.ASK_URGE.name))
    else:
        steps.append(Step("press", "press", choice=mood, expect=CheckinMsg.ASK_URGE.name))
    steps.append(Step("press", "press", choice=urge, expect=CheckinMsg.ASK_NOTE.name))
    if finish_with_note:
        note = rng.choice(NOTES)
        saved = CheckinMsg.CHECKIN_SAVED_WITH_NOTE.name
        steps.append(Step("text", "typed", note, replies=saved_replies, expect=saved))
    else:
        saved = CheckinMsg.CHECKIN_SAVED.name
        steps.append(Step("press", "press", choice="skip", replies=saved_replies, expect=saved))
    return steps


def expect_free_text(
    blocks: list[list[Step]], free_text_replies: dict[str, str]
) -> tuple[Step, ...]:
    """The blocks in order, the free text's expected reply filled in.

    A pause or contact offer (after a strong pull, or a free text that sounds like one) waits
    for a tap: free text typed then is asked to use the buttons. /checkin and /affirm move on
    from it (/affirm opens its own flow, and text typed after it is read as any message).
    """
    steps: list[Step] = []
    offer_open = False
    for step in (step for block in blocks for step in block):
        if step.category == "free text":
            expect = REFUSED_AT_BUTTONS if offer_open else free_text_replies[step.text]
            step = replace(step, expect=expect)  # noqa: PLW2901
            offer_open = offer_open or expect != GeneralMsg.UNEXPECTED_TEXT.name
        elif step.text in ("/checkin", "/affirm"):
            offer_open = False
        elif step.replies == 2:  # the save of a check-in with a strong pull
            offer_open = True
        steps.append(step)
    return tuple(steps)


def workload_to_json(workload: Workload) -> dict[str, Any]:
    return asdict(workload)


def workload_from_json(data: dict[str, Any]) -> Workload:
    def plan(item: dict[str, Any]) -> UserPlan:
        return UserPlan(
            item["user_id"],
            tuple(Step(**step) for step in item["onboarding"]),
            tuple(Step(**step) for step in item["timed"]),
        )

    return Workload(
        tuple(plan(item) for item in data["crowd"]),
        tuple(plan(item) for item in data["light"]),
        plan(data["solo"]),
    )


# --- the fake, with the latency bookkeeping ---------------------------------------------------


@dataclass
class Pending:
    """The one update a user is waiting on (closed loop: at most one per chat).

    Every answering call that reaches the fake for the chat while this is open belongs to
    it, since the user sent nothing else. It is complete when the bot has sent as many
    messages as the step produces (and answered the press), or, for Steady, as soon as the
    answer shows the conversation was elsewhere: a first message without the expected text
    (`wrong`), or a press answered with the expired-button notice, after which no message
    follows. A call for a chat with nothing open (more messages than expected) is a stray.
    After a wrong first message any further message of that answer lands on the user's
    next update; that only happens once Steady has already gone wrong, and is counted so.
    """

    messages_expected: int
    answer_expected: bool
    fragment: str | None  # text the first message must contain; None: anything goes
    done: asyncio.Future[None]
    pushed_at: float = 0.0
    first_message_at: float | None = None
    first_text: str | None = None
    answered_at: float | None = None
    answer_text: str | None = None
    messages: int = 0
    wrong: bool = False


class TimedFakeTelegram(FakeTelegram):
    """The strict fake, noting the arrival instant of every call that answers a user.

    The three answering methods are wrapped: the instant is taken with perf_counter when
    the fake's handler starts (the request has arrived and its form is parsed; the fake's
    own work, HTML parsing included, comes after), and counted once the fake has accepted
    the call. A refused call counts for nothing here; it shows in `calls` with its status.
    """

    def __init__(self) -> None:
        super().__init__(bot_username="steady_bench_bot")
        self.pending: dict[int, Pending] = {}
        self.stray_calls = 0
        # Press answers that are the whole reply (Steady's expired-button notice).
        self.final_notices: set[str] = set()

    def expect(self, chat_id: int, messages: int, answer: bool, fragment: str | None) -> Pending:
        loop = asyncio.get_running_loop()
        pending = Pending(messages, answer, fragment, loop.create_future())
        self.pending[chat_id] = pending
        return pending

    def _arrived(self, chat_id: int, instant: float, text: str | None, *, answer: bool) -> None:
        pending = self.pending.get(chat_id)
        if pending is None or pending.done.done():
            self.stray_calls += 1
            return
        if answer:
            if pending.answered_at is not None:
                self.stray_calls += 1
                return
            pending.answered_at, pending.answer_text = instant, text
        else:
            pending.messages += 1
            if pending.first_message_at is None:
                pending.first_message_at, pending.first_text = instant, text
                pending.wrong = pending.fragment is not None and pending.fragment not in (
                    text or ""
                )
        answered = pending.answered_at is not None or not pending.answer_expected
        if (
            answered and (pending.messages >= pending.messages_expected or pending.wrong)
        ) or pending.answer_text in self.final_notices:
            pending.done.set_result(None)

    async def _send_message(self, params: dict[str, Any]) -> Any:
        instant = time.perf_counter()
        result = await super()._send_message(params)
        self._arrived(int(params["chat_id"]), instant, result.get("text"), answer=False)
        return result

    async def _edit_message_text(self, params: dict[str, Any]) -> Any:
        instant = time.perf_counter()
        result = await super()._edit_message_text(params)
        self._arrived(int(params["chat_id"]), instant, result.get("text"), answer=False)
        return result

    async def _answer_callback_query(self, params: dict[str, Any]) -> Any:
        instant = time.perf_counter()
        result = await super()._answer_callback_query(params)
        query = self.callback_queries[str(params["callback_query_id"])]
        self._arrived(query.chat_id, instant, query.answer_text, answer=True)
        return result


# --- the driver child: fake server, users, and the bot as its own child -----------------------


@dataclass
class Sample:
    category: str
    latency_ms: float
    press_answer_ms: float | None


@dataclass
class PhaseOutcome:
    """What came back in one phase. A `wrong` reply is one that does not contain the
    expected message: Steady answered from another point of the conversation; an `expired`
    press got the "earlier message" notice instead of its step."""

    samples: list[Sample] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    wrong: list[str] = field(default_factory=list)
    expired: int = 0
    unsent: int = 0
    wall_s: float = 0.0


@dataclass
class Usage:
    """What a timed crowd cost the machine, over its wall time."""

    bot_cpu_s: float
    bot_threads_cpu_s: float  # outside the event loop's thread: aiosqlite's
    driver_cpu_s: float
    other_cpu_s: float  # every other process on the machine
    bot_rss_mb: float
    bot_peak_rss_mb: float


@dataclass
class CrowdResult:
    """One timed crowd: all its users at once, each a closed loop."""

    users: int
    updates: int
    handled: int
    wall_s: float
    throughput: float
    p50_ms: float
    p90_ms: float
    p99_ms: float
    max_ms: float
    press_answer_p50_ms: float
    press_answer_p99_ms: float
    by_category: dict[str, list[float]]  # category: [count, p50 ms, p99 ms]
    usage: Usage
    failures: list[str]
    unsent: int
    wrong_replies: int
    wrong_examples: list[str]
    expired_presses: int
    stray_calls: int

    @property
    def cpu_per_update_ms(self) -> float:
        return self.usage.bot_cpu_s / self.handled * 1000

    @property
    def clean(self) -> bool:
        """Every update sent and answered from the step the user was at."""
        return (
            self.handled == self.updates
            and not self.failures
            and self.wrong_replies == 0
            and self.expired_presses == 0
            and self.stray_calls == 0
        )

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CrowdResult:
        return cls(**{**data, "usage": Usage(**data["usage"])})


@dataclass
class VariantResult:
    variant: str
    onboarding_updates: int
    onboarding_problems: int
    solo_updates: int
    solo_handled: int
    solo_p50_ms: float
    solo_p99_ms: float
    solo_problems: int
    light: CrowdResult
    crowd: CrowdResult
    refused_calls: int
    went_wrong_replies: int
    checkins_saved: int | None
    log_problems: int | None
    flood_limits: bool

    @property
    def valid(self) -> bool:
        """Every update answered as the conversation expects, nothing refused or left over."""
        return (
            self.crowd.clean
            and self.light.clean
            and self.onboarding_problems == 0
            and self.solo_problems == 0
            and self.solo_handled == self.solo_updates
            and self.refused_calls == 0
            and self.went_wrong_replies == 0
        )

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> VariantResult:
        light, crowd = CrowdResult.from_json(data["light"]), CrowdResult.from_json(data["crowd"])
        return cls(**{**data, "light": light, "crowd": crowd})


def find_button(tg: FakeTelegram, chat_id: int, choice: str | None) -> tuple[int, str]:
    """The newest bot message in the chat with a keyboard, and the callback_data to press.

    For Steady, the button whose value (the part after the last ":") is `choice`: the data
    the bot really showed, token included. For the echo bot (`choice` None), that message's
    first button.
    """
    for message in reversed(tg.sent_messages(chat_id)):
        rows = (message.reply_markup or {}).get("inline_keyboard", [])
        buttons = [button for row in rows for button in row if "callback_data" in button]
        if not buttons or message.deleted:
            continue
        for button in buttons:
            data: str = button["callback_data"]
            if choice is None or data.rsplit(":", 1)[-1] == choice:
                return message.message_id, data
        raise LookupError(f"no {choice!r} button on the newest keyboard")
    raise LookupError("no message with buttons")


# The expectation of a free text typed while buttons wait for a tap (see Expectations).
REFUSED_AT_BUTTONS = "USE_BUTTONS or USE_BUTTONS_BELOW"


@dataclass(frozen=True)
class Expectations:
    """Texts from the content pack the driver checks Steady's replies against, in their
    Telegram wording where the pack has one (the welcome's privacy note, for one)."""

    fragments: dict[str, str]  # Msg name: the longest literal part of its template
    expired: str

    @classmethod
    def load(cls) -> Expectations:
        pack = load_pack(REPO / "content", "en")
        fragments = {}
        for message in ALL_MESSAGES:
            template = pack.text_on("en", message, "telegram")  # no values: the template
            parts = re.split(r"\{[^{}]*\}", template)
            fragments[message.name] = max((part.strip() for part in parts), key=len)
        # Free text at a step of buttons is refused in one of two wordings, as the step's
        # buttons are shown again below the refusal or were shown above it: either will do.
        above = fragments[GeneralMsg.USE_BUTTONS.name]
        below = fragments[AnswersMsg.USE_BUTTONS_BELOW.name]
        fragments[REFUSED_AT_BUTTONS] = common_ending(above, below)
        return cls(fragments, pack.text_on("en", GeneralMsg.BUTTON_EXPIRED, "telegram"))


def common_ending(first: str, second: str) -> str:
    """The words two texts end with alike ("or type /cancel to stop.")."""
    size = 0
    while size < min(len(first), len(second)) and first[-1 - size] == second[-1 - size]:
        size += 1
    ending = first[len(first) - size :]
    return ending[ending.find(" ") + 1 :] if " " in ending else ending


async def converse(
    tg: TimedFakeTelegram,
    variant: str,
    user_id: int,
    steps: Sequence[Step],
    expectations: Expectations,
    outcome: PhaseOutcome,
) -> None:
    """One user: each update only after the bot has answered the previous one."""
    for number, step in enumerate(steps):
        press = step.kind == "press"
        where = f"user {user_id} step {number} ({step.category})"
        try:
            message_id, data = (
                find_button(tg, user_id, step.choice if variant == STEADY else None)
                if press
                else (0, "")
            )
        except LookupError as error:
            # The conversation is not where the user thinks: it cannot go on.
            outcome.failures.append(f"{where}: {error}")
            outcome.unsent += len(steps) - number
            return
        steady = variant == STEADY
        fragment = expectations.fragments[step.expect] if steady and step.expect else None
        pending = tg.expect(user_id, step.replies if steady else 1, press, fragment)
        # The clock starts right before the push: user_sends_text / user_presses queue the
        # update and wake the bot's pending getUpdates without awaiting anything, so none
        # of the bot's work can fall between this instant and the update being available.
        pending.pushed_at = time.perf_counter()
        if press:
            tg.user_presses(user_id, user_id, message_id, data)
        else:
            tg.user_sends_text(user_id, user_id, step.text)
        try:
            await asyncio.wait_for(pending.done, STEP_TIMEOUT_S)
        except TimeoutError:
            outcome.failures.append(
                f"{where}: no full answer in {STEP_TIMEOUT_S:g} s ({pending.messages} of"
                f" {pending.messages_expected} messages)"
            )
            outcome.unsent += len(steps) - number - 1
            return
        expired = press and pending.answer_text == expectations.expired
        outcome.expired += expired
        if pending.wrong or (expired and fragment is not None):
            got = "the expired notice" if expired else repr((pending.first_text or "")[:60])
            outcome.wrong.append(f"{where}: expected {step.expect}, got {got}")
        # The reply message's arrival; an expired press has none, only its notice.
        replied_at = pending.first_message_at or pending.answered_at
        assert replied_at is not None
        answer_ms = None
        if press and pending.answered_at is not None:
            answer_ms = (pending.answered_at - pending.pushed_at) * 1000
        outcome.samples.append(
            Sample(step.category, (replied_at - pending.pushed_at) * 1000, answer_ms)
        )


async def run_phase(
    tg: TimedFakeTelegram,
    variant: str,
    plans: Sequence[UserPlan],
    expectations: Expectations,
    timed: bool,
) -> PhaseOutcome:
    outcome = PhaseOutcome()
    started = time.perf_counter()
    await asyncio.gather(
        *(
            converse(
                tg,
                variant,
                plan.user_id,
                plan.timed if timed else plan.onboarding,
                expectations,
                outcome,
            )
            for plan in plans
        )
    )
    outcome.wall_s = time.perf_counter() - started
    return outcome


def _cpu_s(stat_file: str) -> float:
    with open(stat_file, encoding="ascii") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def process_cpu_s(pid: int) -> tuple[float, float]:
    """User + system CPU of a process: all its threads, and its main thread alone (the
    event loop; the rest is aiosqlite's threads, one a connection)."""
    return _cpu_s(f"/proc/{pid}/stat"), _cpu_s(f"/proc/{pid}/task/{pid}/stat")


def system_busy_s() -> float:
    """CPU time spent by everything on the machine so far, all CPUs (not idle, not iowait)."""
    with open("/proc/stat", encoding="ascii") as stat:
        jiffies = [int(value) for value in stat.readline().split()[1:]]
    idle = jiffies[3] + jiffies[4]
    return (sum(jiffies[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def process_memory_mb(pid: int) -> tuple[float, float]:
    """(VmRSS, VmHWM) of a process, decimal MB."""
    values = {}
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        for line in status:
            name, _, rest = line.partition(":")
            if name in {"VmRSS", "VmHWM"}:
                values[name] = int(rest.split()[0]) * 1024 / MB
    return values["VmRSS"], values["VmHWM"]


def bot_environment(tg: FakeTelegram, data_dir: Path) -> dict[str, str]:
    """What an operator would set for `steady run`, pointed at the fake."""
    env = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("TELEGRAM_", "DISCORD_", "STEADY_"))
    }
    env.update(
        TELEGRAM_BOT_TOKEN=tg.token,
        TELEGRAM_API_BASE_URL=f"{tg.url}/bot",
        STEADY_DATA_DIR=str(data_dir),
        STEADY_CONTENT_DIR=str(REPO / "content"),
        STEADY_LOG_LEVEL="INFO",
    )
    return env


async def wait_until_polling(tg: FakeTelegram, bot: asyncio.subprocess.Process) -> None:
    deadline = time.perf_counter() + BOT_READY_TIMEOUT_S
    while not any(call.method == "getUpdates" for call in tg.calls):
        if bot.returncode is not None:
            raise RuntimeError(f"the bot exited with {bot.returncode} before polling")
        if time.perf_counter() > deadline:
            raise RuntimeError("the bot did not start polling in time")
        await asyncio.sleep(0.02)


async def stop_bot(bot: asyncio.subprocess.Process) -> None:
    if bot.returncode is not None:
        return
    bot.send_signal(signal.SIGTERM)
    try:
        await asyncio.wait_for(bot.wait(), BOT_STOP_TIMEOUT_S)
    except TimeoutError:
        bot.kill()
        await bot.wait()
        raise RuntimeError("the bot did not stop within 30 s of SIGTERM") from None


def count_replies(tg: FakeTelegram, text: str) -> int:
    """Bot messages that said `text`, when first sent or after an edit."""
    return sum(
        1
        for chat in tg.messages.values()
        for message in chat.values()
        if message.from_bot and text in {*message.previous_texts, message.text}
    )


def count_checkins(data_dir: Path) -> int:
    with contextlib.closing(sqlite3.connect(data_dir / "steady.db")) as connection:
        saved: int = connection.execute("SELECT COUNT(*) FROM checkins").fetchone()[0]
    return saved


def count_log_problems(log_file: Path) -> int:
    """Lines logged at warning or error (the format: stamp, level, logger, event=...)."""
    with open(log_file, encoding="utf-8") as log:
        return sum(1 for line in log if line.split(" ", 2)[1:2] in (["warning"], ["error"]))


def problems(outcome: PhaseOutcome) -> int:
    return len(outcome.failures) + len(outcome.wrong) + outcome.expired + outcome.unsent


@dataclass
class Leftovers:
    """What the fake and the bot's data folder show once the bot has stopped."""

    refused: int
    went_wrong: int
    checkins: int | None
    log_problems: int | None


async def run_crowd(
    tg: TimedFakeTelegram,
    bot: asyncio.subprocess.Process,
    variant: str,
    plans: Sequence[UserPlan],
    expectations: Expectations,
    profile: bool,
) -> CrowdResult:
    """A timed crowd: all its users at once, with the machine's CPU use measured."""
    updates = sum(len(plan.timed) for plan in plans)
    print(f"{variant}: {len(plans):,} users, {updates:,} timed updates …", file=sys.stderr)
    strays_before = tg.stray_calls
    if profile:
        bot.send_signal(signal.SIGUSR1)
    bot_cpu, loop_cpu = process_cpu_s(bot.pid)
    driver_cpu = time.process_time()
    all_cpu = system_busy_s()
    outcome = await run_phase(tg, variant, plans, expectations, timed=True)
    bot_cpu_after, loop_cpu_after = process_cpu_s(bot.pid)
    bot_cpu, loop_cpu = bot_cpu_after - bot_cpu, loop_cpu_after - loop_cpu
    driver_cpu = time.process_time() - driver_cpu
    other_cpu = max(0.0, system_busy_s() - all_cpu - bot_cpu - driver_cpu)
    rss, peak_rss = process_memory_mb(bot.pid)
    if profile:
        bot.send_signal(signal.SIGUSR2)
    await asyncio.sleep(SETTLE_S)
    usage = Usage(bot_cpu, bot_cpu - loop_cpu, driver_cpu, other_cpu, rss, peak_rss)
    return crowd_result(plans, outcome, usage, strays=tg.stray_calls - strays_before)


def crowd_result(
    plans: Sequence[UserPlan], outcome: PhaseOutcome, usage: Usage, strays: int
) -> CrowdResult:
    samples = outcome.samples
    latencies = sorted(sample.latency_ms for sample in samples)
    answers = sorted(s.press_answer_ms for s in samples if s.press_answer_ms is not None)
    by_category: dict[str, list[float]] = {}
    for category in sorted({sample.category for sample in samples}):
        values = sorted(s.latency_ms for s in samples if s.category == category)
        by_category[category] = [len(values), percentile(values, 0.5), percentile(values, 0.99)]
    return CrowdResult(
        users=len(plans),
        updates=sum(len(plan.timed) for plan in plans),
        handled=len(samples),
        wall_s=outcome.wall_s,
        throughput=len(samples) / outcome.wall_s,
        p50_ms=percentile(latencies, 0.5),
        p90_ms=percentile(latencies, 0.9),
        p99_ms=percentile(latencies, 0.99),
        max_ms=latencies[-1] if latencies else math.nan,
        press_answer_p50_ms=percentile(answers, 0.5),
        press_answer_p99_ms=percentile(answers, 0.99),
        by_category=by_category,
        usage=usage,
        failures=outcome.failures[:10],
        unsent=outcome.unsent,
        wrong_replies=len(outcome.wrong),
        wrong_examples=outcome.wrong[:10],
        expired_presses=outcome.expired,
        stray_calls=strays,
    )


async def drive(
    variant: str, workload: Workload, flood_limits: bool, profile: str | None
) -> VariantResult:
    """One variant, start to end: the fake, the bot, onboarding, the lone user, the light
    crowd, the crowd; the bot is profiled (with `profile`) during that crowd only."""
    expectations = Expectations.load()
    went_wrong = load_pack(REPO / "content", "en").text("en", GeneralMsg.SOMETHING_WENT_WRONG)
    with tempfile.TemporaryDirectory(prefix="steady-tg-bench-") as temporary:
        data_dir = Path(temporary)
        profile_file = data_dir / "bot.prof"
        async with TimedFakeTelegram() as tg:
            tg.final_notices.add(expectations.expired)
            command = [sys.executable, str(THIS_FILE), "--role", "bot"]
            command += ["--variant", variant]
            command += ["--flood-limits"] if flood_limits else []
            command += ["--profile-out", str(profile_file)] if profile else []
            # The bot's stdout is not needed; its stderr passes through (warnings, tracebacks).
            bot = await asyncio.create_subprocess_exec(
                *command, cwd=REPO, env=bot_environment(tg, data_dir), stdout=subprocess.DEVNULL
            )
            try:
                await wait_until_polling(tg, bot)
                # Untimed, and the same for both: onboarding, which also warms both bots up
                # (connections open, code paths run once).
                everyone = workload.everyone
                print(f"{variant}: onboarding {len(everyone)} users …", file=sys.stderr)
                onboarding = await run_phase(tg, variant, everyone, expectations, timed=False)
                await asyncio.sleep(SETTLE_S)
                # One user alone: the round trip of an idle bot, service time without a queue.
                solo = await run_phase(tg, variant, [workload.solo], expectations, timed=True)
                await asyncio.sleep(SETTLE_S)
                light = await run_crowd(
                    tg, bot, variant, workload.light, expectations, profile == PROFILE_LIGHT
                )
                crowd = await run_crowd(
                    tg, bot, variant, workload.crowd, expectations, profile == PROFILE_CROWD
                )
            finally:
                await stop_bot(bot)
            leftovers = Leftovers(
                # Calls Telegram would refuse; the last getUpdates of a stop ends with 409.
                refused=sum(
                    1 for call in tg.calls if call.status != 200 and call.method != "getUpdates"
                ),
                went_wrong=count_replies(tg, went_wrong),
                checkins=count_checkins(data_dir) if variant == STEADY else None,
                log_problems=(
                    count_log_problems(data_dir / "bot.log") if variant == STEADY else None
                ),
            )
        if profile:
            print_profile(profile_file)
    solo_latencies = sorted(sample.latency_ms for sample in solo.samples)
    return VariantResult(
        variant=variant,
        onboarding_updates=len(onboarding.samples),
        onboarding_problems=problems(onboarding),
        solo_updates=len(workload.solo.timed),
        solo_handled=len(solo.samples),
        solo_p50_ms=percentile(solo_latencies, 0.5),
        solo_p99_ms=percentile(solo_latencies, 0.99),
        solo_problems=problems(solo),
        light=light,
        crowd=crowd,
        refused_calls=leftovers.refused,
        went_wrong_replies=leftovers.went_wrong,
        checkins_saved=leftovers.checkins,
        log_problems=leftovers.log_problems,
        flood_limits=flood_limits,
    )


def print_profile(profile_file: Path) -> None:
    if not profile_file.exists():
        print("no profile was written", file=sys.stderr)
        return
    stats = pstats.Stats(str(profile_file), stream=sys.stderr)
    print("\n=== bot process, timed phase, main thread: the project's own code ===",
          file=sys.stderr)  # fmt: skip
    stats.sort_stats("cumulative").print_stats(re.escape(str(REPO / "bot")), 40)
    stats.strip_dirs()
    print("\n=== everything, by own time ===", file=sys.stderr)
    stats.sort_stats("tottime").print_stats(35)
    print("\n=== everything, by cumulative time ===", file=sys.stderr)
    stats.sort_stats("cumulative").print_stats(60)


# --- the bot children ----------------------------------------------------------------------


def rate_limiter(flood_limits: bool) -> AIORateLimiter:
    """The echo bot's limiter, with or without the flood limits."""
    if flood_limits:
        return AIORateLimiter(**ECHO_LIMITER)
    return AIORateLimiter(**{**ECHO_LIMITER, **NO_FLOOD_LIMITS})  # type: ignore[arg-type]


def without_flood_limits() -> None:
    """Steady's lanes with no limit to speak of: their code runs, nothing waits (set before
    the adapter is made, which reads it then)."""
    telegram_outbound.TELEGRAM_CAPS = UNLIMITED


def watch_profile_signals(profiler: cProfile.Profile | None) -> None:
    """SIGUSR1 starts the profiler and SIGUSR2 stops it, so only the timed phase is seen."""
    if profiler is None:
        return
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGUSR1, profiler.enable)
    loop.add_signal_handler(signal.SIGUSR2, profiler.disable)


async def serve_steady(
    settings: Settings,
    log_stream: TextIO,
    flood_limits: bool,
    profiler: cProfile.Profile | None,
) -> None:
    """Steady as `steady run` starts it, logging at INFO to a file in its data folder."""
    configure_logging(settings.log_level, stream=log_stream)
    if not flood_limits:
        without_flood_limits()
    watch_profile_signals(profiler)
    await run_platforms(settings)  # until SIGTERM, which it handles itself


async def serve_echo(flood_limits: bool, profiler: cProfile.Profile | None) -> None:
    """A bare PTB bot: echo every text, answer every press and say so, one button on each
    reply so that every reply can be pressed."""
    token = os.environ["TELEGRAM_BOT_TOKEN"]
    base = os.environ["TELEGRAM_API_BASE_URL"].rstrip("/")
    button = InlineKeyboardMarkup([[InlineKeyboardButton("Press", callback_data="echo")]])

    async def echo(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        message = update.effective_message
        assert message is not None and message.text is not None
        await context.bot.send_message(message.chat_id, message.text, reply_markup=button)

    async def pressed(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        query = update.callback_query
        assert query is not None and update.effective_chat is not None
        await query.answer()
        await context.bot.send_message(
            update.effective_chat.id, f"You pressed {query.data}", reply_markup=button
        )

    application = (
        Application.builder()
        .token(token)
        .base_url(base)
        .base_file_url(base.removesuffix("/bot") + "/file/bot")
        .rate_limiter(rate_limiter(flood_limits))
        .concurrent_updates(True)
        .build()
    )
    application.add_handler(MessageHandler(filters.TEXT, echo))
    application.add_handler(CallbackQueryHandler(pressed))
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for number in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(number, stop.set)
    watch_profile_signals(profiler)
    await application.initialize()
    assert application.updater is not None
    await application.updater.start_polling(timeout=POLL_TIMEOUT_S, drop_pending_updates=False)
    await application.start()
    await stop.wait()
    await application.updater.stop()
    await application.stop()
    await application.shutdown()


def run_bot(variant: str, flood_limits: bool, profile_out: Path | None) -> int:
    profiler = cProfile.Profile() if profile_out is not None else None
    if variant == STEADY:
        settings = Settings(_env_file=None)  # the environment the driver set, as in production
        with open(settings.data_dir / "bot.log", "a", encoding="utf-8") as log_stream:
            asyncio.run(serve_steady(settings, log_stream, flood_limits, profiler))
    else:
        asyncio.run(serve_echo(flood_limits, profiler))
    if profiler is not None and profile_out is not None:
        profiler.dump_stats(profile_out)
    return 0


# --- orchestration and the report -----------------------------------------------------------


def run_driver_child(variant: str, workload_file: Path, args: argparse.Namespace) -> VariantResult:
    command = [sys.executable, str(THIS_FILE), "--role", "driver"]
    command += ["--variant", variant, "--workload", str(workload_file)]
    command += ["--flood-limits"] if args.telegram_limits else []
    command += ["--profile", args.profile] if args.profile else []
    # stderr passes through, so progress, warnings and tracebacks are seen.
    completed = subprocess.run(command, check=True, stdout=subprocess.PIPE, text=True, cwd=REPO)
    lines = [line for line in completed.stdout.splitlines() if line.strip()]
    return VariantResult.from_json(json.loads(lines[-1]))


def throughput_ratio(echo: CrowdResult, steady: CrowdResult) -> float:
    return echo.throughput / steady.throughput


def p99_ratio(echo: CrowdResult, steady: CrowdResult) -> float:
    return steady.p99_ms / echo.p99_ms


def checks(echo: VariantResult, steady: VariantResult, expected_checkins: int) -> list[Check]:
    """The two targets (the crowd), then whether the run did what it claims."""
    crowd = steady.crowd
    wrong = crowd.wrong_replies + steady.light.wrong_replies
    expired = crowd.expired_presses + steady.light.expired_presses
    unsent = crowd.unsent + steady.light.unsent
    timed = crowd.updates + steady.light.updates + steady.solo_updates
    return [
        Check(
            f"Throughput, {crowd.users:,} users: echo ÷ Steady",
            f"≤ {TARGET_RATIO:g}×",
            f"{throughput_ratio(echo.crowd, crowd):.2f}×",
            throughput_ratio(echo.crowd, crowd) <= TARGET_RATIO,
        ),
        Check(
            f"p99 reply latency, {crowd.users:,} users: Steady ÷ echo",
            f"≤ {TARGET_RATIO:g}×",
            f"{p99_ratio(echo.crowd, crowd):.2f}×",
            p99_ratio(echo.crowd, crowd) <= TARGET_RATIO,
        ),
        Check(
            f"Throughput, {steady.light.users:,} users: echo ÷ Steady",
            f"≤ {TARGET_RATIO:g}×",
            f"{throughput_ratio(echo.light, steady.light):.2f}×",
            throughput_ratio(echo.light, steady.light) <= TARGET_RATIO,
        ),
        Check(
            "Steady: every timed update answered from the step the user was at",
            f"{timed:,} of {timed:,}",
            f"{timed - wrong - unsent:,} ({wrong:,} from another step, {expired:,} of them"
            f" presses answered as expired; {unsent:,} not sent as the conversation broke;"
            f" {steady.onboarding_problems:,} such problems in the untimed onboarding)",
            steady.valid,
        ),
        Check(
            "Steady: check-ins written to SQLite",
            f"{expected_checkins:,}",
            f"{steady.checkins_saved:,}",
            steady.checkins_saved == expected_checkins,
        ),
        Check(
            "Echo: every update answered",
            f"{timed:,}",
            f"{echo.crowd.handled + echo.light.handled + echo.solo_handled:,}",
            echo.valid,
        ),
    ]


@dataclass
class Summary:
    """Every headline figure with its target: the `--json` line."""

    commit: str
    users: int
    light_users: int
    throughput_ratio_500: float  # echo ÷ Steady, the crowd (500 users by default)
    throughput_ratio_50: float  # the light crowd
    p99_ratio_500: float  # Steady ÷ echo
    p99_ratio_50: float
    steady_throughput_500: float
    echo_throughput_500: float
    steady_throughput_50: float
    echo_throughput_50: float
    steady_cpu_per_update_ms_500: float
    echo_cpu_per_update_ms_500: float
    steady_cpu_per_update_ms_50: float
    echo_cpu_per_update_ms_50: float
    steady_p50_ms_50: float
    echo_p50_ms_50: float
    steady_valid: bool
    echo_valid: bool
    checkins_saved: int | None
    checkins_expected: int
    all_met: bool
    target_throughput_ratio_500: float = TARGET_RATIO
    target_throughput_ratio_50: float = TARGET_RATIO
    target_p99_ratio_500: float = TARGET_RATIO


def summary(commit: str, workload: Workload, echo: VariantResult, steady: VariantResult) -> Summary:
    found = checks(echo, steady, workload.checkins)
    return Summary(
        commit=commit,
        users=steady.crowd.users,
        light_users=steady.light.users,
        throughput_ratio_500=throughput_ratio(echo.crowd, steady.crowd),
        throughput_ratio_50=throughput_ratio(echo.light, steady.light),
        p99_ratio_500=p99_ratio(echo.crowd, steady.crowd),
        p99_ratio_50=p99_ratio(echo.light, steady.light),
        steady_throughput_500=steady.crowd.throughput,
        echo_throughput_500=echo.crowd.throughput,
        steady_throughput_50=steady.light.throughput,
        echo_throughput_50=echo.light.throughput,
        steady_cpu_per_update_ms_500=steady.crowd.cpu_per_update_ms,
        echo_cpu_per_update_ms_500=echo.crowd.cpu_per_update_ms,
        steady_cpu_per_update_ms_50=steady.light.cpu_per_update_ms,
        echo_cpu_per_update_ms_50=echo.light.cpu_per_update_ms,
        steady_p50_ms_50=steady.light.p50_ms,
        echo_p50_ms_50=echo.light.p50_ms,
        steady_valid=steady.valid,
        echo_valid=echo.valid,
        checkins_saved=steady.checkins_saved,
        checkins_expected=workload.checkins,
        all_met=all(check.passed for check in found),
    )


def mix(plans: Sequence[UserPlan]) -> Counter[str]:
    return Counter(step.category for plan in plans for step in plan.timed)


def ms(value: float) -> str:
    return f"{value:,.1f}"


def row(label: str, echo_value: str, steady_value: str, ratio: str = "") -> str:
    return f"| {label} | {echo_value} | {steady_value} | {ratio} |"


def crowd_rows(echo: CrowdResult, steady: CrowdResult) -> list[str]:
    def share(seconds: float, result: CrowdResult) -> str:
        return f"{100 * seconds / result.wall_s:.0f}"

    return [
        row(
            f"**{steady.users:,} users at once**",
            f"{echo.handled:,} updates in {echo.wall_s:.2f} s",
            f"{steady.handled:,} updates in {steady.wall_s:.2f} s",
        ),
        row(
            "Throughput (updates/s)",
            f"{echo.throughput:,.0f}",
            f"{steady.throughput:,.0f}",
            f"echo ÷ Steady {throughput_ratio(echo, steady):.2f}×",
        ),
        row(
            "Reply latency p50 / p90 (ms)",
            f"{ms(echo.p50_ms)} / {ms(echo.p90_ms)}",
            f"{ms(steady.p50_ms)} / {ms(steady.p90_ms)}",
            f"Steady ÷ echo {steady.p50_ms / echo.p50_ms:.2f}× (p50)",
        ),
        row(
            "Reply latency p99 (ms)",
            ms(echo.p99_ms),
            ms(steady.p99_ms),
            f"Steady ÷ echo {p99_ratio(echo, steady):.2f}×",
        ),
        row("Reply latency max (ms)", ms(echo.max_ms), ms(steady.max_ms)),
        row(
            "Press answered (spinner gone) p50 / p99 (ms)",
            f"{ms(echo.press_answer_p50_ms)} / {ms(echo.press_answer_p99_ms)}",
            f"{ms(steady.press_answer_p50_ms)} / {ms(steady.press_answer_p99_ms)}",
        ),
        row(
            "Bot process CPU per update (ms)",
            f"{echo.cpu_per_update_ms:.2f}",
            f"{steady.cpu_per_update_ms:.2f}",
            f"Steady ÷ echo {steady.cpu_per_update_ms / echo.cpu_per_update_ms:.2f}×",
        ),
        row(
            "… of it outside the event loop's thread (ms; SQLite)",
            f"{echo.usage.bot_threads_cpu_s / echo.handled * 1000:.2f}",
            f"{steady.usage.bot_threads_cpu_s / steady.handled * 1000:.2f}",
        ),
        row(
            "CPU busy, % of one core: bot / fake server + users / other processes",
            f"{share(echo.usage.bot_cpu_s, echo)} / {share(echo.usage.driver_cpu_s, echo)}"
            f" / {share(echo.usage.other_cpu_s, echo)}",
            f"{share(steady.usage.bot_cpu_s, steady)}"
            f" / {share(steady.usage.driver_cpu_s, steady)}"
            f" / {share(steady.usage.other_cpu_s, steady)}",
        ),
        row(
            "Replies from another step (of them: presses answered as expired)",
            "—",
            f"{steady.wrong_replies:,} ({steady.expired_presses:,})",
        ),
    ]


def render(
    command: str, host: Machine, workload: Workload, echo: VariantResult, steady: VariantResult
) -> str:
    results = checks(echo, steady, workload.checkins)
    crowd, light = steady.crowd, steady.light
    verdict = "target met" if all(check.passed for check in results[:2]) else "target missed"
    verdict += f" at {crowd.users:,} users"
    light_ratio = throughput_ratio(echo.light, light)
    if light_ratio > TARGET_RATIO:
        verdict += (
            f"; with {light.users} users Steady's throughput is 1/{light_ratio:.2f} of the"
            " echo bot's"
        )
    else:
        verdict += f" and at {light.users} users (throughput 1/{light_ratio:.2f} of the echo's)"
    if not echo.valid:
        verdict += "; and the run is not valid: the echo bot left updates unanswered"
    if not steady.valid or steady.checkins_saved != workload.checkins:
        wrong = crowd.wrong_replies + light.wrong_replies
        verdict += (
            f"; but Steady answered {wrong:,} timed updates from another step of the"
            f" conversation, had {steady.onboarding_problems:,} such problems in onboarding"
            f" and saved {steady.checkins_saved:,} of {workload.checkins:,} check-ins (see the"
            " checks)"
        )
    runs = (echo.crowd, echo.light, crowd, light)
    disturbed = max(result.usage.other_cpu_s / result.wall_s for result in runs)
    if disturbed > DISTURBED_SHARE:
        verdict += (
            f"; other processes used up to {100 * disturbed:.0f} % of a core meanwhile,"
            " so the figures are disturbed: rerun on a quiet machine"
        )
    counts = mix(workload.crowd)
    described = ", ".join(
        f"{counts[name]:,} {label}"
        for name, label in (
            ("command", "commands (/checkin, /affirm)"),
            ("press", "button presses"),
            ("typed", "typed check-in answers (mood, note)"),
            ("free text", "free-text messages"),
        )
    )
    limits = (
        "Steady's lanes and the echo bot's PTB AIORateLimiter(max_retries=0,"
        " group_max_rate=0), each with Telegram's overall flood limit on (30 messages/s)"
        if steady.flood_limits
        else "Steady's lanes with no limit to speak of, and the echo bot's PTB"
        " AIORateLimiter(max_retries=0) with its flood limits switched off"
        " (overall_max_rate=0, group_max_rate=0): the code of each runs, neither waits."
        " With the limits on, both bots would be held to 30 messages/s and the comparison"
        " would measure the limiter"
    )
    lines = [
        f"Command, from the repo root: `{command}`",
        "",
        host.describe(),
        "",
        f"{crowd.users:,} users in private chats send {sum(counts.values()):,} timed updates"
        f" ({described}), built from seed {SEED} and identical for both bots. Each user is a"
        " closed loop: all act at once, each sending its next update once the bot has"
        " answered the previous one. Every user was first onboarded (/start, time zone,"
        " the zone confirmed with its button, check-in time, country button; untimed, the"
        " same for both bots, which also warms them up). For context, the same was timed"
        f" with a crowd of {light.users} other users ({light.updates:,} updates), and with"
        " one more user alone"
        f" ({steady.solo_updates} updates, one at a time, the bot otherwise idle)."
        " Rate limiting: " + limits + ".",
        "",
        f"**Result: {verdict}.**",
        "",
        "| Figure | Bare PTB echo bot | Steady, full path | Ratio |",
        "|---|---:|---:|---:|",
        *crowd_rows(echo.crowd, crowd),
        *crowd_rows(echo.light, light),
        row(
            f"**1 user alone**: reply latency p50 / p99 (ms, {steady.solo_updates} updates)",
            f"{ms(echo.solo_p50_ms)} / {ms(echo.solo_p99_ms)}",
            f"{ms(steady.solo_p50_ms)} / {ms(steady.solo_p99_ms)}",
            f"Steady ÷ echo {steady.solo_p50_ms / echo.solo_p50_ms:.2f}× (p50)",
        ),
        row(
            "Bot RSS at the end / peak (MB)",
            f"{echo.crowd.usage.bot_rss_mb:.1f} / {echo.crowd.usage.bot_peak_rss_mb:.1f}",
            f"{crowd.usage.bot_rss_mb:.1f} / {crowd.usage.bot_peak_rss_mb:.1f}",
        ),
        row(
            "Refused calls / stray replies (all phases timed)",
            f"{echo.refused_calls} / {echo.crowd.stray_calls + echo.light.stray_calls}",
            f"{steady.refused_calls} / {crowd.stray_calls + light.stray_calls}",
        ),
        "",
        "| Check | Limit | Measured | Result |",
        "|---|---|---|---|",
        *(
            f"| {c.name} | {c.limit} | {c.measured} | {'pass' if c.passed else 'FAIL'} |"
            for c in results
        ),
        "",
        f"Reply latency by kind of update, {crowd.users:,} users, p50 / p99 (ms):",
        "",
        "| Kind | Updates | Bare PTB echo bot | Steady |",
        "|---|---:|---:|---:|",
        *(
            f"| {name} | {counts[name]:,}"
            f" | {ms(echo.crowd.by_category[name][1])} / {ms(echo.crowd.by_category[name][2])}"
            f" | {ms(crowd.by_category[name][1])} / {ms(crowd.by_category[name][2])} |"
            for name in sorted(counts)
            if name in echo.crowd.by_category and name in crowd.by_category
        ),
    ]
    examples = [*crowd.wrong_examples, *light.wrong_examples, *crowd.failures, *light.failures]
    if examples:
        lines += ["", "First of Steady's replies from another step and broken conversations:", ""]
        lines += [f"- {line}" for line in examples[:8]]
    lines += [
        "",
        "How to read it:",
        "",
        "- Steady is the bot as `steady run` starts it: `run_platforms` with open_services"
        " (content pack, key check, SQLite in WAL mode), the Router and the TelegramAdapter"
        " (PTB polling, concurrent_updates(True)), the outbox and the tick runner, logging at"
        " INFO to a file. Every update goes through the safety screen, the flow step, SQLite"
        " reads and writes, and the reply; the run saved"
        f" {steady.checkins_saved:,} check-ins and logged {steady.log_problems} warnings or"
        " errors. The echo bot is a bare PTB `Application` with the same builder options,"
        ' sending one message per update (the text back, or "You pressed …" after answering'
        " the press), each with one button so that any reply can be pressed.",
        "- Each variant ran in a fresh pair of processes: a driver holding a fresh"
        " FakeTelegram (tests/fakes/telegram_api.py, real HTTP on 127.0.0.1) and the"
        " simulated users, and the bot in a child process of its own, so on 2 CPUs each has"
        " a core. Both bot processes load this script's imports (Steady's modules among"
        " them), so the RSS row compares like with like but does not show a minimal bot.",
        "- Latency: pushed into the fake → the fake receives the first sendMessage or"
        " editMessageText for that chat; for a press, that reply message, not the"
        " answerCallbackQuery before it (which has its own row; a press answered as expired"
        " has only that notice, which then counts as its reply). Both instants come from"
        " perf_counter in the driver. Throughput is updates answered ÷ wall time from the"
        " first push to the last answer. Bot CPU is the bot process's user + system time"
        " (all threads) over that wall time.",
        "- A crowd keeps the bot saturated (see the CPU row), so a crowd's latency is mostly"
        " time spent queueing: its p50 follows throughput, and its p99 shows how evenly the"
        " queue is served. The lone user's row is the round trip of an idle bot: the cost of"
        " one update without a queue.",
        "- Each press carries the callback_data of a button the bot showed on its newest"
        " keyboard. Each of Steady's first replies is checked against the content-pack"
        " message the step should produce (the mood question after /checkin, and so on): a"
        " reply from another step counts as wrong. When a wrong reply leaves the user"
        " without the button to press next, that user's remaining updates are not sent.",
    ]
    return "\n".join(lines) + "\n"


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--role", choices=("driver", "bot"), help="child mode")
    parser.add_argument("--variant", choices=(STEADY, ECHO), help="child mode: which bot")
    parser.add_argument("--workload", type=Path, help="driver child: the workload file")
    parser.add_argument("--flood-limits", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--profile-out", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--users", type=int, default=DEFAULT_USERS)
    parser.add_argument(
        "--telegram-limits",
        action="store_true",
        help="keep PTB's 30 messages/s flood limit in both bots (slow)",
    )
    parser.add_argument("--only", choices=(STEADY, ECHO), help="run one variant; print only")
    parser.add_argument(
        "--profile",
        nargs="?",
        const=PROFILE_CROWD,
        choices=(PROFILE_CROWD, PROFILE_LIGHT),
        help="cProfile the bot during the crowd (or the light crowd); print only",
    )
    parser.add_argument("--no-write", action="store_true", help="print only, leave RESULTS.md")
    parser.add_argument("--json", action="store_true", help="end with one JSON line of figures")
    args = parser.parse_args(argv)
    if args.role and args.variant is None:
        parser.error("--role needs --variant")
    if args.role == "driver" and args.workload is None:
        parser.error("--role driver needs --workload")
    if args.users < 1:
        parser.error("--users must be at least 1")
    return args


def main(argv: Sequence[str]) -> int:
    args = parse_args(argv)
    if args.role == "bot":
        return run_bot(args.variant, args.flood_limits, args.profile_out)
    if args.role == "driver":
        workload = workload_from_json(json.loads(args.workload.read_text(encoding="utf-8")))
        result = asyncio.run(drive(args.variant, workload, args.flood_limits, args.profile))
        print(json.dumps(asdict(result)))
        return 0

    workload = build_workload(
        args.users, LIGHT_USERS, SEED, datetime.now(UTC), screen_workload_texts()
    )
    results: dict[str, VariantResult] = {}
    with tempfile.TemporaryDirectory(prefix="steady-tg-bench-") as temporary:
        workload_file = Path(temporary) / "workload.json"
        workload_file.write_text(json.dumps(workload_to_json(workload)), encoding="utf-8")
        for variant in VARIANTS if args.only is None else (args.only,):
            results[variant] = run_driver_child(variant, workload_file, args)
    if args.only is not None:
        print(json.dumps(asdict(results[args.only]), indent=2))
        return 0 if results[args.only].valid else 1
    echo, steady = results[ECHO], results[STEADY]
    host = machine(["python-telegram-bot"])
    shown = [argument for argument in argv if argument != "--json"]
    report = render(shown_command([sys.argv[0], *shown]), host, workload, echo, steady)
    print(report)
    if not (args.no_write or args.profile):
        write_section(SECTION, report)
        print(f"written to {Path('bench') / 'RESULTS.md'}", file=sys.stderr)
    figures = summary(host.commit, workload, echo, steady)
    if args.json:
        print(json.dumps(asdict(figures)))
    return 0 if figures.all_met else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
