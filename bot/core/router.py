"""Every event goes through here: safety screen first, then a command, a flow step, or a pointer.

Events of one user are handled one at a time (a per-user lock), so two quick
taps cannot both act on the same flow step.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Awaitable, Callable
from dataclasses import replace
from datetime import datetime
from typing import TypeVar

from bot.content_pack.ids import Command, Msg
from bot.core.events import ButtonPressed, CheckInDue, CommandIssued, Event, TextMessage
from bot.core.keyed_lock import KeyedLock
from bot.core.replies import Button, Reply
from bot.flows.affirm import affirm
from bot.flows.base import Flow
from bot.flows.checkin import CheckIn
from bot.flows.contacted import Contacted
from bot.flows.context import FlowContext, Services
from bot.flows.forget import Forget
from bot.flows.help import about_text, help_text
from bot.flows.history import history, progress
from bot.flows.mydata import mydata
from bot.flows.no_contact import NoContactCounter
from bot.flows.onboarding import Onboarding
from bot.flows.pause import Pause
from bot.flows.reasons import Reasons
from bot.flows.settings import Settings
from bot.logs import get_logger, log_event
from bot.reminders.manage import reminder_command
from bot.safety.countries import country_for_timezone
from bot.safety.rules import PIECE, Intent
from bot.safety.screen import CHECK_BUTTONS, SOS_MISREAD, SOS_SHOW, SafetyScreen
from bot.safety.well_formed import well_formed_event
from bot.scheduling.planner import in_quiet_hours
from bot.storage import flow_positions
from bot.storage.users import User, find_user, mark_reachable

log = get_logger("router")

CommandHandler = Callable[[FlowContext], Awaitable[list[Reply]]]


class Router:
    def __init__(self, services: Services, rng: random.Random | None = None) -> None:
        self._services = services
        self.safety = SafetyScreen(services.content)
        self._rng = rng or random.Random()
        self._user_locks = KeyedLock()
        self.pause = Pause(self._rng)
        self.checkin = CheckIn(self._rng, self.pause)
        self.contacted = Contacted()
        onboarding, settings, forget = Onboarding(), Settings(), Forget()
        reasons, no_contact = Reasons(), NoContactCounter()
        self._flows: dict[str, Flow] = {
            flow.name: flow
            for flow in (
                onboarding,
                self.checkin,
                settings,
                forget,
                self.pause,
                self.contacted,
                reasons,
                no_contact,
            )
        }
        self._commands: dict[Command, CommandHandler] = {
            Command.START: onboarding.begin,
            Command.CHECKIN: self.checkin.begin,
            Command.SETTINGS: settings.begin,
            Command.FORGET: forget.begin,
            Command.PAUSE: self.pause.begin,
            Command.URGE: self.pause.begin,
            Command.REASONS: reasons.begin,
            Command.NOCONTACT: no_contact.begin,
            Command.CONTACTED: self.contacted.begin,
            Command.HISTORY: history,
            Command.PROGRESS: progress,
            Command.AFFIRM: lambda ctx: affirm(ctx, self._rng),
            Command.MYDATA: mydata,
            Command.CANCEL: self._cancel,
            # Adapters that can delete messages answer /wipe themselves.
            Command.WIPE: _sync(lambda ctx: [ctx.reply(Msg.WIPE_UNAVAILABLE)]),
            Command.HELP: _sync(help_text),
            Command.ABOUT: _sync(about_text),
        }

    @property
    def services(self) -> Services:
        return self._services

    async def handle(self, event: Event) -> list[Reply]:
        """The replies for one event, in order. Never raises."""
        event = well_formed_event(event)  # text that is not valid Unicode could not be stored
        address = event.address
        user = await self._user_for(event)
        language = getattr(event, "language_code", None)
        locale = user.locale if user else self._services.content.resolve_locale(language)
        ctx = FlowContext(self._services, address, locale)
        # Safety first: before any lock, flow, queue or database write can stand in the way.
        urgent = await self._urgent(event, ctx, user)
        if urgent is not None:
            return urgent
        try:
            async with self._user_locks.hold((address.platform, address.user_id)):
                if user is not None and user.unreachable_since is not None:
                    async with self._services.db.transaction() as tx:
                        await mark_reachable(tx, user.id)  # they wrote: we can reach them
                replies = await self._dispatch(ctx, event)
        except Exception as error:
            log_event(
                log,
                "event.failed",
                logging.ERROR,
                exc_info=error,
                platform=address.platform,
                event=type(event).__name__,
            )
            return [ctx.reply(Msg.SOMETHING_WENT_WRONG)]
        return _discreetly(user, replies, self._services.clock.now())

    async def screen(self, event: Event) -> list[Reply] | None:
        """Only the safety part of `handle`: for adapters that answer a command themselves."""
        event = well_formed_event(event)
        user = await self._user_for(event)
        locale = user.locale if user else self._services.content.default_locale
        return await self._urgent(event, FlowContext(self._services, event.address, locale), user)

    async def _urgent(
        self, event: Event, ctx: FlowContext, user: User | None
    ) -> list[Reply] | None:
        """Crisis replies, /sos and its buttons: answered from the content pack alone."""
        country = _country(user)
        group = ctx.address.is_group
        if isinstance(event, ButtonPressed) and event.data == SOS_SHOW:
            return self.safety.sos_replies(ctx.locale, country, group)
        if isinstance(event, ButtonPressed) and event.data in CHECK_BUTTONS:
            log_event(log, "safety.check_answered", platform=ctx.address.platform)
            return self.safety.check_pressed(event.data, ctx.locale, country, group)
        if isinstance(event, ButtonPressed) and event.data == SOS_MISREAD:
            log_event(log, "safety.misread", platform=ctx.address.platform)
            return [self.safety.misread_reply(ctx.locale)]
        if isinstance(event, CommandIssued) and event.name == Command.SOS.value:
            return self.safety.sos_replies(ctx.locale, country, group)
        # Words typed after a command ("/pause i want to die") are screened like any text.
        text = event.text if isinstance(event, TextMessage) else None
        if isinstance(event, CommandIssued) and event.args:
            text = event.args
        if text is None:
            return None
        try:
            found = await _off_the_loop_if_long(
                text, self.safety.screen, text, ctx.locale, country, group
            )
        except Exception as error:
            # The screen itself failed: we cannot tell, so we answer as if it were a
            # crisis. A needless list of helplines is a far smaller harm than a miss.
            log_event(log, "safety.failed", logging.ERROR, exc_info=error)
            return self.safety.sos_replies(ctx.locale, country, group)
        if found is None:
            return None
        # The reply level only: a rule's name would paraphrase what the person wrote.
        reply = found.detection.reply.value
        log_event(log, "safety.matched", platform=ctx.address.platform, reply=reply)
        return list(found.replies)

    async def _user_for(self, event: Event) -> User | None:
        try:
            return await find_user(self._services.db, event.address.platform, event.address.user_id)
        except Exception as error:  # no lookup failure may keep a reply (or a crisis reply) back
            log_event(log, "user.lookup_failed", logging.WARNING, exc_info=error)
            return None

    async def _dispatch(self, ctx: FlowContext, event: Event) -> list[Reply]:
        log_event(log, "event.received", platform=ctx.address.platform, event=type(event).__name__)
        match event:
            case CommandIssued():
                return await self._on_command(ctx, event)
            case ButtonPressed():
                return await self._on_button(ctx, event)
            case TextMessage():
                return await self._on_text(ctx, event)
            case CheckInDue():
                async with self._services.db.transaction() as tx:
                    started = await self.checkin.start_due(tx, self._services, [event])
                return [outgoing.reply for outgoing in started]

    async def _on_command(self, ctx: FlowContext, event: CommandIssued) -> list[Reply]:
        try:
            command = Command(event.name)
        except ValueError:
            return [ctx.reply(Msg.UNKNOWN_COMMAND)]
        if command is Command.REMINDER:  # a group's own settings: answered where it is asked
            return await reminder_command(ctx, event)
        if ctx.address.is_group and command not in GROUP_COMMANDS:
            return [_go_private(ctx, command)]
        if command is Command.START and event.args in {c.value for c in Command}:
            command = Command(event.args)  # a deep link from a group: continue where it began
        handler = self._commands.get(command)
        return [ctx.reply(Msg.UNKNOWN_COMMAND)] if handler is None else await handler(ctx)

    async def _on_button(self, ctx: FlowContext, event: ButtonPressed) -> list[Reply]:
        parts = event.data.split(":", 3)
        user = await ctx.find_user()
        position = None if user is None else await flow_positions.get_position(ctx.db, user.id)
        if (
            len(parts) != 4
            or position is None
            or (parts[0], parts[1], parts[2]) != (position.flow, position.step, position.token)
        ):
            log_event(log, "button.stale", platform=ctx.address.platform)
            holder = (
                await flow_positions.token_holder(ctx.db, parts[2]) if len(parts) == 4 else None
            )
            mine = user is not None and holder == user.id
            return [
                _notice(ctx, Msg.BUTTON_NOT_YOURS if holder and not mine else Msg.BUTTON_EXPIRED)
            ]
        flow = self._flows.get(position.flow)
        step = None if flow is None else flow.steps.get(position.step)
        if step is None or step.on_choice is None:
            return [_notice(ctx, Msg.BUTTON_EXPIRED)]
        return await step.on_choice(ctx, position, parts[3])

    async def _on_text(self, ctx: FlowContext, event: TextMessage) -> list[Reply]:
        if ctx.address.is_group:
            return []  # a group's conversation is not ours to answer (safety aside, above)
        user = await ctx.find_user()
        position = None if user is None else await flow_positions.get_position(ctx.db, user.id)
        flow = None if position is None else self._flows.get(position.flow)
        step = None if flow is None or position is None else flow.steps.get(position.step)
        if step is None or position is None:
            return await self._outside_flow(ctx, event)
        if step.text_as_choice and step.on_choice is not None:
            return await step.on_choice(ctx, position, event.text.strip().casefold())
        if step.on_text is None:
            return [ctx.reply(Msg.USE_BUTTONS)]
        return await step.on_text(ctx, position, event.text)

    async def _outside_flow(self, ctx: FlowContext, event: TextMessage) -> list[Reply]:
        """Free text nobody asked for: offer a pause if it sounds like an urge, never start one."""
        detection = await _off_the_loop_if_long(
            event.text, self.safety.detect, event.text, ctx.locale
        )
        intents = detection.intents
        if Intent.CONTACTED in intents:
            return await self.contacted.offer(ctx)
        if Intent.URGE in intents:
            return await self.pause.offer(ctx)
        return [ctx.reply(Msg.UNEXPECTED_TEXT)]

    async def _cancel(self, ctx: FlowContext) -> list[Reply]:
        user = await ctx.find_user()
        if user is None:
            return [ctx.reply(Msg.CANCEL_NOTHING)]
        async with ctx.db.transaction() as tx:
            left = await flow_positions.leave_flow(tx, user.id)
        return [ctx.reply(Msg.CANCEL_DONE if left else Msg.CANCEL_NOTHING)]


T = TypeVar("T")


async def _off_the_loop_if_long(text: str, screen: Callable[..., T], *args: object) -> T:
    """Screen a long text in a worker thread: it is read in bounded pieces, each a run of
    short pattern calls, so the event loop gets its turn between them and no message,
    however long, holds up everyone else's. A short text is quicker screened in place."""
    if len(text) <= PIECE:
        return screen(*args)
    return await asyncio.to_thread(screen, *args)


