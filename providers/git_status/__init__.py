"""Git status provider: branch, operation in progress, changes and recent commits, every turn."""

from providers.git_status.provider import GitStatusProvider

__all__ = ["GitStatusProvider"]
