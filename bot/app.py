"""Wiring: settings in, a running bot out. Nothing here runs at import time."""

from __future__ import annotations

import asyncio
import gc
import signal
import sys
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass

from bot.adapters.console import ConsoleAdapter
from bot.adapters.discord.adapter import DiscordAdapter, DiscordConfig
from bot.adapters.discord.inbound import PLATFORM as PLATFORM_DISCORD
from bot.adapters.telegram.adapter import DELETE_WINDOW, TelegramAdapter, TelegramConfig
from bot.adapters.telegram.inbound import PLATFORM as PLATFORM_TELEGRAM
from bot.config import Settings, decode_key
from bot.content_pack.ids import GeneralMsg, HistoryMsg
from bot.content_pack.loader import load_pack
from bot.content_pack.pack import ContentPack
from bot.content_pack.pattern_book import BookUse, pattern_book
from bot.coordination.leadership import Leadership, Role
from bot.coordination.send_budget import SendBudget
from bot.coordination.workers import coordination
from bot.core.clock import Clock, SystemClock
from bot.core.platform import Adapter
from bot.delivery.outbox import Outbox
from bot.engine.due_work import build_dispatcher, outbox_effects
from bot.engine.router import Router
from bot.flows.context import Services
from bot.logs import get_logger, log_event
from bot.observability.health import HealthCheck, tick_limit
from bot.observability.http import ObservabilityServer
from bot.platform_roles import FollowerStart, campaign, led_parts
from bot.platform_start import start_with_retries
from bot.safety.screen import SafetyScreen
from bot.safety.second_stage import stage_for
from bot.scheduling.dispatcher import Dispatcher
from bot.scheduling.planner import schedule_unplanned
from bot.scheduling.runner import TickRunner
from bot.storage.crypto import TextCipher, WrongKeyError, load_or_create_key
from bot.storage.data_folder import prepare_data_folder
from bot.storage.db import Database
from bot.storage.key_rotation import old_key_file, recover
from bot.storage.meta import has_key_check, verify_key
from bot.storage.opening import opened_database
from bot.storage.retention import daily_purge
from bot.storage.user_files import remove_legacy_charts

log = get_logger("app")

SHUTDOWN_DRAIN_SECONDS = 5.0


@asynccontextmanager
async def open_services(
    settings: Settings, clock: Clock | None = None, content: ContentPack | None = None
) -> AsyncIterator[Services]:
    """Content, key and database, checked before anyone is answered; closed on exit.

    A pack already loaded and validated may be passed in: it is read-only, so tests
    share one instead of loading the same files again for every case.
    Raises ContentError, DataFolderError, WrongKeyError, MigrationError or AlreadyRunningError.
    """
    book: BookUse | None = None
    if content is None:
        content, book = loaded_pack(settings)
    if settings.database_url is None:  # the file lives there: the folder comes first
        prepare_data_folder(settings.data_dir)
        if settings.database_file.parent != settings.data_dir:
            prepare_data_folder(settings.database_file.parent)
    # Nothing is written (no folder, no key file) before the database lets this worker in.
    async with opened_database(settings) as db:
        prepare_data_folder(settings.data_dir)
        if book is not None:
            await asyncio.to_thread(book.keep)
        await _refuse_a_new_key_for_sealed_data(db, settings)
        cipher = TextCipher(load_or_create_key(settings.encryption_key, settings.key_file))
        cipher = await _settled_cipher(db, cipher, settings)
        stage_for(content.folder).load_in_background()  # the learned model, checked now
        yield Services(
            db=db,
            cipher=cipher,
            content=content,
            clock=clock or SystemClock(),
            retention_days=settings.retention_days,
            step_expiry=settings.step_expiry,
            data_dir=settings.data_dir,
            safety_model_raises=settings.safety_model_raises,
        )


def loaded_pack(settings: Settings) -> tuple[ContentPack, BookUse]:
    """The pack, and its safety screen compiled, taking the detection patterns from the
    book of compiled patterns in the data folder (content_pack/pattern_book.py) where it
    holds them: compiling them from their text is most of what a start costs."""
    with pattern_book(settings.data_dir) as book:
        content = load_pack(settings.content_dir, settings.default_locale)
        SafetyScreen(content)  # the detectors, compiled once per pack, kept for the Router
    return content, book


