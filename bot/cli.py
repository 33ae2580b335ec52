"""The `steady` command: run the bot, chat in the console, check content, rotate the key."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import TextIO

from bot.config import Settings, SettingsError, load_settings, pick_default_locale
from bot.logs import configure_logging, open_log_file
from bot.operations.commands import OPERATIONS, add_operations, run_operation
from bot.storage.data_folder import DataFolderError, prepare_data_folder

EXIT_USAGE = 2


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="steady", description="A check-in companion bot.")
    commands = parser.add_subparsers(dest="command")
    commands.add_parser("run", help="start every configured platform (the console if none)")
    commands.add_parser("console", help="chat in this terminal, or pipe lines through stdin")
    content = commands.add_parser("content", help="work with the content pack")
    content_commands = content.add_subparsers(dest="content_command", required=True)
    content_commands.add_parser("check", help="validate the pack; prints file:line: problem")
    detect = commands.add_parser("detect", help="show which safety intents a text triggers")
    detect.add_argument(
        "text", help="the text to screen, as a user might write it; - reads one text a line"
    )
    detect.add_argument("--locale", default=None, help="the pack locale (default: the default)")
    detect.add_argument("--json", action="store_true", help="print one JSON object instead")
    keys = commands.add_parser("keys", help="manage the encryption key of users' notes")
    keys_commands = keys.add_subparsers(dest="keys_command", required=True)
    rotate = keys_commands.add_parser(
        "rotate",
        help="re-encrypt everything under a new key (stop Steady first)",
        description=ROTATE_DESCRIPTION,
    )
    rotate.add_argument(
        "--print-key",
        action="store_true",
        help="with STEADY_ENCRYPTION_KEY set: rotate and print the new key once (else refused)",
    )
    add_operations(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "doctor":  # it reports invalid settings itself, as one of its checks
        return run_operation(args, None)
    try:
        settings = pick_default_locale(load_settings())
    except SettingsError as error:
        print(f"steady: {error}", file=sys.stderr)
        return EXIT_USAGE
    command = args.command or "run"
    try:
        log_stream = _log_stream(settings, command)
    except DataFolderError as error:
        print(f"steady: {error}.", file=sys.stderr)
        return EXIT_USAGE
    configure_logging(_log_level(settings, command, log_stream), log_stream)
    # Each command imports what it needs when it runs: `detect` and `content check` must
    # start at once and load no platform library (python-telegram-bot, discord.py).
    if command == "content":
        return _content_check(settings)
    if command == "detect":
        from bot.cli_detect import detect  # noqa: PLC0415

        return detect(settings, args.text, args.locale, as_json=args.json)
    from bot import cli_start  # noqa: PLC0415

    if command == "keys":
        return cli_start.rotate_key(settings, print_key=args.print_key)
    if command in OPERATIONS:
        return run_operation(args, settings)
    if command == "console":
        return cli_start.run_console_here(settings, prompt=sys.stdin.isatty())
    return cli_start.run(settings)


ROTATE_DESCRIPTION = (
    "Re-encrypt every stored note, reason and draft under a freshly generated key, in one "
    "database transaction. Steady must be stopped. With the key in STEADY_DATA_DIR/steady.key, "
    "the new key replaces that file (mode 0600); the old key is kept beside it as "
    "steady.key.old until the database has committed, then removed. With the key in "
    "STEADY_ENCRYPTION_KEY there is no file to write: the command refuses unless given "
    "--print-key, and then prints the new key once on stdout before committing; set "
    "STEADY_ENCRYPTION_KEY to it before starting Steady again."
)
LOG_FILE = "steady.log"


def _chatting_here(settings: Settings, command: str) -> bool:
    return command == "console" or (command == "run" and not settings.has_platform)


def _log_stream(settings: Settings, command: str) -> TextIO | None:
    """Where logs go: for a chat in this terminal, a file in the data folder, so no log
    line (ours or a library's) lands between the messages; otherwise stderr."""
    if not _chatting_here(settings, command) or not sys.stderr.isatty():
        return None  # stderr is not the chat's terminal: it may have the logs
    prepare_data_folder(settings.data_dir)
    try:
        return open_log_file(settings.data_dir / LOG_FILE)
    except OSError as error:
        reason = (error.strerror or type(error).__name__).lower()
        raise DataFolderError(
            f"STEADY_DATA_DIR ({settings.data_dir}) cannot hold the log file ({reason})"
        ) from None


def _log_level(settings: Settings, command: str, log_stream: TextIO | None) -> str:
    """In a terminal chat whose logs still reach the terminal, routine events would be
    printed between the messages; there, only warnings show unless the operator asked
    for a level."""
    if log_stream is not None or "log_level" in settings.model_fields_set:
        return settings.log_level
    return "WARNING" if _chatting_here(settings, command) else settings.log_level


def _content_check(settings: Settings) -> int:
    from bot.content_pack.audit import audit_pack  # noqa: PLC0415
    from bot.content_pack.loader import check_pack, load_pack  # noqa: PLC0415
    from bot.safety.stage_check import check_learned_stage  # noqa: PLC0415

    problems = check_pack(settings.content_dir, settings.default_locale)
    for problem in problems:
        print(problem)
    if problems:
        print(f"{len(problems)} problem(s) found.", file=sys.stderr)
        return 1
    report = audit_pack(
        load_pack(settings.content_dir, settings.default_locale), settings.content_dir
    )
    stage_failures, stage_notes = check_learned_stage(settings.content_dir)
    for note in [*report.notes, *stage_notes]:
        print(note)
    failures = [*report.failures, *stage_failures]
    for finding in failures:
        print(finding)
    if failures:
        print(f"{len(failures)} problem(s) found.", file=sys.stderr)
        return 1
    print("content pack is valid.")
    return 0
