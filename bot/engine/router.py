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

from bot.content_pack.countries import country_for_timezone
from bot.content_pack.ids import Command, Msg
from bot.content_pack.pack import ContentPack
from bot.coordination.user_turns import InProcessTurns, UserTurns
from bot.core.events import (
    Address,
    ButtonPressed,
    CheckInDue,
    CommandIssued,
    Event,
    TextMessage,
)
from bot.core.replies import Button, Reply
from bot.engine.step_answers import checks_an_answer
from bot.flows.affirm import Affirm
from bot.flows.base import Flow, Step
from bot.flows.caring import (
    CARING,
    CARING_NO,
    CARING_YES,
    Caring,
    command_button,
    pressed_command,
)
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
from bot.flows.plan import NOTE_BUTTONS, Plan, plan_on_request
from bot.flows.reasons import Reasons
from bot.flows.settings import Settings
from bot.flows.typed_labels import refusal, typed_choice
from bot.logs import get_logger, log_event
from bot.reminders.manage import reminder_command
from bot.safety.buttons import (
    CHECK_BUTTONS,
    CHECK_HELP,
    CHECK_HELP_DANGER,
    SAFETY_BUTTONS,
    SOS_COUNTRY,
    SOS_MISREAD,
    SOS_PLAN,
    SOS_SHOW,
    of_kind,
    untagged,
)
from bot.safety.crisis_reply import Whereabouts
from bot.safety.rules import PIECE, Intent, ReplyLevel
from bot.safety.screen import SafetyScreen
from bot.safety.well_formed import well_formed_event
from bot.scheduling.planner import in_quiet_hours
from bot.storage import flow_positions
from bot.storage.crypto import WrongKeyError
from bot.storage.db import Transaction
from bot.storage.flow_positions import FlowPosition
from bot.storage.users import User, find_user, mark_reachable, set_country

log = get_logger("router")

CommandHandler = Callable[[FlowContext], Awaitable[list[Reply]]]
# Sends urgent replies at once, before the rest of an event's replies are known.
SendFirst = Callable[[list[Reply]], Awaitable[None]]

# The user's row is read before the screen only for their country's helplines and their
# language. A stalled read must not hold a crisis reply back: past this, the screen answers
# as for a user whose country is unknown (the emergency line and the worldwide directory).
USER_LOOKUP_SECONDS = 0.3
# Everything after the screen needs that row. A read this late is not coming back soon:
# the user hears that something went wrong, rather than waiting on nothing.
USER_LOOKUP_GIVE_UP_SECONDS = 10.0
_COMMAND_NAMES = frozenset(command.value for command in Command)