async def _refuse_a_new_key_for_sealed_data(db: Database, settings: Settings) -> None:
    """A worker with no key of its own (no STEADY_ENCRYPTION_KEY, no key file) would make
    one: on a database whose data is sealed under another key it is refused before any
    file is written, not after."""
    if settings.encryption_key is not None or settings.key_file.exists():
        return
    if old_key_file(settings.key_file).exists():
        return  # an interrupted rotation: settled below
    if await has_key_check(db):
        raise WrongKeyError


async def _settled_cipher(db: Database, cipher: TextCipher, settings: Settings) -> TextCipher:
    """The cipher whose key opens the database. A key rotation interrupted while it
    committed leaves both key files; the one that opens the database is kept, the
    other removed."""
    if settings.encryption_key is None and old_key_file(settings.key_file).exists():
        return TextCipher(decode_key(await recover(db, settings.key_file)))
    await verify_key(db, cipher)
    return cipher


@dataclass
class Delivery:
    """The outbox and the scheduler that feeds it, for the adapters that are running."""

    outbox: Outbox
    dispatcher: Dispatcher
    runner: TickRunner
    http: ObservabilityServer | None = None  # /healthz and /metrics, with STEADY_HTTP_PORT


def held_roles(
    settings: Settings, adapters: Mapping[str, Adapter], leadership: Leadership | None = None
) -> tuple[str, ...]:
    """The roles this process holds now. The only worker (SQLite, `leadership` None)
    holds every one; of several workers, each serves a Telegram webhook and ticks, and
    polls Telegram or holds Discord's gateway only while it leads that role."""

    def leads(role: Role) -> bool:
        return leadership is None or leadership.holds(role)

    roles = []
    for platform in sorted(adapters):
        if platform == PLATFORM_TELEGRAM:
            if settings.telegram.webhook_url is not None:
                roles.append("telegram webhook")
            elif leads(Role.TELEGRAM_POLLING):
                roles.append(Role.TELEGRAM_POLLING.value)
        elif platform == PLATFORM_DISCORD:
            if leads(Role.DISCORD_GATEWAY):
                roles.append(Role.DISCORD_GATEWAY.value)
        else:
            roles.append(platform)
    return (*roles, "scheduler")


def observability_server(
    settings: Settings,
    services: Services,
    adapters: Mapping[str, Adapter],
    leadership: Leadership | None = None,
) -> ObservabilityServer | None:
    if settings.http_port is None:
        return None
    health = HealthCheck(
        services.db,
        services.clock,
        services.metrics,
        tick_limit(settings.tick_seconds),
        roles=lambda: held_roles(settings, adapters, leadership),
        safety_model=stage_for(services.content.folder).status_json,
    )
    return ObservabilityServer(health, services.metrics, settings.http_host, settings.http_port)


@asynccontextmanager
async def scheduled_delivery(
    settings: Settings,
    router: Router,
    adapters: Mapping[str, Adapter],
    leadership: Leadership | None = None,
) -> AsyncIterator[Delivery]:
    services = router.services
    outbox = Outbox(
        services.db,
        services.clock,
        adapters,
        metrics=services.metrics,
        effects=outbox_effects(services),
        cipher=services.cipher,
        # On SQLite this process holds the single-instance lock: nobody else sends.
        sole_worker=settings.database_url is None,
    )
    dispatcher = build_dispatcher(
        services, router.checkin, router.pause, outbox, grace=settings.missed_grace
    )
    runner = TickRunner(
        dispatcher,
        settings.tick_seconds,
        maintenance=lambda: daily_purge(
            services.db,
            services.clock.now(),
            settings.retention_days,
            sent_kept=DELETE_WINDOW.kept,  # only Telegram's sends are kept, for /wipe
        ),
    )
    await schedule_unplanned(services.db, services.clock.now())
    http = observability_server(settings, services, adapters, leadership)
    if http is not None:
        await http.start()
    try:
        await outbox.start()
        runner.start()
        # Everything built so far lives as long as the process: keep the garbage
        # collector from walking it again and again (it cost the big ticks ~0.1 s).
        gc.freeze()
        try:
            yield Delivery(outbox, dispatcher, runner, http)
        finally:
            await runner.stop()
            await outbox.stop(drain_timeout=SHUTDOWN_DRAIN_SECONDS)
    finally:
        if http is not None:
            await http.stop()


