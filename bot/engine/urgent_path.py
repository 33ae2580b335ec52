"""The urgent path: crisis replies, /sos and its buttons, answered from the content pack
alone before anything else; then, after such a reply, the caring check's offer and the
question it interrupted, each bounded so that neither holds the crisis reply back."""

from __future__ import annotations

import asyncio
import logging

from bot.content_pack.commands import Command
from bot.content_pack.countries import country_for_timezone
from bot.content_pack.ids import GeneralMsg
from bot.core.events import ButtonPressed, CommandIssued, Event, TextMessage
from bot.core.replies import Reply
from bot.engine.flow_steps import FlowSteps
from bot.engine.incoming import off_the_loop_if_long, screened_text
from bot.engine.own_replies import go_private
from bot.engine.question_memory import QuestionMemory
from bot.engine.step_answers import checks_an_answer
from bot.engine.user_lookup import USER_LOOKUP_SECONDS
from bot.flows.caring import Caring
from bot.flows.context import FlowContext, Services
from bot.flows.on_screen import ButtonsOnScreen
from bot.flows.plan_reading import plan_on_request
from bot.logs import get_logger, log_event
from bot.safety.buttons import (
    CHECK_BUTTONS,
    CHECK_HELP,
    CHECK_HELP_DANGER,
    SAFETY_BUTTONS,
    SOS_COUNTRY,
    SOS_MISREAD,
    SOS_PLAN,
    of_kind,
    untagged,
)
from bot.safety.crisis_reply import Whereabouts
from bot.safety.rules import ReplyLevel
from bot.safety.screen import SafetyScreen, ScreenResult
from bot.safety.second_stage import ModelState
from bot.storage import flow_positions
from bot.storage.users import User, set_country

# The router's logger: these events were always logged as the router's, and stay so.
log = get_logger("router")


