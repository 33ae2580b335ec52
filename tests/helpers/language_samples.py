"""A crisis, danger from another person, and words the screen only checks on, written in
each language the crisis reply speaks, with a country where that language is spoken and
an app language its speakers' phones may report. Written for these tests, in the forms
people type (spoken Egyptian Arabic, Indonesian and Tagalog as they are texted).

Every language the screen reads must have a sample here (tests/safety/
test_reply_every_language.py fails otherwise), so a rule file never lands without a test
that its writers are answered in their own words.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Sample:
    country: str  # ISO 3166-1 code of a country where the language is spoken
    app: str  # the platform's language code, as a phone there may send it
    crisis: str
    danger: str
    # Crisis words softened by their context (a negation, the past, someone else): the
    # check. None where the screen has no softening cues for the script (Hindi in
    # Devanagari: its context words are written in Latin letters).
    check: str | None
    screened_as: str = ""  # the rule language, when the reply language is a variant

    def rule_language(self, language: str) -> str:
        return self.screened_as or language


SAMPLES: dict[str, Sample] = {
    "en": Sample("US", "en-US", "i want to die", "he hits me", "years ago i wanted to die"),
    "es": Sample("MX", "es-MX", "ya no quiero vivir", "mi esposo me pega", "no me voy a matar"),
    "de": Sample(
        "DE",
        "de",
        "ich will nicht mehr leben",
        "er schlägt mich",
        "ich wollte mich nie umbringen",
    ),
    "fr": Sample(
        "FR", "fr", "je veux mourir", "il me frappe et j'ai peur de lui", "je ne vais pas me tuer"
    ),
    "pt": Sample("BR", "pt-BR", "quero morrer", "ele me bate", "há anos eu queria morrer"),
    "it": Sample("IT", "it", "voglio morire", "lui mi picchia", "non voglio uccidermi"),
    "nl": Sample("NL", "nl", "ik wil dood", "hij slaat me", "ik heb nooit zelfmoord willen plegen"),
    "pl": Sample("PL", "pl", "chcę umrzeć", "on mnie bije", "nie chcę się zabić"),
    "ru": Sample("RU", "ru", "я хочу умереть", "он меня бьёт", "я не собираюсь убивать себя"),
    "tr": Sample("TR", "tr", "ölmek istiyorum", "beni dövüyor", "hiç intihar etmek istemedim"),
    "hi": Sample("IN", "hi", "मैं मरना चाहता हूँ", "मेरा पति मुझे मारता है", None),
    "hi-latn": Sample(
        "IN",
        "en-IN",
        "mujhe marna hai",
        "mera pati mujhe maarta hai",
        "saal pehle main marna chahta tha",
        screened_as="hi",
    ),
    "ar": Sample("EG", "ar", "أريد أن أموت", "جوزي بيضربني", "زمان كنت عايزة اموت"),
    "zh": Sample("CN", "zh-hans", "我想死", "他打我", "我从来没想过自杀"),
    "ja": Sample("JP", "ja", "死にたい", "彼に殴られた", "昔は死にたかった"),
    "ko": Sample("KR", "ko", "죽고 싶어", "남친한테 또 맞았어", "예전에는 죽고 싶었어"),
    "uk": Sample(
        "UA", "uk", "я хочу померти", "він мене б'є", "я ніколи не думала про самогубство"
    ),
    "sv": Sample("SE", "sv", "jag vill dö", "han slår mig", "jag har aldrig tänkt på självmord"),
    "id": Sample("ID", "id", "aku pengen mati", "dia mukul aku", "dulu aku pengen mati"),
    "tl": Sample(
        "PH", "tl", "gusto ko nang mamatay", "sinaktan niya ako", "hindi ko naisip magpakamatay"
    ),
    "ro": Sample("RO", "ro", "vreau să mor", "mă bate", "nu m-am gândit niciodată la sinucidere"),
    "el": Sample("GR", "el", "θέλω να πεθάνω", "με χτυπάει", "πριν χρόνια ήθελα να πεθάνω"),
    "vi": Sample("VN", "vi", "tôi muốn chết", "anh ta đánh tôi", "tôi chưa bao giờ nghĩ đến tự tử"),
}
