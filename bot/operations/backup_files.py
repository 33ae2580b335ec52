"""What a backup folder holds, and the checks that make a copy worth calling a backup.

A backup made by `steady backup PATH` is a folder:

- `steady.db`: SQLite's database, copied with SQLite's online backup API; or
- `steady.pgdump`: PostgreSQL's database, `pg_dump --format=custom`;
- `steady.key`: the key that opens the sealed text of either (mode 0600).

Each is checked before anyone is told it is done (`bot.storage.copies` for SQLite's
file; a dump's table of contents must list Steady's tables). Here: the key, and how an
operation reports to the command line.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path

from bot.config import Settings, decode_key
from bot.storage.copies import OperationError
from bot.storage.data_folder import DataFolderError
from bot.storage.migrations import MigrationError

DATABASE_COPY = "steady.db"
POSTGRES_DUMP = "steady.pgdump"
KEY_COPY = "steady.key"
EXIT_REFUSED = 2


def reported(work: Callable[[], list[str]], failure: str) -> int:
    """Run an operation for the command line: what it did on stdout and exit 0, or one
    line `steady: <failure>: <why>.` on stderr and exit 2."""
    try:
        lines = work()
    except (OperationError, DataFolderError, MigrationError) as error:
        print(f"steady: {failure}: {error}.", file=sys.stderr)
        return EXIT_REFUSED
    for line in lines:
        print(line)
    return 0


def configured_key(settings: Settings) -> str:
    """The key text Steady would use: STEADY_ENCRYPTION_KEY, else the key file."""
    if settings.encryption_key is not None:
        return settings.encryption_key.strip()
    if not settings.key_file.exists():
        raise OperationError(
            f"there is no key: STEADY_ENCRYPTION_KEY is not set and {settings.key_file}"
            " does not exist, so no sealed text of this database could be opened"
        )
    text = settings.key_file.read_text("ascii").strip()
    try:
        decode_key(text)
    except ValueError:
        raise OperationError(f"{settings.key_file} does not hold a key") from None
    return text


def read_key_copy(folder: Path) -> str:
    path = folder / KEY_COPY
    if not path.is_file():
        raise OperationError(f"{path} is missing: a backup without its key cannot be opened")
    text = path.read_text("ascii").strip()
    try:
        decode_key(text)
    except ValueError:
        raise OperationError(f"{path} does not hold a key") from None
    return text


def write_private(path: Path, data: str) -> None:
    """Write a new file only its owner may read, and make sure it is on disk."""
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        os.write(descriptor, data.encode("ascii"))
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
