"""Settings from the environment and a `.env` file.

Every field names the environment variable it reads, so an error can name it too.
"""

from __future__ import annotations

import base64
import binascii
import re
from datetime import timedelta
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict
from pydantic_settings.sources import ENV_FILE_SENTINEL, DotenvType

from bot.content_pack.locations import shipped_content_dir

LogLevel = Literal["DEBUG", "INFO", "WARNING", "ERROR"]


class SettingsError(Exception):
    """A setting has a value we cannot use. The message is one line for the operator."""


# Read by every section, so each finds its variables in the same environment and file.
_FROM_ENVIRONMENT = SettingsConfigDict(
    env_file=".env",
    env_file_encoding="utf-8",
    extra="ignore",
    populate_by_name=False,
)


def _blank_is_unset(value: object) -> object:
    # `.env.example` copied as-is leaves `TOKEN=`; that means "not configured".
    if isinstance(value, str) and not value.strip():
        return None
    return value


class TelegramSettings(BaseSettings):
    """The Telegram section; its field names are those of the adapter's TelegramConfig."""

    model_config = _FROM_ENVIRONMENT

    token: str | None = Field(default=None, validation_alias="TELEGRAM_BOT_TOKEN")
    base_url: str = Field(
        default="https://api.telegram.org/bot", validation_alias="TELEGRAM_API_BASE_URL"
    )
    webhook_url: str | None = Field(default=None, validation_alias="TELEGRAM_WEBHOOK_URL")
    webhook_secret: str | None = Field(default=None, validation_alias="TELEGRAM_WEBHOOK_SECRET")
    webhook_listen: str = Field(default="0.0.0.0", validation_alias="TELEGRAM_WEBHOOK_LISTEN")
    webhook_port: int = Field(
        default=8443, ge=1, le=65535, validation_alias="TELEGRAM_WEBHOOK_PORT"
    )

    _unset_when_blank = field_validator("token", "webhook_url", "webhook_secret", mode="before")(
        _blank_is_unset
    )

    @field_validator("webhook_url")
    @classmethod
    def _https_webhook(cls, value: str | None) -> str | None:
        if value is not None and not value.startswith("https://"):
            raise ValueError("an https:// address")
        return value

    @field_validator("webhook_secret")
    @classmethod
    def _secret_shape(cls, value: str | None) -> str | None:
        if value is not None and not re.fullmatch(r"[A-Za-z0-9_-]{1,256}", value):
            raise ValueError("1 to 256 letters, digits, _ or -")
        return value


class DiscordSettings(BaseSettings):
    """The Discord section; its field names are those of the adapter's DiscordConfig."""

    model_config = _FROM_ENVIRONMENT

    token: str | None = Field(default=None, validation_alias="DISCORD_BOT_TOKEN")
    api_base_url: str = Field(
        default="https://discord.com/api/v10", validation_alias="DISCORD_API_BASE_URL"
    )
    # Unset: ask the API where the gateway is (GET /gateway/bot), as Discord recommends.
    gateway_url: str | None = Field(default=None, validation_alias="DISCORD_GATEWAY_URL")

    _unset_when_blank = field_validator("token", "gateway_url", mode="before")(_blank_is_unset)

    @field_validator("api_base_url")
    @classmethod
    def _api_shape(cls, value: str) -> str:
        if not value.startswith(("https://", "http://")):
            raise ValueError("an http(s):// address")
        return value.rstrip("/")

    @field_validator("gateway_url")
    @classmethod
    def _gateway_shape(cls, value: str | None) -> str | None:
        if value is not None and not value.startswith(("wss://", "ws://")):
            raise ValueError("a wss:// address")
        return value


