"""The caring check: after a crisis or danger reply, Steady offers once to look in on the
user the next day. On "Yes, please" one short message arrives at their check-in time
(10:00 local without one), outside quiet hours, with a way to the helplines, their plan,
a pause, or a plain "I'm okay".

No flow position is used: the offer comes while the user may be in the middle of
another question, and its buttons must not take that question's place. Its buttons
carry static data, as the crisis reply's own do.

Offered at most once a local day, never while a check is pending, never in a group (the
crisis reply itself goes privately there; the offer waits for a private conversation).
Cancelled by "No, thanks" (on the offer, at any time before it is sent; typed as well as
tapped) and by /forget. A yes or a no typed as the very next message answers the offer
(the router notes its buttons as on screen, `bot.flows.on_screen`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import timedelta

from bot.content_pack.commands import Command
from bot.content_pack.ids import CaringMsg, GeneralMsg
from bot.core.events import ButtonPressed, CommandIssued, Event
from bot.core.replies import Button, Reply
from bot.delivery.outgoing import Outgoing
from bot.flows.context import FlowContext, Services
from bot.flows.local_formats import format_local_date
from bot.flows.typed_labels import label_key
from bot.scheduling.caring_due import (
    CaringDue,
    ClaimedCheck,
    caring_outgoing,
    local_date,
    plan_caring_check,
)
from bot.scheduling.planner import in_quiet_hours, user_zone
from bot.storage import caring_checks
from bot.storage.db import Transaction
from bot.storage.users import User

# Static button data: the offer's answers and the check's "I'm okay".
CARING = "care:"
CARING_YES = "care:yes"
CARING_NO = "care:no"
CARING_OKAY = "care:okay"

# A button that runs a command, exactly as if its name had been typed (the router turns
# the press into the command): /sos through the safety path, /pause into its flow.
RUN_COMMAND = "run:"


def command_button(label: str, command: str) -> Button:
    return Button(label, f"{RUN_COMMAND}{command}")


def pressed_command(event: Event) -> Event:
    """A press on a `command_button` is that command, typed with no words after it."""
    if isinstance(event, ButtonPressed) and event.data.startswith(RUN_COMMAND):
        name = event.data.removeprefix(RUN_COMMAND)
        if name:
            return CommandIssued(event.address, name, language_code=event.language_code)
    return event


class Caring:
    async def offer(self, ctx: FlowContext, user: User) -> list[Reply]:
        """The offer, after a crisis or danger reply, if this is the moment for one. A
        user without a time zone is not offered: "tomorrow at ten" would be a guess."""
        if ctx.address.is_group or user.timezone is None:
            return []
        async with ctx.db.transaction() as tx:
            offered = await caring_checks.record_offer(tx, user.id, local_date(user, ctx.now()))
        if not offered:
            return []
        answers = (
            Button(ctx.text(CaringMsg.CARING_OFFER_YES), CARING_YES),
            Button(ctx.text(CaringMsg.CARING_OFFER_NO), CARING_NO),
        )
        # Without a sound: it follows the crisis reply at once, and one sound is enough.
        return [Reply(ctx.text(CaringMsg.CARING_OFFER), buttons=(answers,), silent=True)]

    async def pressed(self, ctx: FlowContext, data: str) -> list[Reply]:
        user = None if ctx.address.is_group else await ctx.find_user()
        if user is None:  # forged in a group, or pressed after /forget
            return [replace(ctx.reply(GeneralMsg.BUTTON_EXPIRED), ephemeral=True)]
        if data == CARING_YES:
            return await self._yes(ctx, user)
        if data == CARING_NO:
            async with ctx.db.transaction() as tx:
                await caring_checks.cancel_check(tx, user.id)
            return [ctx.reply(CaringMsg.CARING_DECLINED)]
        if data == CARING_OKAY:
            return [ctx.reply(CaringMsg.CARING_OKAY_REPLY)]
        return [replace(ctx.reply(GeneralMsg.BUTTON_EXPIRED), ephemeral=True)]

    async def typed_cancel(self, ctx: FlowContext, text: str) -> list[Reply] | None:
        """ "cancel the message" typed (in any language of the pack) while a look-in is on
        its way: cancelled, as "No, thanks" would. None: not those words, or none pending."""
        content = ctx.services.content
        words = {
            label_key(content.text(locale, CaringMsg.CARING_CANCEL_WORDS))
            for locale in content.locales
        }
        if label_key(text) not in words or ctx.address.is_group:
            return None
        user = await ctx.find_user()
        pending = None if user is None else await caring_checks.get_check(ctx.db, user.id)
        if user is None or pending is None or pending.next_due_at is None:
            return None
        return await self.pressed(ctx, CARING_NO)

    async def _yes(self, ctx: FlowContext, user: User) -> list[Reply]:
        """Schedule the check; a second yes keeps the one already planned."""
        now = ctx.now()
        pending = await caring_checks.get_check(ctx.db, user.id)
        due = None if pending is None else pending.next_due_at
        if due is None:
            first = await caring_checks.earliest_checkin_time(ctx.db, user.id)
            due = plan_caring_check(user, first, now)
            async with ctx.db.transaction() as tx:
                await caring_checks.schedule_check(tx, user.id, due, now, user.checkins_stopped)
        local = due.astimezone(user_zone(user))
        when = f"{local:%H:%M}"
        if local.date() == local_date(user, now):  # asked for in the small hours
            return [ctx.reply(CaringMsg.CARING_SCHEDULED_TODAY, time=when)]
        if local.date() == local_date(user, now) + timedelta(days=1):
            return [ctx.reply(CaringMsg.CARING_SCHEDULED, time=when)]
        return [
            ctx.reply(
                CaringMsg.CARING_SCHEDULED_ON,
                date=format_local_date(user, due, ctx.locale),
                time=when,
            )
        ]

    async def due(
        self, tx: Transaction, services: Services, claimed: Sequence[ClaimedCheck]
    ) -> list[Outgoing]:
        """The check itself for each claimed row, built from the row alone. Discreet mode
        keeps all of it app-like; either way its first line names nothing."""
        now = services.clock.now()
        outgoing = []
        for check in claimed:
            user = check.user
            ctx = FlowContext(services, user.address, user.locale)
            reply = Reply(
                ctx.text(CaringMsg.CARING_CHECK if user.discreet else CaringMsg.CARING_CHECK_WARM),
                buttons=self._check_buttons(ctx, user.has_plan),
                silent=in_quiet_hours(user, now),
            )
            outgoing.append(caring_outgoing(user.address, reply, check))
        return outgoing

    def _check_buttons(self, ctx: FlowContext, has_plan: bool) -> tuple[tuple[Button, ...], ...]:
        # /plan shows a plan, or begins one: the label says which it will do.
        plan = CaringMsg.CARING_PLAN_BUTTON if has_plan else CaringMsg.CARING_WRITE_PLAN_BUTTON
        return (
            (command_button(ctx.text(CaringMsg.CARING_SOS_BUTTON), Command.SOS.value),),
            (command_button(ctx.text(plan), Command.PLAN.value),),
            (command_button(ctx.text(CaringMsg.CARING_PAUSE_BUTTON), Command.PAUSE.value),),
            (Button(ctx.text(CaringMsg.CARING_OKAY_BUTTON), CARING_OKAY),),
        )


def caring_handler(services: Services, caring: Caring | None = None) -> CaringDue:
    """The handler the due-work registry calls with claimed checks."""
    feature = caring or Caring()

    async def write(tx: Transaction, claimed: Sequence[ClaimedCheck]) -> list[Outgoing]:
        return await feature.due(tx, services, claimed)

    return write
