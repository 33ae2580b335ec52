"""/reminder: group admins add, list, pause, resume and delete the group's reminders.

The platform says who is an admin (CommandIssued.admin, asked of Telegram's
getChatMember or read from Discord's member permissions); it is checked here
again for every subcommand, listing included, so no other path can change a
group's reminders.
"""

from __future__ import annotations

from datetime import datetime

from babel.dates import format_date

from bot.content_pack.ids import Msg, ReminderMsg
from bot.content_pack.plurals import babel_locale
from bot.core.events import CommandIssued
from bot.core.replies import Reply
from bot.flows.context import FlowContext
from bot.logs import get_logger, log_event
from bot.reminders.schedule import describe_when, next_post, reminder_rule
from bot.reminders.syntax import Action, ActionRequest, AddRequest, Problem, parse_request
from bot.reminders.words import words_for
from bot.storage import group_reminders
from bot.storage.group_reminders import MAX_PER_CHAT, GroupReminder, PausedBecause, ReminderSpec

log = get_logger("reminders")


async def reminder_command(ctx: FlowContext, event: CommandIssued) -> list[Reply]:
    if not ctx.address.is_group:
        return [ctx.reply(ReminderMsg.REMINDER_GROUPS_ONLY)]
    if not event.admin:
        return [ctx.reply(ReminderMsg.REMINDER_ADMINS_ONLY)]
    request = parse_request(event.args)
    match request:
        case Problem():
            values = dict(request.values)
            words = words_for(ctx.locale)  # the group's language names the words to type
            if request.message in {ReminderMsg.REMINDER_HELP, ReminderMsg.REMINDER_BAD_THEME}:
                values["themes"] = words.theme_names()
            if "action" in values:
                values["action"] = words.action(Action(values["action"]))
            return [Reply(ctx.text(request.message, **values))]
        case AddRequest():
            return [await _add(ctx, request.spec)]
        case ActionRequest(action=Action.LIST):
            return [await _list(ctx)]
        case ActionRequest():
            return [await _change(ctx, request)]


async def _add(ctx: FlowContext, spec: ReminderSpec) -> Reply:
    address, now = ctx.address, ctx.now()
    async with ctx.db.transaction() as tx:
        # An admin posting anonymously has no id of their own here (the adapter leaves it
        # empty): nobody can be told privately about that reminder later.
        creator = address.user_id or None
        reminder = await group_reminders.add_reminder(
            tx, ctx.cipher, address.platform, address.chat_id, creator, ctx.locale, spec, now
        )
        if reminder is None:
            return ctx.reply(ReminderMsg.REMINDER_TOO_MANY, limit=MAX_PER_CHAT)
        due, local_date = next_post(reminder, now, strictly_after=True)
        await group_reminders.save_plan(tx, reminder.id, due, local_date)
    log_event(log, "reminder.added", platform=address.platform, reminder=reminder.id)
    return ctx.reply(
        ReminderMsg.REMINDER_ADDED,
        number=reminder.number,
        when=_when(ctx, reminder.spec),
        what=describe_what(ctx, reminder.spec),
    )


async def _list(ctx: FlowContext) -> Reply:
    reminders = await group_reminders.list_for_chat(
        ctx.db, ctx.cipher, ctx.address.platform, ctx.address.chat_id
    )
    if not reminders:
        return ctx.reply(ReminderMsg.REMINDER_LIST_EMPTY)
    lines = [ctx.text(ReminderMsg.REMINDER_LIST_HEADER)]
    lines += [
        ctx.text(
            ReminderMsg.REMINDER_LIST_ITEM,
            number=reminder.number,
            when=_when(ctx, reminder.spec),
            what=describe_what(ctx, reminder.spec),
            state=ctx.text(_STATES[reminder.paused]),
        )
        for reminder in reminders
    ]
    return Reply("\n".join(lines))


_STATES: dict[PausedBecause | None, Msg] = {
    None: ReminderMsg.REMINDER_STATE_ACTIVE,
    PausedBecause.ADMIN: ReminderMsg.REMINDER_STATE_PAUSED,
    PausedBecause.NO_PERMISSION: ReminderMsg.REMINDER_STATE_NO_PERMISSION,
}


async def _change(ctx: FlowContext, request: ActionRequest) -> Reply:
    assert request.number is not None
    address, now = ctx.address, ctx.now()
    async with ctx.db.transaction() as tx:
        reminder = await group_reminders.find_by_number(
            tx, ctx.cipher, address.platform, address.chat_id, request.number
        )
        if reminder is None:
            return ctx.reply(ReminderMsg.REMINDER_NOT_FOUND, number=request.number)
        match request.action:
            case Action.PAUSE:
                await group_reminders.pause(tx, reminder.id, PausedBecause.ADMIN)
                reply = ctx.reply(ReminderMsg.REMINDER_PAUSED, number=reminder.number)
            case Action.RESUME:
                await group_reminders.resume(tx, reminder.id)
                due, local_date = next_post(reminder, now, strictly_after=True)
                await group_reminders.save_plan(tx, reminder.id, due, local_date)
                reply = ctx.reply(
                    ReminderMsg.REMINDER_RESUMED,
                    number=reminder.number,
                    next=_next_post(_local(due, reminder), ctx.locale),
                )
            case _:
                await group_reminders.delete(tx, reminder.id)
                reply = ctx.reply(ReminderMsg.REMINDER_DELETED, number=reminder.number)
    log_event(
        log, "reminder.changed", platform=address.platform, reminder=reminder.id,
        action=request.action.value,
    )  # fmt: skip
    return reply


def _local(instant: datetime, reminder: GroupReminder) -> datetime:
    return instant.astimezone(reminder_rule(reminder).zone)


def _when(ctx: FlowContext, spec: ReminderSpec) -> str:
    return describe_when(ctx.services.content, ctx.locale, spec)


def describe_what(ctx: FlowContext, spec: ReminderSpec) -> str:
    if spec.own_text is not None:
        return ctx.text(ReminderMsg.REMINDER_WHAT_TEXT)
    if spec.theme is not None:
        theme = words_for(ctx.locale).theme_word(spec.theme)
        return ctx.text(ReminderMsg.REMINDER_WHAT_THEME, theme=theme.replace("_", " "))
    return ctx.text(ReminderMsg.REMINDER_WHAT_ANY)


def _next_post(local: datetime, locale: str) -> str:
    """ "Tue 03 Mar, 09:00", with the day and month in the group's language (CLDR)."""
    return f"{format_date(local, 'EEE dd MMM', locale=babel_locale(locale))}, {local:%H:%M}"
