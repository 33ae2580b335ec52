"""Structured logs that carry ids and event kinds only, never what anyone wrote.

Call `log_event(logger, "kind", user=..., flow=...)`: the kind is a fixed
string from code, the fields are ids and names of code paths. There is no
way to pass free text through here, on purpose.
"""

from __future__ import annotations

import logging
import sys
from datetime import UTC, datetime

FieldValue = int | str | bool | None

_LOGGER_PREFIX = "steady"


class KeyValueFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        stamp = datetime.fromtimestamp(record.created, UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        fields: dict[str, FieldValue] = getattr(record, "steady_fields", {})
        parts = [stamp, record.levelname.lower(), record.name, f"event={record.getMessage()}"]
        parts.extend(f"{key}={value}" for key, value in fields.items())
        if record.exc_info and record.exc_info[0] is not None:
            # The exception's class, never its message: messages can quote user input.
            parts.append(f"error={record.exc_info[0].__name__}")
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


def configure_logging(level: str) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(KeyValueFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.WARNING)  # libraries: warnings only; they may log request bodies
    logging.getLogger(_LOGGER_PREFIX).setLevel(level)
