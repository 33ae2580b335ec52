"""The `steady` command: run the bot, chat in the console, check content, rotate the key."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Coroutine, Sequence
from typing import Any

from bot.adapters.base import LoginRefused
from bot.app import run_console, run_platforms
from bot.config import Settings, SettingsError, load_settings
from bot.content_pack.loader import ContentError, check_pack, load_pack
from bot.logs import configure_logging
from bot.storage.crypto import WrongKeyError
from bot.storage.key_rotation import RotationError, old_key_file, rotate
from bot.storage.migrations import MigrationError
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
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        settings = load_settings()
    except SettingsError as error:
        print(f"steady: {error}", file=sys.stderr)
        return EXIT_USAGE
    command = args.command or "run"
    configure_logging(_log_level(settings, command))
    if command == "content":
        return _content_check(settings)
    if command == "detect":
        return _detect(settings, args.text, args.locale, as_json=args.json)
    if command == "keys":
        return _rotate_key(settings, print_key=args.print_key)
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
            f"({settings.database_file}). Stop it first, then rotate the key.",
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


def _log_level(settings: Settings, command: str) -> str:
    """In a terminal chat, routine events would be printed between the messages;
    there, only warnings show unless the operator asked for a level."""
    chatting_here = command == "console" or (command == "run" and not settings.has_platform)
    if chatting_here and "log_level" not in settings.model_fields_set:
        return "WARNING"
    return settings.log_level


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
            f"({settings.database_file}). Stop it first, or set STEADY_DATA_DIR to another "
            "folder.",
            file=sys.stderr,
        )
        return EXIT_USAGE
    except MigrationError as error:
        print(f"steady: {error}", file=sys.stderr)
        return EXIT_USAGE
    except LoginRefused as error:
        print(f"steady: {error}. Check the token, or create a new one.", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 0
    return 0


def _content_check(settings: Settings) -> int:
    problems = check_pack(settings.content_dir, settings.default_locale)
    for problem in problems:
        print(problem)
    if problems:
        print(f"{len(problems)} problem(s) found.", file=sys.stderr)
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
    detection = pack.detector(locale or settings.default_locale).detect(text)
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
