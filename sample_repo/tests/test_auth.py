from tasklane.auth.login import hash_password, login
from tasklane.auth.tokens import TOKEN_TTL_SECONDS, issue_token, verify_token


def test_login_returns_token_for_right_password() -> None:
    users = {"ops": hash_password("s3cret")}
    token = login("ops", "s3cret", users)
    assert token is not None
    assert verify_token(token) == "ops"


def test_login_refuses_wrong_password_and_unknown_user() -> None:
    users = {"ops": hash_password("s3cret")}
    assert login("ops", "nope", users) is None
    assert login("ghost", "s3cret", users) is None


def test_tampered_token_is_rejected() -> None:
    token = issue_token("ops")
    assert verify_token(token.replace("ops", "root", 1)) is None


def test_expired_token_is_rejected() -> None:
    token = issue_token("ops", now=1000.0)
    assert verify_token(token, now=1000.0 + TOKEN_TTL_SECONDS + 1) is None
