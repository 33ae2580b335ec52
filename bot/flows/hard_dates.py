"""/dates: hard days on the calendar, with an extra check-in the evening before and that morning.

    list ──[Add a date]──▶ kind ──[kind]──▶ date (text) ──▶ repeat ──[every year | once]──▶ label
      │          │                           ├─(3/2)──▶ which ──[3 February | 2 March]──▶ repeat
      │          │                           │          which ──(a date typed)──▶ repeat
      │          │                           ├─(31/02)──▶ date, the month has no such day
      │          │                           └─(not a date)──▶ date, with an example
      │        kind ──("birthday", "juzgado")──▶ date     (a kind's label typed, any language)
      │        kind ──(a date typed)──▶ kind, date kept ──[kind]──▶ repeat (or which)
      │        repeat ──[once, but the date has passed]──▶ repeat, said kindly
      │        label (text) ──▶ list (saved)     (20 kept already: said so, stay at list)
      ├──[Change or delete one]──▶ pick ──[number]──▶ edit
      │        edit ──[The words]──▶ label ──▶ edit      edit ──[The date]──▶ date ──▶ edit
      │        edit ──[Every year | Just once]──▶ edit   edit ──[Delete it | Back]──▶ list
      └──[Done]──▶ (left)
    label ──(too long)──▶ label [keep the first part | write it shorter]

The label is the user's own words: encrypted when stored, asked last so it is never held
in a conversation's position, protected from forwarding where it is shown, and in a date's
check-in only for a user who turned discreet mode off. When the extra check-ins are sent
is `bot.scheduling.hard_date_plan`'s to say; the scheduler's side is
`bot.scheduling.hard_date_due`, and `bot.flows.hard_date_checkins` writes their messages.
What is typed at the steps is read in `bot.flows.hard_date_reading`; today, a one-off
date's year and what "added" promises are `bot.flows.hard_date_timing`'s.
"""

from __future__ import annotations

from enum import StrEnum

from bot.content_pack.ids import DatesMsg
from bot.core.replies import Reply
from bot.flows.base import Flow, Step, leading
from bot.flows.context import END, NOT_A_CHOICE, Choice, FlowContext, Next, Outcome
from bot.flows.hard_date_reading import (
    KINDS,
    date_not_read,
    held_readings,
    held_year,
    tapped_reading,
    typed_kind,
    which_rows,
)
from bot.flows.hard_date_timing import added_message, checkin_times, held_back, local_today, one_off
from bot.flows.limits import MOST_HARD_DATES, TextLimit
from bot.flows.local_formats import dates_locale
from bot.flows.names import FlowName
from bot.flows.overlong import first_part, long_text_buttons, offer_choice, write_shorter
from bot.flows.parsing.dates import read_date, show_date
from bot.flows.validation import too_long
from bot.scheduling.hard_date_plan import DateRule, is_past, next_upcoming
from bot.storage import hard_dates
from bot.storage.flow_positions import FlowData, FlowPosition
from bot.storage.hard_dates import DateKind, HardDate
from bot.storage.users import User

_KIND_VALUES = frozenset(kind.value for kind in DateKind)
_REPEATS = ((Choice("yearly", DatesMsg.DATES_YEARLY), Choice("once", DatesMsg.DATES_ONCE)),)

# What a position carries between steps: never the label (it is asked last, and saved).
# "readings": a date typed at the kind step that reads two ways, asked about after the kind.
_CARRIED = ("kind", "month", "day", "year", "readings", "repeat", "edit")


class DatesStep(StrEnum):
    LIST = "list"
    KIND = "kind"
    DATE = "date"
    WHICH = "which"
    REPEAT = "repeat"
    LABEL = "label"
    PICK = "pick"
    EDIT = "edit"