class Settings(BaseSettings):
    """Everything Steady reads from its environment: a section per platform, then the rest."""

    model_config = _FROM_ENVIRONMENT

    telegram: TelegramSettings
    discord: DiscordSettings
    data_dir: Path = Field(default=Path("data"), validation_alias="STEADY_DATA_DIR")
    database_path: Path | None = Field(default=None, validation_alias="STEADY_DATABASE_PATH")
    # Set: PostgreSQL at this address instead of the SQLite file (which is then unused).
    database_url: str | None = Field(default=None, validation_alias="STEADY_DATABASE_URL")
    encryption_key: str | None = Field(default=None, validation_alias="STEADY_ENCRYPTION_KEY")
    content_dir: Path = Field(
        default_factory=shipped_content_dir, validation_alias="STEADY_CONTENT_DIR"
    )
    default_locale: str = Field(default="en", validation_alias="STEADY_DEFAULT_LOCALE")
    # The console user's language, as an app would report it (es, es-MX): the pack's locale
    # for it is chosen on first contact, as Telegram's language is. Unset: the default.
    console_language: str | None = Field(default=None, validation_alias="STEADY_CONSOLE_LANGUAGE")
    log_level: LogLevel = Field(default="INFO", validation_alias="STEADY_LOG_LEVEL")
    tick_seconds: float = Field(default=15, ge=1, le=15, validation_alias="STEADY_TICK_SECONDS")
    retention_days: int = Field(
        default=180, ge=1, le=3650, validation_alias="STEADY_RETENTION_DAYS"
    )
    missed_grace: timedelta = Field(
        default=timedelta(hours=2), validation_alias="STEADY_MISSED_GRACE"
    )
    # A question left unanswered this long is closed: a later message is a new message.
    step_expiry: timedelta = Field(
        default=timedelta(minutes=30), validation_alias="STEADY_STEP_EXPIRY"
    )
    # Whether the learned stage may raise a message the rules leave alone to the short
    # check (the default), or only read it (false: the rules alone decide what is sent;
    # the model's reading is still in `steady detect` and the benches).
    safety_model_raises: bool = Field(default=True, validation_alias="STEADY_SAFETY_MODEL_RAISES")
    # How long start-up keeps retrying a platform it cannot reach before giving up.
    start_retry: timedelta = Field(
        default=timedelta(minutes=2), validation_alias="STEADY_START_RETRY"
    )
    # Set: /healthz and /metrics are served on this port (0: one the system picks).
    http_port: int | None = Field(default=None, ge=0, le=65535, validation_alias="STEADY_HTTP_PORT")
    http_host: str = Field(default="127.0.0.1", validation_alias="STEADY_HTTP_HOST")

    def __init__(self, _env_file: DotenvType | None = ENV_FILE_SENTINEL, **values: Any) -> None:
        # Each section reads its own variables (names unchanged) from the same file.
        values.setdefault("telegram", TelegramSettings(_env_file=_env_file))
        values.setdefault("discord", DiscordSettings(_env_file=_env_file))
        super().__init__(_env_file=_env_file, **values)

    _unset_when_blank = field_validator(
        "encryption_key", "http_port", "database_url", mode="before"
    )(_blank_is_unset)

    @field_validator("database_url")
    @classmethod
    def _postgres_url(cls, value: str | None) -> str | None:
        if value is not None and not value.startswith(("postgresql://", "postgres://")):
            raise ValueError("a postgresql:// address")
        return value

    @field_validator("log_level", mode="before")
    @classmethod
    def _upper_log_level(cls, value: object) -> object:
        return value.upper() if isinstance(value, str) else value

    @field_validator("missed_grace", "step_expiry", "start_retry", mode="before")
    @classmethod
    def _parse_duration(cls, value: object) -> object:
        if isinstance(value, str):
            return parse_duration(value)
        return value

    @field_validator("encryption_key")
    @classmethod
    def _key_is_32_bytes(cls, value: str | None) -> str | None:
        if value is not None:
            decode_key(value)
        return value

    @field_validator("default_locale")
    @classmethod
    def _locale_shape(cls, value: str) -> str:
        tag = normalise_locale_tag(value)
        if tag is None:
            raise ValueError("a language tag such as en or en-GB")
        return tag

    @model_validator(mode="after")
    def _derive_database_path(self) -> Settings:
        if self.database_path is None:
            self.database_path = self.data_dir / "steady.db"
        return self

    @property
    def database_file(self) -> Path:
        assert self.database_path is not None  # set by the model validator
        return self.database_path

    @property
    def has_platform(self) -> bool:
        return bool(self.telegram.token or self.discord.token)

    @property
    def key_file(self) -> Path:
        return self.data_dir / "steady.key"


# BCP 47 in the shape people write it: a 2-3 letter language, then subtags of 1-8
# letters or digits. `_` is accepted for `-`, as POSIX locales (en_GB) write it.
_LOCALE_TAG = re.compile(r"^[a-z]{2,3}(?:-[a-z0-9]{1,8})*$")


def normalise_locale_tag(text: str) -> str | None:
    """`en_GB` and `EN-gb` as `en-gb`; None when it is not a language tag at all."""
    tag = text.strip().replace("_", "-").lower()
    return tag if _LOCALE_TAG.fullmatch(tag) else None


