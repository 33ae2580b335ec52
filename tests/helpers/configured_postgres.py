"""A PostgreSQL server of a test's own, for set-ups the shared one must not be bent into
(a small max_connections, SSL): started on a free port with its data in a temporary
folder, as `.ci/postgres.sh` starts CI's, and stopped by the fixture that made it.

Debian keeps initdb and pg_ctl off the PATH, in /usr/lib/postgresql/<version>/bin, and
PostgreSQL refuses to run as root: as root the server runs as the postgres user.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.helpers.ports import free_port
from tests.helpers.tools import REQUIRED_VARIABLE


def _bin_folder() -> Path | None:
    found = (
        sorted(Path("/usr/lib/postgresql").glob("*/bin"), key=lambda p: int(p.parent.name))
        if Path("/usr/lib/postgresql").is_dir()
        else []
    )
    return found[-1] if found else None


@dataclass(frozen=True, slots=True)
class OwnServer:
    url: str  # the `postgres` database, as the superuser `postgres`
    folder: Path

    def database_url(self, name: str) -> str:
        return self.url.rsplit("/", 1)[0] + f"/{name}"


def _as_postgres(command: list[str]) -> list[str]:
    if os.geteuid() != 0:
        return command
    return ["su", "postgres", "-s", "/bin/sh", "-c", " ".join(f"'{part}'" for part in command)]


@contextmanager
def own_postgres(*settings: str, files: dict[str, bytes] | None = None) -> Iterator[OwnServer]:
    """A running server with `settings` (`max_connections=20` ...), and `files` written
    into its data folder first (a certificate, its key), owner-only."""
    binaries = _bin_folder()
    if binaries is None:
        reason = "PostgreSQL's server is not installed (Debian: apt-get install postgresql)"
        if os.environ.get(REQUIRED_VARIABLE):
            pytest.fail(f"{REQUIRED_VARIABLE} is set but {reason}")
        pytest.skip(reason)
    folder = Path(tempfile.mkdtemp(prefix="steady-test-pg-"))
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres")
    data = folder / "data"
    port = free_port()
    try:
        subprocess.run(
            _as_postgres([str(binaries / "initdb"), "-D", str(data), "-A", "trust",
                          "-U", "postgres", "-E", "UTF8"]),
            check=True, capture_output=True, timeout=120,
        )  # fmt: skip
        for name, content in (files or {}).items():
            path = data / name
            path.write_bytes(content)
            path.chmod(0o600)
            if os.geteuid() == 0:
                shutil.chown(path, "postgres")
        options = " ".join(
            [f"-p {port}", f"-k {folder}", "-c listen_addresses=127.0.0.1", "-c fsync=off"]
            + [f"-c {setting}" for setting in settings]
        )
        subprocess.run(
            _as_postgres([str(binaries / "pg_ctl"), "-D", str(data), "-l",
                          str(folder / "server.log"), "-w", "-t", "120", "-o", options, "start"]),
            check=True, capture_output=True, timeout=180,
        )  # fmt: skip
        yield OwnServer(f"postgresql://postgres@127.0.0.1:{port}/postgres", folder)
    finally:
        if (data / "postmaster.pid").exists():
            subprocess.run(
                _as_postgres([str(binaries / "pg_ctl"), "-D", str(data), "-m", "immediate",
                              "stop"]),
                capture_output=True, timeout=120, check=False,
            )  # fmt: skip
        shutil.rmtree(folder, ignore_errors=True)
