"""`steady doctor` as an operator runs it: one line per check, exit 1 when any fails,
against the fake Telegram and Discord and set-ups broken one way at a time."""

from __future__ import annotations

import socket
import sqlite3
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from bot.operations.doctor import CHECKS as DOCTOR_CHECKS
from bot.storage.migrations import bundled_migrations
from tests.fakes.discord_api import FakeDiscord
from tests.helpers.doctor import doctor, new_key, platforms, started_once, webhook
from tests.helpers.ports import free_port

REPO = Path(__file__).resolve().parent.parent.parent
CHECKS = list(DOCTOR_CHECKS)


async def test_a_ready_set_up_passes_every_check_one_line_each(tmp_path: Path) -> None:
    data = tmp_path / "data"
    started_once(data)
    port = free_port()
    async with platforms() as env:
        report = await doctor(data, **env, **webhook(port))
    assert report.code == 0, report.stdout
    assert list(report.lines) == CHECKS
    assert report.failed() == []
    assert report.status("pool") == "skip"  # SQLite
    assert report.said("telegram").startswith("@steady_test_bot (id 123456) accepted")
    # READY came over the fake gateway: the IDENTIFY with Steady's intents was accepted.
    assert report.said("discord").endswith("accepted DISCORD_BOT_TOKEN, on the gateway too")
    # How the path maps: Telegram's URL on the proxy, Steady's /<bot id> behind it.
    assert f"passes /telegram to http://127.0.0.1:{port}/123456" in report.said("webhook URL")
    assert report.said("key").endswith("mode 0600, this user's own")
    assert report.said("migrations") == (
        f"schema {bundled_migrations()[-1].version}, as this version expects"
    )
    assert report.stdout.strip().splitlines()[-1] == "steady doctor: 15 ok, 0 failed, 1 skipped."


def _stale_schema(data: Path) -> None:
    with sqlite3.connect(data / "steady.db") as raw:
        raw.execute("PRAGMA user_version = 12")


def _newer_rows(data: Path) -> None:
    with sqlite3.connect(data / "steady.db") as raw:
        raw.execute("UPDATE meta SET value = ? WHERE key = 'row_format'", (b"9",))


def _clock_gone_back(data: Path) -> None:
    """The machine's clock was an hour ahead when a user started (or is behind now)."""
    with sqlite3.connect(data / "steady.db") as raw:
        raw.execute("UPDATE users SET created_at = created_at + 3600")


def _open_key(data: Path) -> None:
    (data / "steady.key").chmod(0o644)


def _key_of_another_database(data: Path) -> None:
    """An operator's mix-up: the key file of another Steady's data folder copied over."""
    other = data.parent / "other"
    started_once(other)
    (data / "steady.key").write_bytes((other / "steady.key").read_bytes())


def _lost_key(data: Path) -> None:
    (data / "steady.key").unlink()


def _not_a_database(data: Path) -> None:
    (data / "steady.db").write_bytes(b"this is not a database, it only has its name" * 100)
    for companion in ("steady.db-wal", "steady.db-shm"):
        (data / companion).unlink(missing_ok=True)


def _broken_pack(data: Path) -> dict[str, str]:
    pack = data.parent / "content"
    subprocess.run(["cp", "-r", str(REPO / "content"), str(pack)], check=True)
    messages = pack / "en" / "messages.yaml"
    messages.write_text(messages.read_text() + "\nnot: [valid\n")
    return {"STEADY_CONTENT_DIR": str(pack)}


