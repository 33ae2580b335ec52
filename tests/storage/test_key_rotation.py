"""`steady keys rotate`: everything re-encrypted under a new key, or nothing changed at all."""

from __future__ import annotations

import asyncio
import json
import os
import random
import stat
import subprocess
import sys
from pathlib import Path

import aiosqlite
import pytest

from bot.app import open_services
from bot.config import Settings, decode_key
from bot.core.clock import ManualClock
from bot.core.events import Address, CommandIssued
from bot.engine.router import Router
from bot.flows.checkin import CheckInStep
from bot.flows.context import button_data
from bot.flows.pause_steps import PauseStep
from bot.storage import group_reminders
from bot.storage.crypto import TextCipher, WrongKeyError, generate_key_text
from bot.storage.flow_positions import get_position
from bot.storage.key_rotation import RotationError, old_key_file, rotate
from bot.storage.meta import verify_key
from bot.storage.opening import open_database
from bot.storage.process_lock import AlreadyRunningError
from bot.storage.users import find_user
from tests.helpers.conversation import Conversation

REPO = Path(__file__).resolve().parents[2]
WORDS = {
    "reason": "rotation-reason-marker",
    "note": "rotation-note-marker",
    "kept": "rotation-kept-draft-marker",
    "pending": "rotation-pending-draft-marker",
    "reminder": "rotation-reminder-marker",
    "plan": "rotation-plan-marker",
    "date": "rotation-hard-date-marker",
    "long": "rotation-long-note-marker " * 50,  # over the note limit: held until chosen
}


async def write_everything(settings: Settings, clock: ManualClock) -> None:
    """A reason, a hard date's name, a check-in note, a kept draft, a part of a safety plan,
    a draft still waiting, a group reminder, and a note over its limit still waiting."""
    async with open_services(settings, clock) as services:
        router = Router(services, rng=random.Random(2))
        chat = Conversation(router, Address("console", "c1", "u1"))
        await chat.send("/reasons")
        await chat.press("Write one down")
        await chat.send(WORDS["reason"])
        await chat.send("/dates")
        await chat.press("Add a date")
        await chat.press("An anniversary")
        await chat.send("14 February")
        await chat.press("Every year")
        await chat.send(WORDS["date"])
        await chat.send("/checkin")
        for answer in ("3", "none", WORDS["note"]):
            await chat.send(answer)
        await chat.send("/pause")
        await chat.press("Write it here, not to them")
        await chat.send(WORDS["kept"])
        await chat.press("Keep it for me")
        await chat.send("/plan")
        await chat.send(WORDS["plan"])  # the first part of a safety plan
        await chat.send("/cancel")
        other = Conversation(router, Address("console", "c2", "u2"))
        await other.send("/pause")
        await other.press("Write it here, not to them")
        await other.send(WORDS["pending"])  # left waiting for "keep or let go"
        third = Conversation(router, Address("console", "c3", "u3"))
        for answer in ("/checkin", "3", "none", WORDS["long"]):
            await third.send(answer)  # left waiting for "keep the first part or shorter"
        group = Address("console", "-100", "admin", is_group=True)
        command = f"add 09:00 UTC text {WORDS['reminder']}"
        [reply] = await router.handle(CommandIssued(group, "reminder", command, admin=True))
        assert reply.text.startswith("Reminder 1 is set")


async def sealed_values(settings: Settings) -> set[bytes]:
    """Every ciphertext in the database, wherever it is: any column of any table, and
    the sealed drafts inside flow positions' JSON."""
    db = await open_database(settings)
    found: set[bytes] = set()
    try:
        for table in await db.table_names():
            for row in await db.fetch_all(f'SELECT * FROM "{table}"'):
                for value in tuple(row):
                    if isinstance(value, bytes) and value[:1] == b"\x01":
                        found.add(value)
        for row in await db.fetch_all("SELECT data FROM flow_positions"):
            data = json.loads(row["data"])
            for field in ("draft", "long"):
                if data.get(field) is not None:
                    found.add(data[field].encode("ascii"))
    finally:
        await db.close()
    return found


