"""Read and validate `content/<locale>/*.yaml`, reporting every problem with its line."""

from __future__ import annotations

import string
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Generic, TypeVar

from pydantic import BaseModel, ValidationError

from bot.content_pack import plurals
from bot.content_pack.collector import collector_paused
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
    message_id,
)
from bot.content_pack.pack import ContentPack, LocaleContent
from bot.content_pack.placeholders import COUNT_NAMES, COUNTS, NOT_COUNTS, placeholders_for
from bot.content_pack.reply_languages import (
    REPLIES_DIR,
    REPLY_MESSAGES,
    ReplyLanguage,
    ReplyLanguageFile,
    button_name_problems,
)
from bot.content_pack.schema import (
    MAX_BUTTON_LABEL_CHARS,
    AffirmationsFile,
    AnswersFile,
    CheckInRepliesFile,
    CommandsFile,
    CountriesFile,
    CrisisFile,
    DetectionFile,
    EmergencyNumbers,
    EmergencyNumbersFile,
    ExercisesFile,
    MessagesFile,
    OpeningsFile,
    PluralForms,
    ReflectionsFile,
)
from bot.content_pack.yaml_lines import LocatedYaml, YamlSyntaxError, load_located

# Shared by every locale: the numbers are the same whatever language the reply is in.
EMERGENCY_FILE = "emergency_numbers.yaml"

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


@dataclass(frozen=True, slots=True)
class Problem:
    file: Path
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.message}"


class ContentError(Exception):
    def __init__(self, problems: list[Problem]) -> None:
        super().__init__(f"the content pack has {len(problems)} problem(s)")
        self.problems = problems


Model = TypeVar("Model", bound=BaseModel)


@dataclass(frozen=True, slots=True)
class Parsed(Generic[Model]):
    """A validated file, with the line of every value for later cross-checks."""

    model: Model
    located: LocatedYaml

    def line(self, path: tuple[str | int, ...]) -> int:
        return self.located.line_of(path)


class _LocaleReader:
    """Reads one locale folder, collecting problems instead of stopping at the first."""

    def __init__(self, folder: Path, problems: list[Problem]) -> None:
        self.folder = folder
        self.locale = folder.name
        self.problems = problems

    def read(self, file_name: str, model: type[Model]) -> Parsed[Model] | None:
        path = self.folder / file_name
        if not path.is_file():
            self.problems.append(Problem(path, 1, "file is missing"))
            return None
        try:
            located = load_located(path.read_text("utf-8"))
        except YamlSyntaxError as error:
            self.problems.append(Problem(path, error.line, f"invalid YAML: {error.message}"))
            return None
        except UnicodeDecodeError:
            self.problems.append(Problem(path, 1, "file is not UTF-8"))
            return None
        try:
            parsed = model.model_validate(located.data)
        except ValidationError as error:
            for detail in error.errors():
                where = ".".join(str(part) for part in detail["loc"]) or "file"
                line = located.line_of(detail["loc"])
                self.problems.append(Problem(path, line, f"{where}: {detail['msg']}"))
            return None
        locale = getattr(parsed, "locale", self.locale)
        if locale != self.locale:
            self.problems.append(
                Problem(
                    path,
                    located.line_of(("locale",)),
                    f"locale {locale!r} in folder {self.locale!r}",
                )
            )
        return Parsed(parsed, located)

    def add(self, file_name: str, line: int, message: str) -> None:
        self.problems.append(Problem(self.folder / file_name, line, message))


# Detection rules for more languages than the pack has locales: every message is screened
# in all of them, whatever the user's locale (people write their own language to the bot).
# One file per language, `<code>.yaml`, shaped like a locale's detection.yaml.
DETECTION_DIR = "detection"
# Yes and no in more languages than the pack has locales ("ja", "oui", "nein"), one file
# per language, `<code>.yaml`, shaped like a locale's answers.yaml.
ANSWERS_DIR = "answers"
ANSWERS_FILE = "answers.yaml"


