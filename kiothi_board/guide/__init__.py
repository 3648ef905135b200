"""The LED guide (L1): pure functions from a game view and a time to an LED frame.

`views` holds the views (idle, a guided step, the opening, a board check, game over) and
`render`; `steps` tells a move as steps; `palette` the cues and palettes; `raster` draws
and memoises rings. The PNG pictures for the docs are drawn by
`kiothi_board.tools.guide_pictures`.
"""

from __future__ import annotations

from kiothi_board.guide.palette import COLOUR_BLIND, DEFAULT, NIGHT, PALETTES, Cue, Palette, Style
from kiothi_board.guide.raster import LEVELS, Cell, Renderer, Ring
from kiothi_board.guide.steps import GuideStep, opening_steps, set_steps, sow_steps
from kiothi_board.guide.views import (
    ERROR_SECONDS,
    HINT_SECONDS,
    BlankView,
    CheckView,
    IdleView,
    OpeningView,
    Overlay,
    OverView,
    StepsView,
    View,
    blink,
    breathe,
    cells,
    render,
    sow_view,
)

__all__ = [
    "COLOUR_BLIND",
    "DEFAULT",
    "ERROR_SECONDS",
    "HINT_SECONDS",
    "LEVELS",
    "NIGHT",
    "PALETTES",
    "BlankView",
    "Cell",
    "CheckView",
    "Cue",
    "GuideStep",
    "IdleView",
    "OpeningView",
    "OverView",
    "Overlay",
    "Palette",
    "Renderer",
    "Ring",
    "StepsView",
    "Style",
    "View",
    "blink",
    "breathe",
    "cells",
    "opening_steps",
    "render",
    "set_steps",
    "sow_steps",
    "sow_view",
]