async def run_console(settings: Settings, prompt: bool) -> None:
    async with open_services(settings) as services:
        removed = remove_legacy_charts(settings.data_dir)
        if removed:
            log_event(log, "console.legacy_charts_removed", count=removed)
        router = Router(services)
        content = services.content
        locale = content.resolve_locale(settings.console_language)
        console = ConsoleAdapter(
            router,
            sys.stdin,
            sys.stdout,
            prompt=prompt,
            data_dir=settings.data_dir,
            image_saved=lambda path: content.text(
                locale, HistoryMsg.PROGRESS_SAVED_TO, path=str(path)
            ),
            greeting=content.text(locale, GeneralMsg.CONSOLE_GREETING),
            language_code=settings.console_language,
        )
        async with scheduled_delivery(settings, router, {console.platform: console}):
            log_event(log, "console.started")
            await console.run()
        log_event(log, "console.stopped")


def telegram_config(settings: Settings) -> TelegramConfig:
    """The adapter's config is the Telegram section as it is (same field names)."""
    assert settings.telegram.token is not None
    return TelegramConfig(**settings.telegram.model_dump())


def discord_config(settings: Settings) -> DiscordConfig:
    """The adapter's config is the Discord section as it is (same field names)."""
    assert settings.discord.token is not None
    return DiscordConfig(**settings.discord.model_dump())


def telegram_adapter(
    settings: Settings, router: Router, budget: SendBudget | None = None
) -> TelegramAdapter:
    services = router.services
    return TelegramAdapter(
        telegram_config(settings), router, services.db, services.content, budget=budget
    )


def discord_adapter(
    settings: Settings, router: Router, budget: SendBudget | None = None
) -> DiscordAdapter:
    services = router.services
    return DiscordAdapter(
        discord_config(settings), router, services.db, services.content, budget=budget
    )


async def run_platforms(
    settings: Settings, stop: asyncio.Event | None = None, clock: Clock | None = None
) -> None:
    """Serve every configured platform from this one event loop until SIGINT or SIGTERM.

    `clock` is for harnesses that run whole simulated days (the soak run)."""
    stop = stop or asyncio.Event()
    loop = asyncio.get_running_loop()
    for signal_number in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signal_number, stop.set)
    async with (
        open_services(settings, clock) as services,
        coordination(settings, services.metrics) as shared,
    ):
        router = Router(services, turns=shared.turns)
        adapters: dict[str, Adapter] = {}
        if settings.telegram.token:
            adapters[PLATFORM_TELEGRAM] = telegram_adapter(settings, router, shared.budget)
        if settings.discord.token:
            adapters[PLATFORM_DISCORD] = discord_adapter(settings, router, shared.budget)
        # The only worker starts every platform whole. Of several, each starts them as a
        # follower, and campaigns for what only one may run (see platform_roles).
        if shared.shared:
            webhook = settings.telegram.webhook_url is not None
            followers, led = led_parts(adapters, webhook)
        else:
            followers, led = [FollowerStart(a, a.start) for a in adapters.values()], []
        started: list[Adapter] = []
        campaigns: list[asyncio.Task[None]] = []
        try:
            for follower in followers:
                # A platform that cannot start stops the others again.
                if not await start_with_retries(
                    follower, follower.platform, settings.start_retry, stop
                ):
                    return  # stopped while waiting for the network: nothing else to undo
                started.append(follower.adapter)
            campaigns = campaign(shared.leadership, led)
            leadership = shared.leadership if shared.shared else None
            async with scheduled_delivery(settings, router, adapters, leadership):
                log_event(log, "bot.running", platforms=",".join(sorted(adapters)))
                await stop.wait()
        finally:
            for task in campaigns:
                task.cancel()
            await asyncio.gather(*campaigns, return_exceptions=True)
            for adapter in reversed(started):
                await adapter.stop()
        log_event(log, "bot.stopped")
