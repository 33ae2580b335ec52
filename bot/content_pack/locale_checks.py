"""The checks of a locale's files beyond their schema: message ids, placeholders, plural
forms and button lengths; command names; countries, crisis resources and exercises; ids
that must be unique. Each adds what it finds to the reader's problems."""

from __future__ import annotations

import string
from collections.abc import Iterable

from bot.content_pack import plurals
from bot.content_pack.countries import country_names
from bot.content_pack.ids import (
    COUNT_NAMES,
    COUNTS,
    NOT_COUNTS,
    PLATFORMS,
    REQUIRED_EXERCISES,
    Command,
    Msg,
    placeholders_for,
)
from bot.content_pack.locale_reader import LocaleReader, Model, Parsed
from bot.content_pack.schema import (
    MAX_BUTTON_LABEL_CHARS,
    CommandsFile,
    CountriesFile,
    CrisisFile,
    ExercisesFile,
    MessagesFile,
    PluralForms,
)

# Messages shown on buttons: platforms cut long labels, so they must stay short.
BUTTON_LABELS = frozenset(
    {
        Msg.MOOD_1, Msg.MOOD_2, Msg.MOOD_3, Msg.MOOD_4, Msg.MOOD_5,
        Msg.URGE_NONE, Msg.URGE_SOME, Msg.URGE_STRONG, Msg.SKIP_NOTE,
        Msg.SNOOZE_1H, Msg.SNOOZE_3H, Msg.SNOOZE_TOMORROW, Msg.REMINDER_CHECKIN_BUTTON,
        Msg.SETTINGS_CHANGE_KEEP, Msg.KEEP_DAYS, Msg.KEEP_LONGEST,
        Msg.SETTINGS_CHANGE_TIMEZONE, Msg.SETTINGS_CHANGE_TIMES, Msg.SETTINGS_CHANGE_DAYS,
        Msg.SETTINGS_CHANGE_QUIET, Msg.SETTINGS_PAUSE, Msg.SETTINGS_STOP, Msg.SETTINGS_RESUME,
        Msg.SETTINGS_DONE, Msg.PAUSE_1, Msg.PAUSE_3, Msg.PAUSE_7,
        Msg.FORGET_YES, Msg.FORGET_NO, Msg.GROUP_OPEN_PRIVATE,
        Msg.SETTINGS_DISCREET_ON, Msg.SETTINGS_DISCREET_OFF,
        Msg.SAFETY_MISREAD_BUTTON, Msg.SAFETY_SHOW_BUTTON, Msg.SAFETY_CHECK_SAFE_BUTTON,
        Msg.SAFETY_CHECK_HELP_BUTTON, Msg.PAUSE_OFFER_YES, Msg.PAUSE_OFFER_NO,
        Msg.SAFETY_MORE_BUTTON, Msg.SAFETY_CARD_BUTTON,
        Msg.PAUSE_BREATHE, Msg.PAUSE_GROUND, Msg.PAUSE_REMEMBER, Msg.PAUSE_WRITE,
        Msg.PAUSE_WAIT, Msg.PAUSE_REACHED_OUT, Msg.PAUSE_DONE, Msg.PAUSE_NEXT,
        Msg.PAUSE_BACK, Msg.PAUSE_ANOTHER, Msg.PAUSE_SKIP, Msg.BREATH_IN,
        Msg.BREATH_HOLD, Msg.BREATH_OUT, Msg.WRITE_KEEP,
        Msg.WRITE_LET_GO, Msg.WAIT_10, Msg.WAIT_20, Msg.WAIT_30,
        Msg.FOLLOWUP_PASSED, Msg.FOLLOWUP_STRONG, Msg.FOLLOWUP_REACHED, Msg.FOLLOWUP_MORE_TIME,
        Msg.PAUSE_NEED_REST, Msg.CHECKIN_URGE_NOW, Msg.REASONS_ADD, Msg.REASONS_REMOVE,
        Msg.REASONS_DONE, Msg.NC_START, Msg.NC_RESET, Msg.NC_STOP,
        Msg.CT_PRACTICAL, Msg.CT_EMOTIONAL, Msg.CT_UNSURE, Msg.CT_CAN_WAIT,
        Msg.CT_SOON, Msg.CT_PEACE, Msg.CT_BOUNDARIES, Msg.CT_TIME,
        Msg.CT_SAFETY, Msg.COUNTRY_OTHER, Msg.COUNTRY_SKIP, Msg.SETTINGS_CHANGE_COUNTRY,
        Msg.CHECKIN_STILL_THERE, Msg.PAUSE_STILL_THERE, Msg.PAUSE_CHECKING, Msg.CHECKING_PASSED,
        Msg.PAUSE_MORE, Msg.REASONS_DRAFTS, Msg.DRAFTS_REMOVE, Msg.DRAFTS_BACK, Msg.NC_PRACTICAL,
        Msg.CT_PRESSURE, Msg.AFFIRM_ANY, Msg.AFFIRM_ANOTHER, Msg.AFFIRM_BY_THEME,
        Msg.AFFIRM_GROUP_FEELINGS, Msg.AFFIRM_GROUP_BOND, Msg.AFFIRM_GROUP_DAYS,
        Msg.AFFIRM_GROUP_STEPS,
        Msg.CARING_OFFER_YES, Msg.CARING_OFFER_NO, Msg.CARING_SOS_BUTTON,
        Msg.CARING_PLAN_BUTTON, Msg.CARING_PAUSE_BUTTON, Msg.CARING_OKAY_BUTTON,
        Msg.LANGUAGE_NAME, Msg.SETTINGS_CHANGE_LANGUAGE, Msg.MISMATCH_BOTH,
        Msg.BEFORE_START_BUTTON, Msg.CT_THREAT_SELF, Msg.CT_THREAT_ME, Msg.CT_PROMISE,
        Msg.CT_NEXT_PAUSE, Msg.CT_NEXT_SOS, Msg.CT_NEXT_DONE,
        *(message for message in Msg if message.value.startswith("theme.")),
    }
)  # fmt: skip


