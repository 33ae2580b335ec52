"""The doctor's key checks: where the key is, that only its owner may read it, and that it
opens the database (every user's words are sealed with it: the wrong key opens none)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from bot.config import Settings, decode_key
from bot.operations.report import Finding, failed, ok, skipped
from bot.storage.crypto import TextCipher, WrongKeyError
from bot.storage.inspection import StoredFacts
from bot.storage.key_rotation import old_key_file


def key_findings(settings: Settings, stored: StoredFacts | None, reachable: bool) -> list[Finding]:
    """Where the key is, who may read it, and whether it opens the database."""
    key_text, source = _key_source(settings)
    found = [source] if isinstance(source, Finding) else [ok("key", source)]
    check = None if stored is None else stored.key_check
    if not reachable:
        return [*found, skipped("key matches the database", "the database could not be read")]
    if check is None:
        return [
            *found,
            ok("key matches the database", "nothing sealed yet: the first start records the key"),
        ]
    if key_text is None:
        return [
            *found,
            failed(
                "key matches the database",
                "the database was written with a key that is not here: restore steady.key"
                " (or STEADY_ENCRYPTION_KEY) from your backup; without it no stored note opens",
            ),
        ]
    if _opens(key_text, check):
        return [*found, ok("key matches the database", "the key opens the database's key check")]
    old = old_key_file(settings.key_file)
    if settings.encryption_key is None and old.exists() and _opens(_read(old) or "", check):
        return [
            *found,
            ok(
                "key matches the database",
                f"{old.name} opens it (a key rotation was interrupted): the next start keeps it",
            ),
        ]
    return [
        *found,
        failed(
            "key matches the database",
            "this key does not open the database, which was written with another one: set"
            " STEADY_ENCRYPTION_KEY (or restore steady.key) to that key",
        ),
    ]


def _key_source(settings: Settings) -> tuple[str | None, str | Finding]:
    """The key's text (None: there is none) and what to say of where it lives."""
    if settings.encryption_key is not None:
        if "STEADY_ENCRYPTION_KEY" in os.environ:
            return settings.encryption_key, "from STEADY_ENCRYPTION_KEY in the environment"
        return settings.encryption_key, _private_file(Path(".env"), "STEADY_ENCRYPTION_KEY in")
    path = settings.key_file
    if not path.exists():
        return None, ok("key", f"no key yet: the first start writes {path} (mode 0600)")
    text = _read(path)
    if text is None:
        return None, failed("key", f"{path} cannot be read by this user")
    try:
        decode_key(text)
    except ValueError:
        return None, failed("key", f"{path} holds no key (URL-safe base64 of 32 bytes)")
    return text, _private_file(path, "")


def _private_file(path: Path, prefix: str) -> str | Finding:
    mode = stat.S_IMODE(path.stat().st_mode)
    where = f"{prefix} {path}".strip()
    if mode & 0o077:
        return failed(
            "key",
            f"{where} may be read by other users (mode {mode:04o}): chmod 600 {path}",
        )
    if path.stat().st_uid != os.geteuid():
        return failed("key", f"{where} belongs to another user: chown it to this one")
    return f"{where}, mode {mode:04o}, this user's own"


def _read(path: Path) -> str | None:
    try:
        return path.read_text("ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None


def _opens(key_text: str, check: bytes) -> bool:
    try:
        TextCipher(decode_key(key_text)).verify_check_value(check)
    except (ValueError, WrongKeyError):
        return False
    return True
