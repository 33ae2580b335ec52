"""The same lanes on Discord, within its limits as discord.py keeps them: the fake sends
Discord's rate-limit headers and 429s (50 requests a second for the bot, 5 messages in 5
seconds in a channel), and a crisis DM mid-burst is answered before the burst drains."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from bot.adapters.discord.outbound import DISCORD_CAPS
from bot.content_pack.ids import SafetyMsg
from bot.coordination.send_budget import Lane
from bot.core.clock import ManualClock
from bot.core.events import Address
from bot.core.replies import Reply
from bot.delivery.outgoing import Outgoing
from bot.flows.context import Services
from tests.fakes.discord_api import FakeDiscord, RecordedCall
from tests.helpers.discord_world import ANA, running_discord
from tests.helpers.waiting import until

FIRST_USER = 320_000_000_000_000_001
BURST = 70
SEND = "POST /channels/{channel_id}/messages"
OPEN_DM = "POST /users/@me/channels"


def bot_requests(dc: FakeDiscord) -> list[RecordedCall]:
    """Every request the bot's own limit counts (not interactions, not their webhooks)."""
    return [call for call in dc.calls if call.authorized]


def most_in_a_second(arrivals: Sequence[float]) -> int:
    ordered = sorted(arrivals)
    return max((sum(1 for at in ordered if start <= at < start + 1.0) for start in ordered),
               default=0)  # fmt: skip


async def test_a_crisis_dm_overtakes_a_burst_within_discords_limits(
    services: Services, clock: ManualClock, text_of: Callable[..., str]
) -> None:
    async with running_discord(services, clock, caps=DISCORD_CAPS, rate_limits=True) as world:
        dc = world.dc
        users = [FIRST_USER + n for n in range(BURST)]
        for user in users:
            dc.user(user)
        await world.outbox.enqueue(
            *(Outgoing(Address("discord", str(u), str(u)), Reply(f"check-in {u}")) for u in users)
        )
        await until(lambda: world.adapter.lanes.waiting(Lane.BULK) > 0, what="a full bulk lane")
        before = len(bot_requests(dc))
        dc.user_sends_dm(ANA, "i want to die")
        await until(lambda: bool(dc.dm_texts(ANA)), what="the crisis reply")
        assert dc.dm_texts(ANA)[0].startswith(text_of(SafetyMsg.SAFETY_CRISIS_INTRO))
        reply_at = dc.dm_of(ANA)[0]
        crisis_call = next(c for c in dc.calls if c.route == SEND and c.response
                           and c.response.get("id") == str(reply_at.id))  # fmt: skip
        overtaken_by = len(
            [c for c in bot_requests(dc)[before:] if c.arrived < crisis_call.arrived]
        )
        assert overtaken_by <= 45  # at most the rest of a second's bulk share went first
        await world.outbox.drain()
        assert all(len(dc.dm_texts(user)) == 1 for user in users)  # each exactly once
        assert dc.rate_limited == 0  # no 429 drawn, global or per channel
        bulk = [c.arrived for c in bot_requests(dc) if c.route in (SEND, OPEN_DM)
                and (c.params.get("channel_id") != str(dc.dm_channel(ANA).id))]  # fmt: skip
        assert most_in_a_second(bulk) <= 45  # bulk's 90% of 50 requests a second
        assert most_in_a_second([c.arrived for c in bot_requests(dc)]) <= 50


async def test_the_fake_tells_its_limits_as_discord_does(
    services: Services, clock: ManualClock
) -> None:
    async with running_discord(services, clock, caps=DISCORD_CAPS, rate_limits=True) as world:
        dc = world.dc
        for number in range(7):  # more than a channel's 5 in 5 seconds: paced, not refused
            await world.adapter.send(
                Address("discord", str(ANA), str(ANA)), Reply(f"note {number}")
            )
        sends = dc.calls_to(SEND)
        assert [call.status for call in sends] == [200] * 7
        assert dc.rate_limited == 0
        assert sends[-1].arrived - sends[0].arrived >= 5.0  # the sixth waited for the bucket


async def test_a_429_is_waited_out_as_told_and_the_check_in_sent_once(
    services: Services, clock: ManualClock, text_of: Callable[..., str]
) -> None:
    """Discord refuses one check-in's DM (its channel's bucket, as another client of the
    bot could empty it): discord.py waits what Discord asked and sends it again, holding
    only that channel; a crisis DM meanwhile is answered at once, and no check-in is lost
    or sent twice."""
    async with running_discord(services, clock, caps=DISCORD_CAPS, rate_limits=True) as world:
        dc = world.dc
        users = [FIRST_USER + n for n in range(12)]
        for user in users:
            dc.user(user)
        refused = dc.dm_channel(users[3]).id
        dc.inject_rate_limit(SEND, 1.0, channel_id=refused)
        await world.outbox.enqueue(
            *(Outgoing(Address("discord", str(u), str(u)), Reply(f"check-in {u}")) for u in users)
        )
        refusal = await dc.wait_for(lambda c: c.route == SEND and c.status == 429)
        dc.user_sends_dm(ANA, "i want to die")
        await until(lambda: bool(dc.dm_texts(ANA)), what="the crisis reply")
        assert dc.dm_texts(ANA)[0].startswith(text_of(SafetyMsg.SAFETY_CRISIS_INTRO))
        crisis_at = next(c.arrived for c in dc.calls_to(SEND)
                         if c.params.get("channel_id") == str(dc.dm_channel(ANA).id))  # fmt: skip
        await world.outbox.drain()
        tries = [c for c in dc.calls_to(SEND) if c.params.get("channel_id") == str(refused)]
        assert [c.status for c in tries] == [429, 200]  # tried again, once
        assert tries[1].arrived - refusal.arrived >= 1.0  # after the wait Discord asked for
        assert crisis_at < tries[1].arrived  # the crisis reply did not wait for it
        assert all(len(dc.dm_texts(user)) == 1 for user in users)  # each exactly once
        assert dc.rate_limited == 0  # the limits themselves never refused one