# Static button data of the reply to unrecognised text: start a pause. (Its other button is
# the safety screen's SOS_SHOW.) These presses change nothing before they act: no token.
PAUSE_NOW = "go:pause"

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
            Command.CANCEL: self._cancel,
            # Adapters that can delete messages answer /wipe themselves.
            Command.WIPE: _sync(lambda ctx: [ctx.reply(Msg.WIPE_UNAVAILABLE)]),
            Command.HELP: _sync(help_text),
            Command.ABOUT: _sync(about_text),
        }

    @property
    def services(self) -> Services:
        return self._services

    async def handle(self, event: Event, first: SendFirst | None = None) -> list[Reply]:
        """The replies for one event, in order. Never raises. With `first`, urgent replies
        are handed to it as soon as they are known, and the rest returned after."""
        # Text that is not valid Unicode could not be stored; a deep link runs its command.
        # A button that runs a command is that command (see bot.flows.caring).
        event = pressed_command(deep_linked(well_formed_event(event)))
        event = _own_command_name(event, self._services.content)
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
        lookup = asyncio.ensure_future(self._user_for(event))
        known, late = await _within(lookup, USER_LOOKUP_SECONDS)
        user = known.user
        if late:
            log_event(log, "user.lookup_slow", logging.WARNING, platform=address.platform)
        ctx = self._context(event, known)
        # Safety first: before any lock, flow, queue or database write can stand in the way.
        urgent = _sent_first(await self._urgent(event, ctx, user))
        if urgent is not None:
            lookup.cancel()  # a no-op when it has finished; else nothing more waits on it
            if first is not None:
                await first(urgent)  # out now; the rest is worked out after
                urgent = []
            # The interrupted question again: bounded too, the crisis reply cannot wait on it.
            after = await self._after_crisis(ctx, event, user)
            return urgent + _discreetly(user, after, self._services.clock.now())
        if isinstance(event, TextMessage) and event.edited:
            lookup.cancel()
            return []  # a changed message was screened; it answers no question
        if late:
            try:
                known = await asyncio.wait_for(lookup, USER_LOOKUP_GIVE_UP_SECONDS)
            except TimeoutError:
                log_event(log, "user.lookup_stalled", logging.WARNING, platform=address.platform)
                return [ctx.reply(Msg.SOMETHING_WENT_WRONG)]
            user = known.user
            ctx = self._context(event, known)
        try:
            async with self._user_locks.hold((address.platform, address.user_id)):
                if user is not None and user.unreachable_since is not None:
                    async with self._services.db.transaction() as tx:
                        await mark_reachable(tx, user.id)  # they wrote: we can reach them
                replies = await self._answered_on_screen(ctx, event, user)
                if replies is None:
                    replies = await self._dispatch(ctx, event)
                await self._remember_question(ctx, replies)
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

    async def reshow(self, address: Address) -> list[Reply]:
        """The open question of this user, shown again (a restart, a console opening);
        nothing when there is none or it has expired."""
        user = await find_user(self._services.db, address.platform, address.user_id)
        if user is None:
            return []
        ctx = FlowContext(self._services, address, user.locale)
        position = await flow_positions.get_position(ctx.db, user.id)
        if position is None or self._expired(ctx, position):
            return []
        async with self._user_locks.hold((address.platform, address.user_id)):
            return await self._question_again(ctx, user.id, position)

    async def screen(self, event: Event) -> list[Reply] | None:
        """Only the safety part of `handle`: for adapters that answer a command themselves."""
        event = deep_linked(well_formed_event(event))
        lookup = asyncio.ensure_future(self._user_for(event))
        known, _ = await _within(lookup, USER_LOOKUP_SECONDS)
        lookup.cancel()
        return _sent_first(await self._urgent(event, self._context(event, known), known.user))

    def _context(self, event: Event, known: KnownUser) -> FlowContext:
        """The user's own language once we know them; until then, their app's."""
        user = known.user
        language = getattr(event, "language_code", None)
        locale = user.locale if user else self._services.content.resolve_locale(language)
        return FlowContext(self._services, event.address, locale, known, language)

    async def _urgent(
        self, event: Event, ctx: FlowContext, user: User | None
    ) -> list[Reply] | None:
        """Crisis replies, /sos and its buttons: answered from the content pack alone."""
        country = _country(user)
        timezone = None if user is None else user.timezone
        group = ctx.address.is_group
        # Known from the same bounded read: a lookup that failed or was late offers no plan.
        has_plan = user is not None and user.has_plan
        app_language = getattr(event, "language_code", None)
        where = Whereabouts(timezone, app_language)
        if isinstance(event, ButtonPressed) and event.data.startswith(SAFETY_BUTTONS):
            # A button of a reply in another language answers in that language.
            data, language = untagged(event.data)
            if data == SOS_PLAN:
                # Shown to read, as a crisis button is answered: the open question stays open.
                log_event(log, "plan.shown", platform=ctx.address.platform)
                if group:
                    return [_go_private(ctx, Command.PLAN)]
                return await plan_on_request(ctx, user)
            if data.startswith(SOS_COUNTRY):
                chosen = await self._country_chosen(ctx, data, language, has_plan)
                if chosen is not None:
                    return chosen
            elif data in CHECK_BUTTONS or data == SOS_MISREAD:
                what = "safety.misread" if data == SOS_MISREAD else "safety.check_answered"
                log_event(log, what, platform=ctx.address.platform)
            pressed = self.safety.pressed(
                data, ctx.locale, country, group, has_plan, language, where
            )
            if pressed is not None:
                return pressed
        if isinstance(event, CommandIssued) and event.name == Command.SOS.value:
            language = await self._sos_language(ctx, event)
            return self.safety.sos_replies(
                ctx.locale, country, group, timezone, has_plan, language, app_language
            )
        text = _screened_text(event)
        if text is None:
            return None
        await self.safety.second_stage.ready()  # the learned model, loaded off the loop once
        try:
            found = await _off_the_loop_if_long(
                text, self.safety.screen, text, ctx.locale, country, group, has_plan, where
            )
        except Exception as error:
            # The screen itself failed: we cannot tell, so we answer as if it were a
            # crisis. A needless list of helplines is a far smaller harm than a miss.
            log_event(log, "safety.failed", logging.ERROR, exc_info=error)
            return self.safety.sos_replies(
                ctx.locale, country, group, timezone, has_plan, app_language=app_language
            )
        # The learned stage's check alone is not put over an answer to the open question.
        answer = found is not None and await checks_an_answer(
            ctx, user, event, found, self._step, self._expired, self.on_screen
        )
        if found is None or answer:
            return None
        # The reply level only: a rule's name would paraphrase what the person wrote.
        reply = found.detection.reply.value
        log_event(log, "safety.matched", platform=ctx.address.platform, reply=reply)
        if found.detection.reply in (ReplyLevel.CRISIS, ReplyLevel.DANGER):
            self._services.metrics.crisis_reply(reply)
        return list(found.replies)

    async def _sos_language(self, ctx: FlowContext, event: CommandIssued) -> str:
        """/sos in the language of words typed after it ("/sos ich kann nicht mehr"), else
        as the app's language and the user's locale say (SafetyScreen.sos_language)."""
        if event.args:
            detection = await _off_the_loop_if_long(
                event.args, self.safety.detect, event.args, ctx.locale
            )
            written = self.safety.reply_locale(detection, ctx.locale, event.language_code)
            if written != ctx.locale:
                return written
        return self.safety.sos_language(ctx.locale, event.language_code)

    async def _country_chosen(
        self, ctx: FlowContext, data: str, language: str | None, has_plan: bool = False
    ) -> list[Reply] | None:
        """A country tapped under a crisis reply: its numbers, in the language the reply was
        in. The one crisis button that touches the database; its reply goes out even when
        storing the country fails."""
        plain, kind = of_kind(data)
        chosen = plain.removeprefix(SOS_COUNTRY)
        if ctx.services.content.emergency_numbers(chosen) is None:
            return None
        try:
            user = await ctx.ensure_user()
            async with ctx.db.transaction() as tx:
                await set_country(tx, user.id, chosen)
            saved = True
        except Exception as error:  # the numbers matter more than remembering the choice
            log_event(log, "safety.country_not_saved", logging.WARNING, exc_info=error)
            saved = False
        chosen_reply = self.safety.country_chosen_reply(
            ctx.locale, chosen, kind, saved, has_plan, language
        )
        return [chosen_reply]

    async def _user_for(self, event: Event) -> KnownUser:
        db, address = self._services.db, event.address
        version = db.user_rows_version  # of before the read: a change meanwhile is seen
        try:
            # Bounded by the caller (USER_LOOKUP_SECONDS): read where that bound holds.
            user = await find_user(db.bounded, address.platform, address.user_id)
        except Exception as error:  # no lookup failure may keep a reply (or a crisis reply) back
            log_event(log, "user.lookup_failed", logging.WARNING, exc_info=error)
            return KnownUser()  # unknown, not absent: a step that needs it reads again
        return KnownUser(user, version)

    async def _after_crisis(self, ctx: FlowContext, event: Event, user: User | None) -> list[Reply]:
        """After an urgent reply: the caring check's offer (after a crisis or danger reply
        only), then the question it interrupted. Both run at once, each bounded on its own:
        neither may hold the crisis reply back, and an offer that was made (and noted as
        made) is shown even when the question again is too slow."""
        offer = asyncio.ensure_future(self._caring_offer(ctx, event, user))
        again = asyncio.ensure_future(self._after_urgent(ctx, event, user))
        done, late = await asyncio.wait((offer, again), timeout=USER_LOOKUP_SECONDS)
        for task in late:
            task.cancel()  # a transaction it was in is rolled back: nothing half-noted
        return [
            *(offer.result() if offer in done else []),
            *(again.result() if again in done else []),
        ]

    async def _caring_offer(self, ctx: FlowContext, event: Event, user: User | None) -> list[Reply]:
        if user is None:
            return []
        try:
            if not await self._full_help_given(ctx, event):
                return []
            return await self.caring.offer(ctx, user)
        except Exception as error:
            log_event(log, "caring.offer_failed", logging.WARNING, exc_info=error)
            return []

    async def _full_help_given(self, ctx: FlowContext, event: Event) -> bool:
        """Was the urgent reply the full crisis or danger reply: to what the user wrote, or
        to "Show me help now" under a check? Not /sos, which the user asked for. The words
        are screened again here (rare: only after a match), so `_urgent` stays as it is."""
        if isinstance(event, ButtonPressed):
            return untagged(event.data)[0] in (CHECK_HELP, CHECK_HELP_DANGER)
        if isinstance(event, CommandIssued) and event.name == Command.SOS.value:
            return False
        text = _screened_text(event)
        if text is None:
            return False
        detection = await _off_the_loop_if_long(text, self.safety.detect, text, ctx.locale)
        return detection.reply in (ReplyLevel.CRISIS, ReplyLevel.DANGER)

    async def _after_urgent(self, ctx: FlowContext, event: Event, user: User | None) -> list[Reply]:
        """After a crisis reply or /sos, the question it interrupted, so the user's next
        message answers what they can see. Never lets a failure touch the crisis reply."""
        if user is None or ctx.address.is_group:
            return []
        # No user lock here: a slow event of the same user must not hold a crisis reply back.
        try:
            position = await flow_positions.get_position(ctx.db, user.id)
            if position is None or self._expired(ctx, position):
                return []
            step = self._step(position)
            notice: list[Reply] = []
            if isinstance(event, TextMessage) and step is not None and step.on_text is not None:
                # A step that may keep such words holds them, sealed, and offers to save them
                # as its answer: one database write, inside this task's bound like the
                # question again, so the crisis reply (sent already) never waits on it.
                flow = self._flows[position.flow]
                held = await flow.hold_crisis_text(ctx, position, event.text)
                if held is not None:
                    await self._remember_question(ctx, [held])
                    return [held]
                # The words went to the crisis reply, not to the step: say so plainly.
                notice = [ctx.reply(Msg.ANSWER_NOT_SAVED)]
            return notice + await self._question_again(ctx, user.id, position)
        except Exception as error:
            log_event(log, "reshow.failed", logging.WARNING, exc_info=error)
            return []

    def _step(self, position: FlowPosition) -> Step | None:
        flow = self._flows.get(position.flow)
        return None if flow is None else flow.steps.get(position.step)

    def _takes_text(self, position: FlowPosition) -> bool:
        step = self._step(position)
        return step is not None and (step.on_text is not None or step.text_as_choice)

    def _expired(self, ctx: FlowContext, position: FlowPosition) -> bool:
        since = position.since
        step = self._step(position)
        expiry = self._services.step_expiry if step is None else step.expiry
        return since is not None and ctx.now() - since >= (expiry or self._services.step_expiry)

    async def _question_again(
        self, ctx: FlowContext, user_id: int, position: FlowPosition
    ) -> list[Reply]:
        """The question of `position` as it was shown, buttons and all; if it cannot be
        shown again, the question is closed and the user told so."""
        again = await self._stored_question(ctx, user_id, position)
        flow = self._flows.get(position.flow)
        if again is None and flow is not None:
            again = await flow.reprompt(ctx, position)
        if again is not None:
            return [replace(again, text=f"{ctx.text(Msg.QUESTION_AGAIN)}\n\n{again.text}")]
        async with ctx.db.transaction() as tx:
            await flow_positions.leave_flow(tx, user_id)
        return [ctx.reply(Msg.QUESTION_CLOSED)]

    async def _stored_question(
        self, ctx: FlowContext, user_id: int, position: FlowPosition
    ) -> Reply | None:
        stored = await flow_positions.get_prompt(ctx.db, user_id)
        if stored is None or stored.token != position.token:
            return None
        try:
            text = ctx.cipher.decrypt(stored.sealed_text, user_id)
        except WrongKeyError:  # sealed under a key since replaced: ask afresh instead
            return None
        buttons = tuple(tuple(Button(label, data) for label, data in row) for row in stored.buttons)
        return Reply(text, buttons=buttons)

    async def _remember_question(self, ctx: FlowContext, replies: list[Reply]) -> None:
        """Keep the question the user was just asked (sealed), to show it again later."""
        user_id = await ctx.user_id()
        if user_id is None:
            return
        position, stored = ctx.known.placed, None  # just placed: no question kept yet
        if position is None:
            position, stored = await flow_positions.get_position_and_prompt(ctx.db, user_id)
        if position is None:
            return
        if stored is not None and stored.token == position.token:
            return  # this step's question is kept already
        question = _question_of(replies, position.token, self._takes_text(position))
        if question is None:
            return
        rows = tuple(
            tuple((button.label, button.data) for button in row) for row in question.buttons
        )
        sealed = ctx.cipher.encrypt(question.text, user_id)
        token = position.token

        async def record(tx: Transaction) -> None:
            await flow_positions.record_prompt(tx, user_id, token, sealed, rows)

        await ctx.db.in_one_hop(record)

    async def _answered_on_screen(
        self, ctx: FlowContext, event: Event, user: User | None
    ) -> list[Reply] | None:
        """A bare yes or no typed right after the caring offer answers the offer, not the
        question shown beside it (which stays open). None: the event goes on as usual."""
        if user is None or not isinstance(event, TextMessage) or ctx.address.is_group:
            return None
        cancelled = await self.caring.typed_cancel(ctx, event.text)
        if cancelled is not None:
            return cancelled
        services = self._services
        data = self.on_screen.answered(
            ctx.address, event.text, services.content, services.clock.now(), services.step_expiry
        )
        if data is None:
            return None
        return await self._as_pressed(ctx, data, user, event.language_code)

    async def _pressed_on_screen(self, ctx: FlowContext, event: TextMessage) -> list[Reply] | None:
        """A label typed from a message of no flow step (a crisis reply's countries, "My
        plan", "I'm safe right now", "Take a pause"): that button's press."""
        services = self._services
        data = self.on_screen.typed(
            ctx.address, event.text, services.content, services.clock.now(), services.step_expiry
        )
        if data is None:
            return None
        return await self._as_pressed(ctx, data, await ctx.find_user(), event.language_code)

    async def _as_pressed(
        self, ctx: FlowContext, data: str, user: User | None, language: str | None
    ) -> list[Reply]:
        """What tapping the button with `data` does: a crisis reply's button answered by
        the safety path (the question it interrupted shown again after it), any other as
        a press or the command it runs."""
        log_event(log, "button.typed", platform=ctx.address.platform)
        event = pressed_command(ButtonPressed(ctx.address, data, language))
        urgent = await self._urgent(event, ctx, user)
        if urgent is not None:
            return urgent + await self._after_crisis(ctx, event, user)
        return await self._dispatch(ctx, event)

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
        if user is not None and before is not None and self._expired(ctx, before):
            if self._takes_text(before):  # it could take a later message for its answer
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
        return replies + await self._question_again(ctx, user.id, after)

    async def _on_command(self, ctx: FlowContext, event: CommandIssued) -> list[Reply]:
        try:
            command = Command(event.name)
        except ValueError:
            return [ctx.reply(Msg.UNKNOWN_COMMAND)]
        if command is Command.REMINDER:  # a group's own settings: answered where it is asked
            return await reminder_command(ctx, event)
        if ctx.address.is_group and command not in GROUP_COMMANDS:
            return [_go_private(ctx, command)]
        handler = self._commands.get(command)
        return [ctx.reply(Msg.UNKNOWN_COMMAND)] if handler is None else await handler(ctx)

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
        expired = self._expired(ctx, position)
        if expired and user is not None and self._takes_text(position):
            # Read as a new message, never as the answer to a question from long ago.
            async with ctx.db.transaction() as tx:
                await flow_positions.leave_flow(tx, user.id)
            log_event(log, "step.expired", platform=ctx.address.platform, flow=position.flow)
            return [ctx.reply(Msg.STEP_CLOSED), *await self._outside_flow(ctx, event)]
        content = self._services.content
        if step.on_choice is not None and (pressed := typed_choice(position, event.text, content)):
            return await step.on_choice(ctx, position, pressed)  # a button's label, typed
        on_screen = await self._pressed_on_screen(ctx, event)
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
        on_screen = await self._pressed_on_screen(ctx, event)
        if on_screen is not None:
            return on_screen
        detection = await _off_the_loop_if_long(
            event.text, self.safety.detect, event.text, ctx.locale
        )
        intents = detection.intents
        if Intent.CONTACTED in intents:
            return await self.contacted.offer(ctx)
        if Intent.URGE in intents:
            return await self.pause.offer(ctx)
        if await ctx.find_user() is None:
            return [_before_start(ctx)]  # never begun (no /start, no command): say how
        return [self._unrecognised(ctx)]

    def _unrecognised(self, ctx: FlowContext) -> Reply:
        """Acknowledge, be honest about what the bot can do, and offer the two things
        that help most in a hard moment as buttons (never a list of commands)."""
        buttons = (
            (Button(ctx.text(Msg.UNEXPECTED_PAUSE_BUTTON), PAUSE_NOW),),
            (Button(ctx.text(Msg.UNEXPECTED_SOS_BUTTON), SOS_SHOW),),
        )
        return Reply(ctx.text(Msg.UNEXPECTED_TEXT), buttons=buttons)

    async def _cancel(self, ctx: FlowContext) -> list[Reply]:
        user = await ctx.find_user()
        if user is None:
            return [ctx.reply(Msg.CANCEL_NOTHING)]
        async with ctx.db.transaction() as tx:
            left = await flow_positions.leave_flow(tx, user.id)
        return [ctx.reply(Msg.CANCEL_DONE if left else Msg.CANCEL_NOTHING)]


