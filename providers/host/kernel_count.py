"""The kernel's token count: what its CountTokens answers and what its recount checks.

Without grpcio: the chain recounts every section with it, and the host's own process
(a bridge serving only our providers) never loads grpcio.
"""

from __future__ import annotations

from providers._gen.pluggableharness.content.v1 import content_pb2
from providers.core.budget import fallback_tokens_for_bytes
from providers.goplugin.convert import text_block


def kernel_token_count(blocks: list[content_pb2.ContentBlock]) -> int:
    """The kernel's fallback count over content blocks."""
    total = sum(len(b.text.text.encode("utf-8")) for b in blocks if b.WhichOneof("block") == "text")
    return fallback_tokens_for_bytes(total)


def kernel_count(text: str) -> int:
    """What the kernel's CountTokens answers for one text block."""
    return kernel_token_count([text_block(text)])
