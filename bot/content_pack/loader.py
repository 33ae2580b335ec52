"""Read and validate `content/<locale>/*.yaml`, reporting every problem with its line.

This module assembles the pack; reading a file with its lines is locale_reader.py, the
checks of a locale's files are locale_checks.py, and the one-file-per-language folders
(detection, answers, replies) are language_folders.py."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel

from bot.content_pack.collector import collector_paused
from bot.content_pack.countries import country_names
from bot.content_pack.language_folders import (
    ANSWERS_DIR,
    DETECTION_DIR,
    load_answer_languages,
    load_detection_languages,
    load_reply_languages,
)
from bot.content_pack.locale_checks import (
    check_commands,
    check_countries,
    check_crisis,
    check_exercises,
    check_unique,
    read_messages,
)
from bot.content_pack.locale_reader import ContentError, LocaleReader, Model, Problem
from bot.content_pack.pack import ContentPack, LocaleContent
from bot.content_pack.reply_languages import REPLIES_DIR
from bot.content_pack.schema import (
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
    OpeningsFile,
    ReflectionsFile,
)

# Problem and ContentError are part of this module's interface: callers of load_pack and
# check_pack catch and print them.
__all__ = ["ContentError", "Problem", "check_pack", "load_detection", "load_pack"]

# Shared by every locale: the numbers are the same whatever language the reply is in.
EMERGENCY_FILE = "emergency_numbers.yaml"
# Each locale's yes and no (the answers/ folder holds them for more languages).
ANSWERS_FILE = "answers.yaml"


def load_detection(content_dir: Path) -> tuple[dict[str, DetectionFile], list[DetectionFile]]:
    """Only the detection rules: each locale's `detection.yaml`, and every language's file
    in `detection/`. For `steady detect`, which screens text and says nothing, so it need
    not read (or wait for) the rest of the pack. Raises ContentError like `load_pack`."""
    problems: list[Problem] = []
    languages = load_detection_languages(content_dir / DETECTION_DIR, problems)
    locales: dict[str, DetectionFile] = {}
    folders = (
        [path for path in content_dir.iterdir() if path.is_dir()] if content_dir.is_dir() else []
    )
    for folder in sorted(path for path in folders if path.name != DETECTION_DIR):
        if not (folder / "detection.yaml").is_file():
            continue
        reader = LocaleReader(folder, problems)
        parsed = reader.read("detection.yaml", DetectionFile)
        if parsed is not None:
            ids = [rule.id for rule in parsed.model.rules]
            check_unique(reader, "detection.yaml", parsed, "rules", ids)
            locales[folder.name] = parsed.model
    if not locales and not problems:
        problems.append(Problem(content_dir, 1, "no locale folder with a detection.yaml"))
    if problems:
        raise ContentError(problems)
    return locales, languages


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
    languages = load_detection_languages(content_dir / DETECTION_DIR, problems)
    answer_languages = load_answer_languages(content_dir / ANSWERS_DIR, problems)
    replies = load_reply_languages(content_dir / REPLIES_DIR, problems)
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
    reader = LocaleReader(content_dir, problems)
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
    reader = LocaleReader(folder, problems)
    messages = read_messages(reader, complete=is_default)
    commands = reader.read("commands.yaml", CommandsFile)
    if commands is not None:
        check_commands(reader, commands, complete=is_default)
    items: dict[str, BaseModel] = {}
    for file_name, model, key in _ITEM_FILES:
        parsed = reader.read(file_name, model)
        if parsed is not None:
            ids = [item.id for item in getattr(parsed.model, key)]
            check_unique(reader, file_name, parsed, key, ids)
            items[file_name] = parsed.model
    crisis = reader.read("crisis.yaml", CrisisFile)
    if crisis is not None:
        check_crisis(reader, crisis)
    countries = reader.read("countries.yaml", CountriesFile)
    if countries is not None:
        check_countries(reader, countries, complete=is_default)
    answers = reader.read(ANSWERS_FILE, AnswersFile)
    exercises = items.get("exercises.yaml")
    if isinstance(exercises, ExercisesFile):
        check_exercises(reader, exercises)
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


def _typed(items: dict[str, BaseModel], file_name: str, model: type[Model]) -> Model:
    value = items[file_name]
    assert isinstance(value, model)  # guaranteed by _ITEM_FILES
    return value
