"""kiothi-board: a companion for a physical Kiothi board (rules, AI, LED guide, daemon)."""

from __future__ import annotations

__version__ = "0.1.0"
