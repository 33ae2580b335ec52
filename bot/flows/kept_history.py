"""How long a user's history is kept: their choice in /settings, never beyond the operator's
STEADY_RETENTION_DAYS."""

from __future__ import annotations

from bot.content_pack.ids import SettingsMsg
from bot.flows.base import Rows
from bot.flows.context import Choice, FlowContext
from bot.storage.users import User


def kept_days(ctx: FlowContext, user: User) -> int:
    """Days of history kept for this user: their choice, never beyond the operator's."""
    longest = ctx.services.retention_days
    return longest if user.keep_days is None else min(user.keep_days, longest)


def keep_choices(ctx: FlowContext) -> Rows:
    """The shorter histories to choose from, those under the operator's limit, and the longest."""
    longest = ctx.services.retention_days
    shorter = tuple(
        Choice(str(days), ctx.text(SettingsMsg.KEEP_DAYS, days=days))
        for days in (7, 30, 90)
        if days < longest
    )
    return (
        (shorter, (Choice("max", SettingsMsg.KEEP_LONGEST),))
        if shorter
        else ((Choice("max", SettingsMsg.KEEP_LONGEST),),)
    )
