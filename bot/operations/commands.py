"""The operator's commands on the `steady` command line: `doctor`, `backup`, `restore` and
`migrate`. Each is imported when it is asked for, so `steady run` never loads them."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from bot.config import Settings
from bot.logs import configure_logging

OPERATIONS = frozenset({"doctor", "backup", "restore", "migrate"})

DOCTOR_DESCRIPTION = (
    "Check that this set-up can run, one line per check (ok, FAIL or skip): the settings;"
    " the database, its version and migrations; the versions of its rows and of workers"
    " running on it; the key, who may read it and whether it opens the database; each"
    " platform token; the webhook's URL, secret and port; on PostgreSQL the pool against"
    " max_connections for --workers workers; free disk for SQLite; the clock; the content"
    " pack. Exits 1 if any check fails. It changes nothing."
)
BACKUP_DESCRIPTION = (
    "Copy the database and its key into PATH, a new (or empty) folder, and check the copy"
    " before calling it done. SQLite: an online copy (Steady may keep running), then"
    " opened and checked (integrity, schema version, the key opens it). PostgreSQL: pg_dump"
    " (custom format), its table of contents checked. The key goes beside the copy, mode"
    " 0600: keep the two together, and somewhere other than this machine."
)
RESTORE_DESCRIPTION = (
    "Put a backup made by `steady backup` in place: checked first, then copied into"
    " STEADY_DATA_DIR (SQLite; a database already there is replaced only with --replace,"
    " and kept aside, renamed) or restored with pg_restore"
    " into the empty database STEADY_DATABASE_URL names. Its key becomes steady.key unless"
    " STEADY_ENCRYPTION_KEY is set, which must then be that same key."
)
MIGRATE_DESCRIPTION = (
    "Copy every table of this SQLite database into an empty PostgreSQL database, sealed"
    " text as it is (start the workers with the same key), in one transaction: it"
    " refuses a database that holds anything, compares row counts and a sample of rows"
    " before committing, and a failure leaves the target empty, so it can be run again."
    " Stop Steady first."
)


def _workers(text: str) -> int:
    number = int(text)
    if number < 1:
        raise argparse.ArgumentTypeError("at least 1")
    return number


def add_operations(commands: Any) -> None:  # argparse's _SubParsersAction
    doctor = commands.add_parser(
        "doctor", help="check this set-up, one line per check", description=DOCTOR_DESCRIPTION
    )
    doctor.add_argument(
        "--workers",
        type=_workers,
        default=1,
        help="how many `steady run` workers will share the PostgreSQL database (default 1)",
    )
    backup = commands.add_parser(
        "backup", help="copy the database and its key, checked", description=BACKUP_DESCRIPTION
    )
    backup.add_argument("path", type=Path, help="a new or empty folder for the backup")
    restore = commands.add_parser(
        "restore", help="put a backup in place, checked", description=RESTORE_DESCRIPTION
    )
    restore.add_argument("path", type=Path, help="a folder made by `steady backup`")
    restore.add_argument(
        "--replace",
        action="store_true",
        help="put the backup in place of the database there now (kept aside, renamed)",
    )
    migrate = commands.add_parser(
        "migrate",
        help="copy this SQLite database into an empty PostgreSQL database",
        description=MIGRATE_DESCRIPTION,
    )
    migrate.add_argument(
        "--to",
        required=True,
        metavar="postgresql://USER:PASSWORD@HOST:PORT/DATABASE",
        help="the empty PostgreSQL database to copy into",
    )


def run_operation(args: argparse.Namespace, settings: Settings | None) -> int:
    """Run the operation `args.command` names. `settings` is None for the doctor, which
    reads (and reports) them itself."""
    # Imported when asked for (noqa PLC0415 below): `steady run` never loads them.
    if args.command == "doctor":
        from bot.operations.doctor import run_doctor  # noqa: PLC0415

        configure_logging("WARNING", None)  # the report is on stdout; retries on stderr
        return run_doctor(args.workers)
    assert settings is not None
    if args.command == "backup":
        from bot.operations.backup import run_backup  # noqa: PLC0415

        return run_backup(settings, args.path)
    if args.command == "restore":
        from bot.operations.restore import run_restore  # noqa: PLC0415

        return run_restore(settings, args.path, args.replace)
    from bot.operations.migrate import run_migrate  # noqa: PLC0415

    return run_migrate(settings, args.to)
