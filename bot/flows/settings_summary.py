"""The text of the /settings menu: each setting's current value, in the user's language."""

from __future__ import annotations

from bot.content_pack.ids import SettingsMsg
from bot.flows.context import FlowContext
from bot.flows.country import display_name
from bot.flows.kept_history import kept_days
from bot.flows.local_formats import format_local_date, shown_weekdays
from bot.storage import checkin_slots
from bot.storage.users import User


async def settings_summary(ctx: FlowContext, user: User, paused: bool) -> str:
    """The menu's text; `paused` is whether the user's check-ins are paused right now."""
    slots = await checkin_slots.list_slots(ctx.db, user.id)
    not_set = ctx.text(SettingsMsg.NOT_SET)
    if user.checkins_stopped:
        status = ctx.text(SettingsMsg.STATUS_STOPPED)
    elif paused and user.paused_until is not None:
        status = ctx.text(
            SettingsMsg.STATUS_PAUSED, date=format_local_date(user, user.paused_until, ctx.locale)
        )
    else:
        status = ctx.text(SettingsMsg.STATUS_ON)
    return ctx.text(
        SettingsMsg.SETTINGS_MENU,
        country=display_name(ctx, user.country) if user.country else not_set,
        timezone=user.timezone or not_set,
        times=", ".join(slot.local_time for slot in slots) or not_set,
        days=shown_weekdays(ctx, user.weekdays),
        quiet=str(user.quiet_hours) if user.quiet_hours else ctx.text(SettingsMsg.QUIET_OFF),
        discreet=ctx.text(SettingsMsg.STATUS_ON if user.discreet else SettingsMsg.QUIET_OFF),
        keep=ctx.text(SettingsMsg.KEEP_DAYS, days=kept_days(ctx, user)),
        status=status,
    )