def _load_languages(folder: Path, problems: list[Problem]) -> list[DetectionFile]:
    if not folder.is_dir():
        return []
    found: list[DetectionFile] = []
    seen: dict[str, Path] = {}
    for path in sorted(folder.glob("*.yaml")):
        reader = _LocaleReader(folder, problems)
        reader.locale = path.stem  # each file names its language, as a folder names its locale
        parsed = reader.read(path.name, DetectionFile)
        if parsed is None:
            continue
        ids = [item.id for item in parsed.model.exceptions] + [r.id for r in parsed.model.rules]
        for index, item in enumerate(parsed.model.rules):
            if item.id in seen:
                line = parsed.line(("rules", index, "id"))
                reader.add(path.name, line, f"rule id {item.id!r} is also in {seen[item.id].name}")
        seen.update(dict.fromkeys(ids, path))
        _check_unique(reader, path.name, parsed, "rules", [rule.id for rule in parsed.model.rules])
        found.append(parsed.model)
    return found


def load_detection(content_dir: Path) -> tuple[dict[str, DetectionFile], list[DetectionFile]]:
    """Only the detection rules: each locale's `detection.yaml`, and every language's file
    in `detection/`. For `steady detect`, which screens text and says nothing, so it need
    not read (or wait for) the rest of the pack. Raises ContentError like `load_pack`."""
    problems: list[Problem] = []
    languages = _load_languages(content_dir / DETECTION_DIR, problems)
    locales: dict[str, DetectionFile] = {}
    folders = (
        [path for path in content_dir.iterdir() if path.is_dir()] if content_dir.is_dir() else []
    )
    for folder in sorted(path for path in folders if path.name != DETECTION_DIR):
        if not (folder / "detection.yaml").is_file():
            continue
        reader = _LocaleReader(folder, problems)
        parsed = reader.read("detection.yaml", DetectionFile)
        if parsed is not None:
            ids = [rule.id for rule in parsed.model.rules]
            _check_unique(reader, "detection.yaml", parsed, "rules", ids)
            locales[folder.name] = parsed.model
    if not locales and not problems:
        problems.append(Problem(content_dir, 1, "no locale folder with a detection.yaml"))
    if problems:
        raise ContentError(problems)
    return locales, languages


def _load_answer_languages(folder: Path, problems: list[Problem]) -> list[AnswersFile]:
    if not folder.is_dir():
        return []
    found: list[AnswersFile] = []
    for path in sorted(folder.glob("*.yaml")):
        reader = _LocaleReader(folder, problems)
        reader.locale = path.stem  # each file names its language, as a folder names its locale
        parsed = reader.read(path.name, AnswersFile)
        if parsed is not None:
            found.append(parsed.model)
    return found


def _load_reply_languages(folder: Path, problems: list[Problem]) -> dict[str, ReplyLanguage]:
    """The crisis reply's words in languages the pack screens but does not otherwise speak
    (bot/content_pack/reply_languages.py), checked as a locale's messages are."""
    found: dict[str, ReplyLanguage] = {}
    known = sorted(country_names())
    for path in sorted(folder.glob("*.yaml")) if folder.is_dir() else []:
        reader = _LocaleReader(folder, problems)
        reader.locale = path.stem
        parsed = reader.read(path.name, ReplyLanguageFile)
        if parsed is None:
            continue
        as_messages: Parsed[MessagesFile] = Parsed(parsed.model, parsed.located)
        _check_messages(reader, path.name, as_messages)
        reply_ids = {message.value for message in REPLY_MESSAGES}
        for key in sorted(set(parsed.model.messages) - reply_ids):
            line = parsed.line(("messages", key))
            reader.add(path.name, line, f"{key}: not a message of the crisis reply")
        listed = [*parsed.model.likely_countries, *(c.code for c in parsed.model.countries)]
        for code in sorted(set(listed) - set(known)):
            reader.add(path.name, 1, f"{code} is not an ISO 3166-1 country code")
        language = ReplyLanguage.of(path.stem, parsed.model)
        for problem in button_name_problems(language, known):
            reader.add(path.name, parsed.line(("countries",)), problem)
        found[language.code] = language
    return found


# Folders of content/ that are not locales.
_NOT_LOCALES = frozenset({DETECTION_DIR, REPLIES_DIR, ANSWERS_DIR})


def load_pack(content_dir: Path, default_locale: str) -> ContentPack:
    """The validated pack; raises ContentError listing every problem found."""
    with collector_paused():
        return _load_pack(content_dir, default_locale)


