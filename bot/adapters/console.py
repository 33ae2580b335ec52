"""Chat with Steady in a terminal, or pipe a whole conversation through stdin.

Each input line is one message. A line that is just a number presses that
button of the last message that had buttons, the way a tap would. When the
buttons' own labels hold numbers ("1 day", "3 days"), a typed number is what
the step asked for, so the choices are lettered instead and a number is sent
as the text it is; a crisis reply's buttons are lettered too, so a number meant
for the question before it never presses one.
"""

from __future__ import annotations

import asyncio
import itertools
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from bot.core.events import Address, ButtonPressed, CommandIssued, Event, TextMessage
from bot.core.platform import SentMessage
from bot.core.replies import Button, Reply
from bot.engine.router import Router
from bot.safety.screen import SAFETY_BUTTONS
from bot.storage.user_files import write_user_file

CONSOLE_ADDRESS = Address(platform="console", chat_id="console", user_id="console")


def parse_command(text: str) -> tuple[str, str] | None:
    """`/name@bot args` as (name, args), or None when `text` is not a command."""
    if not text.startswith("/") or len(text) < 2:
        return None
    head, _, args = text[1:].partition(" ")
    name = head.split("@", 1)[0].casefold()
    if not name or not name.replace("_", "").isalnum():
        return None
    return name, args.strip()


class ConsoleAdapter:
    platform = "console"

    def __init__(
        self,
        router: Router,
        stdin: TextIO,
        stdout: TextIO,
        prompt: bool,
        data_dir: Path,
        image_saved: Callable[[Path], str],
        greeting: str = "",
        language_code: str | None = None,
    ) -> None:
        self._router = router
        self._stdin = stdin
        self._stdout = stdout
        self._prompt = prompt
        self._data_dir = data_dir  # charts go to the user's own folder there, removed by /forget
        self._image_saved = image_saved  # the pack's "saved the chart here" line
        self._greeting = greeting
        # Told to the core with every message, as an app tells its user's language.
        self._language = language_code
        self._choices: tuple[Button, ...] = ()
        self._lettered = False
        self._ids = itertools.count(1)

    async def start(self) -> None:
        return None

    async def stop(self) -> None:
        return None

    async def run(self) -> None:
        """Greet, show any question left open (by a restart), then answer each line until
        end of input."""
        lines = _read_lines_in_background(self._stdin)
        if self._greeting and self._prompt:  # someone at a terminal: say how to begin
            self._write(self._greeting)
        for reply in await self._router.reshow(CONSOLE_ADDRESS):
            await self.send(CONSOLE_ADDRESS, reply)
        while True:
            if self._prompt:
                self._write("> ", newline=False)
            line = await lines.get()
            if not line:
                return
            event = self._event_for(line.rstrip("\r\n"))
            if event is None:
                continue
            replies = await self._router.handle(event)
            # Numbers press the buttons of the latest answer only, never of an older one.
            self._choices, self._lettered = (), False
            for reply in replies:
                await self.send(event.address, reply)

    def _event_for(self, line: str) -> Event | None:
        text = line.strip()
        if not text:
            return None
        index = _choice_index(text, self._lettered)
        if index is not None and index < len(self._choices):
            return ButtonPressed(CONSOLE_ADDRESS, self._choices[index].data)
        command = parse_command(text)
        if command is not None:
            return CommandIssued(CONSOLE_ADDRESS, command[0], command[1], self._language)
        return TextMessage(CONSOLE_ADDRESS, line, self._language)

    async def send(self, address: Address, reply: Reply) -> SentMessage | None:
        self._write(reply.text)
        if reply.image is not None:
            # A terminal cannot show the picture: save it, owner-only, and say where.
            # One file per user, replaced each time and deleted by /forget.
            path = write_user_file(
                self._data_dir, address.platform, address.user_id, "progress.png", reply.image.png
            )
            self._write(self._image_saved(path.resolve()))
        if reply.buttons:
            self._choices = reply.flat_buttons
            self._lettered = _numbers_mean_words(self._choices)
            for index, button in enumerate(self._choices):
                self._write(f"  {_choice_key(index, self._lettered)}) {button.label}")
        self._write("")
        return SentMessage(address, str(next(self._ids)))

    async def delete(self, message: SentMessage) -> bool:
        return False

    def _write(self, text: str, newline: bool = True) -> None:
        self._stdout.write(text + ("\n" if newline else ""))
        self._stdout.flush()


_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def _numbers_mean_words(choices: tuple[Button, ...]) -> bool:
    """Letters, not numbers, when a typed number would mean something else: labels that
    hold numbers ("3 days"), and a crisis reply's buttons, which a number typed for the
    question before it (a mood of 1) must never press."""
    if any(button.data.startswith(SAFETY_BUTTONS) for button in choices):
        return True
    return any(char.isdigit() for button in choices for char in button.label)


def _choice_key(index: int, lettered: bool) -> str:
    return _LETTERS[index] if lettered and index < len(_LETTERS) else str(index + 1)


def _choice_index(text: str, lettered: bool) -> int | None:
    """Which shown choice a typed line picks: a letter when lettered, else a number."""
    if lettered:
        key = text.casefold()
        return _LETTERS.index(key) if len(key) == 1 and key in _LETTERS else None
    if text.isascii() and text.isdigit() and int(text) >= 1:
        return int(text) - 1
    return None


def _read_lines_in_background(stream: TextIO) -> asyncio.Queue[str]:
    """Lines from `stream`, then "" at end of input.

    A daemon thread does the blocking reads: a thread from the default executor
    would keep Ctrl-C from ending the program until the next Enter.
    """
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[str] = asyncio.Queue()

    def pump() -> None:
        while True:
            line = stream.readline()
            try:
                loop.call_soon_threadsafe(queue.put_nowait, line)
            except RuntimeError:  # the loop closed (Ctrl-C) while we waited for input
                return
            if not line:
                return

    threading.Thread(target=pump, name="console-stdin", daemon=True).start()
    return queue
