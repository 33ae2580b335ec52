from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from bot.app import discord_config, telegram_config
from bot.config import SettingsError, load_settings
from bot.storage.crypto import generate_key_text


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)  # no stray .env from the working directory
    for name in (
        "TELEGRAM_BOT_TOKEN",
        "TELEGRAM_WEBHOOK_URL",
        "TELEGRAM_WEBHOOK_SECRET",
        "TELEGRAM_WEBHOOK_PORT",
        "DISCORD_BOT_TOKEN",
        "DISCORD_API_BASE_URL",
        "DISCORD_GATEWAY_URL",
        "STEADY_DATA_DIR",
        "STEADY_DATABASE_PATH",
        "STEADY_DATABASE_URL",
        "STEADY_ENCRYPTION_KEY",
        "STEADY_LOG_LEVEL",
        "STEADY_DEFAULT_LOCALE",
        "STEADY_TICK_SECONDS",
        "STEADY_MISSED_GRACE",
        "STEADY_RETENTION_DAYS",
    ):
        monkeypatch.delenv(name, raising=False)


def test_defaults() -> None:
    settings = load_settings()
    assert settings.data_dir == Path("data")
    assert settings.database_file == Path("data/steady.db")
    assert settings.telegram.token is None
    assert settings.telegram.base_url == "https://api.telegram.org/bot"
    assert settings.log_level == "INFO"
    assert (settings.content_dir / "en" / "messages.yaml").is_file()


