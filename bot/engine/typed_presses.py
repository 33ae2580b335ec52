"""Labels typed instead of tapped: a bare yes or no to the caring offer, a crisis reply's
country or "My plan", any static button last shown, answered as that button's press."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from bot.core.events import ButtonPressed, Event, TextMessage
from bot.core.replies import Reply
from bot.engine.urgent_path import UrgentPath
from bot.flows.caring import Caring, pressed_command
from bot.flows.context import FlowContext, Services
from bot.flows.on_screen import ButtonsOnScreen
from bot.logs import get_logger, log_event
from bot.storage.users import User

# The router's logger: these events were always logged as the router's, and stay so.
log = get_logger("router")

# The router's own handling of an event that is no safety matter (a command, a press).
Dispatch = Callable[[FlowContext, Event], Awaitable[list[Reply]]]


class TypedPresses:
    def __init__(
        self,
        services: Services,
        caring: Caring,
        on_screen: ButtonsOnScreen,
        urgent: UrgentPath,
        dispatch: Dispatch,
    ) -> None:
        self._services = services
        self._caring = caring
        self._on_screen = on_screen
        self._urgent = urgent
        self._dispatch = dispatch

    async def answered_on_screen(
        self, ctx: FlowContext, event: Event, user: User | None
    ) -> list[Reply] | None:
        """A bare yes or no typed right after the caring offer answers the offer, not the
        question shown beside it (which stays open). None: the event goes on as usual."""
        if user is None or not isinstance(event, TextMessage) or ctx.address.is_group:
            return None
        cancelled = await self._caring.typed_cancel(ctx, event.text)
        if cancelled is not None:
            return cancelled
        services = self._services
        data = self._on_screen.answered(
            ctx.address, event.text, services.content, services.clock.now(), services.step_expiry
        )
        if data is None:
            return None
        return await self.as_pressed(ctx, data, user, event.language_code)

    async def pressed_on_screen(self, ctx: FlowContext, event: TextMessage) -> list[Reply] | None:
        """A label typed from a message of no flow step (a crisis reply's countries, "My
        plan", "I'm safe right now", "Take a pause"): that button's press."""
        services = self._services
        data = self._on_screen.typed(
            ctx.address, event.text, services.content, services.clock.now(), services.step_expiry
        )
        if data is None:
            return None
        return await self.as_pressed(ctx, data, await ctx.find_user(), event.language_code)

    async def as_pressed(
        self, ctx: FlowContext, data: str, user: User | None, language: str | None
    ) -> list[Reply]:
        """What tapping the button with `data` does: a crisis reply's button answered by
        the safety path (the question it interrupted shown again after it), any other as
        a press or the command it runs."""
        log_event(log, "button.typed", platform=ctx.address.platform)
        event = pressed_command(ButtonPressed(ctx.address, data, language))
        urgent = await self._urgent.replies(event, ctx, user)
        if urgent is not None:
            return urgent + await self._urgent.after_crisis(ctx, event, user)
        return await self._dispatch(ctx, event)
