"""deploy/: what the files promise is what Steady does. The alert rules and the dashboard
query only metrics /metrics exports; the service unit keeps its hardening; and, where the
tools are installed (CI installs them), deploy/check.sh passes the files and refuses
broken copies of them."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest
import yaml

from bot.observability.metrics import Metrics, QueueState

DEPLOY = Path(__file__).resolve().parent.parent / "deploy"
_METRIC = re.compile(r"\bsteady_[a-z_]+\b")
# Sample names under each family's TYPE line (a counter's already ends in _total).
_SUFFIXES = {"counter": ("",), "histogram": ("_bucket", "_sum", "_count"), "gauge": ("",)}


def _exported() -> set[str]:
    """Every sample name /metrics can show, read from the exposition itself."""
    metrics = Metrics()
    now = datetime(2026, 3, 2, tzinfo=UTC)
    metrics.watch_outbox(lambda: {"telegram": QueueState(1, now)}, lambda: now)
    names = set()
    for line in metrics.exposition().decode().splitlines():
        if line.startswith("# TYPE "):
            _, _, name, kind = line.split()
            names.update(name + suffix for suffix in _SUFFIXES[kind])
    return names


def _rule_expressions() -> list[str]:
    rules = yaml.safe_load((DEPLOY / "prometheus" / "steady-rules.yml").read_text())
    return [rule["expr"] for group in rules["groups"] for rule in group["rules"]]


def _dashboard_expressions() -> list[str]:
    dashboard = json.loads((DEPLOY / "grafana" / "steady-dashboard.json").read_text())
    return [target["expr"] for panel in dashboard["panels"] for target in panel["targets"]]


@pytest.mark.parametrize("source", ["alert rules", "dashboard"])
def test_every_metric_queried_is_one_metrics_exports(source: str) -> None:
    expressions = _rule_expressions() if source == "alert rules" else _dashboard_expressions()
    named = {name for expression in expressions for name in _METRIC.findall(expression)}
    assert named, "no Steady metric is queried at all"
    assert named <= _exported(), f"not exported: {sorted(named - _exported())}"


def test_the_alerts_cover_what_an_operator_must_hear_about() -> None:
    queried = " ".join(_rule_expressions())
    for metric in (
        "steady_tick_lag_seconds",
        "steady_last_tick_timestamp_seconds",  # ticks stopped: the database is gone too
        "steady_outbox_oldest_age_seconds",
        "steady_send_give_ups_total",
        "steady_urgent_replies_undelivered_total",  # a crisis reply that never arrived
        "steady_database_reachable",
        "steady_leader_role_held",
        'up{job="steady"}',
    ):
        assert metric in queried, metric


def test_the_service_unit_runs_hardened_as_its_own_user() -> None:
    unit = (DEPLOY / "systemd" / "steady.service").read_text()
    settings = dict(
        line.split("=", 1) for line in unit.splitlines() if "=" in line and line[:1].isalpha()
    )
    assert settings["User"] == "steady" and settings["Group"] == "steady"
    assert settings["ProtectSystem"] == "strict"
    assert settings["NoNewPrivileges"] == "yes"
    assert settings["Restart"] == "on-failure"
    assert settings["EnvironmentFile"] == "/etc/steady/steady.env"
    # The data folder is the one writable path: systemd's state directory, and Steady's.
    assert settings["StateDirectory"] == "steady"
    assert settings["Environment"] == "STEADY_DATA_DIR=/var/lib/steady"
    assert "ReadWritePaths" not in settings
    assert settings["ExecStart"] == "/opt/steady/bin/steady run"


_TOOLS = ("systemd-analyze", "nginx", "caddy", "promtool", "openssl")


@pytest.mark.skipif(
    any(shutil.which(tool) is None for tool in _TOOLS),
    reason=f"needs {', '.join(_TOOLS)} (deploy/check.sh installs them in CI)",
)
def test_check_script_passes_the_files_and_refuses_broken_copies() -> None:
    steady = Path(sys.executable).with_name("steady")
    done = subprocess.run(
        ["bash", str(DEPLOY / "check.sh"), str(steady)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    refused = [line for line in done.stdout.splitlines() if line.startswith("ok    refused:")]
    assert len(refused) == 7, done.stdout
