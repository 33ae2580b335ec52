from __future__ import annotations

import io
import stat
from collections.abc import Callable
from pathlib import Path

import pytest

from bot.adapters.console import ConsoleAdapter
from bot.content_pack.ids import AnswersMsg, DataMsg, GeneralMsg
from bot.core.events import Address
from bot.engine.router import Router
from bot.flows.context import Services
from bot.storage.users import find_user
from tests.helpers.conversation import Conversation
from tests.helpers.schema import column_names


async def fill_everything(chat: Conversation) -> None:
    await chat.send("/start")
    await chat.send("Europe/Berlin")
    await chat.send("08:30")
    await chat.send("/checkin")
    await chat.send("2")
    await chat.send("strong")
    await chat.send("a note to be forgotten")
    await chat.send("/affirm")
    await chat.send("/checkin")  # leaves an open flow position behind
    await chat.send("4")


async def rows_mentioning(services: Services, user_row_id: int, platform_id: str) -> list[str]:
    """Every (table, column) in the whole database that still holds one of the user's ids."""
    found: list[str] = []
    for table in await services.db.table_names():
        for column in await column_names(services.db, table):
            if column in {"user_id"} or (table == "users" and column == "id"):
                hits = await services.db.fetch_one(
                    f'SELECT COUNT(*) AS n FROM "{table}" WHERE "{column}" = ?', (user_row_id,)
                )
            else:
                hits = await services.db.fetch_one(
                    f'SELECT COUNT(*) AS n FROM "{table}" WHERE CAST("{column}" AS TEXT) = ?',
                    (platform_id,),
                )
            if hits is not None and hits["n"]:
                found.append(f"{table}.{column}")
    return found


async def test_forget_deletes_every_row_of_the_user_only(
    chat: Conversation, router: Router, services: Services, text_of: Callable[..., str]
) -> None:
    other = Conversation(router, Address("console", "c2", "someone-else"))
    await fill_everything(other)
    await fill_everything(chat)
    user = await find_user(services.db, "console", "u1")
    assert user is not None
    assert await rows_mentioning(services, user.id, "u1")  # the scan does see the data

    await chat.send("/forget")
    assert chat.text == text_of(DataMsg.FORGET_CONFIRM)
    await chat.press(text_of(DataMsg.FORGET_YES))
    assert chat.text == text_of(DataMsg.FORGET_DONE)

    assert await rows_mentioning(services, user.id, "u1") == []
    assert await find_user(services.db, "console", "someone-else") is not None
    remaining = await services.db.fetch_one("SELECT COUNT(*) AS n FROM checkins")
    assert remaining is not None and remaining["n"] == 1

    await chat.send("/mydata")
    assert chat.text == text_of(DataMsg.MYDATA_NOTHING)


async def test_forget_needs_the_button_and_no_keeps_everything(
    chat: Conversation, services: Services, text_of: Callable[..., str]
) -> None:
    await fill_everything(chat)
    await chat.send("/forget")
    await chat.send("yes")  # typing is not the deliberate tap we ask for
    assert chat.text == text_of(AnswersMsg.USE_BUTTONS_BELOW)
    await chat.press(text_of(DataMsg.FORGET_NO))
    assert chat.text == text_of(DataMsg.FORGET_KEPT)
    assert await find_user(services.db, "console", "u1") is not None
    count = await services.db.fetch_one("SELECT COUNT(*) AS n FROM checkins")
    assert count is not None and count["n"] == 1


async def test_forget_with_nothing_stored_says_so(
    chat: Conversation, text_of: Callable[..., str]
) -> None:
    await chat.send("/forget")
    assert chat.text == text_of(DataMsg.FORGET_NOTHING)


async def test_old_forget_button_after_forgetting_does_nothing(
    chat: Conversation, services: Services, text_of: Callable[..., str]
) -> None:
    await fill_everything(chat)
    await chat.send("/forget")
    yes = chat.button(text_of(DataMsg.FORGET_YES)).data
    await chat.press_data(yes)
    await chat.press_data(yes)
    assert chat.text == text_of(GeneralMsg.BUTTON_EXPIRED)
    assert await find_user(services.db, "console", "u1") is None


@pytest.mark.sqlite_only  # the file and its log are SQLite's
async def test_forget_leaves_no_copy_in_the_write_ahead_log(
    chat: Conversation, services: Services, text_of: Callable[..., str]
) -> None:
    await chat.send("/start")
    await chat.send("America/Argentina/Ushuaia")  # a value easy to look for in raw bytes
    await chat.send("08:30")
    await chat.send("/forget")
    await chat.press(text_of(DataMsg.FORGET_YES))
    path = services.db.path
    for file in (path, path.with_name(path.name + "-wal")):
        if file.exists():
            assert b"Ushuaia" not in file.read_bytes(), file.name
    assert oct(path.stat().st_mode & 0o777) == "0o600"


async def test_the_console_chart_is_owner_only_and_forget_deletes_it(
    router: Router, services: Services, tmp_path: Path, text_of: Callable[..., str]
) -> None:
    assert services.data_dir is not None
    lines = "/checkin\n3\nnone\n1\n/progress\n"
    out = io.StringIO()
    saved: list[Path] = []

    def said_where(path: Path) -> str:
        saved.append(path)
        return f"saved: {path}"

    console = ConsoleAdapter(
        router, io.StringIO(lines), out, prompt=False, data_dir=services.data_dir,
        image_saved=said_where,
    )  # fmt: skip
    await console.run()
    [chart] = saved
    assert chart.read_bytes().startswith(b"\x89PNG")
    assert stat.S_IMODE(chart.stat().st_mode) == 0o600
    assert stat.S_IMODE(chart.parent.stat().st_mode) == 0o700
    assert "console" not in str(chart.relative_to(services.data_dir))  # no id in the path

    console = ConsoleAdapter(
        router, io.StringIO("/forget\n1\n"), out, prompt=False, data_dir=services.data_dir,
        image_saved=said_where,
    )  # fmt: skip
    await console.run()
    assert text_of(DataMsg.FORGET_DONE) in out.getvalue()
    assert not chart.exists() and not chart.parent.exists()


async def test_the_forget_question_names_everything_it_deletes(
    chat: Conversation, text_of: Callable[..., str]
) -> None:
    await fill_everything(chat)
    await chat.send("/forget")
    for kept in ("check-in answers and notes", "reasons", "drafts", "progress chart"):
        assert kept in chat.text
