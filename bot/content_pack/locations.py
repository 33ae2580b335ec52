"""Where the shipped content pack lives, for source checkouts and installed wheels alike."""

from __future__ import annotations

from pathlib import Path


def shipped_content_dir() -> Path:
    package_dir = Path(__file__).resolve().parent.parent
    installed = package_dir / "shipped_content"  # placed there by the wheel build
    if installed.is_dir():
        return installed
    return package_dir.parent / "content"