class HardDates(Flow):
    name = FlowName.DATES

    def __init__(self) -> None:
        self.steps = self.table({
            DatesStep.LIST: Step(
                buttons=((Choice("add", DatesMsg.DATES_ADD, goes_to=self._start_adding),),
                         (Choice("edit", DatesMsg.DATES_EDIT, goes_to=self._pick),),
                         (Choice("done", DatesMsg.DATES_DONE, goes_to=self._done),)),
            ),
            # A kind typed in words is read; a date typed first is kept for after it.
            DatesStep.KIND: Step(
                asks=DatesMsg.DATES_ASK_KIND,
                buttons=leading(KINDS, self._kind),
                on_typed=self._kind_typed,
            ),
            DatesStep.DATE: Step(asks=DatesMsg.DATES_ASK_DATE, on_typed=self._date),
            # The two readings of "3/2" are buttons built from what was typed; a date
            # typed instead is read as the answer.
            DatesStep.WHICH: Step(
                asks=DatesMsg.DATES_WHICH, other_choice=self._which, on_typed=self._date
            ),
            DatesStep.REPEAT: Step(
                asks=DatesMsg.DATES_ASK_REPEAT, buttons=leading(_REPEATS, self._repeat)
            ),
            DatesStep.LABEL: Step(
                asks=DatesMsg.DATES_ASK_LABEL,
                also=long_text_buttons(self._label_first_part, self._label_shorter),
                on_typed=self._label,
            ),
            # The numbers to tap stand for saved dates: other_choice reads them.
            DatesStep.PICK: Step(asks=DatesMsg.DATES_PICK, other_choice=self._picked),
            DatesStep.EDIT: Step(
                buttons=((Choice("label", DatesMsg.DATES_CHANGE_LABEL, goes_to=self._change_label),
                          Choice("date", DatesMsg.DATES_CHANGE_DATE, goes_to=self._change_date)),
                         (Choice("make_yearly", DatesMsg.DATES_MAKE_YEARLY, goes_to=self._toggle),
                          Choice("make_once", DatesMsg.DATES_MAKE_ONCE, goes_to=self._toggle)),
                         (Choice("delete", DatesMsg.DATES_DELETE, goes_to=self._delete),
                          Choice("back", DatesMsg.DATES_BACK, goes_to=self._back))),
            ),
        })  # fmt: skip

    async def begin(self, ctx: FlowContext) -> list[Reply]:
        return await self.go(ctx, await self._list(ctx))

    # The list --------------------------------------------------------------------------

    async def _list(self, ctx: FlowContext, before: str | None = None) -> Next:
        user = await ctx.ensure_user()
        saved = await hard_dates.list_dates(ctx.db, ctx.cipher, user.id)
        if saved:
            shown = await dates_locale(ctx)
            listed = "\n".join(_item(ctx, n, d, shown) for n, d in enumerate(saved, start=1))
            body = f"{ctx.text(DatesMsg.DATES_LIST)}\n\n{listed}"
        else:
            body = ctx.text(DatesMsg.DATES_EMPTY)
        text = body if before is None else f"{before}\n\n{body}"
        rows = self.buttons_without(DatesStep.LIST, () if saved else {"edit"})
        # protect: the list quotes the user's own words.
        return Next(DatesStep.LIST, question=text, rows=rows, protect=bool(saved))

    async def _done(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        return Next(END, before=[ctx.reply(DatesMsg.DATES_CLOSED)])

    async def _back(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        return await self._list(ctx)

    # Adding ----------------------------------------------------------------------------

    async def _start_adding(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        user = await ctx.ensure_user()
        if await hard_dates.count_dates(ctx.db, user.id) >= MOST_HARD_DATES:
            return [ctx.reply(DatesMsg.DATES_FULL, limit=MOST_HARD_DATES)]
        return Next(DatesStep.KIND)

    async def _kind(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        if value not in _KIND_VALUES:
            return NOT_A_CHOICE
        data = {**_carried(position), "kind": value}
        if isinstance(data.get("month"), int):  # the date was typed first
            return Next(DatesStep.REPEAT, data)
        readings = held_readings(position)
        if readings:
            return Next(DatesStep.WHICH, data, rows=which_rows(await dates_locale(ctx), readings))
        return Next(DatesStep.DATE, data)

    async def _kind_typed(self, ctx: FlowContext, position: FlowPosition, text: str) -> Outcome:
        """A kind in words ("birthday", "juzgado"); or a date, kept while the kind is asked."""
        kind = typed_kind(ctx, text)
        if kind is not None:
            return await self._kind(ctx, position, kind)
        reading = read_date(text, ctx.locale, local_today(ctx, await ctx.ensure_user()))
        if not reading.readings:
            return NOT_A_CHOICE
        data = {key: value for key, value in _carried(position).items() if key == "edit"}
        rule = reading.settled
        if rule is None:
            held = " ".join(f"{r.month}-{r.day}" for r in reading.readings)
            data |= {"readings": held, "year": reading.readings[0].year}
            written = await dates_locale(ctx)
            shown = " / ".join(show_date(r, written) for r in reading.readings)
        else:
            data |= {"month": rule.month, "day": rule.day, "year": rule.year}
            shown = show_date(rule, await dates_locale(ctx))
        asked = ctx.text(DatesMsg.DATES_DATE_KEPT, date=shown)
        return Next(DatesStep.KIND, data, question=asked)

    async def _date(self, ctx: FlowContext, position: FlowPosition, text: str) -> Outcome:
        """A typed date: read, or asked which of two it is, or asked again with an example.
        Whatever came before (the kind of day) stays in the position."""
        reading = read_date(text, ctx.locale, local_today(ctx, await ctx.ensure_user()))
        if not reading.readings:
            return [date_not_read(ctx, reading)]
        rule = reading.settled
        if rule is None:
            data = {**_carried(position), "year": reading.readings[0].year}
            return Next(
                DatesStep.WHICH, data, rows=which_rows(await dates_locale(ctx), reading.readings)
            )
        return await self._date_read(ctx, position, rule)

    async def _which(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        rule = tapped_reading(value, held_year(position))
        if rule is None:
            return NOT_A_CHOICE
        return await self._date_read(ctx, position, rule)

    async def _date_read(self, ctx: FlowContext, position: FlowPosition, rule: DateRule) -> Outcome:
        date_id = position.data.get("edit")
        if isinstance(date_id, int):
            return await self._new_date(ctx, date_id, rule)
        data = {**_carried(position), "month": rule.month, "day": rule.day, "year": rule.year}
        data.pop("readings", None)
        return Next(DatesStep.REPEAT, data)

    async def _repeat(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        month, day = position.data.get("month"), position.data.get("day")
        if not isinstance(month, int) or not isinstance(day, int):
            return NOT_A_CHOICE
        user = await ctx.ensure_user()
        if value == "yearly":
            rule = DateRule(month, day)
        else:
            today = local_today(ctx, user)
            rule = one_off(month, day, held_year(position), today)
            if is_past(rule, today):
                asked = f"{ctx.text(DatesMsg.DATES_PAST)}\n\n{ctx.text(DatesMsg.DATES_ASK_REPEAT)}"
                return Next(DatesStep.REPEAT, _carried(position), question=asked)
        data = {**_carried(position), "month": rule.month, "day": rule.day, "year": rule.year}
        return Next(DatesStep.LABEL, {**data, "repeat": value})

    async def _label(self, ctx: FlowContext, position: FlowPosition, text: str) -> Outcome:
        label = text.strip()
        if not label:
            return [ctx.reply(DatesMsg.DATES_ASK_LABEL)]
        if too_long(TextLimit.DATE_LABEL, label):
            return [await offer_choice(self, ctx, position, TextLimit.DATE_LABEL, label)]
        user = await ctx.ensure_user()
        date_id = position.data.get("edit")
        if isinstance(date_id, int):
            async with ctx.db.transaction() as tx:
                changed = await hard_dates.set_label(tx, ctx.cipher, user.id, date_id, label)
            if not changed:
                return await self._list(ctx)
            return await self._edit_menu(ctx, date_id, ctx.text(DatesMsg.DATES_CHANGED))
        return await self._add(ctx, user, position, label)

    async def _add(
        self, ctx: FlowContext, user: User, position: FlowPosition, label: str
    ) -> Outcome:
        kind, month, day = (position.data.get(key) for key in ("kind", "month", "day"))
        if not isinstance(kind, str) or not isinstance(month, int) or not isinstance(day, int):
            return NOT_A_CHOICE
        rule = DateRule(month, day, held_year(position))
        if await hard_dates.count_dates(ctx.db, user.id) >= MOST_HARD_DATES:
            return Next(END, before=[ctx.reply(DatesMsg.DATES_FULL, limit=MOST_HARD_DATES)])
        times = await checkin_times(ctx, user)
        upcoming = next_upcoming(user, times, rule, ctx.now())
        async with ctx.db.transaction() as tx:
            await hard_dates.add_date(
                tx,
                ctx.cipher,
                user.id,
                DateKind(kind),
                label,
                (rule.month, rule.day, rule.year),
                upcoming,
                ctx.now(),
            )
        added = ctx.text(
            added_message(user, times, upcoming), date=show_date(rule, await dates_locale(ctx))
        )
        if held_back(user, upcoming):  # so the promise above stays true
            added = f"{added} {ctx.text(DatesMsg.DATES_WHILE_OFF)}"
        return await self._list(ctx, before=added)

    async def _label_shorter(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        return write_shorter(ctx, position, TextLimit.DATE_LABEL)

    async def _label_first_part(
        self, ctx: FlowContext, position: FlowPosition, value: str
    ) -> Outcome:
        label = await first_part(ctx, position, TextLimit.DATE_LABEL)
        if label is None:  # nothing held (an old button)
            return NOT_A_CHOICE
        return await self._label(ctx, position, label)

    # Changing and deleting ---------------------------------------------------------------

    async def _pick(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        user = await ctx.ensure_user()
        saved = await hard_dates.list_dates(ctx.db, ctx.cipher, user.id)
        if not saved:
            return await self._list(ctx)
        numbers = [Choice(str(d.id), str(n)) for n, d in enumerate(saved, start=1)]
        return Next(DatesStep.PICK, rows=[numbers[i : i + 5] for i in range(0, len(numbers), 5)])

    async def _picked(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        if not (value.isascii() and value.isdigit()):
            return NOT_A_CHOICE
        return await self._edit_menu(ctx, int(value))

    async def _edit_menu(self, ctx: FlowContext, date_id: int, before: str | None = None) -> Next:
        user = await ctx.ensure_user()
        saved = await hard_dates.list_dates(ctx.db, ctx.cipher, user.id)
        numbered = [(n, d) for n, d in enumerate(saved, start=1) if d.id == date_id]
        if not numbered:  # deleted meanwhile, or a one-off date that has ended
            return await self._list(ctx, before)
        number, chosen = numbered[0]
        text = ctx.text(
            DatesMsg.DATES_EDIT_MENU, item=_item(ctx, number, chosen, await dates_locale(ctx))
        )
        text = text if before is None else f"{before}\n\n{text}"
        left_out = {"make_yearly"} if chosen.yearly else {"make_once"}
        rows = self.buttons_without(DatesStep.EDIT, left_out)
        return Next(DatesStep.EDIT, {"edit": date_id}, question=text, rows=rows, protect=True)

    async def _change_label(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        return Next(DatesStep.LABEL, _carried(position))

    async def _change_date(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        return Next(DatesStep.DATE, _carried(position))

    async def _chosen(self, ctx: FlowContext, position: FlowPosition) -> HardDate | None:
        date_id = position.data.get("edit")
        if not isinstance(date_id, int):
            return None
        user = await ctx.ensure_user()
        return await hard_dates.get_date(ctx.db, ctx.cipher, user.id, date_id)

    async def _new_date(self, ctx: FlowContext, date_id: int, typed: DateRule) -> Outcome:
        """The date changed; it repeats as it did (a one-off one takes the year typed, or
        the next time that day comes)."""
        user = await ctx.ensure_user()
        chosen = await hard_dates.get_date(ctx.db, ctx.cipher, user.id, date_id)
        if chosen is None:
            return await self._list(ctx)
        today = local_today(ctx, user)
        rule = (
            DateRule(typed.month, typed.day)
            if chosen.yearly
            else one_off(typed.month, typed.day, typed.year, today)
        )
        if is_past(rule, today):  # stays at the date, for one still to come
            return [ctx.reply(DatesMsg.DATES_PAST_TYPED)]
        return await self._save_when(ctx, user, date_id, rule)

    async def _toggle(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        chosen = await self._chosen(ctx, position)
        if chosen is None:
            return await self._list(ctx)
        user = await ctx.ensure_user()
        if value == "make_yearly":
            rule = DateRule(chosen.month, chosen.day)
        else:
            rule = one_off(chosen.month, chosen.day, None, local_today(ctx, user))
        return await self._save_when(ctx, user, chosen.id, rule)

    async def _save_when(self, ctx: FlowContext, user: User, date_id: int, rule: DateRule) -> Next:
        upcoming = next_upcoming(user, await checkin_times(ctx, user), rule, ctx.now())
        async with ctx.db.transaction() as tx:
            await hard_dates.set_when(
                tx, user.id, date_id, (rule.month, rule.day, rule.year), upcoming
            )
        return await self._edit_menu(ctx, date_id, ctx.text(DatesMsg.DATES_CHANGED))

    async def _delete(self, ctx: FlowContext, position: FlowPosition, value: str) -> Outcome:
        date_id = position.data.get("edit")
        if not isinstance(date_id, int):
            return NOT_A_CHOICE
        user = await ctx.ensure_user()
        async with ctx.db.transaction() as tx:
            await hard_dates.remove_date(tx, user.id, date_id)
        return await self._list(ctx, before=ctx.text(DatesMsg.DATES_DELETED))


def _item(ctx: FlowContext, number: int, saved: HardDate, shown: str) -> str:
    rule = DateRule(saved.month, saved.day, saved.year)
    message = DatesMsg.DATES_ITEM_YEARLY if saved.yearly else DatesMsg.DATES_ITEM_ONCE
    return ctx.text(message, number=number, label=saved.label, date=show_date(rule, shown))


def _carried(position: FlowPosition) -> FlowData:
    """The answers so far, without the buttons shown or a long text held at the step."""
    return {key: position.data[key] for key in _CARRIED if key in position.data}
