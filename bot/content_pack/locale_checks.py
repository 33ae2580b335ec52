"""The checks of a locale's files beyond their schema: message ids, placeholders, plural
forms and button lengths; command names; countries, crisis resources and exercises; ids
that must be unique. Each adds what it finds to the reader's problems."""

from __future__ import annotations

import string
from collections.abc import Iterable

from bot.content_pack import plurals
from bot.content_pack.commands import REQUIRED_EXERCISES, Command
from bot.content_pack.countries import country_names
from bot.content_pack.ids import (
    ALL_MESSAGES,
    PLATFORMS,
    AffirmMsg,
    AnswersMsg,
    CaringMsg,
    CheckinMsg,
    ContactedMsg,
    DataMsg,
    GeneralMsg,
    Msg,
    NoContactMsg,
    OnboardingMsg,
    PauseMsg,
    ReasonsMsg,
    ReminderMsg,
    SafetyMsg,
    SettingsMsg,
    ThemeMsg,
)
from bot.content_pack.locale_reader import LocaleReader, Model, Parsed
from bot.content_pack.placeholders import COUNT_NAMES, COUNTS, NOT_COUNTS, placeholders_for
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
        CheckinMsg.MOOD_1, CheckinMsg.MOOD_2, CheckinMsg.MOOD_3, CheckinMsg.MOOD_4,
        CheckinMsg.MOOD_5,
        CheckinMsg.URGE_NONE, CheckinMsg.URGE_SOME, CheckinMsg.URGE_STRONG, CheckinMsg.SKIP_NOTE,
        CheckinMsg.SNOOZE_1H, CheckinMsg.SNOOZE_3H, CheckinMsg.SNOOZE_TOMORROW,
        ReminderMsg.REMINDER_CHECKIN_BUTTON,
        SettingsMsg.SETTINGS_CHANGE_KEEP, SettingsMsg.KEEP_DAYS, SettingsMsg.KEEP_LONGEST,
        SettingsMsg.SETTINGS_CHANGE_TIMEZONE, SettingsMsg.SETTINGS_CHANGE_TIMES,
        SettingsMsg.SETTINGS_CHANGE_DAYS,
        SettingsMsg.SETTINGS_CHANGE_QUIET, SettingsMsg.SETTINGS_PAUSE, SettingsMsg.SETTINGS_STOP,
        SettingsMsg.SETTINGS_RESUME,
        SettingsMsg.SETTINGS_DONE, SettingsMsg.PAUSE_1, SettingsMsg.PAUSE_3, SettingsMsg.PAUSE_7,
        DataMsg.FORGET_YES, DataMsg.FORGET_NO, GeneralMsg.GROUP_OPEN_PRIVATE,
        SettingsMsg.SETTINGS_DISCREET_ON, SettingsMsg.SETTINGS_DISCREET_OFF,
        SafetyMsg.SAFETY_MISREAD_BUTTON, SafetyMsg.SAFETY_SHOW_BUTTON,
        SafetyMsg.SAFETY_CHECK_SAFE_BUTTON,
        SafetyMsg.SAFETY_CHECK_HELP_BUTTON, PauseMsg.PAUSE_OFFER_YES, PauseMsg.PAUSE_OFFER_NO,
        SafetyMsg.SAFETY_MORE_BUTTON, SafetyMsg.SAFETY_CARD_BUTTON,
        PauseMsg.PAUSE_BREATHE, PauseMsg.PAUSE_GROUND, PauseMsg.PAUSE_REMEMBER,
        PauseMsg.PAUSE_WRITE,
        PauseMsg.PAUSE_WAIT, PauseMsg.PAUSE_REACHED_OUT, PauseMsg.PAUSE_DONE, PauseMsg.PAUSE_NEXT,
        PauseMsg.PAUSE_BACK, PauseMsg.PAUSE_ANOTHER, PauseMsg.PAUSE_SKIP, PauseMsg.BREATH_IN,
        PauseMsg.BREATH_HOLD, PauseMsg.BREATH_OUT, PauseMsg.WRITE_KEEP,
        PauseMsg.WRITE_LET_GO, PauseMsg.WAIT_10, PauseMsg.WAIT_20, PauseMsg.WAIT_30,
        PauseMsg.FOLLOWUP_PASSED, PauseMsg.FOLLOWUP_STRONG, PauseMsg.FOLLOWUP_REACHED,
        PauseMsg.FOLLOWUP_MORE_TIME,
        PauseMsg.PAUSE_NEED_REST, CheckinMsg.CHECKIN_URGE_NOW, ReasonsMsg.REASONS_ADD,
        ReasonsMsg.REASONS_REMOVE,
        ReasonsMsg.REASONS_DONE, NoContactMsg.NC_START, NoContactMsg.NC_RESET, NoContactMsg.NC_STOP,
        ContactedMsg.CT_PRACTICAL, ContactedMsg.CT_EMOTIONAL, ContactedMsg.CT_UNSURE,
        ContactedMsg.CT_CAN_WAIT,
        ContactedMsg.CT_SOON, ContactedMsg.CT_PEACE, ContactedMsg.CT_BOUNDARIES,
        ContactedMsg.CT_TIME,
        ContactedMsg.CT_SAFETY, OnboardingMsg.COUNTRY_OTHER, OnboardingMsg.COUNTRY_SKIP,
        SettingsMsg.SETTINGS_CHANGE_COUNTRY,
        CheckinMsg.CHECKIN_STILL_THERE, PauseMsg.PAUSE_STILL_THERE, PauseMsg.PAUSE_CHECKING,
        PauseMsg.CHECKING_PASSED,
        PauseMsg.PAUSE_MORE, ReasonsMsg.REASONS_DRAFTS, ReasonsMsg.DRAFTS_REMOVE,
        ReasonsMsg.DRAFTS_BACK, NoContactMsg.NC_PRACTICAL,
        ContactedMsg.CT_PRESSURE, AffirmMsg.AFFIRM_ANY, AffirmMsg.AFFIRM_ANOTHER,
        AffirmMsg.AFFIRM_BY_THEME,
        AffirmMsg.AFFIRM_GROUP_FEELINGS, AffirmMsg.AFFIRM_GROUP_BOND, AffirmMsg.AFFIRM_GROUP_DAYS,
        AffirmMsg.AFFIRM_GROUP_STEPS,
        CaringMsg.CARING_OFFER_YES, CaringMsg.CARING_OFFER_NO, CaringMsg.CARING_SOS_BUTTON,
        CaringMsg.CARING_PLAN_BUTTON, CaringMsg.CARING_PAUSE_BUTTON, CaringMsg.CARING_OKAY_BUTTON,
        OnboardingMsg.LANGUAGE_NAME, SettingsMsg.SETTINGS_CHANGE_LANGUAGE, AnswersMsg.MISMATCH_BOTH,
        AnswersMsg.BEFORE_START_BUTTON, ContactedMsg.CT_THREAT_SELF, ContactedMsg.CT_THREAT_ME,
        ContactedMsg.CT_PROMISE,
        ContactedMsg.CT_NEXT_PAUSE, ContactedMsg.CT_NEXT_SOS, ContactedMsg.CT_NEXT_DONE,
        *ThemeMsg,
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
        for missing in sorted({m.value for m in ALL_MESSAGES} - set(merged)):
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
    known = {message.value: message for message in ALL_MESSAGES}
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
