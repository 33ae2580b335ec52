"""Structured logs that carry ids and event kinds only, never what anyone wrote.

Call `log_event(logger, "kind", user=..., flow=...)`: the kind is a fixed
string from code, the fields are ids and names of code paths. There is no
way to pass free text through here, on purpose.
"""

from __future__ import annotations

import logging
import os
import sys
import traceback
from datetime import UTC, datetime
from pathlib import Path
from typing import TextIO

FieldValue = int | str | bool | None

_LOGGER_PREFIX = "steady"


class KeyValueFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        stamp = datetime.fromtimestamp(record.created, UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        fields: dict[str, FieldValue] = getattr(record, "steady_fields", {})
        parts = [stamp, record.levelname.lower(), record.name, f"event={record.getMessage()}"]
        parts.extend(f"{key}={value}" for key, value in fields.items())
        if record.exc_info and record.exc_info[0] is not None:
            # The exception's class and where it was raised, never its message:
            # messages can quote user input.
            parts.append(f"error={record.exc_info[0].__name__}")
            frames = traceback.extract_tb(record.exc_info[2])
            if frames:
                parts.append(f"at={Path(frames[-1].filename).name}:{frames[-1].lineno}")
        return " ".join(parts)


def get_logger(name: str) -> logging.Logger:
    return logging.getLogger(f"{_LOGGER_PREFIX}.{name}")


def log_event(
    logger: logging.Logger,
    kind: str,
    level: int = logging.INFO,
    exc_info: BaseException | None = None,
    **fields: FieldValue,
) -> None:
    logger.log(level, "%s", kind, extra={"steady_fields": fields}, exc_info=exc_info)


class _NoVoiceNotice(logging.Filter):
    """discord.py warns at every start that voice needs PyNaCl; Steady never speaks."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not (
            record.name == "discord.client" and "voice will NOT be supported" in str(record.msg)
        )


def open_log_file(path: Path) -> TextIO:
    """An owner-only log file, appended to. Raises OSError when it cannot be opened."""
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    os.chmod(path, 0o600)
    return os.fdopen(descriptor, "a", encoding="utf-8", buffering=1)


def configure_logging(level: str, stream: TextIO | None = None) -> None:
    """Our events at `level`; every library at WARNING whatever `level` is.

    Libraries log what passes through them at DEBUG (aiosqlite logs each SQL
    statement with its parameters, HTTP clients log request bodies), so they
    never get a lower level than WARNING from this switch.
    """
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(KeyValueFormatter())
    handler.addFilter(_NoVoiceNotice())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.WARNING)
    logging.getLogger(_LOGGER_PREFIX).setLevel(level)
    # PTB's limiter logs every 429 as an error once it no longer retries them itself
    # (we retry per message; see the Telegram adapter): ours log them as events instead.
    logging.getLogger("telegram.ext.AIORateLimiter").setLevel(logging.CRITICAL)
