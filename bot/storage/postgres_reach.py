"""Reaching PostgreSQL at start-up: waiting while it comes up, and saying in one line
what is wrong when it will not let us in.

A server that is starting (or not listening yet, or not resolvable yet, as in a
container started beside it) is tried again, with growing pauses, for
STEADY_START_RETRY. What waiting cannot fix (a role or a database that does not
exist, a password refused, SSL asked for and not offered) stops start-up at once.
Every message names STEADY_DATABASE_URL and what in it to check, never the password.
"""

from __future__ import annotations

import asyncio
import socket
import ssl
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import timedelta
from urllib.parse import parse_qs, urlsplit

import asyncpg

from bot.logs import get_logger, log_event
from bot.storage.opening import DatabaseUnavailable

log = get_logger("db")

# One try waits this long for the server's answer: a host that drops packets is
# retried, not waited on for asyncpg's own minute.
CONNECT_TIMEOUT_SECONDS = 10.0
_FIRST_PAUSE, _LONGEST_PAUSE = 0.25, 5.0

Sleep = Callable[[float], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class _Target:
    where: str  # host:port, as the operator wrote it (or the defaults)
    user: str
    database: str
    sslmode: str | None

    @classmethod
    def of(cls, url: str) -> _Target:
        parts = urlsplit(url)
        user = parts.username or "the current user's name"
        database = parts.path.lstrip("/") or (parts.username or "the user's name")
        sslmode = parse_qs(parts.query).get("sslmode", [None])[-1]
        where = f"{parts.hostname or 'localhost'}:{parts.port or 5432}"
        return cls(where, user, database, sslmode)


async def wait_for_postgres(url: str, retry: timedelta, sleep: Sleep = asyncio.sleep) -> None:
    """Return once a connection to `url` opens (it is closed again); raise
    DatabaseUnavailable at once for what waiting cannot fix, or after `retry` of tries."""
    target = _Target.of(url)
    deadline = time.monotonic() + retry.total_seconds()
    pause = _FIRST_PAUSE
    tries = 0
    while True:
        tries += 1
        try:
            connection = await asyncpg.connect(url, timeout=CONNECT_TIMEOUT_SECONDS)
        except Exception as error:
            reason = _waiting_helps(error, target)
            if reason is None:
                raise DatabaseUnavailable(_refused(error, target)) from None
            if time.monotonic() + pause > deadline:
                raise DatabaseUnavailable(
                    f"cannot reach PostgreSQL at {target.where}, as STEADY_DATABASE_URL says"
                    f" ({reason}; tried {tries} times over {_duration(retry)}). Check the host"
                    " and port in the URL and that the server is running; STEADY_START_RETRY"
                    " sets how long to keep trying."
                ) from None
            log_event(log, "db.waiting", tries=tries)
            await sleep(pause)
            pause = min(pause * 2, _LONGEST_PAUSE)
            continue
        await connection.close()
        return


def explained(error: BaseException, url: str) -> DatabaseUnavailable | None:
    """A connection error met after the wait (opening the pool, taking the running
    lock) as the same one line; None for an error that is not about connecting."""
    target = _Target.of(url)
    if isinstance(error, DatabaseUnavailable):
        return error
    if _waiting_helps(error, target) is not None:
        return DatabaseUnavailable(
            f"lost PostgreSQL at {target.where} (STEADY_DATABASE_URL) while starting:"
            f" {_waiting_helps(error, target)}. Start Steady again once it is back."
        )
    if isinstance(error, asyncpg.PostgresError | ConnectionError | ssl.SSLError):
        return DatabaseUnavailable(_refused(error, target))
    return None


def _waiting_helps(error: BaseException, target: _Target) -> str | None:
    """What is wrong, in a few words, when it may pass (the server is on its way)."""
    if isinstance(error, asyncpg.CannotConnectNowError):
        return "the server is starting up or shutting down"
    if isinstance(error, asyncpg.TooManyConnectionsError):
        return "the server has no connection to spare"
    if isinstance(error, socket.gaierror):
        return f"no host by the name {target.where.rsplit(':', 1)[0]!r} is known"
    if isinstance(error, ConnectionRefusedError):
        return "connection refused: nothing listens there"
    if isinstance(error, TimeoutError | asyncio.TimeoutError):
        return "no answer"
    if isinstance(error, OSError) and not isinstance(error, ConnectionError | ssl.SSLError):
        return (error.strerror or type(error).__name__).lower()
    return None


def _refused(error: BaseException, target: _Target) -> str:
    """The one line for what waiting cannot fix."""
    server = f"PostgreSQL at {target.where}"
    text = str(error)
    if isinstance(error, asyncpg.InvalidPasswordError):
        # A server that asks for a password says the same for a role it does not have.
        return (
            f"{server} refused the password for the role {target.user!r} given in"
            " STEADY_DATABASE_URL: the password is wrong, or there is no such role. Check"
            " the user and the password in the URL."
        )
    if isinstance(error, asyncpg.InvalidCatalogNameError):
        return (
            f"the database {target.database!r} named in STEADY_DATABASE_URL does not exist"
            f" on {server}. Create it (createdb {target.database}), or correct the URL."
        )
    if isinstance(error, asyncpg.InvalidAuthorizationSpecificationError):
        if "does not exist" in text:
            return (
                f"the role {target.user!r} named in STEADY_DATABASE_URL does not exist on"
                f" {server}. Create it (createuser {target.user}), or correct the user in"
                " the URL."
            )
        if "pg_hba.conf" in text:
            ssl_said = (
                " (the server may want SSL: sslmode=require)" if "no encryption" in text else ""
            )
            return (
                f"{server} accepts no connection from this host for the role"
                f" {target.user!r} and database {target.database!r} (pg_hba.conf){ssl_said}."
                " Allow it there, or correct STEADY_DATABASE_URL."
            )
    if isinstance(error, ConnectionError | ssl.SSLError) and "ssl" in text.casefold():
        if "rejected ssl" in text.casefold():
            return (
                f"STEADY_DATABASE_URL asks for SSL (sslmode={target.sslmode or 'require'}), and"
                f" {server} does not offer it. Turn SSL on at the server, or change sslmode"
                " in the URL."
            )
        return (
            f"SSL with {server} failed ({_one_line(text)}). Check the server's certificate"
            " and sslmode in STEADY_DATABASE_URL."
        )
    return f"{server} refused STEADY_DATABASE_URL's connection: {_one_line(text)}."


def _one_line(text: str) -> str:
    return " ".join(text.split()).rstrip(".") or "no reason given"


def _duration(span: timedelta) -> str:
    seconds = int(span.total_seconds())
    return f"{seconds // 60} min" if seconds >= 60 and seconds % 60 == 0 else f"{seconds} s"
