"""Times of day in English words, rewritten into the forms `times.read_time` reads:
"eight pm" -> "8 pm", "half eight" -> "8:30", "quarter to nine" -> "8:45", "9ish" -> "9",
"seven in the evening" -> "7 pm"; and a part of the day said alone ("evening", "por la
mañana"), which is answered with times to choose from rather than refused.
"""

from __future__ import annotations

import re
from enum import StrEnum


class DayPart(StrEnum):
    MORNING = "morning"
    LUNCH = "lunch"
    AFTERNOON = "afternoon"
    EVENING = "evening"
    NIGHT = "night"


# The times offered for a part of the day.
PART_TIMES = {
    DayPart.MORNING: ("07:00", "08:00", "09:00", "10:00"),
    DayPart.LUNCH: ("12:00", "12:30", "13:00"),
    DayPart.AFTERNOON: ("14:00", "15:00", "16:00", "17:00"),
    DayPart.EVENING: ("18:00", "19:00", "20:00", "21:00"),
    DayPart.NIGHT: ("21:00", "22:00", "23:00"),
}

# The text has been casefolded and stripped of accents, and keeps its digits and colons.
_PARTS = (
    (re.compile(r"^(?:in the |early |late |every |each |on )?mornings?$|^(?:por la |de )?manana$"
                r"|^(?:por las |las )?mananas$|^(?:al |de )?madrugada$"), DayPart.MORNING),
    (re.compile(r"^(?:at )?lunch(?: ?time)?$|^(?:a la hora de(?:l)? )?(?:almuerzo|comida)$"),
     DayPart.LUNCH),
    (re.compile(r"^(?:in the |early |late |every |each |on )?afternoons?$"
                r"|^(?:por la |de |a la )?tarde$|^(?:por las )?tardes$|^after (?:school|work)$"),
     DayPart.AFTERNOON),
    (re.compile(r"^(?:in the |early |late |every |each |on |this )?evenings?$|^tonight$"
                r"|^after dinner$|^(?:al )?anochecer$"), DayPart.EVENING),
    (re.compile(r"^(?:at |late at |every |each )?nights?$|^(?:at )?bed ?time$|^before bed$"
                r"|^(?:por la |de |en la )?noche$|^(?:por las )?noches$|^antes de dormir$"),
     DayPart.NIGHT),
)  # fmt: skip

_NUMBERS = {
    word: number
    for number, word in enumerate(
        ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
         "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen",
         "eighteen", "nineteen", "twenty"),
        start=1,
    )
}  # fmt: skip
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50}
_MINUTE_WORDS = (
    r"(?:(?:twenty|thirty|forty|fifty)(?:[ -](?:one|two|three|four|five|six|seven|eight|nine))?"
    r"|oh[ -](?:one|two|three|four|five|six|seven|eight|nine)"
    r"|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen"
    r"|one|two|three|four|five|six|seven|eight|nine)"
)
_HOUR_WORDS = r"(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|\d{1,2})"
_FILLER_BEFORE = re.compile(
    r"^(?:(?:at|around|about|roughly|approximately|approx|say|maybe|by|before|after|from)\s+)+"
)
_FILLER_AFTER = re.compile(r"\s*(?:-?\s*ish|or so|o'? ?clock|oclock|sharp|please)\s*$")
_HALF_PAST = re.compile(rf"^half\s+(?:past\s+)?({_HOUR_WORDS})\b")
_QUARTER = re.compile(rf"^(?:a\s+)?quarter\s+(past|after|to|before|of)\s+({_HOUR_WORDS})\b")
_MINUTES_PAST = re.compile(
    rf"^({_MINUTE_WORDS}|\d{{1,2}})\s+(?:minutes?\s+)?(past|after|to|before|of)\s+({_HOUR_WORDS})\b"
)
_HOUR_MINUTES = re.compile(rf"^({_HOUR_WORDS})\s+({_MINUTE_WORDS})\b")
_HOUR = re.compile(rf"^({_HOUR_WORDS})\b")
_MORNING = re.compile(r"\s*\b(?:in the morning|this morning|a\.?m\.?)$")
_LATER = re.compile(r"\s*\b(?:in the afternoon|this afternoon|in the evening|this evening"
                    r"|tonight|p\.?m\.?)$")  # fmt: skip
_AT_NIGHT = re.compile(r"\s*\bat night$")


def day_part(phrase: str) -> DayPart | None:
    """The part of the day `phrase` (casefolded, no accents) is alone, if it is one."""
    cleaned = phrase.strip(" .!?")
    for pattern, part in _PARTS:
        if pattern.match(cleaned):
            return part
    return None


def from_english(phrase: str) -> str:
    """ "quarter to nine in the evening" -> "8:45 pm". Text that holds none of these
    words comes back as it was."""
    phrase = _FILLER_AFTER.sub("", _FILLER_BEFORE.sub("", phrase.strip())).strip()
    half = ""
    if (found := _MORNING.search(phrase)) is not None:
        phrase, half = phrase[: found.start()], "am"
    elif (found := _LATER.search(phrase)) is not None:
        phrase, half = phrase[: found.start()], "pm"
    elif (found := _AT_NIGHT.search(phrase)) is not None:
        phrase, half = phrase[: found.start()], "night"
    phrase = _FILLER_AFTER.sub("", phrase).strip()
    clock = _clock(phrase)
    if clock is None:
        return phrase if not half or half == "night" else f"{phrase} {half}"
    hour, minute = clock
    if half == "night":  # "eleven at night", "two at night": the night runs past midnight
        half = "am" if hour == 12 or hour < 5 else "pm"
    if half and hour <= 12:
        return f"{hour}:{minute:02d} {half}"
    return f"{hour}:{minute:02d}"


def _clock(phrase: str) -> tuple[int, int] | None:
    """(hour, minute) as said, before am or pm is applied; None if it is not words."""
    if (found := _HALF_PAST.match(phrase)) is not None and _rest_is_empty(phrase, found):
        return _hour(found[1]), 30
    if (found := _QUARTER.match(phrase)) is not None and _rest_is_empty(phrase, found):
        return _before_or_after(_hour(found[2]), 15, found[1])
    if (found := _MINUTES_PAST.match(phrase)) is not None and _rest_is_empty(phrase, found):
        return _before_or_after(_hour(found[3]), _minutes(found[1]), found[2])
    if (found := _HOUR_MINUTES.match(phrase)) is not None and _rest_is_empty(phrase, found):
        return _hour(found[1]), _minutes(found[2])
    if (found := _HOUR.match(phrase)) is not None and _rest_is_empty(phrase, found):
        if found[1].isdigit():
            return None  # digits alone are read as they are
        return _hour(found[1]), 0
    return None


def _rest_is_empty(phrase: str, found: re.Match[str]) -> bool:
    return not phrase[found.end() :].strip()


def _before_or_after(hour: int, minutes: int, word: str) -> tuple[int, int]:
    if word in {"to", "before", "of"}:
        return (hour - 1) % 24 or (12 if hour == 1 else 0), 60 - minutes
    return hour, minutes


def _hour(word: str) -> int:
    return int(word) if word.isdigit() else _NUMBERS[word]


def _minutes(words: str) -> int:
    if words.isdigit():
        return int(words)
    total = 0
    for word in re.split(r"[ -]", words):
        if word == "oh":
            continue
        total += _TENS.get(word, _NUMBERS.get(word, 0))
    return total
