"""/affirm: one affirmation, never repeated until the user has seen them all; or one
from a theme they choose.

    /affirm ──▶ shown ──[Another thought]──▶ shown
                  └──[Choose a theme]──▶ group ──[a group]──▶ theme ──[a theme]──▶ shown
                                           └──[Any theme]──▶ shown      └──[Back]──▶ group

The very first affirmation a user sees is one the pack marks `first`: it makes sense to
someone who has told us nothing yet (a first card about the bond's mechanics, say, could
read as a diagnosis). A pack with none marked falls back to a few gentle themes.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from bot.content_pack.ids import Msg
from bot.content_pack.rotation import pick_unseen
from bot.content_pack.schema import Affirmation, Theme
from bot.core.replies import Reply
from bot.flows.base import Flow, Step
from bot.flows.context import Choice, FlowContext, choices_markup
from bot.flows.names import FlowName
from bot.storage import affirmations_seen
from bot.storage.flow_positions import FlowPosition

FIRST_THEMES = frozenset({Theme.BODY, Theme.PAUSE, Theme.SUPPORT, Theme.REBUILD})

# A few groups first, then their themes: 29 themes at once would be a wall of buttons.
THEME_GROUPS: dict[str, tuple[Msg, tuple[Theme, ...]]] = {
    "feelings": (
        Msg.AFFIRM_GROUP_FEELINGS,
        (Theme.GUILT, Theme.TWO_TRUTHS, Theme.GRIEF, Theme.DISCOMFORT, Theme.ANGER,
         Theme.NUMBNESS, Theme.LONELINESS, Theme.SELF_DOUBT),
    ),
    "bond": (
        Msg.AFFIRM_GROUP_BOND,
        (Theme.BOND_FORMING, Theme.CLOSURE, Theme.WHOLE_PICTURE, Theme.PATTERNS,
         Theme.PROMISES, Theme.CHECKING, Theme.FLASHBACKS, Theme.DISBELIEVED),
    ),
    "days": (
        Msg.AFFIRM_GROUP_DAYS,
        (Theme.HARD_DATES, Theme.SLEEP, Theme.BODY, Theme.STILL_THERE,
         Theme.SHARED_CONTACT, Theme.PRACTICAL, Theme.PAUSE),
    ),
    "steps": (
        Msg.AFFIRM_GROUP_STEPS,
        (Theme.BOUNDARIES, Theme.REBUILD, Theme.SUPPORT, Theme.COST, Theme.LAYERS,
         Theme.DATING),
    ),
}  # fmt: skip
_SHOWN = ((Choice("another", Msg.AFFIRM_ANOTHER), Choice("themes", Msg.AFFIRM_BY_THEME)),)
_BACK = (Choice("back", Msg.PAUSE_BACK),)


def theme_label(theme: Theme) -> Msg:
    return Msg(f"theme.{theme.value}")


class Affirm(Flow):
    name = FlowName.AFFIRM

    def __init__(self, rng: random.Random) -> None:
        self._rng = rng
        self.steps = {
            "shown": Step(on_choice=self._shown, passes_text=True),
            "group": Step(on_choice=self._group),
            "theme": Step(on_choice=self._theme),
        }

    async def begin(self, ctx: FlowContext) -> list[Reply]:
        return [await self._show(ctx, None)]

    async def _show(self, ctx: FlowContext, theme: Theme | None) -> Reply:
        user = await ctx.ensure_user()
        seen = await affirmations_seen.seen_affirmations(ctx.db, user.id)
        items = ctx.services.content.affirmations(ctx.locale)
        if theme is not None:
            chosen = _pick_in_theme([a for a in items if a.theme == theme], seen, self._rng)
            new_round = False
        else:
            first = (
                ([a for a in items if a.first] or [a for a in items if a.theme in FIRST_THEMES])
                if not seen
                else []
            )
            pick = pick_unseen(first or items, seen, self._rng)
            chosen, new_round = pick.item, pick.starts_new_round
        async with ctx.db.transaction() as tx:
            if new_round:
                await affirmations_seen.start_new_round(tx, user.id)
            await affirmations_seen.mark_seen(tx, user.id, chosen.id, ctx.now())
        moved = await self.move(ctx, "shown", {} if theme is None else {"theme": theme.value})
        return Reply(chosen.text, buttons=choices_markup(ctx, moved, _SHOWN))

    async def _shown(self, ctx: FlowContext, position: FlowPosition, value: str) -> list[Reply]:
        if value == "another":
            theme = position.data.get("theme")
            return [await self._show(ctx, Theme(theme) if isinstance(theme, str) else None)]
        if value == "themes":
            return [await self._groups(ctx)]
        return [ctx.reply(Msg.USE_BUTTONS)]

    async def _groups(self, ctx: FlowContext) -> Reply:
        rows = [
            (Choice(key, label),)
            for key, (label, themes) in THEME_GROUPS.items()
            if _filled(ctx, themes)
        ]
        rows.append((Choice("any", Msg.AFFIRM_ANY),))
        return await self.ask(ctx, "group", Msg.AFFIRM_PICK_GROUP, rows)

    async def _group(self, ctx: FlowContext, position: FlowPosition, value: str) -> list[Reply]:
        if value == "any":
            return [await self._show(ctx, None)]
        group = THEME_GROUPS.get(value)
        if group is None:
            return [ctx.reply(Msg.USE_BUTTONS)]
        rows = [(Choice(theme.value, theme_label(theme)),) for theme in _filled(ctx, group[1])]
        return [await self.ask(ctx, "theme", Msg.AFFIRM_PICK_THEME, [*rows, _BACK])]

    async def _theme(self, ctx: FlowContext, position: FlowPosition, value: str) -> list[Reply]:
        if value == "back":
            return [await self._groups(ctx)]
        try:
            theme = Theme(value)
        except ValueError:
            return [ctx.reply(Msg.USE_BUTTONS)]
        if not _filled(ctx, (theme,)):
            return [ctx.reply(Msg.USE_BUTTONS)]
        return [await self._show(ctx, theme)]


def _filled(ctx: FlowContext, themes: Sequence[Theme]) -> list[Theme]:
    """Only themes the pack has affirmations for become buttons."""
    present = {a.theme for a in ctx.services.content.affirmations(ctx.locale)}
    return [theme for theme in themes if theme in present]


def _pick_in_theme(
    items: Sequence[Affirmation], seen_in_order: Sequence[str], rng: random.Random
) -> Affirmation:
    """Unseen in this theme if any; else the one of the theme seen longest ago."""
    unseen = [item for item in items if item.id not in set(seen_in_order)]
    if unseen:
        return rng.choice(unseen)
    order = {item_id: index for index, item_id in enumerate(seen_in_order)}
    return min(items, key=lambda item: order[item.id])