# A feature may keep its messages in a file of its own beside messages.yaml, such as
# messages_plan.yaml, so one long file does not hold every sentence of every feature.
MESSAGE_FILES = ("messages.yaml", "messages_*.yaml")


def read_messages(reader: LocaleReader, complete: bool) -> dict[str, str | PluralForms] | None:
    """The messages of every message file of the locale, each id in at most one file."""
    main = reader.read(MESSAGE_FILES[0], MessagesFile)
    if main is None:
        return None
    merged: dict[str, str | PluralForms] = {}
    where: dict[str, str] = {}
    topic_files = sorted(path.name for path in reader.folder.glob(MESSAGE_FILES[1]))
    for file_name in (MESSAGE_FILES[0], *topic_files):
        parsed = main if file_name == MESSAGE_FILES[0] else reader.read(file_name, MessagesFile)
        if parsed is None:
            continue
        check_messages(reader, file_name, parsed)
        for key, value in parsed.model.messages.items():
            if key in where:
                line = parsed.line(("messages", key))
                reader.add(file_name, line, f"message {key!r} is also in {where[key]}")
            where.setdefault(key, file_name)
            merged.setdefault(key, value)
    if complete:
        for missing in sorted({m.value for m in Msg} - set(merged)):
            reader.add(
                MESSAGE_FILES[0], main.line(("messages",)), f"message {missing!r} is missing"
            )
    return merged


def check_crisis(reader: LocaleReader, parsed: Parsed[CrisisFile]) -> None:
    ids = [r.id for country in parsed.model.countries for r in country.resources]
    if len(ids) != len(set(ids)):
        reader.add("crisis.yaml", 1, "a resource id is used twice")
    known = country_names()
    for index, country in enumerate(parsed.model.countries):
        if country.code not in known:
            line = parsed.line(("countries", index, "code"))
            reader.add("crisis.yaml", line, f"{country.code} is not an ISO 3166-1 country code")


def check_countries(reader: LocaleReader, parsed: Parsed[CountriesFile], complete: bool) -> None:
    """Names for sentences and buttons; the default locale names every ISO country."""
    known = set(country_names())
    listed = {country.code for country in parsed.model.countries}
    for index, country in enumerate(parsed.model.countries):
        if country.code not in known:
            line = parsed.line(("countries", index, "code"))
            reader.add("countries.yaml", line, f"{country.code} is not an ISO 3166-1 country code")
    for code in parsed.model.likely_when_unknown:
        if code not in known:
            line = parsed.line(("likely_when_unknown",))
            reader.add("countries.yaml", line, f"{code} is not an ISO 3166-1 country code")
    if complete and known - listed:
        line = parsed.line(("countries",))
        missing = ", ".join(sorted(known - listed))
        reader.add("countries.yaml", line, f"no name for: {missing}")


def check_exercises(reader: LocaleReader, parsed: ExercisesFile) -> None:
    """Flows name some exercises by id; each must exist and be of the kind the flow expects."""
    kinds = {exercise.id: exercise.kind for exercise in parsed.exercises}
    for exercise_id, kind in REQUIRED_EXERCISES.items():
        if kinds.get(exercise_id) != kind:
            reader.add("exercises.yaml", 1, f"the {kind} exercise {exercise_id!r} is missing")
    titles = [exercise.title for exercise in parsed.exercises]
    if len(titles) != len(set(titles)):
        reader.add("exercises.yaml", 1, "two exercises share a title (they are button labels)")