def _load_pack(content_dir: Path, default_locale: str) -> ContentPack:
    problems: list[Problem] = []
    locales: dict[str, LocaleContent] = {}
    if not content_dir.is_dir():
        raise ContentError([Problem(content_dir, 1, "content folder not found")])
    emergency = _load_emergency_numbers(content_dir, problems)
    languages = _load_languages(content_dir / DETECTION_DIR, problems)
    answer_languages = _load_answer_languages(content_dir / ANSWERS_DIR, problems)
    replies = _load_reply_languages(content_dir / REPLIES_DIR, problems)
    folders = (path for path in content_dir.iterdir() if path.is_dir())
    for folder in sorted(path for path in folders if path.name not in _NOT_LOCALES):
        content = _load_locale(folder, problems, is_default=folder.name == default_locale)
        if content is not None:
            locales[content.locale] = content
    if default_locale not in locales and not problems:
        problems.append(
            Problem(content_dir / default_locale, 1, "default locale folder is missing")
        )
    if problems:
        raise ContentError(problems)
    return ContentPack(
        default_locale=default_locale,
        locales=locales,
        emergency=emergency,
        languages=tuple(languages),
        folder=content_dir,
        answer_languages=tuple(answer_languages),
        reply_languages=replies,
    )


def _load_emergency_numbers(
    content_dir: Path, problems: list[Problem]
) -> dict[str, EmergencyNumbers]:
    """Every ISO 3166-1 country must have a number: a crisis reply never goes out without one."""
    reader = _LocaleReader(content_dir, problems)
    parsed = reader.read(EMERGENCY_FILE, EmergencyNumbersFile)
    if parsed is None:
        return {}
    by_code = {entry.code: entry for entry in parsed.model.countries}
    known = set(country_names())
    for index, entry in enumerate(parsed.model.countries):
        if entry.code not in known:
            line = parsed.line(("countries", index))
            reader.add(EMERGENCY_FILE, line, f"{entry.code} is not an ISO 3166-1 country code")
    missing = sorted(known - set(by_code))
    if missing:
        line = parsed.line(("countries",))
        reader.add(EMERGENCY_FILE, line, f"no emergency number for: {', '.join(missing)}")
    return by_code


def check_pack(content_dir: Path, default_locale: str) -> list[Problem]:
    try:
        load_pack(content_dir, default_locale)
    except ContentError as error:
        return error.problems
    return []


# Files whose items carry ids that must be unique: (file, key of the item list).
_ITEM_FILES: tuple[tuple[str, type[BaseModel], str], ...] = (
    ("affirmations.yaml", AffirmationsFile, "affirmations"),
    ("openings.yaml", OpeningsFile, "openings"),
    ("checkin_replies.yaml", CheckInRepliesFile, "checkin_replies"),
    ("exercises.yaml", ExercisesFile, "exercises"),
    ("reflections.yaml", ReflectionsFile, "reflections"),
    ("detection.yaml", DetectionFile, "rules"),
)


def _load_locale(folder: Path, problems: list[Problem], is_default: bool) -> LocaleContent | None:
    before = len(problems)
    reader = _LocaleReader(folder, problems)
    messages = _read_messages(reader, complete=is_default)
    commands = reader.read("commands.yaml", CommandsFile)
    if commands is not None:
        _check_commands(reader, commands, complete=is_default)
    items: dict[str, BaseModel] = {}
    for file_name, model, key in _ITEM_FILES:
        parsed = reader.read(file_name, model)
        if parsed is not None:
            ids = [item.id for item in getattr(parsed.model, key)]
            _check_unique(reader, file_name, parsed, key, ids)
            items[file_name] = parsed.model
    crisis = reader.read("crisis.yaml", CrisisFile)
    if crisis is not None:
        _check_crisis(reader, crisis)
    countries = reader.read("countries.yaml", CountriesFile)
    if countries is not None:
        _check_countries(reader, countries, complete=is_default)
    answers = reader.read(ANSWERS_FILE, AnswersFile)
    exercises = items.get("exercises.yaml")
    if isinstance(exercises, ExercisesFile):
        _check_exercises(reader, exercises)
    if len(problems) > before or not (messages and commands and crisis and countries and answers):
        return None
    detection = _typed(items, "detection.yaml", DetectionFile)
    return LocaleContent(
        locale=folder.name,
        messages={
            key: value if isinstance(value, str) else {str(k): v for k, v in value.items()}
            for key, value in messages.items()
        },
        commands=tuple(commands.model.commands),
        affirmations=_typed(items, "affirmations.yaml", AffirmationsFile).affirmations,
        openings=_typed(items, "openings.yaml", OpeningsFile).openings,
        checkin_replies=_typed(items, "checkin_replies.yaml", CheckInRepliesFile).checkin_replies,
        exercises=_typed(items, "exercises.yaml", ExercisesFile).exercises,
        reflections=_typed(items, "reflections.yaml", ReflectionsFile).reflections,
        detection=detection,
        crisis=crisis.model,
        countries={country.code: country for country in countries.model.countries},
        likely_countries=tuple(countries.model.likely_when_unknown),
        answers=answers.model,
    )


