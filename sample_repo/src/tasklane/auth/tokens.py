"""HMAC-signed bearer tokens: `<user>.<expiry>.<signature>`."""

import hashlib
import hmac
import os
import time

TOKEN_TTL_SECONDS = 3600


def _secret() -> bytes:
    return os.environ.get("TASKLANE_SECRET", "dev-only-secret").encode()


def _sign(message: str) -> str:
    return hmac.new(_secret(), message.encode(), hashlib.sha256).hexdigest()


def issue_token(username: str, now: float | None = None) -> str:
    expiry = int((now or time.time()) + TOKEN_TTL_SECONDS)
    message = f"{username}.{expiry}"
    return f"{message}.{_sign(message)}"


def verify_token(token: str, now: float | None = None) -> str | None:
    """Return the username if the token is genuine and unexpired."""
    try:
        username, expiry, signature = token.rsplit(".", 2)
    except ValueError:
        return None
    if not hmac.compare_digest(_sign(f"{username}.{expiry}"), signature):
        return None
    if int(expiry) < (now or time.time()):
        return None
    return username
