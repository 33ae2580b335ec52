"""`steady doctor`: is this set-up ready to run? One line per check, exit 1 if any fails.

It reads and asks, and changes nothing: no migration, no key written, no lock taken,
so it may be run beside a running Steady (whose webhook port it will then find taken).
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import TextIO

from bot.config import Settings, SettingsError, load_settings, pick_default_locale
from bot.content_pack.audit import audit_pack
from bot.content_pack.loader import ContentError, check_pack, load_pack
from bot.core.clock import Clock, SystemClock
from bot.operations.doctor_database import database_findings
from bot.operations.doctor_platforms import discord_finding, telegram_finding, webhook_findings
from bot.operations.report import Finding, Status, failed, ok, skipped, summary

# Every check, in the order printed, on either backend (what does not apply is a
# skipped line, so a report always has the same lines and can be compared or grepped).
CHECKS = (
    "settings", "database", "privileges", "disk", "migrations", "versions", "key",
    "key matches the database", "pool", "clock", "telegram", "discord", "webhook URL",
    "webhook secret", "webhook port", "content pack",
)  # fmt: skip


async def examine(
    workers: int = 1, clock: Clock | None = None, env_file: str | Path | None = ".env"
) -> AsyncIterator[Finding]:
    """Each finding as soon as it is known (a platform out of reach takes a while)."""
    try:
        settings = pick_default_locale(load_settings(env_file))
    except SettingsError as error:
        yield failed("settings", str(error))
        for check in CHECKS[1:]:
            yield skipped(check, "the settings are not valid")
        return
    yield ok("settings", _settings_source(env_file))
    for finding in await database_findings(settings, workers, clock or SystemClock()):
        yield finding
    yield await telegram_finding(settings)
    yield await discord_finding(settings)
    for finding in webhook_findings(settings):
        yield finding
    yield await asyncio.to_thread(content_finding, settings)


def _settings_source(env_file: str | Path | None) -> str:
    if env_file is not None and Path(env_file).is_file():
        return f"valid (the environment, and {Path(env_file).resolve()})"
    return "valid (the environment)"


def content_finding(settings: Settings) -> Finding:
    problems = check_pack(settings.content_dir, settings.default_locale)
    if problems:
        return failed(
            "content pack",
            f"{len(problems)} problem(s) in {settings.content_dir}, the first: {problems[0]};"
            " `steady content check` lists them all",
        )
    try:
        pack = load_pack(settings.content_dir, settings.default_locale)
    except ContentError as error:  # pragma: no cover - check_pack has just passed
        return failed("content pack", f"{len(error.problems)} problem(s)")
    report = audit_pack(pack, settings.content_dir)
    if report.failures:
        return failed(
            "content pack",
            f"{len(report.failures)} problem(s), the first: {report.failures[0]};"
            " `steady content check` lists them all",
        )
    return ok("content pack", f"{', '.join(sorted(pack.locales))} valid")


async def _report(workers: int, out: TextIO) -> bool:
    findings: list[Finding] = []
    async for finding in examine(workers):
        findings.append(finding)
        print(finding.line, file=out, flush=True)
    print(summary(findings), file=out)
    return not any(finding.status is Status.FAIL for finding in findings)


def run_doctor(workers: int, out: TextIO = sys.stdout) -> int:
    """`steady doctor [--workers N]`: 0 when every check passes (or does not apply), 1 when
    any fails."""
    return 0 if asyncio.run(_report(workers, out)) else 1