# A feature may keep its messages in a file of its own beside messages.yaml, such as
# messages_plan.yaml, so one long file does not hold every sentence of every feature.
MESSAGE_FILES = ("messages.yaml", "messages_*.yaml")


def _read_messages(reader: _LocaleReader, complete: bool) -> dict[str, str | PluralForms] | None:
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
        _check_messages(reader, file_name, parsed)
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


def _typed(items: dict[str, BaseModel], file_name: str, model: type[Model]) -> Model:
    value = items[file_name]
    assert isinstance(value, model)  # guaranteed by _ITEM_FILES
    return value


def _check_crisis(reader: _LocaleReader, parsed: Parsed[CrisisFile]) -> None:
    ids = [r.id for country in parsed.model.countries for r in country.resources]
    if len(ids) != len(set(ids)):
        reader.add("crisis.yaml", 1, "a resource id is used twice")
    known = country_names()
    for index, country in enumerate(parsed.model.countries):
        if country.code not in known:
            line = parsed.line(("countries", index, "code"))
            reader.add("crisis.yaml", line, f"{country.code} is not an ISO 3166-1 country code")


def _check_countries(reader: _LocaleReader, parsed: Parsed[CountriesFile], complete: bool) -> None:
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


def _check_exercises(reader: _LocaleReader, parsed: ExercisesFile) -> None:
    """Flows name some exercises by id; each must exist and be of the kind the flow expects."""
    kinds = {exercise.id: exercise.kind for exercise in parsed.exercises}
    for exercise_id, kind in REQUIRED_EXERCISES.items():
        if kinds.get(exercise_id) != kind:
            reader.add("exercises.yaml", 1, f"the {kind} exercise {exercise_id!r} is missing")
    titles = [exercise.title for exercise in parsed.exercises]
    if len(titles) != len(set(titles)):
        reader.add("exercises.yaml", 1, "two exercises share a title (they are button labels)")


def _check_messages(reader: _LocaleReader, file_name: str, parsed: Parsed[MessagesFile]) -> None:
    try:
        plural_categories: frozenset[str] | None = plurals.categories(reader.locale)
    except plurals.UnknownPluralRules as error:
        reader.add(file_name, 1, str(error))
        plural_categories = None
    for key, value in parsed.model.messages.items():
        line = parsed.line(("messages", key))
        id_text, _, platform = key.partition("@")
        message = message_id(id_text)
        if message is None:
            reader.add(file_name, line, f"unknown message id {id_text!r}")
            continue
        if platform and platform not in PLATFORMS:
            wanted = ", ".join(sorted(PLATFORMS))
            reader.add(file_name, line, f"{key}: the platform must be one of {wanted}")
            continue
        forms: dict[str, str] = (
            {"": value} if isinstance(value, str) else {str(k): v for k, v in value.items()}
        )
        _check_plural_forms(reader, file_name, key, message, forms, line, plural_categories)
        for form, text in forms.items():
            where = f"{key} ({form})" if form else key
            _check_text(reader, file_name, where, message, text, line)


def _check_plural_forms(
    reader: _LocaleReader,
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


def _check_text(
    reader: _LocaleReader, file_name: str, where: str, message: Msg, text: str, line: int
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


def _check_commands(reader: _LocaleReader, parsed: Parsed[CommandsFile], complete: bool) -> None:
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


def _check_unique(
    reader: _LocaleReader, file_name: str, parsed: Parsed[Model], key: str, ids: Iterable[str]
) -> None:
    seen: set[str] = set()
    for index, item_id in enumerate(ids):
        if item_id in seen:
            reader.add(file_name, parsed.line((key, index, "id")), f"duplicate id {item_id!r}")
        seen.add(item_id)
