"""Talk to the core the way a user would: send text, tap buttons, read what came back."""

from __future__ import annotations

from dataclasses import dataclass, field

from bot.adapters.console import parse_command
from bot.core.events import Address, ButtonPressed, CommandIssued, Event, TextMessage
from bot.core.replies import Button, Reply
from bot.engine.router import Router


@dataclass
class Conversation:
    router: Router
    address: Address
    history: list[Reply] = field(default_factory=list)
    last: list[Reply] = field(default_factory=list)
    language_code: str | None = None  # the app's language, as Telegram or Discord send it

    async def send(self, text: str) -> list[Reply]:
        command = parse_command(text)
        event: Event = (
            CommandIssued(self.address, command[0], command[1], self.language_code)
            if command
            else TextMessage(self.address, text, self.language_code)
        )
        return await self._deliver(event)

    async def press(self, label: str) -> list[Reply]:
        """Tap the newest button with this label (or label prefix), as a user scrolling up would."""
        return await self._deliver(
            ButtonPressed(self.address, self.button(label).data, self.language_code)
        )

    async def press_data(self, data: str) -> list[Reply]:
        return await self._deliver(ButtonPressed(self.address, data, self.language_code))

    def button(self, label: str) -> Button:
        for reply in reversed(self.history):
            for button in reply.flat_buttons:
                if button.label == label or button.label.startswith(label):
                    return button
        labels = [b.label for r in self.history for b in r.flat_buttons]
        raise AssertionError(f"no button {label!r} was ever shown; have {labels}")

    @property
    def text(self) -> str:
        """All text of the latest replies, joined."""
        return "\n".join(reply.text for reply in self.last)

    async def _deliver(self, event: Event) -> list[Reply]:
        self.last = await self.router.handle(event)
        self.history.extend(self.last)
        return self.last
