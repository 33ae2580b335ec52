"""Which language Steady writes in: the question, its buttons, and saving the answer.

The first guess comes from the person's app (Telegram's language, Discord's locale); the
question lets them confirm it with one tap, and /settings lets them change it later.
Each button names a language in that language ("Español", "English"), so it can be found
by someone who cannot read the one the question is in.
"""

from __future__ import annotations

from dataclasses import replace

from bot.content_pack.ids import OnboardingMsg
from bot.flows.base import Rows
from bot.flows.context import Choice, FlowContext
from bot.storage import users


def language_rows(ctx: FlowContext) -> Rows:
    """One button per locale of the pack, the one in use first."""
    content = ctx.services.content
    ordered = sorted(content.locales, key=lambda locale: (locale != ctx.locale, locale))
    return (
        tuple(
            Choice(locale, content.text(locale, OnboardingMsg.LANGUAGE_NAME)) for locale in ordered
        ),
    )


def offers_language(ctx: FlowContext) -> bool:
    """Onboarding asks only when the app's language picked another locale than the default:
    that guess is worth a tap to confirm; everyone else starts in the default at once."""
    content = ctx.services.content
    return len(content.locales) > 1 and ctx.locale != content.default_locale


async def save_language(ctx: FlowContext, value: str) -> FlowContext | None:
    """The context in the chosen language, once saved; None for a value that is not one."""
    if value not in ctx.services.content.locales:
        return None
    user = await ctx.ensure_user()
    async with ctx.db.transaction() as tx:
        await users.set_locale(tx, user.id, value)
    return replace(ctx, locale=value)
