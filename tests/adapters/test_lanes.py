"""The lanes at a platform's cap: a crisis reply overtakes a full bulk lane, a reply goes
before queued bulk, bulk never takes the replies' share, and a 429 keeps its place.

Time is virtual: the lanes' timer sleeps until the test moves the clock on. Bulk is spread
over its window (one every 1/27 s at 27 a second), so a test moves the clock in steps of
STEP, each of which lets at most one more check-in go."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import pytest

from bot.adapters.lanes import Caps, Lanes
from bot.coordination.send_budget import Burst, Lane, Limit
from tests.helpers.waiting import until

TELEGRAMISH = Caps(Limit(30, 1.0), group=Limit(20, 60.0), private=Burst(5, 1.0))
STEP = 1.0001 / 27  # a hair more than bulk's spacing: one more check-in a step


class Refused(Exception):
    def __init__(self, seconds: float) -> None:
        super().__init__(seconds)
        self.seconds = seconds


def asked_to_wait(error: BaseException) -> float | None:
    return error.seconds if isinstance(error, Refused) else None


@dataclass
class ManualTime:
    """A clock the test moves; a sleep returns once the clock has passed its end."""

    now: float = 1_000.0
    _sleepers: list[tuple[float, asyncio.Future[None]]] = field(default_factory=list)

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        woken: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._sleepers.append((self.now + seconds, woken))
        await woken

    def all_asleep(self) -> bool:
        """Has everything woken by the last `advance` gone back to sleep until later?"""
        return all(at > self.now for at, _ in self._sleepers) and bool(self._sleepers)

    def nothing_due(self) -> bool:
        return all(at > self.now for at, _ in self._sleepers)

    def advance(self, seconds: float) -> None:
        self.now += seconds
        for at, woken in list(self._sleepers):
            if at <= self.now and not woken.done():
                woken.set_result(None)
        self._sleepers = [(at, w) for at, w in self._sleepers if not w.done()]


@dataclass
class Platform:
    """Records when each message arrived (its call runs at once) and can refuse one."""

    time: ManualTime
    arrived: list[tuple[str, float]] = field(default_factory=list)
    refuse: dict[str, float] = field(default_factory=dict)  # name -> retry after, once

    def call(self, name: str) -> Callable[[], Awaitable[str]]:
        async def sent() -> str:
            wait = self.refuse.pop(name, None)
            if wait is not None:
                raise Refused(wait)
            self.arrived.append((name, self.time.now))
            return name

        return sent

    def names(self, prefix: str) -> list[str]:
        return [name for name, _ in self.arrived if name.startswith(prefix)]


@pytest.fixture
def time() -> ManualTime:
    return ManualTime()


@pytest.fixture
def platform(time: ManualTime) -> Platform:
    return Platform(time)


@pytest.fixture
async def lanes(time: ManualTime) -> Lanes:
    return Lanes("telegram", TELEGRAMISH, asked_to_wait, now=time, sleep=time.sleep)


def sending(
    lanes: Lanes,
    platform: Platform,
    lane: Lane,
    name: str,
    chat: str | None = None,
    group: bool = False,
    pause: Callable[[float], Awaitable[None]] | None = None,
) -> asyncio.Task[str]:
    async def no_pause(_: float) -> None:
        return None

    return asyncio.create_task(
        lanes.send(lane, chat, group, platform.call(name), pause or no_pause)
    )


async def stopped(tasks: list[asyncio.Task[str]]) -> None:
    """Stop the senders still waiting (as the outbox's are stopped)."""
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


def most_in_a_second(arrivals: list[float]) -> int:
    return max(sum(1 for at in arrivals if start <= at < start + 1.0) for start in arrivals)


async def bulk_burst(lanes: Lanes, platform: Platform, count: int) -> list[asyncio.Task[str]]:
    """`count` check-ins to as many users, all asking at once, as the outbox's senders do."""
    tasks = [sending(lanes, platform, Lane.BULK, f"bulk {n}", chat=str(n)) for n in range(count)]
    await until(lambda: len(platform.names("bulk")) + lanes.waiting(Lane.BULK) >= count)
    return tasks


async def steps(time: ManualTime, lanes: Lanes, count: int, step: float = STEP) -> None:
    """Move the clock on `count` steps (of `step` seconds), letting the lanes do what
    each allows: until they sleep again, or have nobody left waiting."""

    def settled() -> bool:
        idle = not any(lanes.waiting(lane) for lane in Lane)
        return time.all_asleep() or (idle and time.nothing_due())

    for _ in range(count):
        time.advance(step)
        await until(settled, what="the lanes to wait for time again")


async def test_a_crisis_reply_overtakes_a_full_bulk_lane(
    lanes: Lanes, platform: Platform, time: ManualTime
) -> None:
    tasks = await bulk_burst(lanes, platform, 100)
    await steps(time, lanes, 24)  # nearly a second: bulk has sent its share of it
    assert len(platform.arrived) == 25
    crisis = sending(lanes, platform, Lane.URGENT, "crisis", chat="ana")
    assert await crisis == "crisis"
    assert platform.arrived[-1] == ("crisis", time.now)  # at once, no time passed
    assert lanes.waiting(Lane.BULK) == 75  # every queued check-in is still behind it
    await stopped(tasks)


async def test_a_reply_goes_before_queued_bulk_and_urgent_before_both(
    lanes: Lanes, platform: Platform, time: ManualTime
) -> None:
    tasks = await bulk_burst(lanes, platform, 60)
    await steps(time, lanes, 26)  # bulk's whole share of the second: 27
    assert len(platform.names("bulk")) == 27
    replies = [sending(lanes, platform, Lane.INTERACTIVE, f"reply {n}", chat=f"r{n}")
               for n in range(5)]  # fmt: skip
    await until(lambda: len(platform.names("reply")) == 2)  # the replies' share: 3 - 1
    assert lanes.waiting(Lane.INTERACTIVE) == 3
    crisis = sending(lanes, platform, Lane.URGENT, "crisis", chat="ana")
    await crisis  # the last slot of the second, which nothing else may take
    assert len(platform.arrived) == 30
    await steps(time, lanes, 6)  # as the second's first check-ins leave the window ...
    assert platform.names("reply")[2:] == ["reply 2", "reply 3", "reply 4"]
    after = [name for name, _ in platform.arrived[30:]]
    assert after[:3] == ["reply 2", "reply 3", "reply 4"]  # ... replies take their slots
    assert all(name.startswith("bulk") for name in after[3:])  # then bulk goes on
    await stopped(tasks + replies)


async def test_bulk_never_takes_the_share_kept_for_replies(
    lanes: Lanes, platform: Platform, time: ManualTime
) -> None:
    """Ten seconds of a burst: no second ever holds more than 27 check-ins, and each
    second, at whatever moment, a reply and a crisis reply find room at once."""
    tasks = await bulk_burst(lanes, platform, 400)
    for step in range(270):
        await steps(time, lanes, 1)
        if step % 27 == step // 27 % 27:  # once a second, a step later each time
            reply = sending(lanes, platform, Lane.INTERACTIVE, f"reply {step}", chat=f"r{step}")
            crisis = sending(lanes, platform, Lane.URGENT, f"crisis {step}", chat=f"c{step}")
            assert await reply and await crisis
            assert platform.arrived[-2:] == [
                (f"reply {step}", time.now),
                (f"crisis {step}", time.now),
            ]
    bulk = [at for name, at in platform.arrived if name.startswith("bulk")]
    assert len(bulk) > 200  # the burst went on meanwhile
    assert most_in_a_second(bulk) <= 27
    assert most_in_a_second([at for _, at in platform.arrived]) <= 30
    await stopped(tasks)


async def test_bulk_keeps_its_pace_when_it_wakes_late(
    lanes: Lanes, platform: Platform, time: ManualTime
) -> None:
    """The lanes' timer wakes a little after each bulk slot (here: on a coarse clock, up
    to a third of a slot late, as a busy loop does). Each next slot still counts from the
    last one's, not from when it started, so bulk sends its whole share of a second."""
    tasks = await bulk_burst(lanes, platform, 100)
    coarse = 1.0 / 27 / 3.1
    await steps(time, lanes, int(0.99 / coarse), step=coarse)  # just under a second
    bulk = platform.names("bulk")
    assert len(bulk) == 27  # late wake-ups pushing each slot back would have sent ~21
    await steps(time, lanes, int(1.0 / coarse), step=coarse)
    arrivals = [at for _, at in platform.arrived]
    assert most_in_a_second(arrivals) <= 27  # and never more than its share
    await stopped(tasks)


async def test_a_429_holds_its_lane_and_the_refused_message_keeps_its_place(
    lanes: Lanes, platform: Platform, time: ManualTime
) -> None:
    waited: list[float] = []
    pause_over = asyncio.Event()

    async def pause(seconds: float) -> None:
        waited.append(seconds)
        await pause_over.wait()

    platform.refuse["bulk 5"] = 2.0
    tasks = [
        sending(lanes, platform, Lane.BULK, f"bulk {n}", chat=str(n), pause=pause)
        for n in range(20)
    ]
    await until(lambda: lanes.waiting(Lane.BULK) == 19)
    await steps(time, lanes, 5)  # bulk 5 is refused ...
    await until(lambda: waited == [2.0])
    sent = len(platform.names("bulk"))
    assert sent == 5
    time.advance(0.5)  # ... and holds bulk while it waits, however long that takes,
    reply = sending(lanes, platform, Lane.INTERACTIVE, "reply", chat="ana")
    assert await reply == "reply"  # but not the lanes above it
    assert len(platform.names("bulk")) == sent  # (serving the reply served no bulk)
    pause_over.set()  # the wait Telegram asked for is over
    await until(lambda: len(platform.names("bulk")) > sent)
    assert platform.names("bulk")[sent] == "bulk 5"  # before the 14 queued behind it
    await steps(time, lanes, 20)
    await asyncio.gather(*tasks)
    assert platform.names("bulk") == [f"bulk {n}" for n in range(20)]


async def test_one_chat_at_its_limit_holds_up_nobody_else(
    lanes: Lanes, platform: Platform, time: ManualTime
) -> None:
    group = [sending(lanes, platform, Lane.BULK, f"post {n}", chat="-100", group=True)
             for n in range(20)]  # fmt: skip
    await until(lambda: len(platform.names("post")) + lanes.waiting(Lane.BULK) == 20)
    await steps(time, lanes, 20)
    assert len(platform.names("post")) == 18  # bulk's share of a group's 20 a minute
    others = await bulk_burst(lanes, platform, 5)
    await steps(time, lanes, 5)
    await asyncio.gather(*others)  # the group's waiting posts held none of them up
    time.advance(60.0)
    await steps(time, lanes, 2)
    await asyncio.gather(*group)
    assert platform.names("post")[18:] == ["post 18", "post 19"]


async def test_a_private_chat_gets_a_burst_then_one_a_second(
    lanes: Lanes, platform: Platform, time: ManualTime
) -> None:
    replies = [sending(lanes, platform, Lane.INTERACTIVE, f"piece {n}", chat="ana")
               for n in range(6)]  # fmt: skip
    await until(lambda: len(platform.arrived) == 4)
    crisis = sending(lanes, platform, Lane.URGENT, "crisis", chat="ana")
    assert await crisis == "crisis"  # the chat's last token was kept for it
    time.advance(2.0)  # it was a token all the same: the fifth piece waits a second more
    await until(lambda: len(platform.arrived) == 6)
    time.advance(1.0)
    await asyncio.gather(*replies)
    assert [at - 1_000.0 for _, at in platform.arrived] == [0, 0, 0, 0, 0, 2, 3]


async def test_a_message_that_stops_waiting_gives_its_place_up(
    lanes: Lanes, platform: Platform, time: ManualTime
) -> None:
    tasks = await bulk_burst(lanes, platform, 5)
    tasks[1].cancel()  # its sender was stopped while it waited
    await asyncio.gather(tasks[1], return_exceptions=True)
    await steps(time, lanes, 4)
    await asyncio.gather(tasks[0], *tasks[2:])
    assert platform.names("bulk") == ["bulk 0", "bulk 2", "bulk 3", "bulk 4"]
    assert lanes.waiting(Lane.BULK) == 0
