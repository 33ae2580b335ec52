"""One Steady process per database: two would both poll one bot token and both send
the same check-ins."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path


class AlreadyRunningError(Exception):
    """Another process holds this database."""


class ProcessLock:
    """An exclusive advisory lock on `<database>.lock`, released when the process ends
    (also when it is killed: the operating system drops the lock with the file)."""

    def __init__(self, database: Path) -> None:
        self._path = database.with_name(database.name + ".lock")
        self._descriptor: int | None = None

    def acquire(self) -> None:
        self._path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        descriptor = os.open(self._path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(descriptor)
            raise AlreadyRunningError(str(self._path)) from None
        self._descriptor = descriptor

    def release(self) -> None:
        if self._descriptor is not None:
            fcntl.flock(self._descriptor, fcntl.LOCK_UN)
            os.close(self._descriptor)
            self._descriptor = None
