"""Chat with Steady in a terminal, or pipe a whole conversation through stdin.

Each input line is one message. Every button of a message still on screen can be
pressed by its key, the way a tap would, with keys unique across those messages:
the open question's buttons are numbered, and buttons that belong to no question
(a crisis reply's, the caring offer's) are lettered and keep their letters while
their message is on screen, whatever is asked after them. When a question's own
labels hold numbers ("1 day", "3 days"), a typed number is what the step asked for,
so its choices are lettered too (with letters no other shown message uses) and a
number is sent as the text it is.

A message's buttons leave the screen when a newer message replaces them (a newer
question replaces the older one's, which are stale; a button shown again replaces
its older copy), or after `ON_SCREEN_TURNS` more lines typed.
"""

from __future__ import annotations

import asyncio
import itertools
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from bot.core.events import Address, ButtonPressed, CommandIssued, Event, TextMessage
from bot.core.platform import SentMessage
from bot.core.replies import Button, Reply
from bot.engine.router import Router
from bot.flows.on_screen import belongs_to_a_step
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
        self._keys = ShownKeys()
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
            await self.answer(line.rstrip("\r\n"))

    async def answer(self, line: str) -> None:
        """One line typed: a key pressed, a command or a message, and every reply printed."""
        event = self._event_for(line)
        if event is None:
            return
        replies = await self._router.handle(event)
        self._keys.next_turn()
        for reply in replies:
            await self.send(event.address, reply)

    def _event_for(self, line: str) -> Event | None:
        text = line.strip()
        if not text:
            return None
        pressed = self._keys.pressed(text)
        if pressed is not None:
            return ButtonPressed(CONSOLE_ADDRESS, pressed.data, self._language)
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
        pressable = tuple(button for button in reply.flat_buttons if button.data)
        for key, button in self._keys.show(pressable):
            self._write(f"  {key}) {button.label}")
        self._write("")
        return SentMessage(address, str(next(self._ids)))

    async def delete(self, message: SentMessage) -> bool:
        return False

    def _write(self, text: str, newline: bool = True) -> None:
        self._stdout.write(text + ("\n" if newline else ""))
        self._stdout.flush()


_LETTERS = "abcdefghijklmnopqrstuvwxyz"
# Lines typed after which a message with buttons has scrolled out of sight.
ON_SCREEN_TURNS = 6


@dataclass
class _OnScreen:
    keys: tuple[tuple[str, Button], ...]
    question: bool  # a flow step's buttons (numbered unless their labels hold numbers)
    turn: int


class ShownKeys:
    """The keys of every button still on screen, unique across the messages shown."""

    def __init__(self) -> None:
        self._shown: list[_OnScreen] = []
        self._turn = 0

    def next_turn(self) -> None:
        self._turn += 1
        self._shown = [shown for shown in self._shown if self._turn - shown.turn <= ON_SCREEN_TURNS]

    def show(self, buttons: tuple[Button, ...]) -> tuple[tuple[str, Button], ...]:
        """Keys for a message's buttons, the message now on screen."""
        if not buttons:
            return ()
        question = any(belongs_to_a_step(button.data) for button in buttons)
        datas = {button.data for button in buttons}
        kept: list[_OnScreen] = []
        for shown in self._shown:
            if question and shown.question:
                continue  # a newer question: the older one's buttons are stale
            # A button shown again below is pressed there; the rest keep their keys.
            left = tuple((key, button) for key, button in shown.keys if button.data not in datas)
            if left:
                kept.append(_OnScreen(left, shown.question, shown.turn))
        self._shown = kept
        numbered = question and not any(char.isdigit() for b in buttons for char in b.label)
        if numbered:
            keys = tuple((str(index + 1), button) for index, button in enumerate(buttons))
        else:
            used = {key for shown in self._shown for key, _ in shown.keys}
            free = [letter for letter in _LETTERS if letter not in used]
            keys = tuple(zip(free, buttons, strict=False))
        self._shown.append(_OnScreen(keys, question, self._turn))
        return keys

    def pressed(self, text: str) -> Button | None:
        key = text.casefold()
        for shown in reversed(self._shown):
            for shown_key, button in shown.keys:
                if shown_key == key:
                    return button
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
