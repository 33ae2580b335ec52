"""Waiting for a condition, never for a length of time."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

POLL_SECONDS = 0.005  # how often the condition is looked at; it bounds nothing


async def until(condition: Callable[[], bool], timeout: float = 30.0, what: str = "") -> None:  # noqa: ASYNC109
    """Return as soon as `condition()` holds; fail after `timeout` seconds (a hang, not a
    slow machine: the timeout is generous so that it never decides a passing test)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        if loop.time() > deadline:
            raise AssertionError(f"still waiting after {timeout}s: {what or condition}")
        await asyncio.sleep(POLL_SECONDS)


async def until_answered(
    condition: Callable[[], Awaitable[bool]],
    timeout: float = 30.0,  # noqa: ASYNC109
    what: str = "",
) -> None:
    """`until` for a condition that has to ask something (a server, a database): asked
    again as soon as each answer comes back, until it holds or `timeout` passes."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not await condition():
        if loop.time() > deadline:
            raise AssertionError(f"still waiting after {timeout}s: {what or condition}")
        await asyncio.sleep(POLL_SECONDS)
