"""Wiring: settings in, a running bot out. Nothing here runs at import time."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from bot.adapters.console import ConsoleAdapter
from bot.config import Settings
from bot.content_pack.loader import load_pack
from bot.core.clock import Clock, SystemClock
from bot.core.router import Router
from bot.flows.context import Services
from bot.logs import get_logger, log_event
from bot.storage.crypto import TextCipher, load_or_create_key
from bot.storage.db import Database
from bot.storage.meta import verify_key

log = get_logger("app")


@asynccontextmanager
async def open_services(settings: Settings, clock: Clock | None = None) -> AsyncIterator[Services]:
    """Content, key and database, checked before anyone is answered; closed on exit.

    Raises ContentError, WrongKeyError or MigrationError with a clear message.
    """
    content = load_pack(settings.content_dir, settings.default_locale)
    cipher = TextCipher(load_or_create_key(settings.encryption_key, settings.key_file))
    db = await Database.open(settings.database_file)
    try:
        await verify_key(db, cipher)
        yield Services(db=db, cipher=cipher, content=content, clock=clock or SystemClock())
    finally:
        await db.close()


async def run_console(settings: Settings, prompt: bool) -> None:
    async with open_services(settings) as services:
        log_event(log, "console.started")
        console = ConsoleAdapter(Router(services), sys.stdin, sys.stdout, prompt=prompt)
        await console.run()
        log_event(log, "console.stopped")