Breaking = Callable[[Path], dict[str, str] | None]
BROKEN: dict[str, tuple[Breaking, str, str]] = {
    # what is broken: (how, the check that fails, words its line says)
    "a wrong Telegram token": (
        lambda _: {"TELEGRAM_BOT_TOKEN": "123456:WRONG-token"},
        "telegram",
        "Telegram refused TELEGRAM_BOT_TOKEN",
    ),
    "a wrong Discord token": (
        lambda _: {"DISCORD_BOT_TOKEN": "not-the-token"},
        "discord",
        "Discord refused DISCORD_BOT_TOKEN",
    ),
    "the key of another database": (
        _key_of_another_database,
        "key matches the database",
        "this key does not open the database",
    ),
    "a key set in the environment that does not match": (
        lambda _: {"STEADY_ENCRYPTION_KEY": new_key()},
        "key matches the database",
        "this key does not open the database",
    ),
    "times in the database ahead of this clock": (
        _clock_gone_back,
        "clock",
        "the database holds times up to 60 min ahead of this machine's clock",
    ),
    "a key file others may read": (_open_key, "key", "may be read by other users (mode 0644)"),
    "a lost key file": (_lost_key, "key matches the database", "restore steady.key"),
    "a stale schema": (_stale_schema, "migrations", "the database is at schema 12"),
    "rows of a newer format": (_newer_rows, "versions", "rows of row format 9"),
    "a file that is no database": (_not_a_database, "database", "cannot be read as SQLite"),
    "a broken content pack": (_broken_pack, "content pack", "problem(s)"),
    "a webhook without a secret": (
        lambda _: {"TELEGRAM_WEBHOOK_SECRET": ""},
        "webhook secret",
        "TELEGRAM_WEBHOOK_SECRET is not set",
    ),
    "a webhook on a port Telegram does not post to": (
        lambda _: {"TELEGRAM_WEBHOOK_URL": "https://bot.example.org:8080/telegram"},
        "webhook URL",
        "Telegram posts only to ports 443, 80, 88 or 8443",
    ),
}


@pytest.mark.parametrize("broken", list(BROKEN))
async def test_each_broken_set_up_fails_its_own_line_and_exit_1(
    tmp_path: Path, broken: str
) -> None:
    data = tmp_path / "data"
    started_once(data)
    breaking, check, words = BROKEN[broken]
    changed = breaking(data) or {}
    async with platforms() as env:
        report = await doctor(data, **(env | webhook(free_port()) | changed))
    assert report.code == 1, report.stdout
    assert report.failed() == [check], report.stdout
    assert words in report.said(check)


async def test_an_http_webhook_url_is_an_invalid_setting_and_nothing_else_is_tried(
    tmp_path: Path,
) -> None:
    async with platforms() as env:
        report = await doctor(
            tmp_path / "data", **env, **webhook(free_port(), "http://bot.example.org/telegram")
        )
    assert report.code == 1
    assert report.failed() == ["settings"]
    assert report.said("settings") == (
        "TELEGRAM_WEBHOOK_URL is not valid: expected an https:// address Telegram can reach."
    )
    assert {report.status(check) for check in CHECKS[1:]} == {"skip"}


async def test_a_webhook_port_in_use_fails_its_line(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        async with platforms() as env:
            report = await doctor(tmp_path / "data", **env, **webhook(port))
    assert report.failed() == ["webhook port"]
    assert report.said("webhook port") == (
        f"127.0.0.1:{port} is in use (a running Steady, or another program):"
        " stop it, or set TELEGRAM_WEBHOOK_PORT"
    )


async def test_telegram_out_of_reach_is_retried_for_the_start_bound_then_fails(
    tmp_path: Path,
) -> None:
    closed = free_port()
    report = await doctor(
        tmp_path / "data",
        TELEGRAM_BOT_TOKEN="123:abc",
        TELEGRAM_API_BASE_URL=f"http://127.0.0.1:{closed}/bot",
        STEADY_START_RETRY="2s",
    )
    assert report.failed() == ["telegram"]
    assert report.said("telegram").startswith(
        f"cannot reach Telegram at http://127.0.0.1:{closed}/bot (retried for 2 s)"
    )


async def test_a_fresh_folder_is_ready_for_a_first_start(tmp_path: Path) -> None:
    report = await doctor(tmp_path / "data")
    assert report.code == 0
    assert report.said("database").startswith("no database yet at")
    assert report.said("key").startswith("no key yet: the first start writes")
    assert not (tmp_path / "data").exists()  # the doctor made nothing


async def test_a_discord_gateway_out_of_reach_is_retried_for_the_start_bound_then_fails(
    tmp_path: Path,
) -> None:
    async with FakeDiscord() as dc:
        report = await doctor(
            tmp_path / "data",
            DISCORD_BOT_TOKEN=dc.token,
            DISCORD_API_BASE_URL=dc.api_url,
            DISCORD_GATEWAY_URL=f"ws://127.0.0.1:{free_port()}/",
            STEADY_START_RETRY="2s",
        )
        assert dc.identifies == []
    assert report.failed() == ["discord"]
    assert report.said("discord").startswith(
        f"cannot reach Discord at {dc.api_url} or its gateway (retried for 2 s)"
    )
