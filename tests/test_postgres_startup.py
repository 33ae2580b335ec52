"""PostgreSQL at start-up, as an operator meets it: `steady` as a real process against a
real server. What waiting cannot fix (a role or database missing, a password refused, SSL
asked for and not offered) is one line naming STEADY_DATABASE_URL and exit 2; a server
that comes up late is waited for (STEADY_START_RETRY); nothing is written (no key file)
before the database lets the worker in."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

from bot.content_pack.ids import AnswersMsg
from bot.content_pack.pack import ContentPack
from tests.helpers.own_postgres import PASSWORD, OwnServer, free_port, own_postgres
from tests.helpers.postgres_server import scratch_database, server_url
from tests.helpers.processes import steady, steady_environment


@pytest.fixture(scope="module")
def own_server() -> OwnServer:  # type: ignore[misc]
    with own_postgres() as server:
        yield server


def refused(data: Path, url: str, **env: str) -> str:
    """`steady console` against `url`: exit 2, one line on stderr, nothing on disk."""
    done = steady(["console"], data, stdin="hi\n", STEADY_DATABASE_URL=url, **env)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr  # one line, no traceback
    assert "STEADY_DATABASE_URL" in lines[0]
    assert PASSWORD not in lines[0] and "wrong-password" not in lines[0]
    assert not (data / "steady.key").exists()  # nothing written before it may start
    return lines[0]


def test_a_role_that_does_not_exist(tmp_path: Path) -> None:
    """On a server that trusts this host (the shared test server), it says so plainly."""
    url = server_url().replace("://postgres@", "://nobody_here@", 1)
    line = refused(tmp_path / "data", url)
    assert "role 'nobody_here'" in line and "does not exist" in line


def test_a_role_that_does_not_exist_behind_a_password(
    tmp_path: Path, own_server: OwnServer
) -> None:
    """Behind a password the server tells no one which roles exist: both are named."""
    line = refused(tmp_path / "data", own_server.url("nobody", password="x"))
    assert "role 'nobody'" in line and "no such role" in line


def test_a_database_that_does_not_exist(tmp_path: Path, own_server: OwnServer) -> None:
    line = refused(tmp_path / "data", own_server.url(database="nowhere", password=PASSWORD))
    assert "database 'nowhere'" in line and "does not exist" in line


def test_a_wrong_password(tmp_path: Path, own_server: OwnServer) -> None:
    line = refused(tmp_path / "data", own_server.url(password="wrong-password"))
    assert "refused the password" in line and "'postgres'" in line


def test_ssl_asked_for_and_not_offered(tmp_path: Path, own_server: OwnServer) -> None:
    url = own_server.url(password=PASSWORD, sslmode="require")
    line = refused(tmp_path / "data", url)
    assert "SSL" in line and "sslmode=require" in line


def test_nothing_listening_is_retried_then_one_line(tmp_path: Path) -> None:
    url = f"postgresql://postgres@127.0.0.1:{free_port()}/postgres"
    line = refused(tmp_path / "data", url, STEADY_START_RETRY="2s")
    assert "cannot reach PostgreSQL" in line and "connection refused" in line
    assert "STEADY_START_RETRY" in line and "2 s" in line


async def test_a_server_that_comes_up_late_is_waited_for(
    tmp_path: Path, content: ContentPack
) -> None:
    with own_postgres(started=False) as server:
        environment = steady_environment(
            tmp_path / "data",
            STEADY_DATABASE_URL=server.url(password=PASSWORD),
            STEADY_START_RETRY="90s",
            STEADY_LOG_LEVEL="INFO",
        )
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "bot", "console",
            env=environment, cwd=tmp_path,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
        assert process.stderr is not None and process.stdin is not None
        seen = b""
        while b"db.waiting" not in seen:  # it is trying, and nothing is written yet
            line = await asyncio.wait_for(process.stderr.readline(), 60)
            assert line, seen.decode()
            seen += line
        assert not (tmp_path / "data" / "steady.key").exists()
        server.start()
        process.stdin.write(b"hi\n")
        process.stdin.close()
        out, _ = await asyncio.wait_for(process.communicate(), 90)
        assert process.returncode == 0
        assert content.text("en", AnswersMsg.BEFORE_START) in out.decode()
        assert (tmp_path / "data" / "steady.key").exists()  # written once it may start


async def test_the_shared_server_starts_as_usual_and_a_keyless_worker_writes_nothing(
    tmp_path: Path, content: ContentPack
) -> None:
    async with scratch_database(server_url()) as url:
        first = await asyncio.to_thread(steady, ["console"], tmp_path / "one", "hi\n",
                                        STEADY_DATABASE_URL=url)  # fmt: skip
        assert first.returncode == 0, first.stderr
        assert content.text("en", AnswersMsg.BEFORE_START) in first.stdout
        assert (tmp_path / "one" / "steady.key").exists()
        # A second worker with no key of its own: refused before it writes one.
        second = await asyncio.to_thread(steady, ["console"], tmp_path / "two", "hi\n",
                                         STEADY_DATABASE_URL=url)  # fmt: skip
        assert second.returncode == 2
        assert "encryption key" in second.stderr
        assert not (tmp_path / "two" / "steady.key").exists()