async def everything_readable(settings: Settings, clock: ManualClock) -> None:
    """Open the bot as usual and read every word back, as its user would."""
    async with open_services(settings, clock) as services:
        router = Router(services, rng=random.Random(2))
        chat = Conversation(router, Address("console", "c1", "u1"))
        await chat.send("/mydata")
        export = json.loads(chat.last[-1].text)
        assert [r["text"] for r in export["reasons"]] == [WORDS["reason"]]
        assert [c["note"] for c in export["checkins"]] == [WORDS["note"]]
        assert [d["text"] for d in export["kept_drafts"]] == [WORDS["kept"]]
        assert [p["text"] for p in export["safety_plan"]] == [WORDS["plan"]]
        assert [d["label"] for d in export["hard_dates"]] == [WORDS["date"]]
        other = Conversation(router, Address("console", "c2", "u2"))
        user = await find_user(services.db, "console", "u2")
        assert user is not None
        waiting = await get_position(services.db, user.id)  # the draft waiting since before
        assert waiting is not None and waiting.step == PauseStep.KEEP
        await other.press_data(button_data(waiting, "keep"))
        await other.send("/mydata")
        drafts = json.loads(other.last[-1].text)["kept_drafts"]
        assert [d["text"] for d in drafts] == [WORDS["pending"]]
        third = Conversation(router, Address("console", "c3", "u3"))
        user = await find_user(services.db, "console", "u3")
        assert user is not None
        held = await get_position(services.db, user.id)
        assert held is not None and held.step == CheckInStep.NOTE
        await third.press_data(button_data(held, "first"))
        await third.send("/mydata")
        [answer] = json.loads(third.last[-1].text)["checkins"]
        assert WORDS["long"].startswith(answer["note"]) and "marker" in answer["note"]
        # What the group will be sent, read the way the posting job reads it.
        [reminder] = await group_reminders.list_for_chat(
            services.db, services.cipher, "console", "-100"
        )
        assert reminder.spec.own_text == WORDS["reminder"]


def key_text(settings: Settings) -> str:
    return settings.key_file.read_text("ascii").strip()


async def opens(settings: Settings, key: str) -> bool:
    db = await open_database(settings)
    try:
        await verify_key(db, TextCipher(decode_key(key)))
    except WrongKeyError:
        return False
    finally:
        await db.close()
    return True


async def test_rotation_reseals_everything_and_the_old_key_opens_nothing(
    settings: Settings, clock: ManualClock
) -> None:
    await write_everything(settings, clock)
    old_key, before = key_text(settings), await sealed_values(settings)
    # The seven texts, each user's open question kept to be shown again, and the key check.
    assert len(before) == 11

    rotation = await rotate(settings)

    assert rotation.values == 10
    new_key = key_text(settings)
    assert new_key != old_key
    assert stat.S_IMODE(settings.key_file.stat().st_mode) == 0o600
    assert not old_key_file(settings.key_file).exists()
    after = await sealed_values(settings)
    assert len(after) == 11 and not before & after  # every ciphertext changed
    old = TextCipher(decode_key(old_key))
    for blob in after:
        with pytest.raises(WrongKeyError):  # whatever it is bound to, the old key fails
            old.verify_check_value(blob)
        for owner in range(0, 5):
            with pytest.raises(WrongKeyError):
                old.decrypt(blob, owner)
            with pytest.raises(WrongKeyError):
                old.decrypt_for_reminder(blob, owner)
    assert not await opens(settings, old_key)
    await everything_readable(settings, clock)


async def test_a_failure_before_the_commit_leaves_the_old_key_and_data_working(
    settings: Settings, clock: ManualClock
) -> None:
    await write_everything(settings, clock)
    old_key, before = key_text(settings), await sealed_values(settings)

    async def crash() -> None:
        raise RuntimeError("the power went out")

    with pytest.raises(RuntimeError):
        await rotate(settings, before_commit=crash)

    assert key_text(settings) == old_key
    assert stat.S_IMODE(settings.key_file.stat().st_mode) == 0o600
    assert not old_key_file(settings.key_file).exists()
    assert await sealed_values(settings) == before
    await everything_readable(settings, clock)


@pytest.mark.sqlite_only  # it interrupts SQLite's COMMIT
@pytest.mark.parametrize("lands", [True, False])
async def test_interrupted_while_committing_no_key_is_lost(
    settings: Settings, clock: ManualClock, monkeypatch: pytest.MonkeyPatch, lands: bool
) -> None:
    """Ctrl-C arrives while the COMMIT runs in the database thread: it may have landed or
    not, and nothing here can know. Both keys stay, and the next start keeps the right one."""
    await write_everything(settings, clock)
    old_key = key_text(settings)
    execute = aiosqlite.Connection.execute

    def interrupted(self: aiosqlite.Connection, sql: str, *args: object) -> object:
        if sql != "COMMIT":
            return execute(self, sql, *args)  # type: ignore[arg-type]

        async def commit_then_cancel() -> None:
            if lands:
                await execute(self, sql)
            raise asyncio.CancelledError

        return commit_then_cancel()

    monkeypatch.setattr(aiosqlite.Connection, "execute", interrupted)
    with pytest.raises(asyncio.CancelledError):
        await rotate(settings)
    monkeypatch.undo()

    new_key = key_text(settings)
    assert new_key != old_key  # the new key was not thrown away
    assert old_key_file(settings.key_file).read_text("ascii").strip() == old_key
    await everything_readable(settings, clock)  # the start settles it
    assert not old_key_file(settings.key_file).exists()
    assert key_text(settings) == (new_key if lands else old_key)


