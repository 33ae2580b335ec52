"""Programs from the operating system the deployment tests run for real (nginx, promtool,
systemd-analyze, pg_dump ...). Without one a test is skipped, saying which package gives
it; where STEADY_TEST_REQUIRE_TOOLS is set (CI, which installs them) it fails instead."""

from __future__ import annotations

import os
import shutil

import pytest

REQUIRED_VARIABLE = "STEADY_TEST_REQUIRE_TOOLS"

# Debian's package for each program.
PACKAGES = {
    "nginx": "nginx",
    "caddy": "caddy",
    "promtool": "prometheus",
    "systemd-analyze": "systemd",
    "openssl": "openssl",
    "pg_dump": "postgresql-client",
    "pg_restore": "postgresql-client",
}


def tool(name: str) -> str:
    """The program's path, or the test is skipped (failed where tools are required)."""
    found = shutil.which(name) or shutil.which(name, path="/usr/sbin:/sbin")
    if found:
        return found
    reason = f"{name} is not installed (Debian: apt-get install {PACKAGES.get(name, name)})"
    if os.environ.get(REQUIRED_VARIABLE):
        pytest.fail(f"{REQUIRED_VARIABLE} is set but {reason}")
    pytest.skip(reason)