def _own_command_name(event: Event, content: ContentPack) -> Event:
    """A command typed by its name in a locale (/ajustes) as the command itself."""
    if isinstance(event, CommandIssued) and event.name not in _COMMAND_NAMES:
        command = content.command_named(event.name)
        if command is not None:
            return replace(event, name=command.value)
    return event


def deep_linked(event: Event) -> Event:
    """A Telegram link `t.me/<bot>?start=<payload>` arrives as "/start <payload>". Every
    payload Steady puts in a link is a command's name (a group pointing to the private
    chat), so the link runs that command: "/start sos" is /sos, at once."""
    if (
        isinstance(event, CommandIssued)
        and event.name == Command.START.value
        and event.args in _COMMAND_NAMES
    ):
        return replace(event, name=event.args, args="")
    return event


async def _within(lookup: asyncio.Future[KnownUser], seconds: float) -> tuple[KnownUser, bool]:
    """The lookup's user if it finishes within `seconds`, and whether it was late
    (the lookup goes on: the caller may still wait for it, or cancel it)."""
    try:
        return await asyncio.wait_for(asyncio.shield(lookup), seconds), False
    except TimeoutError:
        return KnownUser(), True


def _question_of(replies: list[Reply], token: str, takes_text: bool) -> Reply | None:
    """Which reply asked the current step's question: the last with its buttons, or for
    a step that takes typed text, the last reply of all."""
    for reply in reversed(replies):
        if any(token in button.data.split(":") for button in reply.flat_buttons):
            return reply
    return replies[-1] if takes_text and replies else None


