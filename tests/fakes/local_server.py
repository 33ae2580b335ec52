"""What the two fake platforms share: an aiohttp app served on a free loopback port,
started and closed with `async with`, and the fake's own bugs surfaced at the end."""

from __future__ import annotations

import socket
from typing import Self

from aiohttp import web


class LocalServer:
    """One aiohttp app on 127.0.0.1, on a port the system chose."""

    def __init__(self, owner: str) -> None:
        self._owner = owner  # the fake's name, for the error when it is used unstarted
        self._runner: web.AppRunner | None = None
        self.port = 0

    @property
    def url(self) -> str:
        if self._runner is None:
            raise RuntimeError(f"{self._owner} is not started; use `async with {self._owner}()`")
        return f"http://127.0.0.1:{self.port}"

    async def start(self, app: web.Application) -> None:
        # A short shutdown timeout: a test that ends mid long-poll must not wait 60 s.
        self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=1.0)
        await self._runner.setup()
        # Binding port 0 ourselves gives a free port without racing another process for it.
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.bind(("127.0.0.1", 0))
        self.port = sock.getsockname()[1]
        await web.SockSite(self._runner, sock).start()

    async def close(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()


class ServedFake:
    """`async with` for a fake: started on entry, closed on exit, and any exception the
    fake caught inside its own handlers raised then, unless the test already failed."""

    internal_errors: list[Exception]

    async def start(self) -> None:
        raise NotImplementedError

    async def close(self) -> None:
        raise NotImplementedError

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, *rest: object) -> None:
        await self.close()
        if self.internal_errors and exc_type is None:
            raise RuntimeError(
                f"{type(self).__name__} failed internally: {self.internal_errors!r}"
            ) from self.internal_errors[0]