def locale_fallbacks(tag: str) -> list[str]:
    """The tag, then ever shorter prefixes: `zh-hant-tw`, `zh-hant`, `zh`."""
    parts = tag.split("-")
    return ["-".join(parts[:length]) for length in range(len(parts), 0, -1)]


def pick_default_locale(settings: Settings) -> Settings:
    """The default locale as a folder of the content pack (`en-US` falls back to `en`);
    SettingsError naming STEADY_DEFAULT_LOCALE when the pack has none of it."""
    folder = settings.content_dir
    # A locale is a folder with its messages (content/detection/ holds rules, not a locale).
    available = (
        sorted(p.name for p in folder.iterdir() if (p / "messages.yaml").is_file())
        if folder.is_dir()
        else []
    )
    for candidate in locale_fallbacks(settings.default_locale):
        if candidate in available:
            return settings.model_copy(update={"default_locale": candidate})
    if not available:
        return settings  # no pack there at all: the content check names the folder
    raise SettingsError(
        f"STEADY_DEFAULT_LOCALE is not valid: the content pack has no {settings.default_locale}"
        f" (it has {', '.join(available)})."
    )


_DURATION = re.compile(r"^\s*(\d+)\s*([smh]?)\s*$")
_UNIT_SECONDS = {"": 1, "s": 1, "m": 60, "h": 3600}


def parse_duration(text: str) -> timedelta:
    """`90m`, `2h`, `45s` or plain seconds; at most a day."""
    match = _DURATION.match(text.lower())
    if match is None:
        raise ValueError("a duration such as 30m or 2h")
    seconds = int(match.group(1)) * _UNIT_SECONDS[match.group(2)]
    if not 0 < seconds <= 86_400:
        raise ValueError("a duration such as 30m or 2h")
    return timedelta(seconds=seconds)


def decode_key(text: str) -> bytes:
    """A key is 32 random bytes written as URL-safe base64 (44 characters)."""
    try:
        raw = base64.urlsafe_b64decode(text.strip().encode("ascii"))
    except (binascii.Error, UnicodeEncodeError, ValueError):
        raise ValueError("URL-safe base64 of 32 random bytes") from None
    if len(raw) != 32:
        raise ValueError("URL-safe base64 of 32 random bytes")
    return raw


_ALLOWED = {
    "STEADY_LOG_LEVEL": "one of DEBUG, INFO, WARNING, ERROR",
    "STEADY_ENCRYPTION_KEY": (
        "URL-safe base64 of 32 random bytes (make one with: "
        'python -c "import os,base64;print(base64.urlsafe_b64encode(os.urandom(32)).decode())")'
    ),
    "STEADY_DEFAULT_LOCALE": "a language tag such as en or en-GB",
    "STEADY_STEP_EXPIRY": "a duration from 1s to 24h, such as 30m",
    "STEADY_START_RETRY": "a duration from 1s to 24h, such as 2m",
    "STEADY_TICK_SECONDS": "a number of seconds from 1 to 15",
    "STEADY_RETENTION_DAYS": "a whole number of days from 1 to 3650",
    "TELEGRAM_WEBHOOK_URL": "an https:// address Telegram can reach",
    "TELEGRAM_WEBHOOK_SECRET": "1 to 256 letters, digits, _ or -",
    "TELEGRAM_WEBHOOK_PORT": "a port number from 1 to 65535",
    "STEADY_HTTP_PORT": "a port number from 0 to 65535, or nothing to serve no health page",
    "STEADY_MISSED_GRACE": "a duration from 1s to 24h, such as 30m or 2h",
    "DISCORD_API_BASE_URL": "an https:// address such as https://discord.com/api/v10",
    "DISCORD_GATEWAY_URL": "a wss:// address, or nothing to ask Discord for it",
    "STEADY_DATA_DIR": "a folder path",
    "STEADY_DATABASE_PATH": "a file path",
    "STEADY_DATABASE_URL": (
        "a postgresql://user:password@host:port/database address, or nothing for SQLite"
    ),
    "STEADY_CONTENT_DIR": "a folder path",
}


def load_settings(env_file: str | Path | None = ".env") -> Settings:
    """Read settings, turning a validation error into one line that names the variable."""
    try:
        return Settings(_env_file=env_file)
    except ValidationError as error:
        first = error.errors()[0]
        variable = str(first["loc"][0]) if first["loc"] else "settings"
        allowed = _ALLOWED.get(variable, first["msg"])
        raise SettingsError(f"{variable} is not valid: expected {allowed}.") from None