def _screened_text(event: Event) -> str | None:
    """The words the safety screen reads. Words typed after a command ("/pause i want to
    die") are screened like any text."""
    if isinstance(event, TextMessage):
        return event.text
    if isinstance(event, CommandIssued) and event.args:
        return event.args
    return None


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


def _before_start(ctx: FlowContext) -> Reply:
    """Anything written before /start: a short welcome that says how to begin, a button
    that begins, and where help is if it is needed now."""
    begin = command_button(ctx.text(Msg.BEFORE_START_BUTTON), Command.START.value)
    buttons = (
        (begin,),
        (Button(ctx.text(Msg.UNEXPECTED_PAUSE_BUTTON), PAUSE_NOW),),
        (Button(ctx.text(Msg.UNEXPECTED_SOS_BUTTON), SOS_SHOW),),
    )
    return Reply(ctx.text(Msg.BEFORE_START), buttons=buttons)


def _go_private(ctx: FlowContext, command: Command) -> Reply:
    """Personal things never happen in a group: point to the private chat instead."""
    button = Button(ctx.text(Msg.GROUP_OPEN_PRIVATE), "", open_private=command.value)
    return Reply(ctx.text(Msg.GROUP_GO_PRIVATE), buttons=((button,),))


def _sent_first(replies: list[Reply] | None) -> list[Reply] | None:
    """Safety replies go out in the urgent lane: before every other send waiting."""
    return None if replies is None else [replace(reply, urgent=True) for reply in replies]


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
