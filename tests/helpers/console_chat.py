"""The console as a person uses it: a line typed, what it printed read back."""

from __future__ import annotations

import io
import re
from pathlib import Path

from bot.adapters.console import ConsoleAdapter
from bot.engine.router import Router


class ConsoleUser:
    """Someone at the console: `types` a line and gets back what was printed for it."""

    def __init__(self, router: Router, tmp_path: Path, language_code: str | None = None):
        self.printed = io.StringIO()
        self.console = ConsoleAdapter(
            router, io.StringIO(""), self.printed, False, tmp_path, str, language_code=language_code
        )

    async def types(self, line: str) -> str:
        start = len(self.printed.getvalue())
        await self.console.answer(line)
        return self.printed.getvalue()[start:]

    def key(self, label: str) -> str:
        """The key the console showed last for the button with this label ("a", "3")."""
        keys = re.findall(
            rf"^  (\w+)\) {re.escape(label)}$", self.printed.getvalue(), flags=re.MULTILINE
        )
        assert keys, f"no button {label!r} was shown"
        return keys[-1]

    async def presses(self, label: str) -> str:
        """Types the key shown for that label, as a person at the console would."""
        return await self.types(self.key(label))


def keys_in(printed: str) -> list[str]:
    """Every key printed, in order."""
    return re.findall(r"^  (\w+)\) ", printed, flags=re.MULTILINE)
