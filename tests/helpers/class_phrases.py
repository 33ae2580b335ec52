"""What a class of labelled phrase must get from the safety screen, for the test modules
that assert the classes blind batches found missing (tests/safety/test_classes_*.py)."""

from __future__ import annotations

from bot.content_pack.pack import ContentPack
from bot.safety.rules import Intent, ReplyLevel
from bot.safety.screen import SafetyScreen

# The reply each class wants; ordinary talk only needs no safety reply at all.
WANTED = {
    "crisis": {ReplyLevel.CRISIS},
    "danger": {ReplyLevel.DANGER},
    "softened": {ReplyLevel.CHECK},
    "urge": {ReplyLevel.URGE, ReplyLevel.CONTACTED},
    "contacted": {ReplyLevel.CONTACTED},
    "ordinary": {ReplyLevel.NONE, ReplyLevel.URGE, ReplyLevel.CONTACTED},
}
# The pull back and being contacted: their intent found (the flow the router offers).
INTENT = {"urge": Intent.URGE, "contacted": Intent.CONTACTED}


def assert_gets_what_its_class_wants(
    content: ContentPack, code: str, label: str, text: str
) -> None:
    """Screened as a private message of an English-locale user (every language's rules
    run whatever the locale)."""
    detection = SafetyScreen(content).detector("en").detect(text)
    assert detection.reply in WANTED[label], (code, label, text, detection.reply)
    if label in INTENT:
        assert INTENT[label] in detection.intents, (code, label, text)