def _sync(handler: Callable[[FlowContext], list[Reply]]) -> CommandHandler:
    async def run(ctx: FlowContext) -> list[Reply]:
        return handler(ctx)

    return run


def _country(user: User | None) -> str | None:
    """The user's country, or the one their time zone suggests, for local helplines."""
    if user is None:
        return None
    return user.country or country_for_timezone(user.timezone)


def _notice(ctx: FlowContext, message: Msg) -> Reply:
    """A short notice about a tap itself; platforms that can show it privately to the
    tapper (a Telegram toast, a Discord ephemeral reply) do."""
    return replace(ctx.reply(message), ephemeral=True)


# What may be answered in a group in front of everyone; everything else is personal.
GROUP_COMMANDS = frozenset({Command.HELP, Command.ABOUT})


def _go_private(ctx: FlowContext, command: Command) -> Reply:
    """Personal things never happen in a group: point to the private chat instead."""
    button = Button(ctx.text(Msg.GROUP_OPEN_PRIVATE), "", open_private=command.value)
    return Reply(ctx.text(Msg.GROUP_GO_PRIVATE), buttons=((button,),))


def _discreetly(user: User | None, replies: list[Reply], now: datetime) -> list[Reply]:
    """Discreet mode (the default): silent in quiet hours, the user's own words protected
    from forwarding. With it off, only quiet hours still silence replies."""
    if user is None:
        return replies
    quiet = in_quiet_hours(user, now)
    return [
        replace(reply, silent=reply.silent or quiet, protect=reply.protect and user.discreet)
        for reply in replies
    ]
