"""The checks `steady content check` adds to loading: words we never use, enough items,
room for a month without repeats, every locale as complete as the default (parity.py),
one way of writing each thing (house_style.py), no run of eight words in two items
(repeats.py), and the verbal tics, reported and held under their limits (tics.py).

Loading (loader.py) keeps the bot from starting on a broken pack; these checks are about
the quality of a pack that loads, so they run only on request.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import get_args

from pydantic import ValidationError

from bot.content_pack.findings import Finding
from bot.content_pack.house_style import find_off_style, read_house_style
from bot.content_pack.pack import ContentPack, LocaleContent
from bot.content_pack.parity import check_parity
from bot.content_pack.reply_check import check_crisis_replies
from bot.content_pack.schema import AvoidPhrasesFile, ReplyCategory
from bot.content_pack.sources_check import check_sources, sources_summary
from bot.content_pack.tics import tic_report
from bot.content_pack.yaml_lines import YamlSyntaxError, load_located

AVOID_FILE = "avoid_phrases.yaml"

# The brief's floor for variety.
MIN_AFFIRMATIONS = 180
MIN_AFFIRMATION_THEMES = 22
MIN_REPLIES_PER_CATEGORY = 20
MIN_OPENINGS_PER_REGISTER = 90
# A month without repeats, for someone with three check-ins a day.
ROTATION_DAYS = 30
CHECKINS_PER_DAY = 3
PERIODS = ("morning", "afternoon", "evening")
REGISTERS = ("neutral", "warm")


@dataclass
class AuditReport:
    failures: list[Finding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # printed, never failing


def audit_pack(pack: ContentPack, content_dir: Path) -> AuditReport:
    report = AuditReport()
    for locale, content in sorted(pack.locales.items()):
        phrases = _avoid_phrases(content_dir / locale / AVOID_FILE, report)
        if phrases:
            report.failures += find_avoided(content, phrases)
        report.failures += find_untimely(content)
        report.failures += check_counts(content)
        report.failures += check_rotation(content)
        style = read_house_style(content_dir / locale, report.failures)
        if style is not None:
            report.failures += find_off_style(content, style, list(texts_of(content)))
        notes, over_limit = tic_report(content)
        report.notes += notes
        report.failures += over_limit
    report.failures += check_crisis_replies(pack)
    report.failures += check_parity(pack)
    report.failures += check_sources(pack, content_dir)
    report.notes += sources_summary(pack)
    return report


def _avoid_phrases(path: Path, report: AuditReport) -> list[str]:
    if not path.is_file():
        report.failures.append(Finding(str(path), "file is missing"))
        return []
    try:
        data = load_located(path.read_text("utf-8")).data
        return AvoidPhrasesFile.model_validate(data).phrases
    except (YamlSyntaxError, ValidationError, UnicodeDecodeError) as error:
        report.failures.append(Finding(str(path), f"cannot read the list: {error}"))
        return []


def _pattern(phrase: str) -> re.Pattern[str]:
    words = [re.escape(word) for word in phrase.casefold().split()]
    return re.compile(r"(?<!\w)" + r"[\s\-]+".join(words) + r"(?!\w)")


def _normalised(text: str) -> str:
    return re.sub(r"\s+", " ", text.replace("\u2019", "'").replace("\u2011", "-")).casefold()


def texts_of(content: LocaleContent) -> Iterator[tuple[str, str]]:
    """Every sentence a user can read, with where it lives. Detection rules are left out:
    they must name the words they recognise."""
    for key, value in content.messages.items():
        forms = {"": value} if isinstance(value, str) else value
        for form, text in forms.items():
            yield f"messages.yaml {key}{f' ({form})' if form else ''}", text
    for info in content.commands:
        yield f"commands.yaml {info.name}", info.description
        yield f"commands.yaml {info.name} (discreet)", info.discreet_description
    for a in content.affirmations:
        yield f"affirmations.yaml {a.id}", a.text
    for o in content.openings:
        yield f"openings.yaml {o.id}", o.text
    for r in content.checkin_replies:
        yield f"checkin_replies.yaml {r.id}", r.text
    for q in content.reflections:
        yield f"reflections.yaml {q.id}", q.text
    for e in content.exercises:
        for part, text in (("title", e.title), ("intro", e.intro), ("closing", e.closing)):
            yield f"exercises.yaml {e.id} {part}", text
        for number, step in enumerate(e.steps, start=1):
            yield f"exercises.yaml {e.id} step {number}", step


def find_avoided(content: LocaleContent, phrases: list[str]) -> list[Finding]:
    patterns = [(phrase, _pattern(phrase)) for phrase in phrases]
    found = []
    for where, text in texts_of(content):
        plain = _normalised(text)
        for phrase, pattern in patterns:
            if pattern.search(plain):
                found.append(Finding(f"{content.locale}/{where}", f"uses {phrase!r}"))
    return found


# Words that belong to one part of the day. An item that uses one must say which part it is
# for (openings and replies have time_of_day), or it could arrive "before bed" at 05:12.
TIME_WORDS = re.compile(
    r"(?<!\w)(?:tonight|tonight's|before bed|go to bed|good morning|good night|"
    r"this morning|this afternoon|this evening|how did you sleep|sleep well|"
    r"breakfast|lunchtime|over dinner|end of the day|start the day|the day ahead)(?!\w)"
)


def find_untimely(content: LocaleContent) -> list[Finding]:
    """Wording tied to a time of day in an item that may be shown at any hour."""
    tag = "give it a time_of_day, or other words"
    untagged = "say it without a time of day"  # affirmations and reflections come at any hour
    timed: list[tuple[str, str, str]] = [
        *(
            (f"openings.yaml {o.id}", o.text, tag)
            for o in content.openings
            if o.time_of_day == "any"
        ),
        *(
            (f"checkin_replies.yaml {r.id}", r.text, tag)
            for r in content.checkin_replies
            if r.time_of_day == "any"
        ),
        *((f"affirmations.yaml {a.id}", a.text, untagged) for a in content.affirmations),
        *((f"reflections.yaml {q.id}", q.text, untagged) for q in content.reflections),
    ]
    found = []
    for where, text, fix in timed:
        match = TIME_WORDS.search(_normalised(text))
        if match:
            found.append(
                Finding(
                    f"{content.locale}/{where}",
                    f"says {match.group(0)!r} but may be shown at any hour: {fix}",
                )
            )
    return found


def check_counts(content: LocaleContent) -> list[Finding]:
    where = content.locale
    found = []
    affirmations = content.affirmations
    themes = {a.theme for a in affirmations}
    if len(affirmations) < MIN_AFFIRMATIONS:
        found.append(
            Finding(
                f"{where}/affirmations.yaml",
                f"{len(affirmations)} affirmations, at least {MIN_AFFIRMATIONS} needed",
            )
        )
    if len(themes) < MIN_AFFIRMATION_THEMES:
        found.append(
            Finding(
                f"{where}/affirmations.yaml",
                f"{len(themes)} themes used, at least {MIN_AFFIRMATION_THEMES} needed",
            )
        )
    per_category = Counter(reply.category for reply in content.checkin_replies)
    for category in get_args(ReplyCategory):
        if per_category[category] < MIN_REPLIES_PER_CATEGORY:
            found.append(
                Finding(
                    f"{where}/checkin_replies.yaml",
                    f"{per_category[category]} replies for {category}, "
                    f"at least {MIN_REPLIES_PER_CATEGORY} needed",
                )
            )
    per_register: Counter[str] = Counter(opening.register for opening in content.openings)
    for register in REGISTERS:
        if per_register[register] < MIN_OPENINGS_PER_REGISTER:
            found.append(
                Finding(
                    f"{where}/openings.yaml",
                    f"{per_register[register]} {register} openings, "
                    f"at least {MIN_OPENINGS_PER_REGISTER} needed",
                )
            )
    return found


def check_rotation(content: LocaleContent) -> list[Finding]:
    """Can a month of check-ins, three a day, go without a repeat?

    Openings: one check-in in each part of the day, every day, within one register
    (discreet users see neutral ones only). Each part needs ROTATION_DAYS openings; an
    "any" opening can serve one part only once, so it fills one part's gap, not three.
    Replies: the month's check-ins spread over how the days went, so the categories
    together must hold one reply per check-in. Affirmations: one per check-in as well.
    """
    where = content.locale
    sends = ROTATION_DAYS * CHECKINS_PER_DAY
    found = []
    for register in REGISTERS:
        fitting = [o for o in content.openings if o.register == register]
        shared = sum(o.time_of_day == "any" for o in fitting)
        gaps = {
            period: max(0, ROTATION_DAYS - sum(o.time_of_day == period for o in fitting))
            for period in PERIODS
        }
        if sum(gaps.values()) > shared:
            short = ", ".join(f"{period} {gap}" for period, gap in gaps.items() if gap)
            found.append(
                Finding(
                    f"{where}/openings.yaml",
                    f"{register}: not enough for {ROTATION_DAYS} days without a repeat "
                    f"(short by {sum(gaps.values()) - shared}; gaps: {short}; "
                    f"{shared} 'any' to share)",
                )
            )
    if len(content.checkin_replies) < sends:
        found.append(
            Finding(
                f"{where}/checkin_replies.yaml",
                f"{len(content.checkin_replies)} replies; {sends} needed for "
                f"{ROTATION_DAYS} days of {CHECKINS_PER_DAY} check-ins without a repeat",
            )
        )
    if len(content.affirmations) < sends:
        found.append(
            Finding(
                f"{where}/affirmations.yaml",
                f"{len(content.affirmations)} affirmations; {sends} needed for "
                f"{ROTATION_DAYS} days without a repeat",
            )
        )
    return found
