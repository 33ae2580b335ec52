"""STEADY_HTTP_PORT and STEADY_HTTP_HOST: unset serves nothing, a bad port is named."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.app import held_roles, observability_server
from bot.config import SettingsError, load_settings
from tests.helpers.recording_adapter import RecordingAdapter


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)  # no stray .env from the working directory
    for name in ("STEADY_HTTP_PORT", "STEADY_HTTP_HOST", "TELEGRAM_WEBHOOK_URL"):
        monkeypatch.delenv(name, raising=False)


def test_unset_or_blank_serves_nothing_on_localhost_by_default(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    settings = load_settings()
    assert (settings.http_port, settings.http_host) == (None, "127.0.0.1")
    monkeypatch.setenv("STEADY_HTTP_PORT", "")
    assert load_settings().http_port is None
    monkeypatch.setenv("STEADY_HTTP_PORT", "9464")
    monkeypatch.setenv("STEADY_HTTP_HOST", "0.0.0.0")
    settings = load_settings()
    assert (settings.http_port, settings.http_host) == (9464, "0.0.0.0")


@pytest.mark.parametrize("value", ["70000", "-1", "metrics"])
def test_a_bad_port_is_one_line_naming_the_variable(
    monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    monkeypatch.setenv("STEADY_HTTP_PORT", value)
    with pytest.raises(SettingsError) as raised:
        load_settings()
    assert str(raised.value) == (
        "STEADY_HTTP_PORT is not valid: expected a port number from 0 to 65535,"
        " or nothing to serve no health page."
    )


def test_no_port_no_server() -> None:
    # Nothing of the services is touched when nothing is served.
    unused = None
    assert observability_server(load_settings(), unused, {}) is None  # type: ignore[arg-type]


def test_the_roles_name_how_each_platform_is_served(monkeypatch: pytest.MonkeyPatch) -> None:
    adapters = {name: RecordingAdapter(name) for name in ("telegram", "discord", "console")}
    settings = load_settings()
    assert held_roles(settings, adapters) == (
        "console", "discord gateway", "telegram polling", "scheduler",
    )  # fmt: skip
    monkeypatch.setenv("TELEGRAM_WEBHOOK_URL", "https://example.org/hook")
    assert held_roles(load_settings(), {"telegram": RecordingAdapter("telegram")}) == (
        "telegram webhook", "scheduler",
    )  # fmt: skip
