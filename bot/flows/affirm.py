"""/affirm: one affirmation, never repeated until the user has seen them all; or one
from a theme they choose.

    /affirm ──▶ shown ──[Another thought]──▶ shown (of the same theme, if one was chosen)
                  │└──[Choose a theme]──▶ group ──[a group]──▶ theme ──[a theme]──▶ shown
                  │                         └──[Any theme]──▶ shown      └──[Back]──▶ group
                  └──(typed text)──▶ leaves the flow, read as any message

The very first affirmation a user sees is one the pack marks `first`: it makes sense to
someone who has told us nothing yet (a first card about the bond's mechanics, say, could
read as a diagnosis). A pack with none marked falls back to a few gentle themes.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import replace
from enum import StrEnum

from bot.content_pack.ids import AffirmMsg, Msg, PauseMsg, ThemeMsg
from bot.content_pack.rotation import pick_unseen
from bot.content_pack.schema import Affirmation, Theme
from bot.core.replies import Reply
from bot.flows.base import Flow, Step
from bot.flows.context import NOT_A_CHOICE, Choice, FlowContext, Next, Outcome
from bot.flows.names import FlowName
from bot.storage import affirmations_seen
from bot.storage.flow_positions import FlowData, FlowPosition

FIRST_THEMES = frozenset({Theme.BODY, Theme.PAUSE, Theme.SUPPORT, Theme.REBUILD})

# A few groups first, then their themes: 29 themes at once would be a wall of buttons.
THEME_GROUPS: dict[str, tuple[Msg, tuple[Theme, ...]]] = {
    "feelings": (
        AffirmMsg.AFFIRM_GROUP_FEELINGS,
        (Theme.GUILT, Theme.TWO_TRUTHS, Theme.GRIEF, Theme.DISCOMFORT, Theme.ANGER,
         Theme.NUMBNESS, Theme.LONELINESS, Theme.SELF_DOUBT),
    ),
    "bond": (
        AffirmMsg.AFFIRM_GROUP_BOND,
        (Theme.BOND_FORMING, Theme.CLOSURE, Theme.WHOLE_PICTURE, Theme.PATTERNS,
         Theme.PROMISES, Theme.CHECKING, Theme.FLASHBACKS, Theme.DISBELIEVED),
    ),
    "days": (
        AffirmMsg.AFFIRM_GROUP_DAYS,
        (Theme.HARD_DATES, Theme.SLEEP, Theme.BODY, Theme.STILL_THERE,
         Theme.SHARED_CONTACT, Theme.PRACTICAL, Theme.PAUSE),
    ),
    "steps": (
        AffirmMsg.AFFIRM_GROUP_STEPS,
        (Theme.BOUNDARIES, Theme.REBUILD, Theme.SUPPORT, Theme.COST, Theme.LAYERS,
         Theme.DATING),
    ),
}  # fmt: skip
_BACK = (Choice("back", PauseMsg.PAUSE_BACK),)


def theme_label(theme: Theme) -> Msg:
    return ThemeMsg(f"theme.{theme.value}")


class AffirmStep(StrEnum):
    SHOWN = "shown"
    GROUP = "group"
    THEME = "theme"


class Affirm(Flow):
    name = FlowName.AFFIRM

    def __init__(self, rng: random.Random) -> None:
        self._rng = rng
        groups = tuple(
            (Choice(key, label, goes_to=self._group),) for key, (label, _) in THEME_GROUPS.items()
        )
        self.steps = self.table({
            AffirmStep.SHOWN: Step(
                buttons=((Choice("another", AffirmMsg.AFFIRM_ANOTHER, goes_to=self._another),
                          Choice("themes", AffirmMsg.AFFIRM_BY_THEME, goes_to=self._groups)),),
                passes_text=True,
                labels_typed=False,  # "another" typed is a message, not this button
            ),
            AffirmStep.GROUP: Step(
                asks=AffirmMsg.AFFIRM_PICK_GROUP,
                buttons=(*groups, (Choice("any", AffirmMsg.AFFIRM_ANY, goes_to=self._any),)),
            ),
            AffirmStep.THEME: Step(
                asks=AffirmMsg.AFFIRM_PICK_THEME,
                buttons=(tuple(replace(choice, goes_to=self._groups) for choice in _BACK),),
                other_choice=self._theme,  # a theme of the group, as the pack fills it
            ),
        })  # fmt: skip

    async def begin(self, ctx: FlowContext) -> list[Reply]:
        return await self.go(ctx, await self._show(ctx, None))

    async def _show(self, ctx: FlowContext, theme: Theme | None) -> Next:
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
        data: FlowData = {} if theme is None else {"theme": theme.value}
        return Next(AffirmStep.SHOWN, data, question=chosen.text)

    async def _another(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        theme = position.data.get("theme")
        return await self._show(ctx, Theme(theme) if isinstance(theme, str) else None)

    async def _any(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        return await self._show(ctx, None)

    async def _groups(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        empty = {key for key, (_, themes) in THEME_GROUPS.items() if not _filled(ctx, themes)}
        return Next(AffirmStep.GROUP, rows=self.buttons_without(AffirmStep.GROUP, empty))

    async def _group(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        _, themes = THEME_GROUPS[value]
        rows = [(Choice(theme.value, theme_label(theme)),) for theme in _filled(ctx, themes)]
        return Next(AffirmStep.THEME, rows=[*rows, _BACK])

    async def _theme(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        try:
            theme = Theme(value)
        except ValueError:
            return NOT_A_CHOICE
        if not _filled(ctx, (theme,)):
            return NOT_A_CHOICE
        return await self._show(ctx, theme)


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