class UrgentPath:
    def __init__(
        self,
        services: Services,
        safety: SafetyScreen,
        caring: Caring,
        steps: FlowSteps,
        questions: QuestionMemory,
        on_screen: ButtonsOnScreen,
    ) -> None:
        self._services = services
        self._safety = safety
        self._caring = caring
        self._steps = steps
        self._questions = questions
        self._on_screen = on_screen

    async def replies(
        self, event: Event, ctx: FlowContext, user: User | None
    ) -> list[Reply] | None:
        """Crisis replies, /sos and its buttons: answered from the content pack alone."""
        country = country_of(user)
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
                    return [go_private(ctx, Command.PLAN)]
                return await plan_on_request(ctx, user)
            if data.startswith(SOS_COUNTRY):
                chosen = await self.country_chosen(ctx, data, language, has_plan)
                if chosen is not None:
                    return chosen
            elif data in CHECK_BUTTONS or data == SOS_MISREAD:
                what = "safety.misread" if data == SOS_MISREAD else "safety.check_answered"
                log_event(log, what, platform=ctx.address.platform)
            pressed = self._safety.pressed(
                data, ctx.locale, country, group, has_plan, language, where
            )
            if pressed is not None:
                return pressed
        if isinstance(event, CommandIssued) and event.name == Command.SOS.value:
            language = await self.sos_language(ctx, event)
            return self._safety.sos_replies(
                ctx.locale, country, group, timezone, has_plan, language, app_language
            )
        text = screened_text(event)
        if text is None:
            return None
        try:
            found = await self.screened(text, ctx, country, group, has_plan, where)
        except Exception as error:
            # The screen itself failed: we cannot tell, so we answer as if it were a
            # crisis. A needless list of helplines is a far smaller harm than a miss.
            log_event(log, "safety.failed", logging.ERROR, exc_info=error)
            return self._safety.sos_replies(
                ctx.locale, country, group, timezone, has_plan, app_language=app_language
            )
        # The learned stage's check alone is not put over an answer to the open question.
        answer = found is not None and await checks_an_answer(
            ctx, user, event, found, self._steps.step, self._steps.expired, self._on_screen
        )
        if found is None or answer:
            return None
        # The reply level only: a rule's name would paraphrase what the person wrote.
        reply = found.detection.reply.value
        log_event(log, "safety.matched", platform=ctx.address.platform, reply=reply)
        if found.detection.reply in (ReplyLevel.CRISIS, ReplyLevel.DANGER):
            self._services.metrics.crisis_reply(reply)
        return list(found.replies)

    async def screened(
        self,
        text: str,
        ctx: FlowContext,
        country: str | None,
        group: bool,
        has_plan: bool,
        where: Whereabouts,
    ) -> ScreenResult | None:
        """The screen's reading of `text`. A reply the rules give never waits for the learned
        model; words they leave below a reply wait for its first load (once a process, off
        the loop), since the model may raise them to the check."""
        found = await off_the_loop_if_long(
            text, self._safety.screen, text, ctx.locale, country, group, has_plan, where
        )
        stage = self._safety.second_stage
        if found is not None or stage.status.state is not ModelState.NOT_LOADED:
            return found
        await stage.ready()
        return await off_the_loop_if_long(
            text, self._safety.screen, text, ctx.locale, country, group, has_plan, where
        )

    async def sos_language(self, ctx: FlowContext, event: CommandIssued) -> str:
        """/sos in the language of words typed after it ("/sos ich kann nicht mehr"), else
        as the app's language and the user's locale say (SafetyScreen.sos_language)."""
        if event.args:
            detection = await off_the_loop_if_long(
                event.args, self._safety.detect, event.args, ctx.locale
            )
            written = self._safety.reply_locale(detection, ctx.locale, event.language_code)
            if written != ctx.locale:
                return written
        return self._safety.sos_language(ctx.locale, event.language_code)

    async def country_chosen(
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
        chosen_reply = self._safety.country_chosen_reply(
            ctx.locale, chosen, kind, saved, has_plan, language
        )
        return [chosen_reply]

    async def after_crisis(self, ctx: FlowContext, event: Event, user: User | None) -> list[Reply]:
        """After an urgent reply: the caring check's offer (after a crisis or danger reply
        only), then the question it interrupted. Both run at once, each bounded on its own:
        neither may hold the crisis reply back, and an offer that was made (and noted as
        made) is shown even when the question again is too slow."""
        offer = asyncio.ensure_future(self.caring_offer(ctx, event, user))
        again = asyncio.ensure_future(self.after_urgent(ctx, event, user))
        done, late = await asyncio.wait((offer, again), timeout=USER_LOOKUP_SECONDS)
        for task in late:
            task.cancel()  # a transaction it was in is rolled back: nothing half-noted
        return [
            *(offer.result() if offer in done else []),
            *(again.result() if again in done else []),
        ]

    async def caring_offer(self, ctx: FlowContext, event: Event, user: User | None) -> list[Reply]:
        if user is None:
            return []
        try:
            if not await self.full_help_given(ctx, event):
                return []
            return await self._caring.offer(ctx, user)
        except Exception as error:
            log_event(log, "caring.offer_failed", logging.WARNING, exc_info=error)
            return []

    async def full_help_given(self, ctx: FlowContext, event: Event) -> bool:
        """Was the urgent reply the full crisis or danger reply: to what the user wrote, or
        to "Show me help now" under a check? Not /sos, which the user asked for. The words
        are screened again here (rare: only after a match), so `replies` stays as it is."""
        if isinstance(event, ButtonPressed):
            return untagged(event.data)[0] in (CHECK_HELP, CHECK_HELP_DANGER)
        if isinstance(event, CommandIssued) and event.name == Command.SOS.value:
            return False
        text = screened_text(event)
        if text is None:
            return False
        detection = await off_the_loop_if_long(text, self._safety.detect, text, ctx.locale)
        return detection.reply in (ReplyLevel.CRISIS, ReplyLevel.DANGER)

    async def after_urgent(self, ctx: FlowContext, event: Event, user: User | None) -> list[Reply]:
        """After a crisis reply or /sos, the question it interrupted, so the user's next
        message answers what they can see. Never lets a failure touch the crisis reply."""
        if user is None or ctx.address.is_group:
            return []
        # No user lock here: a slow event of the same user must not hold a crisis reply back.
        try:
            position = await flow_positions.get_position(ctx.db, user.id)
            if position is None or self._steps.expired(ctx, position):
                return []
            step = self._steps.step(position)
            notice: list[Reply] = []
            if isinstance(event, TextMessage) and step is not None and step.on_text is not None:
                # A step that may keep such words holds them, sealed, and offers to save them
                # as its answer: one database write, inside this task's bound like the
                # question again, so the crisis reply (sent already) never waits on it.
                flow = self._steps.flows[position.flow]
                held = await flow.hold_crisis_text(ctx, position, event.text)
                if held is not None:
                    await self._questions.remember(ctx, [held])
                    return [held]
                # The words went to the crisis reply, not to the step: say so plainly.
                notice = [ctx.reply(GeneralMsg.ANSWER_NOT_SAVED)]
            return notice + await self._questions.again(ctx, user.id, position)
        except Exception as error:
            log_event(log, "reshow.failed", logging.WARNING, exc_info=error)
            return []


def country_of(user: User | None) -> str | None:
    """The user's country, or the one their time zone suggests, for local helplines."""
    if user is None:
        return None
    return user.country or country_for_timezone(user.timezone)