@pytest.mark.parametrize("committed", [False, True])
async def test_a_rotation_killed_midway_is_settled_by_the_next_one(
    settings: Settings, clock: ManualClock, committed: bool
) -> None:
    """Both key files left behind (a kill between writing them and removing the old one):
    the next rotation keeps whichever opens the database, and goes on."""
    await write_everything(settings, clock)
    old_key, old_file = key_text(settings), old_key_file(settings.key_file)
    if committed:
        await rotate(settings)  # committed; then pretend the old file was never removed
        old_file.write_text(old_key + "\n")
    else:
        old_file.write_text(old_key + "\n")  # new key written, database never committed
        settings.key_file.write_text(generate_key_text() + "\n")
    await rotate(settings)
    assert not old_file.exists()
    await everything_readable(settings, clock)


async def test_rotation_is_refused_while_steady_runs(
    settings: Settings, clock: ManualClock
) -> None:
    await write_everything(settings, clock)
    old_key = key_text(settings)
    async with open_services(settings, clock):
        with pytest.raises(AlreadyRunningError):
            await rotate(settings)
    assert key_text(settings) == old_key


async def test_with_the_key_in_the_environment_it_is_published_before_the_commit(
    settings: Settings, clock: ManualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    old_key = generate_key_text()
    monkeypatch.setenv("STEADY_ENCRYPTION_KEY", old_key)
    from_env = Settings(_env_file=None)
    await write_everything(from_env, clock)
    with pytest.raises(RotationError):
        await rotate(from_env)  # nowhere to put the new key: refused, not lost
    assert await opens(from_env, old_key)

    published: list[str] = []

    def refuse(key: str) -> None:
        published.append(key)
        raise BrokenPipeError  # the operator's terminal went away: nobody saw the key

    with pytest.raises(BrokenPipeError):
        await rotate(from_env, publish=refuse)
    assert await opens(from_env, old_key)

    await rotate(from_env, publish=published.append)
    assert len(published) == 2
    assert await opens(from_env, published[-1])
    assert not await opens(from_env, old_key)
    assert not from_env.key_file.exists()  # no file was written
    monkeypatch.setenv("STEADY_ENCRYPTION_KEY", published[-1])
    await everything_readable(Settings(_env_file=None), clock)


def steady(data: Path, *args: str, stdin: str = "", **env: str) -> subprocess.CompletedProcess[str]:
    environment = {
        key: value
        for key, value in os.environ.items()
        if key not in {"TELEGRAM_BOT_TOKEN", "DISCORD_BOT_TOKEN", "STEADY_ENCRYPTION_KEY"}
    }
    environment |= {"STEADY_DATA_DIR": str(data), "STEADY_CONTENT_DIR": str(REPO / "content")}
    return subprocess.run(
        [sys.executable, "-m", "bot", *args],
        input=stdin, capture_output=True, text=True, env=environment | env, cwd=data.parent,
        timeout=60, check=False,
    )  # fmt: skip


def test_the_command_rotates_and_says_where_the_key_is(tmp_path: Path) -> None:
    data = tmp_path / "data"
    assert steady(data, "console", stdin="/checkin\n3\nnone\ncli-note-marker\n").returncode == 0
    old_key = (data / "steady.key").read_text()
    result = steady(data, "keys", "rotate")
    assert result.returncode == 0, result.stderr
    assert "1 stored texts re-encrypted" in result.stderr
    assert (data / "steady.key").read_text() != old_key
    shown = steady(data, "console", stdin="/mydata\n")
    assert '"note": "cli-note-marker"' in shown.stdout


def test_the_command_with_an_environment_key_refuses_without_print_key(tmp_path: Path) -> None:
    data, key = tmp_path / "data", generate_key_text()
    assert steady(data, "console", STEADY_ENCRYPTION_KEY=key, stdin="/checkin\n").returncode == 0
    refused = steady(data, "keys", "rotate", STEADY_ENCRYPTION_KEY=key)
    assert refused.returncode == 2
    assert "--print-key" in refused.stderr and refused.stdout == ""
    printed = steady(data, "keys", "rotate", "--print-key", STEADY_ENCRYPTION_KEY=key)
    assert printed.returncode == 0, printed.stderr
    [new_key] = printed.stdout.split()
    assert len(decode_key(new_key)) == 32
    assert "Set STEADY_ENCRYPTION_KEY" in printed.stderr
    assert steady(data, "console", STEADY_ENCRYPTION_KEY=key, stdin="/mydata\n").returncode == 2
    assert steady(data, "console", STEADY_ENCRYPTION_KEY=new_key, stdin="/help\n").returncode == 0


def test_help_explains_the_rotation(tmp_path: Path) -> None:
    top = steady(tmp_path / "data", "--help")
    assert "keys" in top.stdout
    detail = steady(tmp_path / "data", "keys", "rotate", "--help")
    assert "steady.key.old" in detail.stdout and "--print-key" in detail.stdout


def test_without_a_database_there_is_nothing_to_rotate(tmp_path: Path) -> None:
    result = steady(tmp_path / "data", "keys", "rotate")
    assert result.returncode == 2
    assert "there is no database" in result.stderr
