"""Every event goes through here: safety screen first, then a command, a flow step, or a pointer.

Events of one user are handled one at a time (a per-user lock), so two quick
taps cannot both act on the same flow step.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Awaitable, Callable

from bot.content_pack.commands import Command
from bot.content_pack.ids import DataMsg, GeneralMsg
from bot.coordination.user_turns import InProcessTurns, UserTurns
from bot.core.events import Address, ButtonPressed, CheckInDue, CommandIssued, Event, TextMessage
from bot.core.replies import Reply
from bot.engine.flow_steps import FlowSteps, cancel
from bot.engine.incoming import deep_linked, off_the_loop_if_long, own_command_name
from bot.engine.own_replies import (
    GROUP_COMMANDS,
    PAUSE_NOW,
    CommandHandler,
    before_start,
    discreetly,
    go_private,
    notice,
    sent_first,
    sync,
    unrecognised,
)
from bot.engine.question_memory import QuestionMemory
from bot.engine.typed_presses import TypedPresses
from bot.engine.urgent_path import UrgentPath
from bot.engine.user_lookup import USER_LOOKUP_SECONDS, known_user, within
from bot.flows.affirm import Affirm
from bot.flows.base import Flow
from bot.flows.caring import CARING, CARING_NO, CARING_YES, Caring, pressed_command
from bot.flows.checkin import CheckIn
from bot.flows.contacted import Contacted
from bot.flows.context import FlowContext, KnownUser, Services
from bot.flows.forget import Forget
from bot.flows.hard_dates import HardDates
from bot.flows.help import about_text, help_text
from bot.flows.history import history, progress
from bot.flows.mydata import mydata
from bot.flows.no_contact import NoContactCounter
from bot.flows.on_screen import ButtonsOnScreen
from bot.flows.onboarding import Onboarding
from bot.flows.pause import Pause
from bot.flows.plan import NOTE_BUTTONS, Plan
from bot.flows.reasons import Reasons
from bot.flows.settings import Settings
from bot.flows.typed_labels import refusal, typed_choice
from bot.logs import get_logger, log_event
from bot.reminders.manage import reminder_command
from bot.safety.rules import Intent
from bot.safety.screen import SafetyScreen
from bot.safety.well_formed import well_formed_event
from bot.storage import flow_positions
from bot.storage.users import find_user, mark_reachable

# Importers reach these here: the router's public face, wherever each is defined.
__all__ = [
    "GROUP_COMMANDS",
    "PAUSE_NOW",
    "USER_LOOKUP_SECONDS",
    "Router",
    "SendFirst",
    "deep_linked",
]

log = get_logger("router")

# Sends urgent replies at once, before the rest of an event's replies are known.
SendFirst = Callable[[list[Reply]], Awaitable[None]]

# Everything after the screen needs the user's row (read first within USER_LOOKUP_SECONDS,
# for the screen alone). A read this late is not coming back soon: the user hears that
# something went wrong, rather than waiting on nothing.
USER_LOOKUP_GIVE_UP_SECONDS = 10.0

# Commands that interrupt a question without ending it: after their answer, the question
# is shown again. (Others either move on themselves or answer with a document to read.)
_INTERRUPTIONS = frozenset({Command.HELP.value, Command.ABOUT.value})


class Router:
    def __init__(
        self,
        services: Services,
        rng: random.Random | None = None,
        turns: UserTurns | None = None,
    ) -> None:
        self._services = services
        self.safety = SafetyScreen(
            services.content, services.clock, model_raises=services.safety_model_raises
        )
        self._rng = rng or random.Random()
        # One update of a user at a time: in this process, or across workers (PostgreSQL).
        self._user_locks = turns or InProcessTurns()
        self.pause = Pause(self._rng)
        self.checkin = CheckIn(self._rng, self.pause)
        self.contacted = Contacted(self.pause, self.safety)
        self.plan = Plan(self.safety)
        self.caring = Caring()
        # Buttons of no flow step (a crisis reply's, the caring offer's) as last shown to
        # each user: a typed label presses them too.
        self.on_screen = ButtonsOnScreen({CARING_YES: "yes", CARING_NO: "no"})
        # Every flow, with the commands that begin it: a new flow is one line here.
        begun_by: tuple[tuple[Flow, tuple[Command, ...]], ...] = (
            (Onboarding(), (Command.START,)),
            (self.checkin, (Command.CHECKIN,)),
            (Settings(), (Command.SETTINGS,)),
            (Forget(), (Command.FORGET,)),
            (self.pause, (Command.PAUSE, Command.URGE)),
            (self.contacted, (Command.CONTACTED,)),
            (Reasons(), (Command.REASONS,)),
            (NoContactCounter(), (Command.NOCONTACT,)),
            (Affirm(self._rng), (Command.AFFIRM,)),
            (self.plan, (Command.PLAN,)),
            (HardDates(), (Command.DATES,)),
        )
        self._flows: dict[str, Flow] = {flow.name: flow for flow, _ in begun_by}
        self._commands: dict[Command, CommandHandler] = {
            command: flow.begin for flow, commands in begun_by for command in commands
        }
        # Commands that are no flow: an answer, a document, a way out.
        self._commands |= {
            Command.HISTORY: history,
            Command.PROGRESS: progress,
            Command.MYDATA: mydata,
            Command.CANCEL: cancel,
            # Adapters that can delete messages answer /wipe themselves.
            Command.WIPE: sync(lambda ctx: [ctx.reply(DataMsg.WIPE_UNAVAILABLE)]),
            Command.HELP: sync(help_text),
            Command.ABOUT: sync(about_text),
        }
        # The parts of the pipeline that live in their own modules, given what they need.
        self._steps = FlowSteps(services, self._flows)
        self._questions = QuestionMemory(self._steps)
        self._urgent_path = UrgentPath(
            services, self.safety, self.caring, self._steps, self._questions, self.on_screen
        )
        self._typed = TypedPresses(
            services, self.caring, self.on_screen, self._urgent_path, self._dispatch
        )

    @property
    def services(self) -> Services:
        return self._services

    async def handle(self, event: Event, first: SendFirst | None = None) -> list[Reply]:
        """The replies for one event, in order. Never raises. With `first`, urgent replies
        are handed to it as soon as they are known, and the rest returned after."""
        # Text that is not valid Unicode could not be stored; a deep link runs its command.
        # A button that runs a command is that command (see bot.flows.caring).
        event = pressed_command(deep_linked(well_formed_event(event)))
        event = own_command_name(event, self._services.content)
        address = event.address
        if not (isinstance(event, TextMessage) and event.edited):
            self.on_screen.next_turn(address)
        replies = await self._handled(event, self._noting(address, first))
        self.on_screen.note(address, replies, self._services.clock.now())
        return replies

    def _noting(self, address: Address, first: SendFirst | None) -> SendFirst | None:
        """`first`, noting what it shows: a crisis reply sent ahead keeps its buttons
        answerable by a typed label, as the replies returned after it do."""
        if first is None:
            return None
        send_first = first

        async def noted_then_sent(urgent: list[Reply]) -> None:
            self.on_screen.note(address, urgent, self._services.clock.now())
            await send_first(urgent)

        return noted_then_sent

    async def _handled(self, event: Event, first: SendFirst | None) -> list[Reply]:
        address = event.address
        # The user's row is read here, once, and passed down with the context.
        lookup = asyncio.ensure_future(known_user(self._services, event))
        known, late = await within(lookup, USER_LOOKUP_SECONDS)
        user = known.user
        if late:
            log_event(log, "user.lookup_slow", logging.WARNING, platform=address.platform)
        ctx = self._context(event, known)
        # Safety first: before any lock, flow, queue or database write can stand in the way.
        urgent = sent_first(await self._urgent_path.replies(event, ctx, user))
        if urgent is not None:
            lookup.cancel()  # a no-op when it has finished; else nothing more waits on it
            if first is not None:
                await first(urgent)  # out now; the rest is worked out after
                urgent = []
            # The interrupted question again: bounded too, the crisis reply cannot wait on it.
            after = await self._urgent_path.after_crisis(ctx, event, user)
            return urgent + discreetly(user, after, self._services.clock.now())
        if isinstance(event, TextMessage) and event.edited:
            lookup.cancel()
            return []  # a changed message was screened; it answers no question
        if late:
            try:
                known = await asyncio.wait_for(lookup, USER_LOOKUP_GIVE_UP_SECONDS)
            except TimeoutError:
                log_event(log, "user.lookup_stalled", logging.WARNING, platform=address.platform)
                return [ctx.reply(GeneralMsg.SOMETHING_WENT_WRONG)]
            user = known.user
            ctx = self._context(event, known)
        try:
            async with self._user_locks.hold((address.platform, address.user_id)):
                if user is not None and user.unreachable_since is not None:
                    async with self._services.db.transaction() as tx:
                        await mark_reachable(tx, user.id)  # they wrote: we can reach them
                replies = await self._typed.answered_on_screen(ctx, event, user)
                if replies is None:
                    replies = await self._dispatch(ctx, event)
                await self._questions.remember(ctx, replies)
        except Exception as error:
            log_event(
                log,
                "event.failed",
                logging.ERROR,
                exc_info=error,
                platform=address.platform,
                event=type(event).__name__,
            )
            return [ctx.reply(GeneralMsg.SOMETHING_WENT_WRONG)]
        return discreetly(user, replies, self._services.clock.now())

    async def reshow(self, address: Address) -> list[Reply]:
        """The open question of this user, shown again (a restart, a console opening);
        nothing when there is none or it has expired."""
        user = await find_user(self._services.db, address.platform, address.user_id)
        if user is None:
            return []
        ctx = FlowContext(self._services, address, user.locale)
        position = await flow_positions.get_position(ctx.db, user.id)
        if position is None or self._steps.expired(ctx, position):
            return []
        async with self._user_locks.hold((address.platform, address.user_id)):
            return await self._questions.again(ctx, user.id, position)

    async def screen(self, event: Event) -> list[Reply] | None:
        """Only the safety part of `handle`: for adapters that answer a command themselves."""
        event = deep_linked(well_formed_event(event))
        lookup = asyncio.ensure_future(known_user(self._services, event))
        known, _ = await within(lookup, USER_LOOKUP_SECONDS)
        lookup.cancel()
        return sent_first(
            await self._urgent_path.replies(event, self._context(event, known), known.user)
        )

    def _context(self, event: Event, known: KnownUser) -> FlowContext:
        """The user's own language once we know them; until then, their app's."""
        user = known.user
        language = getattr(event, "language_code", None)
        locale = user.locale if user else self._services.content.resolve_locale(language)
        return FlowContext(self._services, event.address, locale, known, language)

    async def _dispatch(self, ctx: FlowContext, event: Event) -> list[Reply]:
        log_event(log, "event.received", platform=ctx.address.platform, event=type(event).__name__)
        match event:
            case CommandIssued():
                return await self._interrupting(ctx, event)
            case ButtonPressed():
                return await self._on_button(ctx, event)
            case TextMessage():
                return await self._on_text(ctx, event)
            case CheckInDue():
                async with self._services.db.transaction() as tx:
                    started = await self.checkin.start_due(tx, self._services, [event])
                return [outgoing.reply for outgoing in started]

    async def _interrupting(self, ctx: FlowContext, event: CommandIssued) -> list[Reply]:
        """A command in the middle of a question (/help, /about): its answer, then the
        question again, unless the command itself moved on. A question that has waited past
        its expiry is closed quietly instead: nobody is answering it now."""
        user = await ctx.find_user()
        before = None if user is None else await flow_positions.get_position(ctx.db, user.id)
        if user is not None and before is not None and self._steps.expired(ctx, before):
            if self._steps.takes_text(before):  # it could take a later message for its answer
                async with ctx.db.transaction() as tx:
                    await flow_positions.leave_flow(tx, user.id)
            before = None  # a button-only step stays (a draft may wait there), unasked
        replies = await self._on_command(ctx, event)
        if user is None or before is None or ctx.address.is_group:
            return replies
        if event.name not in _INTERRUPTIONS:
            return replies
        after = await flow_positions.get_position(ctx.db, user.id)
        if after is None or after.token != before.token:
            return replies
        return replies + await self._questions.again(ctx, user.id, after)

    async def _on_command(self, ctx: FlowContext, event: CommandIssued) -> list[Reply]:
        try:
            command = Command(event.name)
        except ValueError:
            return [ctx.reply(GeneralMsg.UNKNOWN_COMMAND)]
        if command is Command.REMINDER:  # a group's own settings: answered where it is asked
            return await reminder_command(ctx, event)
        if ctx.address.is_group and command not in GROUP_COMMANDS:
            return [go_private(ctx, command)]
        handler = self._commands.get(command)
        return [ctx.reply(GeneralMsg.UNKNOWN_COMMAND)] if handler is None else await handler(ctx)

    async def _on_button(self, ctx: FlowContext, event: ButtonPressed) -> list[Reply]:
        if event.data == PAUSE_NOW:
            return await self.pause.begin(ctx)
        if event.data in NOTE_BUTTONS:  # the four-weekly note's own: they need no token
            return await self.plan.note_pressed(ctx, event.data)
        if event.data.startswith(CARING):
            return await self.caring.pressed(ctx, event.data)
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
                notice(
                    ctx,
                    GeneralMsg.BUTTON_NOT_YOURS
                    if holder and not mine
                    else GeneralMsg.BUTTON_EXPIRED,
                )
            ]
        flow = self._flows.get(position.flow)
        step = None if flow is None else flow.steps.get(position.step)
        if step is None or step.on_choice is None:
            return [notice(ctx, GeneralMsg.BUTTON_EXPIRED)]
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
        expired = self._steps.expired(ctx, position)
        if expired and user is not None and self._steps.takes_text(position):
            # Read as a new message, never as the answer to a question from long ago.
            async with ctx.db.transaction() as tx:
                await flow_positions.leave_flow(tx, user.id)
            log_event(log, "step.expired", platform=ctx.address.platform, flow=position.flow)
            return [ctx.reply(GeneralMsg.STEP_CLOSED), *await self._outside_flow(ctx, event)]
        content = self._services.content
        if step.on_choice is not None and (pressed := typed_choice(position, event.text, content)):
            return await step.on_choice(ctx, position, pressed)  # a button's label, typed
        on_screen = await self._typed.pressed_on_screen(ctx, event)
        if on_screen is not None:
            return on_screen  # a crisis reply's button (or another static one), typed
        if expired:
            # A step of buttons only: nothing typed would have been saved, and its buttons
            # (and a draft waiting for them) stay. The message is simply a new one.
            return await self._outside_flow(ctx, event)
        if step.passes_text and user is not None:
            async with ctx.db.transaction() as tx:
                await flow_positions.leave_flow(tx, user.id)
            return await self._outside_flow(ctx, event)
        if step.text_as_choice and step.on_choice is not None:
            return await step.on_choice(ctx, position, event.text.strip().casefold())
        if step.on_text is None:
            return [refusal(ctx, position, step.buttons)]
        return await step.on_text(ctx, position, event.text)

    async def _outside_flow(self, ctx: FlowContext, event: TextMessage) -> list[Reply]:
        """Free text nobody asked for: offer a pause if it sounds like an urge, never start one."""
        on_screen = await self._typed.pressed_on_screen(ctx, event)
        if on_screen is not None:
            return on_screen
        detection = await off_the_loop_if_long(
            event.text, self.safety.detect, event.text, ctx.locale
        )
        intents = detection.intents
        if Intent.CONTACTED in intents:
            return await self.contacted.offer(ctx)
        if Intent.URGE in intents:
            return await self.pause.offer(ctx)
        if await ctx.find_user() is None:
            return [before_start(ctx)]  # never begun (no /start, no command): say how
        return [unrecognised(ctx)]
