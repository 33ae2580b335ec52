"""Typing a label presses the buttons that belong to no flow step, as a tap would.

A crisis reply's buttons ("My plan", "More helplines", a country to dial), the check's
two, the caring offer's, the reply to text nobody asked for: their data is static and
no flow position holds their labels (`typed_labels` does that for a step's own). So the
router notes them here as it returns them, per user, and a later typed "United
Kingdom", "españa", "more helplines" or "I'm safe" presses the one it names, while
its message is still recent (the step expiry). A yes or a no presses the button that
means it only as the very next message: "yes" typed after that answers the question
shown beside it.

Kept in memory, as the caring offer's turn was: one process serves a user's updates
while it polls Telegram or holds Discord's gateway; behind a webhook another worker may
take the next update, and then the typed label is read as any text (the buttons still
answer a tap). A bound keeps users who never write again from costing anything.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta

from bot.content_pack.pack import ContentPack
from bot.core.events import Address
from bot.core.replies import Reply
from bot.flows.names import FlowName
from bot.flows.parsing.answers import is_yes_or_no, typed_words, yes_or_no
from bot.flows.parsing.countries import country_named
from bot.flows.typed_labels import label_key
from bot.safety.screen import DANGER_SUFFIX, SOS_COUNTRY

USERS_REMEMBERED = 10_000
_FLOW_NAMES = frozenset(name.value for name in FlowName)
# Typed alone, a word this long that is in one label only presses it ("help", "safe").
_DISTINCT_WORD = 4

Key = tuple[str, str]  # (platform, user id)


def belongs_to_a_step(data: str) -> bool:
    """`flow:step:token:value`: a step's button, whose labels the step itself keeps."""
    parts = data.split(":", 3)
    return len(parts) == 4 and parts[0] in _FLOW_NAMES


@dataclass(frozen=True, slots=True)
class _Button:
    label: str
    data: str
    answer: str | None  # "yes" or "no" when the button means that answer
    turn: int  # the user's event count when it was shown
    at: datetime


@dataclass(slots=True)
class _Screen:
    turn: int = 0
    buttons: tuple[_Button, ...] = ()


class ButtonsOnScreen:
    def __init__(self, answers: dict[str, str] | None = None) -> None:
        # Static data that means yes or no (the caring offer's two).
        self._answers = answers or {}
        self._users: OrderedDict[Key, _Screen] = OrderedDict()

    def next_turn(self, address: Address) -> None:
        """A new event of this user: what was shown before it is no longer the last."""
        screen = self._users.get(_key(address))
        if screen is not None:
            screen.turn += 1

    def note(self, address: Address, replies: Iterable[Reply], now: datetime) -> None:
        """The static buttons of replies about to be shown; the same button shown again
        replaces the older one (its newer message is the one on screen)."""
        shown = [
            button
            for reply in replies
            for button in reply.flat_buttons
            if button.data and not belongs_to_a_step(button.data)
        ]
        if not shown:
            return
        key = _key(address)
        screen = self._users.pop(key, None) or _Screen()
        fresh = tuple(
            _Button(button.label, button.data, self._answers.get(button.data), screen.turn, now)
            for button in shown
        )
        datas = {button.data for button in fresh}
        kept = tuple(button for button in screen.buttons if button.data not in datas)
        screen.buttons = fresh + kept
        self._users[key] = screen
        while len(self._users) > USERS_REMEMBERED:
            self._users.popitem(last=False)

    def forget(self, address: Address) -> None:
        self._users.pop(_key(address), None)

    def answered(
        self, address: Address, text: str, content: ContentPack, now: datetime, within: timedelta
    ) -> str | None:
        """The data of the button meaning the yes or no `text` is, if it was shown with
        the replies to the event just before this one."""
        answer = yes_or_no(content, text)
        screen = self._users.get(_key(address))
        if answer is None or screen is None:
            return None
        last = screen.turn - 1
        meant = {
            button.data
            for button in screen.buttons
            if button.answer == answer.value and button.turn == last and now - button.at < within
        }
        return meant.pop() if len(meant) == 1 else None

    def typed(
        self, address: Address, text: str, content: ContentPack, now: datetime, within: timedelta
    ) -> str | None:
        """The data of the shown button whose label (or country) `text` names, if exactly
        one. A yes or a no is never a label here (see `answered`)."""
        screen = self._users.get(_key(address))
        if screen is None or is_yes_or_no(content, text):
            return None
        live = [button for button in screen.buttons if now - button.at < within]
        typed = label_key(text)
        if not live or not typed:
            return None
        for matches in (_whole, _leading_words):
            found = {button.data for button in live if matches(typed, button.label)}
            if len(found) == 1:
                return found.pop()
            if found:
                return None
        country = _country_pressed(live, text, content)
        if country is not None:
            return country
        return _distinct_word(live, typed, content)


def _key(address: Address) -> Key:
    return (address.platform, address.user_id)


def _whole(typed: str, label: str) -> bool:
    return typed == label_key(label)


def _leading_words(typed: str, label: str) -> bool:
    words, said = label_key(label).split(), typed.split()
    if len(said) > len(words) or words[: len(said)] != said:
        return False
    return len(said) >= 2 or len(typed) >= 3


def _country_pressed(live: list[_Button], text: str, content: ContentPack) -> str | None:
    """A country named while a crisis reply's countries are on screen: that country's
    numbers, whether or not it was one of the buttons ("germany", "España", "UK")."""
    picker = [button for button in live if button.data.startswith(SOS_COUNTRY)]
    if not picker:
        return None
    stripped = text.strip()
    # A code only as a code is written (GB, DE): "me", "it" or "in" typed alone are words.
    code = country_named(content, stripped, codes=stripped.isupper())
    if code is None or content.emergency_numbers(code) is None:
        return None
    suffix = DANGER_SUFFIX if picker[0].data.endswith(DANGER_SUFFIX) else ""
    return f"{SOS_COUNTRY}{code}{suffix}"


def _distinct_word(live: list[_Button], typed: str, content: ContentPack) -> str | None:
    """One word typed alone that is in exactly one label ("help", "safe", "plan")."""
    if " " in typed or len(typed) < _DISTINCT_WORD:
        return None
    words = typed_words(content)
    if typed in words.yes_words or typed in words.no_words:
        return None
    found = {button.data for button in live if typed in label_key(button.label).split()}
    return found.pop() if len(found) == 1 else None
