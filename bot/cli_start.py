"""The commands that start Steady or change its database: `run`, `console` and
`keys rotate`. Imported only when one of them runs, so `steady detect` and
`steady content check` load no platform library and start at once."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Coroutine
from datetime import timedelta
from typing import Any

from bot.app import run_console, run_platforms
from bot.config import Settings
from bot.content_pack.loader import ContentError
from bot.core.platform import LoginRefused
from bot.observability.http import HttpPortUnavailable
from bot.platform_start import PlatformUnreachable
from bot.storage.crypto import WrongKeyError
from bot.storage.data_folder import DataFolderError
from bot.storage.key_rotation import RotationError, old_key_file, rotate
from bot.storage.migrations import MigrationError
from bot.storage.opening import DatabaseUnavailable, database_name
from bot.storage.process_lock import AlreadyRunningError

EXIT_USAGE = 2

NO_TOKEN_MESSAGE = (
    "steady: no platform is configured. Set TELEGRAM_BOT_TOKEN and/or DISCORD_BOT_TOKEN "
    "(see .env.example), or run `steady console` to chat in this terminal."
)

ENV_KEY_REFUSED = (
    "steady: the encryption key comes from STEADY_ENCRYPTION_KEY, so there is no key file "
    "to write the new key to. Run `steady keys rotate --print-key` where you can save its "
    "output, then set STEADY_ENCRYPTION_KEY to the printed key before starting Steady again."
)


def rotate_key(settings: Settings, print_key: bool) -> int:
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


def run(settings: Settings) -> int:
    if settings.has_platform:
        return _guarded(run_platforms(settings), settings)
    if not sys.stdin.isatty():
        print(NO_TOKEN_MESSAGE, file=sys.stderr)
        return EXIT_USAGE
    return run_console_here(settings, prompt=True)


def run_console_here(settings: Settings, prompt: bool) -> int:
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
