"""The Kiothi rules engine (RULES.md R1–R13, V1–V8): pure standard library, no I/O."""

from __future__ import annotations

from kiothi_board.rules.actions import PASS, Lift, OpeningAction, format_opening, parse_opening
from kiothi_board.rules.board import PITS, ROW, SEEDS, Side, opposite, owner, parse_pit, pit_name
from kiothi_board.rules.fast import MAX_LAPS, Engine, engine_for, pack, pack_flags, unpack
from kiothi_board.rules.outcome import END_BY_PLAYERS, ENDS, End, Outcome
from kiothi_board.rules.position import INITIAL_BOARD, Position, Result
from kiothi_board.rules.record import FORMAT, GameRecord, format_record, parse_record
from kiothi_board.rules.sowing import Capture, Lap, Saved, SowTrace, trace_move
from kiothi_board.rules.variant import STANDARD, Variant

__all__ = [
    "ENDS",
    "END_BY_PLAYERS",
    "FORMAT",
    "INITIAL_BOARD",
    "MAX_LAPS",
    "PASS",
    "PITS",
    "ROW",
    "SEEDS",
    "STANDARD",
    "Capture",
    "End",
    "Engine",
    "GameRecord",
    "Lap",
    "Lift",
    "OpeningAction",
    "Outcome",
    "Position",
    "Result",
    "Saved",
    "Side",
    "SowTrace",
    "Variant",
    "engine_for",
    "format_opening",
    "format_record",
    "opposite",
    "owner",
    "pack",
    "pack_flags",
    "parse_opening",
    "parse_pit",
    "parse_record",
    "pit_name",
    "trace_move",
    "unpack",
]
