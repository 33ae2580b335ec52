"""The safety screen every piece of free text passes before any flow sees it.

Crisis detection itself arrives with the pause-flow work; until then the
screen finds nothing, but the router already calls it first, so adding the
rules changes no call site.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.core.replies import Reply


@dataclass(frozen=True, slots=True)
class ScreenResult:
    replies: tuple[Reply, ...]


class SafetyScreen:
    def screen(self, text: str, locale: str) -> ScreenResult | None:
        """Replies that must go out before anything else, or None when nothing was found."""
        return None
