"""A PostgreSQL server of a test's own, on a free port, for set-ups the shared test
server must not be given (a password, a server that starts late). Debian's binaries,
run as the postgres user when the tests run as root (the server refuses root), its data
in a folder of its own under the system's temporary folder; stopped and removed after.
Skipped where no PostgreSQL is installed (CI installs it; see .ci/postgres.sh)."""

from __future__ import annotations

import glob
import os
import shlex
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

PASSWORD = "right-password"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _binaries() -> Path:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin"))
    if not found:
        pytest.skip("no PostgreSQL installed (apt-get install postgresql)")
    return Path(found[-1])


def _as_postgres(command: list[str]) -> subprocess.CompletedProcess[str]:
    if os.geteuid() == 0:
        command = ["su", "postgres", "-s", "/bin/sh", "-c", " ".join(map(shlex.quote, command))]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)


@dataclass
class OwnServer:
    folder: Path
    port: int
    binaries: Path

    @property
    def data(self) -> Path:
        return self.folder / "data"

    def url(self, user: str = "postgres", database: str = "postgres", **query: str) -> str:
        password = f":{query.pop('password')}" if "password" in query else ""
        tail = "?" + "&".join(f"{k}={v}" for k, v in query.items()) if query else ""
        return f"postgresql://{user}{password}@127.0.0.1:{self.port}/{database}{tail}"

    def start(self) -> None:
        options = f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 -c fsync=off"
        done = _as_postgres([
            str(self.binaries / "pg_ctl"), "-D", str(self.data), "-l",
            str(self.folder / "server.log"), "-w", "-t", "60", "-o", options, "start",
        ])  # fmt: skip
        assert done.returncode == 0, (self.folder / "server.log").read_text()

    def stop(self) -> None:
        _as_postgres([str(self.binaries / "pg_ctl"), "-D", str(self.data), "-m", "immediate",
                      "stop"])  # fmt: skip

    def sql(self, statement: str) -> None:
        """Run `statement` as the superuser, over the server's own socket."""
        done = _as_postgres([str(self.binaries / "psql"), "-h", str(self.folder), "-p",
                             str(self.port), "-U", "postgres", "-d", "postgres", "-c",
                             statement])  # fmt: skip
        assert done.returncode == 0, done.stderr


@contextmanager
def own_postgres(started: bool = True) -> Iterator[OwnServer]:
    """A fresh server: over TCP, passwords (scram) for every role; over its socket, trust
    (for the test's own setting up). The superuser `postgres` has PASSWORD."""
    binaries = _binaries()
    folder = Path(tempfile.mkdtemp(prefix="steady-own-pg-"))
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres")
    server = OwnServer(folder, free_port(), binaries)
    made = _as_postgres([
        str(binaries / "initdb"), "-D", str(server.data), "-U", "postgres", "-E", "UTF8",
        "--auth-local=trust", "--auth-host=scram-sha-256",
    ])  # fmt: skip
    assert made.returncode == 0, made.stderr
    try:
        server.start()
        server.sql(f"ALTER ROLE postgres PASSWORD '{PASSWORD}'")
        if not started:
            server.stop()
        yield server
    finally:
        server.stop()
        shutil.rmtree(folder, ignore_errors=True)