def check_messages(reader: LocaleReader, file_name: str, parsed: Parsed[MessagesFile]) -> None:
    known = {message.value: message for message in Msg}
    try:
        plural_categories: frozenset[str] | None = plurals.categories(reader.locale)
    except plurals.UnknownPluralRules as error:
        reader.add(file_name, 1, str(error))
        plural_categories = None
    for key, value in parsed.model.messages.items():
        line = parsed.line(("messages", key))
        message_id, _, platform = key.partition("@")
        message = known.get(message_id)
        if message is None:
            reader.add(file_name, line, f"unknown message id {message_id!r}")
            continue
        if platform and platform not in PLATFORMS:
            wanted = ", ".join(sorted(PLATFORMS))
            reader.add(file_name, line, f"{key}: the platform must be one of {wanted}")
            continue
        forms: dict[str, str] = (
            {"": value} if isinstance(value, str) else {str(k): v for k, v in value.items()}
        )
        check_plural_forms(reader, file_name, key, message, forms, line, plural_categories)
        for form, text in forms.items():
            where = f"{key} ({form})" if form else key
            check_text(reader, file_name, where, message, text, line)


def check_plural_forms(
    reader: LocaleReader,
    file_name: str,
    key: str,
    message: Msg,
    forms: dict[str, str],
    line: int,
    categories: frozenset[str] | None,
) -> None:
    """A message with a count has a form for every plural category of its locale."""
    has_forms = "" not in forms
    if message not in COUNTS:
        if has_forms:
            reader.add(file_name, line, f"{key}: has plural forms but holds no count")
        return
    if not has_forms:
        reader.add(
            file_name,
            line,
            f"{key}: holds a count ({{{COUNTS[message]}}}), so it needs plural forms",
        )
        return
    if categories is None:
        return
    missing = categories - set(forms)
    extra = set(forms) - categories - {plurals.EXACT_ZERO}
    if missing:
        wanted = ", ".join(sorted(missing))
        reader.add(file_name, line, f"{key}: plural forms missing: {wanted}")
    if extra:
        unused = ", ".join(sorted(extra))
        reader.add(file_name, line, f"{key}: this locale has no plural form {unused}")


def check_text(
    reader: LocaleReader, file_name: str, where: str, message: Msg, text: str, line: int
) -> None:
    try:
        used = {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}
    except ValueError as error:
        reader.add(file_name, line, f"{where}: bad placeholder: {error}")
        return
    expected = placeholders_for(message)
    # The explicit "=0" form may leave its count unsaid ("no days yet").
    if used != expected and not (where.endswith(f"({plurals.EXACT_ZERO})") and used < expected):
        wanted = ", ".join(sorted(expected)) or "none"
        reader.add(file_name, line, f"{where}: placeholders must be {wanted}")
    counts = sorted(name for name in used & COUNT_NAMES if (message, name) not in NOT_COUNTS)
    if counts and COUNTS.get(message) not in counts:
        reader.add(file_name, line, f"{where}: the count {counts[0]} needs plural forms")
    if message in BUTTON_LABELS and len(text) > MAX_BUTTON_LABEL_CHARS:
        reader.add(
            file_name,
            line,
            f"{where}: button label over {MAX_BUTTON_LABEL_CHARS} chars",
        )


def check_commands(reader: LocaleReader, parsed: Parsed[CommandsFile], complete: bool) -> None:
    names = {command.value for command in Command}
    seen: set[str] = set()
    for index, info in enumerate(parsed.model.commands):
        line = parsed.line(("commands", index))
        if info.name not in names:
            reader.add("commands.yaml", line, f"unknown command {info.name!r}")
        if info.name in seen:
            reader.add("commands.yaml", line, f"command {info.name!r} listed twice")
        seen.add(info.name)
    if complete:
        for missing in sorted(names - seen):
            reader.add(
                "commands.yaml",
                parsed.line(("commands",)),
                f"command {missing!r} has no description",
            )


def check_unique(
    reader: LocaleReader, file_name: str, parsed: Parsed[Model], key: str, ids: Iterable[str]
) -> None:
    seen: set[str] = set()
    for index, item_id in enumerate(ids):
        if item_id in seen:
            reader.add(file_name, parsed.line((key, index, "id")), f"duplicate id {item_id!r}")
        seen.add(item_id)
