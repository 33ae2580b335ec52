"""What every content file's model shares: strict, frozen models, clean text, the ids and
locale codes items are named by, and the platforms' length limits."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, StringConstraints

# The smallest message limit of the platforms we serve (Discord: 2,000 characters).
MAX_MESSAGE_CHARS = 2000
MAX_BUTTON_LABEL_CHARS = 40
MAX_COMMAND_DESCRIPTION_CHARS = 100  # Discord's limit for slash command descriptions

ItemId = Annotated[
    str, StringConstraints(pattern=r"^[a-z][a-z0-9_]*(-[a-z0-9_]+)*$", max_length=48)
]
LocaleCode = Annotated[str, StringConstraints(pattern=r"^[a-z]{2,3}(-[a-z0-9]{2,8})?$")]

HttpsUrl = Annotated[str, StringConstraints(pattern=r"^https://[^\s]+$", max_length=300)]
CountryCode = Annotated[str, StringConstraints(pattern=r"^[A-Z]{2}$")]


class StrictModel(BaseModel):
    """Unknown keys are an error (a misspelt key would otherwise be dropped silently), and
    loaded content is never changed in place."""

    model_config = ConfigDict(extra="forbid", frozen=True)


def clean_text(text: str) -> str:
    """A text without the blank lines and spaces YAML blocks leave around it."""
    stripped = text.strip()
    if not stripped:
        raise ValueError("text is empty")
    return stripped
