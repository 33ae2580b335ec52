"""The console: a typed number presses a numbered choice, and is a number where one is asked."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path

from bot.adapters.console import ConsoleAdapter
from bot.content_pack.ids import SafetyMsg
from bot.engine.router import Router
from bot.flows.context import Services
from bot.storage.users import find_user


async def run_console(router: Router, tmp_path: Path, lines: list[str]) -> str:
    out = io.StringIO()
    console = ConsoleAdapter(
        router, io.StringIO("".join(f"{line}\n" for line in lines)), out, False, tmp_path, str
    )
    await console.run()
    return out.getvalue()


async def test_a_number_typed_for_a_pause_is_days_not_a_button(
    router: Router, services: Services, tmp_path: Path
) -> None:
    said = await run_console(
        router, tmp_path, ["/start", "Berlin", "yes", "08:30", "/settings", "6", "3"]
    )
    assert "  a) 1 day" in said and "  c) 7 days" in said  # labels hold numbers: letters
    user = await find_user(services.db, "console", "console")
    assert user is not None and user.paused_until is not None
    # three days today included: back on Thursday 5 March, from midnight in Berlin
    assert f"{user.paused_until:%Y-%m-%d %H:%M}" == "2026-03-04 23:00"


async def test_numbered_choices_still_press_by_number(
    router: Router, services: Services, tmp_path: Path
) -> None:
    said = await run_console(router, tmp_path, ["/checkin", "4", "2", "skip"])
    assert "  1) None" in said and "  2) Some" in said
    assert "  b) 2 · low" in said
    assert "Saved. Thank you" in said


async def test_a_number_typed_after_a_crisis_reply_presses_none_of_its_buttons(
    router: Router, services: Services, tmp_path: Path, text_of: Callable[..., str]
) -> None:
    """With nothing else open, "1" is a message of its own, never "you misread me"."""
    said = await run_console(router, tmp_path, ["i want to kill myself", "1"])
    misread = text_of(SafetyMsg.SAFETY_MISREAD_BUTTON)
    assert f") {misread}" in said and f"1) {misread}" not in said  # lettered, not numbered
    assert text_of(SafetyMsg.SAFETY_MISREAD_REPLY) not in said
