"""Which repositories the user trusts to configure the bridge (``context-providers trust``).

The hooks and the MCP server start in every repository a person opens, one downloaded a
minute ago included, so a repository's own ``agent.hcl`` must not choose what runs or
what is read until the user has looked at it. As direnv's ``allow`` does, a trust record
names a repository root and the exact ``agent.hcl`` it had (a SHA-256 of its bytes): a
pull that changes ``agent.hcl`` makes the repository untrusted again until the user
trusts it again. Records live in ``$XDG_CONFIG_HOME/context-providers/trusted.json``
(``~/.config/...``), only the user's (0600), written atomically.

Why a record of our own and not the clients' (Claude Code's workspace trust, Gemini
CLI's trusted folders, Codex's trusted projects): one background process serves every
client of a repository at once, so its configuration cannot depend on which client's
hook came first; and the clients grant their trust by flags and environment too
(``claude -p`` shows no dialog, ``GEMINI_CLI_TRUST_WORKSPACE``), which says nothing
about whether the user read this ``agent.hcl``.

A repository whose root or ``.git`` belongs to another user gets git's "dubious
ownership" treatment: the bridge serves it nothing until the user trusts it.
"""

from __future__ import annotations

import contextlib
import enum
import hashlib
import json
import os
import stat
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ENV_CONFIG = "XDG_CONFIG_HOME"
APP = "context-providers"
AGENT_HCL = "agent.hcl"
MAX_AGENT_HCL_BYTES = 1 << 20
"""An agent.hcl larger than this is never trusted."""
UNREADABLE = "unreadable"


class State(enum.Enum):
    TRUSTED = "trusted"
    """Trusted, and ``agent.hcl`` is what it was then (or there is none)."""
    NO_CONFIG = "no agent.hcl"
    """Nothing to trust: no ``agent.hcl``, the repository is the user's own."""
    UNTRUSTED = "untrusted"
    """An ``agent.hcl`` the user has not trusted."""
    CHANGED = "changed"
    """Trusted once, but ``agent.hcl`` changed since."""
    FOREIGN = "another user's"
    """Owned by another user and not trusted: git's dubious ownership."""


@dataclass(frozen=True)
class Verdict:
    root: Path
    state: State
    owner: int | None = None
    """The other user's uid, for :attr:`State.FOREIGN`."""

    @property
    def uses_agent_hcl(self) -> bool:
        return self.state is State.TRUSTED

    @property
    def served(self) -> bool:
        """False: the bridge gives this repository nothing (another user's)."""
        return self.state is not State.FOREIGN

    def note(self) -> str:
        """One line for the log, ``doctor`` and previews; empty when nothing is withheld."""
        command = f"context-providers trust {self.root}"
        if self.state is State.UNTRUSTED:
            return (
                f"{self.root / AGENT_HCL} is not trusted: using the four default providers; "
                f"run `{command}` once you have read it"
            )
        if self.state is State.CHANGED:
            return (
                f"{self.root / AGENT_HCL} changed since you trusted it: using the four default "
                f"providers; run `{command}` again once you have read it"
            )
        if self.state is State.FOREIGN:
            return (
                f"{self.root} is owned by another user (uid {self.owner}): nothing is served "
                f"there (git's dubious ownership); run `{command}` if you trust it"
            )
        return ""


def store_path(environ: Mapping[str, str] | None = None) -> Path:
    env = os.environ if environ is None else environ
    base = env.get(ENV_CONFIG, "")
    if not base or not os.path.isabs(base):
        base = os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / APP / "trusted.json"


def agent_hcl_digest(root: Path) -> str | None:
    """SHA-256 of ``root/agent.hcl``'s bytes; None when there is none; :data:`UNREADABLE`
    when it is not a plain file of bounded size (a symlink included): never trusted."""
    path = root / AGENT_HCL
    try:
        info = os.lstat(path)
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_AGENT_HCL_BYTES:
            return UNREADABLE
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except FileNotFoundError:
        return None
    except OSError:
        return UNREADABLE


def foreign_owner(root: Path) -> int | None:
    """The uid of another user owning ``root`` or its ``.git``, as git's
    ``safe.directory`` check looks at them; None when both are ours (or root's, when we
    are root)."""
    me = os.geteuid()
    for path in (root, root / ".git"):
        try:
            owner = os.lstat(path).st_uid
        except OSError:
            continue
        if owner != me:
            return owner
    return None


class TrustStore:
    """The trust records: repository root -> the ``agent.hcl`` digest it was trusted with."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or store_path()

    def records(self) -> dict[str, Any]:
        try:
            with open(self.path, encoding="utf-8") as handle:
                data = json.load(handle)
        except (OSError, ValueError):
            return {}
        found = data.get("repositories") if isinstance(data, dict) else None
        return found if isinstance(found, dict) else {}

    def verdict(self, root: Path) -> Verdict:
        root = Path(os.path.realpath(root))
        record = self.records().get(str(root))
        digest = agent_hcl_digest(root)
        owner = foreign_owner(root)
        if isinstance(record, dict) and record.get("agent_hcl") == digest != UNREADABLE:
            return Verdict(root, State.TRUSTED)
        if owner is not None:
            return Verdict(root, State.FOREIGN, owner)
        if digest is None:
            return Verdict(root, State.NO_CONFIG)
        return Verdict(root, State.CHANGED if isinstance(record, dict) else State.UNTRUSTED)

    def trust(self, root: Path) -> Verdict:
        """Record ``root`` as trusted with its ``agent.hcl`` as it is now."""
        root = Path(os.path.realpath(root))
        digest = agent_hcl_digest(root)
        if digest == UNREADABLE:
            raise OSError(f"{root / AGENT_HCL}: not a readable plain file of at most 1 MiB")
        records = self.records()
        records[str(root)] = {"agent_hcl": digest, "trusted_at": time.strftime("%Y-%m-%d")}
        self._write(records)
        return self.verdict(root)

    def forget(self, root: Path) -> bool:
        """Take ``root``'s record out; whether there was one."""
        root = Path(os.path.realpath(root))
        records = self.records()
        if records.pop(str(root), None) is None:
            return False
        self._write(records)
        return True

    def _write(self, records: Mapping[str, Any]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        text = json.dumps({"version": 1, "repositories": dict(sorted(records.items()))}, indent=2)
        fd, partial = tempfile.mkstemp(prefix=".trusted.", dir=self.path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(text + "\n")
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(partial, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(partial)
            raise
