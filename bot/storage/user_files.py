"""Files kept for one user outside the database (the console's /progress chart).

Each user has one owner-only folder under the data folder, named by a hash of their
address so no id or name shows in a file listing; /forget removes the folder whole.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
from pathlib import Path

_FILES = "files"


def user_files_dir(data_dir: Path, platform: str, user_id: str) -> Path:
    digest = hashlib.sha256(f"{platform}:{user_id}".encode()).hexdigest()[:24]
    return data_dir / _FILES / digest


def write_user_file(data_dir: Path, platform: str, user_id: str, name: str, data: bytes) -> Path:
    """Write `name` for this user, owner-only (0600 in 0700 folders), replacing any older one."""
    folder = user_files_dir(data_dir, platform, user_id)
    for directory in (data_dir, folder.parent, folder):
        directory.mkdir(mode=0o700, exist_ok=True)
        os.chmod(directory, 0o700)
    path = folder / name
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "wb") as handle:
        handle.write(data)
    os.chmod(path, 0o600)
    return path


def forget_user_files(data_dir: Path, platform: str, user_id: str) -> None:
    shutil.rmtree(user_files_dir(data_dir, platform, user_id), ignore_errors=True)


# Earlier versions saved every console chart as data/charts/steady-progress-<date>.png,
# readable by anyone on the machine and kept after /forget.
_LEGACY_CHARTS = "charts"
_LEGACY_CHART_PATTERN = "steady-progress-*.png"


def remove_legacy_charts(data_dir: Path) -> int:
    """Delete the charts earlier versions left behind; how many there were."""
    folder = data_dir / _LEGACY_CHARTS
    if not folder.is_dir():
        return 0
    removed = 0
    for chart in folder.glob(_LEGACY_CHART_PATTERN):
        chart.unlink(missing_ok=True)
        removed += 1
    with contextlib.suppress(OSError):  # left alone if something else was put there
        folder.rmdir()
    return removed
