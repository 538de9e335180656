"""Password login; the only place that touches password hashes."""

import hashlib
import hmac
import os

from tasklane.auth.tokens import issue_token

_ITERATIONS = 200_000


def hash_password(password: str, salt: bytes | None = None) -> str:
    salt = salt or os.urandom(16)
    digest = hashlib.pbkdf2_hmac("sha256", password.encode(), salt, _ITERATIONS)
    return f"{salt.hex()}${digest.hex()}"


def check_password(password: str, stored: str) -> bool:
    salt_hex, digest_hex = stored.split("$", 1)
    digest = hashlib.pbkdf2_hmac("sha256", password.encode(), bytes.fromhex(salt_hex), _ITERATIONS)
    return hmac.compare_digest(digest.hex(), digest_hex)


def login(username: str, password: str, users: dict[str, str]) -> str | None:
    """Return a bearer token, or None; never say which half was wrong."""
    stored = users.get(username)
    if stored is None or not check_password(password, stored):
        return None
    return issue_token(username)
