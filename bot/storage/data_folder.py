"""The data folder: checked and created owner-only before anything is written into it."""

from __future__ import annotations

import os
from pathlib import Path

# Pseudo file systems of the kernel: writing a database there is never what was meant.
_SYSTEM_FOLDERS = frozenset({"proc", "sys", "dev"})


class DataFolderError(Exception):
    """STEADY_DATA_DIR cannot hold Steady's files. The message is one line for the operator."""


def prepare_data_folder(folder: Path) -> None:
    """Make sure `folder` is a folder we can write to; create it (0700) if it is missing."""
    resolved = folder.resolve()
    if len(resolved.parts) > 1 and resolved.parts[1] in _SYSTEM_FOLDERS:
        raise DataFolderError(
            f"STEADY_DATA_DIR ({folder}) is inside /{resolved.parts[1]}, which cannot hold "
            "files; set it to a folder of your own, such as ./data"
        )
    if resolved.exists() and not resolved.is_dir():
        raise DataFolderError(
            f"STEADY_DATA_DIR ({folder}) is a file, not a folder; set it to a folder path"
        )
    try:
        if not resolved.exists():
            resolved.mkdir(mode=0o700, parents=True)
            os.chmod(resolved, 0o700)  # whatever the umask: only its owner may look inside
        probe = resolved / ".steady-write-check"
        probe.touch(mode=0o600)
        probe.unlink()
    except OSError as error:
        reason = error.strerror or type(error).__name__
        raise DataFolderError(
            f"STEADY_DATA_DIR ({folder}) cannot be written to ({reason.lower()}); "
            "choose a writable folder or fix its permissions"
        ) from None
