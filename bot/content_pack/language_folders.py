"""The content folders that hold one file per language rather than one folder per locale:
detection rules, yes and no, and the crisis reply's words, each in more languages than
the pack otherwise speaks."""

from __future__ import annotations

from pathlib import Path

from bot.content_pack.countries import country_names
from bot.content_pack.locale_checks import check_messages, check_unique
from bot.content_pack.locale_reader import LocaleReader, Parsed, Problem
from bot.content_pack.reply_languages import (
    REPLY_MESSAGES,
    ReplyLanguage,
    ReplyLanguageFile,
    button_name_problems,
)
from bot.content_pack.schema import AnswersFile, DetectionFile, MessagesFile

# Detection rules for more languages than the pack has locales: every message is screened
# in all of them, whatever the user's locale (people write their own language to the bot).
# One file per language, `<code>.yaml`, shaped like a locale's detection.yaml.
DETECTION_DIR = "detection"
# Yes and no in more languages than the pack has locales ("ja", "oui", "nein"), one file
# per language, `<code>.yaml`, shaped like a locale's answers.yaml.
ANSWERS_DIR = "answers"


def load_detection_languages(folder: Path, problems: list[Problem]) -> list[DetectionFile]:
    if not folder.is_dir():
        return []
    found: list[DetectionFile] = []
    seen: dict[str, Path] = {}
    for path in sorted(folder.glob("*.yaml")):
        reader = LocaleReader(folder, problems)
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
        check_unique(reader, path.name, parsed, "rules", [rule.id for rule in parsed.model.rules])
        found.append(parsed.model)
    return found


def load_answer_languages(folder: Path, problems: list[Problem]) -> list[AnswersFile]:
    if not folder.is_dir():
        return []
    found: list[AnswersFile] = []
    for path in sorted(folder.glob("*.yaml")):
        reader = LocaleReader(folder, problems)
        reader.locale = path.stem  # each file names its language, as a folder names its locale
        parsed = reader.read(path.name, AnswersFile)
        if parsed is not None:
            found.append(parsed.model)
    return found


def load_reply_languages(folder: Path, problems: list[Problem]) -> dict[str, ReplyLanguage]:
    """The crisis reply's words in languages the pack screens but does not otherwise speak
    (bot/content_pack/reply_languages.py), checked as a locale's messages are."""
    found: dict[str, ReplyLanguage] = {}
    known = sorted(country_names())
    for path in sorted(folder.glob("*.yaml")) if folder.is_dir() else []:
        reader = LocaleReader(folder, problems)
        reader.locale = path.stem
        parsed = reader.read(path.name, ReplyLanguageFile)
        if parsed is None:
            continue
        as_messages: Parsed[MessagesFile] = Parsed(parsed.model, parsed.located)
        check_messages(reader, path.name, as_messages)
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
