"""The `steady` command: run the bot, chat in the console, check content, rotate the key."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Coroutine, Sequence
from datetime import timedelta
from typing import Any, TextIO

from bot.app import PlatformUnreachable, run_console, run_platforms
from bot.config import Settings, SettingsError, load_settings, pick_default_locale
from bot.content_pack.audit import audit_pack
from bot.content_pack.loader import ContentError, check_pack, load_pack
from bot.core.platform import LoginRefused
from bot.logs import configure_logging, open_log_file
from bot.observability.http import HttpPortUnavailable
from bot.operations.commands import OPERATIONS, add_operations, run_operation
from bot.safety.screen import SafetyScreen
from bot.storage.crypto import WrongKeyError
from bot.storage.data_folder import DataFolderError, prepare_data_folder
from bot.storage.key_rotation import RotationError, old_key_file, rotate
from bot.storage.migrations import MigrationError
from bot.storage.opening import DatabaseUnavailable, database_name
from bot.storage.process_lock import AlreadyRunningError

EXIT_USAGE = 2

NO_TOKEN_MESSAGE = (
    "steady: no platform is configured. Set TELEGRAM_BOT_TOKEN and/or DISCORD_BOT_TOKEN "
    "(see .env.example), or run `steady console` to chat in this terminal."
)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="steady", description="A check-in companion bot.")
    commands = parser.add_subparsers(dest="command")
    commands.add_parser("run", help="start every configured platform (the console if none)")
    commands.add_parser("console", help="chat in this terminal, or pipe lines through stdin")
    content = commands.add_parser("content", help="work with the content pack")
    content_commands = content.add_subparsers(dest="content_command", required=True)
    content_commands.add_parser("check", help="validate the pack; prints file:line: problem")
    detect = commands.add_parser("detect", help="show which safety intents a text triggers")
    detect.add_argument("text", help="the text to screen, as a user might write it")
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
    if command == "content":
        return _content_check(settings)
    if command == "detect":
        return _detect(settings, args.text, args.locale, as_json=args.json)
    if command == "keys":
        return _rotate_key(settings, print_key=args.print_key)
    if command in OPERATIONS:
        return run_operation(args, settings)
    if command == "console":
        return _run_console(settings, prompt=sys.stdin.isatty())
    return _run(settings)


ROTATE_DESCRIPTION = (
    "Re-encrypt every stored note, reason and draft under a freshly generated key, in one "
    "database transaction. Steady must be stopped. With the key in STEADY_DATA_DIR/steady.key, "
    "the new key replaces that file (mode 0600); the old key is kept beside it as "
    "steady.key.old until the database has committed, then removed. With the key in "
    "STEADY_ENCRYPTION_KEY there is no file to write: the command refuses unless given "
    "--print-key, and then prints the new key once on stdout before committing; set "
    "STEADY_ENCRYPTION_KEY to it before starting Steady again."
)
ENV_KEY_REFUSED = (
    "steady: the encryption key comes from STEADY_ENCRYPTION_KEY, so there is no key file "
    "to write the new key to. Run `steady keys rotate --print-key` where you can save its "
    "output, then set STEADY_ENCRYPTION_KEY to the printed key before starting Steady again."
)


def _rotate_key(settings: Settings, print_key: bool) -> int:
    """`steady keys rotate`; exit 2 with one clear line whenever it cannot be done."""
    from_environment = settings.encryption_key is not None
    if from_environment and not print_key:
        print(ENV_KEY_REFUSED, file=sys.stderr)
        return EXIT_USAGE

    def publish(key: str) -> None:
        print(key, flush=True)  # stdout holds the key alone, so it can be captured as is

    try:
        rotation = asyncio.run(rotate(settings, publish if from_environment else None))
    except AlreadyRunningError:
        print(
            "steady: Steady is running on this database "
            f"({database_name(settings)}). Stop it first, then rotate the key.",
            file=sys.stderr,
        )
        return EXIT_USAGE
    except WrongKeyError:
        print(
            "steady: the configured key does not open this database; nothing was changed.",
            file=sys.stderr,
        )
        return EXIT_USAGE
    except (RotationError, MigrationError) as error:
        print(f"steady: {error}; nothing was changed.", file=sys.stderr)
        return EXIT_USAGE
    if rotation.key_file is None:
        print(
            f"steady: {rotation.values} stored texts re-encrypted under the key printed above. "
            "Set STEADY_ENCRYPTION_KEY to it now: the old key no longer opens anything.",
            file=sys.stderr,
        )
    else:
        print(
            f"steady: {rotation.values} stored texts re-encrypted; the new key is in "
            f"{rotation.key_file}. Back it up: the old key no longer opens anything.",
            file=sys.stderr,
        )
    return 0


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


def _run(settings: Settings) -> int:
    if settings.has_platform:
        return _guarded(run_platforms(settings), settings)
    if not sys.stdin.isatty():
        print(NO_TOKEN_MESSAGE, file=sys.stderr)
        return EXIT_USAGE
    return _run_console(settings, prompt=True)


def _run_console(settings: Settings, prompt: bool) -> int:
    return _guarded(run_console(settings, prompt=prompt), settings)


def _guarded(main: Coroutine[Any, Any, None], settings: Settings) -> int:
    """Run the bot, turning start-up problems into one clear line and exit code 2."""
    try:
        asyncio.run(main)
    except ContentError as error:
        for problem in error.problems:
            print(problem, file=sys.stderr)
        print("steady: the content pack has problems; see above.", file=sys.stderr)
        return EXIT_USAGE
    except WrongKeyError:
        print(
            "steady: this database was written with a different encryption key. "
            "Set STEADY_ENCRYPTION_KEY (or restore steady.key in STEADY_DATA_DIR) to the key "
            "it was created with.",
            file=sys.stderr,
        )
        if old_key_file(settings.key_file).exists():
            print(
                f"steady: {old_key_file(settings.key_file).name} is there too: a key rotation "
                "was interrupted. Run `steady keys rotate` again to settle it.",
                file=sys.stderr,
            )
        return EXIT_USAGE
    except AlreadyRunningError:
        print(
            "steady: another Steady process is already running on this database "
            f"({database_name(settings)}). Stop it first, or set STEADY_DATA_DIR to another "
            "folder.",
            file=sys.stderr,
        )
        return EXIT_USAGE
    except (MigrationError, DatabaseUnavailable) as error:  # each is one line already
        print(f"steady: {error}", file=sys.stderr)
        return EXIT_USAGE
    except LoginRefused as error:
        print(f"steady: {error}. Check the token, or create a new one.", file=sys.stderr)
        return EXIT_USAGE
    except DataFolderError as error:
        print(f"steady: {error}.", file=sys.stderr)
        return EXIT_USAGE
    except HttpPortUnavailable as error:
        print(
            f"steady: cannot serve health and metrics on {error.host}:{error.port}"
            f" ({error.reason}). Set STEADY_HTTP_PORT to a free port, or leave it empty.",
            file=sys.stderr,
        )
        return EXIT_USAGE
    except PlatformUnreachable as error:
        print(
            f"steady: cannot reach {_PLATFORM_NAMES.get(error.platform, error.platform)} "
            f"(retried for {_duration(error.waited)}). Check this machine's network, or "
            f"{_BASE_URL_SETTING.get(error.platform, 'its address setting')}; "
            "STEADY_START_RETRY sets how long to retry.",
            file=sys.stderr,
        )
        return EXIT_USAGE
    except OSError as error:  # the disk refused something start-up needed
        where = f" {error.filename}" if error.filename else ""
        reason = (error.strerror or type(error).__name__).lower()
        print(
            f"steady: cannot start: {reason}{where}. Check STEADY_DATA_DIR and its permissions.",
            file=sys.stderr,
        )
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 0
    return 0


_PLATFORM_NAMES = {"telegram": "Telegram", "discord": "Discord"}
_BASE_URL_SETTING = {"telegram": "TELEGRAM_API_BASE_URL", "discord": "DISCORD_API_BASE_URL"}


def _duration(waited: timedelta) -> str:
    seconds = int(waited.total_seconds())
    return f"{seconds // 60} min" if seconds >= 60 and seconds % 60 == 0 else f"{seconds} s"


def _content_check(settings: Settings) -> int:
    problems = check_pack(settings.content_dir, settings.default_locale)
    for problem in problems:
        print(problem)
    if problems:
        print(f"{len(problems)} problem(s) found.", file=sys.stderr)
        return 1
    report = audit_pack(
        load_pack(settings.content_dir, settings.default_locale), settings.content_dir
    )
    for note in report.notes:
        print(note)
    for finding in report.failures:
        print(finding)
    if report.failures:
        print(f"{len(report.failures)} problem(s) found.", file=sys.stderr)
        return 1
    print("content pack is valid.")
    return 0


def _detect(settings: Settings, text: str, locale: str | None, as_json: bool = False) -> int:
    """For operators tuning the rules: every intent found, with the rule that found it."""
    try:
        pack = load_pack(settings.content_dir, settings.default_locale)
    except ContentError as error:
        for problem in error.problems:
            print(problem, file=sys.stderr)
        return EXIT_USAGE
    detection = SafetyScreen(pack).detect(text, locale or settings.default_locale)
    if as_json:
        intents = [{"intent": m.intent.value, "rule": m.rule_id} for m in detection.matches]
        found = {"normalised": detection.normalised, "intents": intents}
        print(json.dumps({**found, "reply": detection.reply.value}, ensure_ascii=False))
        return 0
    print(f"normalised: {detection.normalised}")
    if not detection.matches:
        print("none")
    for match in detection.matches:
        print(f"{match.intent.value}: rule {match.rule_id}")
    return 0
