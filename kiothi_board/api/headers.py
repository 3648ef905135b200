"""The security headers of every page the project serves: the board's web door and the
fleet dashboard (one constant, so the two cannot drift apart)."""

from __future__ import annotations

__all__ = ["SECURITY_HEADERS"]

SECURITY_HEADERS: dict[str, str] = {
    # The pages load nothing from elsewhere; a strict policy keeps it that way.
    "Content-Security-Policy": "default-src 'self'; connect-src 'self' ws: wss:; "
    "img-src 'self' data:; style-src 'self'; script-src 'self'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-cache",
}