def test_database_path_follows_the_data_dir(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STEADY_DATA_DIR", "/srv/steady")
    assert load_settings().database_file == Path("/srv/steady/steady.db")
    monkeypatch.setenv("STEADY_DATABASE_PATH", "/elsewhere/s.db")
    assert load_settings().database_file == Path("/elsewhere/s.db")


def test_a_database_url_selects_postgresql_and_blank_means_sqlite(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert load_settings().database_url is None
    monkeypatch.setenv("STEADY_DATABASE_URL", "")
    assert load_settings().database_url is None
    monkeypatch.setenv("STEADY_DATABASE_URL", "postgresql://steady@db:5432/steady")
    assert load_settings().database_url == "postgresql://steady@db:5432/steady"
    monkeypatch.setenv("STEADY_DATABASE_URL", "mysql://steady@db/steady")
    with pytest.raises(SettingsError, match=r"^STEADY_DATABASE_URL is not valid: .*postgresql://"):
        load_settings()


def test_dot_env_file_is_read_and_blank_tokens_mean_unset(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("TELEGRAM_BOT_TOKEN=\nSTEADY_LOG_LEVEL=debug\n")
    settings = load_settings()
    assert settings.telegram.token is None
    assert settings.log_level == "DEBUG"


@pytest.mark.parametrize(
    ("variable", "value", "expected"),
    [
        ("STEADY_LOG_LEVEL", "LOUD", "one of DEBUG, INFO, WARNING, ERROR"),
        ("STEADY_ENCRYPTION_KEY", "too-short", "URL-safe base64 of 32 random bytes"),
        ("STEADY_DEFAULT_LOCALE", "en_US!", "a language tag such as en or en-GB"),
    ],
)
def test_invalid_value_is_one_line_naming_the_variable(
    monkeypatch: pytest.MonkeyPatch, variable: str, value: str, expected: str
) -> None:
    monkeypatch.setenv(variable, value)
    with pytest.raises(SettingsError) as raised:
        load_settings()
    message = str(raised.value)
    assert message.startswith(f"{variable} is not valid")
    assert expected in message
    assert "\n" not in message


def test_a_generated_key_is_accepted(monkeypatch: pytest.MonkeyPatch) -> None:
    key = generate_key_text()
    monkeypatch.setenv("STEADY_ENCRYPTION_KEY", key)
    assert load_settings().encryption_key == key


def test_scheduler_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    settings = load_settings()
    assert settings.tick_seconds == 15
    assert settings.missed_grace == timedelta(hours=2)
    monkeypatch.setenv("STEADY_TICK_SECONDS", "5")
    monkeypatch.setenv("STEADY_MISSED_GRACE", "45m")
    settings = load_settings()
    assert (settings.tick_seconds, settings.missed_grace) == (5, timedelta(minutes=45))


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("STEADY_TICK_SECONDS", "60"),
        ("STEADY_TICK_SECONDS", "0"),
        ("STEADY_MISSED_GRACE", "forever"),
        ("STEADY_MISSED_GRACE", "3d"),
        ("STEADY_MISSED_GRACE", "25h"),
    ],
)
def test_scheduler_settings_out_of_range(
    monkeypatch: pytest.MonkeyPatch, variable: str, value: str
) -> None:
    monkeypatch.setenv(variable, value)
    with pytest.raises(SettingsError, match=f"^{variable} is not valid"):
        load_settings()


def test_retention_days(monkeypatch: pytest.MonkeyPatch) -> None:
    assert load_settings().retention_days == 180
    monkeypatch.setenv("STEADY_RETENTION_DAYS", "0")
    with pytest.raises(SettingsError, match=r"^STEADY_RETENTION_DAYS is not valid"):
        load_settings()


def test_discord_endpoints(monkeypatch: pytest.MonkeyPatch) -> None:
    settings = load_settings()
    assert settings.discord.api_base_url == "https://discord.com/api/v10"
    assert settings.discord.gateway_url is None  # asked of the API at start-up
    monkeypatch.setenv("DISCORD_API_BASE_URL", "http://127.0.0.1:9000/api/v10/")
    monkeypatch.setenv("DISCORD_GATEWAY_URL", "ws://127.0.0.1:9000/gateway")
    settings = load_settings()
    assert settings.discord.api_base_url == "http://127.0.0.1:9000/api/v10"
    assert settings.discord.gateway_url == "ws://127.0.0.1:9000/gateway"
    monkeypatch.setenv("DISCORD_GATEWAY_URL", "")
    assert load_settings().discord.gateway_url is None


@pytest.mark.parametrize(
    ("variable", "value"),
    [("DISCORD_API_BASE_URL", "discord.com/api"), ("DISCORD_GATEWAY_URL", "https://gw")],
)
def test_discord_endpoints_must_be_addresses(
    monkeypatch: pytest.MonkeyPatch, variable: str, value: str
) -> None:
    monkeypatch.setenv(variable, value)
    with pytest.raises(SettingsError, match=f"^{variable} is not valid"):
        load_settings()


def test_each_platform_section_reaches_its_adapter_as_read(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # The platform sections read the same .env file as the rest of the settings.
    (tmp_path / ".env").write_text("TELEGRAM_BOT_TOKEN=123:abc\nDISCORD_BOT_TOKEN=d-token\n")
    monkeypatch.setenv("TELEGRAM_WEBHOOK_URL", "https://example.org/hook")
    monkeypatch.setenv("TELEGRAM_WEBHOOK_SECRET", "s3cret")
    monkeypatch.setenv("TELEGRAM_WEBHOOK_PORT", "9443")
    monkeypatch.setenv("DISCORD_GATEWAY_URL", "ws://127.0.0.1:9000/gateway")
    settings = load_settings()
    assert settings.has_platform
    telegram = telegram_config(settings)
    assert (telegram.token, telegram.base_url) == ("123:abc", "https://api.telegram.org/bot")
    assert (telegram.webhook_url, telegram.webhook_secret) == ("https://example.org/hook", "s3cret")
    assert (telegram.webhook_listen, telegram.webhook_port) == ("0.0.0.0", 9443)
    discord = discord_config(settings)
    assert (discord.token, discord.gateway_url) == ("d-token", "ws://127.0.0.1:9000/gateway")
    assert discord.api_base_url == "https://discord.com/api/v10"


def test_a_platform_section_is_validated_with_its_variable_named(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("TELEGRAM_WEBHOOK_PORT", "70000")
    with pytest.raises(
        SettingsError, match=r"^TELEGRAM_WEBHOOK_PORT is not valid: expected a port"
    ):
        load_settings()
