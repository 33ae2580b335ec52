"""Encryption for the words users write (notes, reasons, drafts).

AES-256-GCM with a random 96-bit nonce per value and the owner's user row id
as associated data, so a ciphertext copied onto another user's row fails to
decrypt instead of showing up there.
"""

from __future__ import annotations

import base64
import os
from pathlib import Path

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from bot.config import decode_key

_FORMAT_V1 = b"\x01"
_NONCE_BYTES = 12


class WrongKeyError(Exception):
    """The database was written with another encryption key."""


class TextCipher:
    def __init__(self, key: bytes) -> None:
        self._aead = AESGCM(key)

    def encrypt(self, text: str, user_id: int) -> bytes:
        nonce = os.urandom(_NONCE_BYTES)
        sealed = self._aead.encrypt(nonce, text.encode("utf-8"), _associated(user_id))
        return _FORMAT_V1 + nonce + sealed

    def decrypt(self, blob: bytes, user_id: int) -> str:
        return self._open(blob, _associated(user_id)).decode("utf-8")

    def encrypt_for_reminder(self, text: str, reminder_id: int) -> bytes:
        """A group reminder's own text: bound to that reminder, as user text is to its user."""
        nonce = os.urandom(_NONCE_BYTES)
        sealed = self._aead.encrypt(nonce, text.encode("utf-8"), _reminder(reminder_id))
        return _FORMAT_V1 + nonce + sealed

    def decrypt_for_reminder(self, blob: bytes, reminder_id: int) -> str:
        return self._open(blob, _reminder(reminder_id)).decode("utf-8")

    def seal_check_value(self) -> bytes:
        nonce = os.urandom(_NONCE_BYTES)
        return _FORMAT_V1 + nonce + self._aead.encrypt(nonce, b"steady", b"key-check")

    def verify_check_value(self, blob: bytes) -> None:
        """Raise WrongKeyError unless `blob` was sealed with this key."""
        self._open(blob, b"key-check")

    def _open(self, blob: bytes, associated: bytes) -> bytes:
        if blob[:1] != _FORMAT_V1:
            raise WrongKeyError("stored text is in an unknown format")
        nonce, sealed = blob[1 : 1 + _NONCE_BYTES], blob[1 + _NONCE_BYTES :]
        try:
            return self._aead.decrypt(nonce, sealed, associated)
        except InvalidTag:
            raise WrongKeyError("stored text cannot be decrypted with this key") from None


def _associated(user_id: int) -> bytes:
    return f"user:{user_id}".encode("ascii")


def _reminder(reminder_id: int) -> bytes:
    return f"reminder:{reminder_id}".encode("ascii")


def generate_key_text() -> str:
    return base64.urlsafe_b64encode(os.urandom(32)).decode("ascii")


def load_or_create_key(configured: str | None, key_file: Path) -> bytes:
    """The configured key, else the key file, else a new key written to the key file (0600)."""
    if configured is not None:
        return decode_key(configured)
    if key_file.exists():
        return decode_key(key_file.read_text("ascii"))
    key_file.parent.mkdir(parents=True, exist_ok=True)
    text = generate_key_text()
    # O_EXCL: never overwrite a key another process wrote a moment ago.
    descriptor = os.open(key_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "w", encoding="ascii") as handle:
        handle.write(text + "\n")
    return decode_key(text)
