"""One way to write each thing, per locale: `content/<locale>/house_style.yaml`.

A pack that spells a word two ways ("judgment" and "judgement"), or names one thing with
two words ("Omitir" beside "Saltar"), reads as written by several hands. The file lists,
for its locale, each form the pack does not use with the one it uses instead, and
patterns for what a word list cannot name (Spain's perfect tense beside the preterite).
`steady content check` fails on any of them in any sentence a user can read.

It also lists the phrases the pack repeats on purpose (the privacy sentence, said the same
way wherever it is said), which the check for shared runs of words leaves alone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError

from bot.content_pack.findings import Finding
from bot.content_pack.pack import LocaleContent
from bot.content_pack.yaml_lines import YamlSyntaxError, load_located

HOUSE_STYLE_FILE = "house_style.yaml"

Words = Annotated[str, StringConstraints(min_length=1, max_length=80)]


class StylePattern(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    pattern: Words
    why: Words


class HouseStyleFile(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    locale: str
    # The form we do not write -> the form we write instead.
    avoid: dict[Words, Words] = Field(default_factory=dict)
    patterns: list[StylePattern] = Field(default_factory=list)
    repeated_on_purpose: list[Annotated[str, StringConstraints(min_length=20)]] = Field(
        default_factory=list
    )


@dataclass(frozen=True, slots=True)
class HouseStyle:
    avoid: dict[str, str]
    patterns: tuple[tuple[re.Pattern[str], str], ...]
    repeated_on_purpose: tuple[str, ...]


def read_house_style(folder: Path, failures: list[Finding]) -> HouseStyle | None:
    """The locale's house style, or None (a locale may have none); a broken file is a
    failure, never a crash."""
    path = folder / HOUSE_STYLE_FILE
    if not path.is_file():
        return None
    try:
        data = load_located(path.read_text("utf-8")).data
        parsed = HouseStyleFile.model_validate(data)
        patterns = tuple(
            (re.compile(entry.pattern, re.IGNORECASE), entry.why) for entry in parsed.patterns
        )
    except (YamlSyntaxError, ValidationError, UnicodeDecodeError, re.error) as error:
        failures.append(Finding(str(path), f"cannot read the house style: {error}"))
        return None
    return HouseStyle(parsed.avoid, patterns, tuple(parsed.repeated_on_purpose))


def _form(form: str) -> re.Pattern[str]:
    """A word or phrase as whole words, any case; a mark such as « as itself."""
    escaped = re.escape(form)
    if not re.match(r"\w", form) or not re.search(r"\w$", form):
        return re.compile(escaped)
    return re.compile(rf"(?<![\w-]){escaped}(?![\w-])", re.IGNORECASE)


def find_off_style(
    content: LocaleContent, style: HouseStyle, texts: list[tuple[str, str]]
) -> list[Finding]:
    checks = [
        (_form(form), f"writes {form!r}: the pack writes {use!r}")
        for form, use in style.avoid.items()
    ]
    checks += [(pattern, why) for pattern, why in style.patterns]
    found = []
    for where, text in texts:
        plain = " ".join(text.split())
        for pattern, message in checks:
            match = pattern.search(plain)
            if match:
                found.append(
                    Finding(f"{content.locale}/{where}", f"{message} ({match.group(0)!r})")
                )
    return found
