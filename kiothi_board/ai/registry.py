"""The one player registry: every player by its spec, built in one place.

A spec is `KIND[:WHICH][,OPTION=VALUE…]`:

- `level:1`…`level:9` (or a level's name, `level:Club`), `level:adaptive` (the visitor
  level that keeps the game close), `level:baseline` (plain depth-4 alpha-beta on the
  captured difference);
- `novice:random`, `novice:greedy`, `novice:greedy-<p>` (the yardsticks);
- `steer` (the adaptive level's lowest rung: it keeps the lead near +1);
- `cmd:"PROGRAM ARGS"`: an external program speaking the engine protocol.

Options: `core=native|python` (which core searches; default the process's, see
`kiothi_board.native`) and `movetime=MS` (this player's own budget per move, e.g.
`level:9,core=native,movetime=160`). The match runner, the engine protocol and the board
(`players.py`, from a `LevelChoice`) all build players here; a new kind of player is one
`register` entry below.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from kiothi_board.ai.adaptive import AdaptivePlayer, SteerPlayer
from kiothi_board.ai.evaluation import BASELINE
from kiothi_board.ai.external import ExternalEngine
from kiothi_board.ai.levels import ADAPTIVE, BASELINE_LEVEL, LEVELS, LevelChoice, level
from kiothi_board.ai.novice import NovicePlayer
from kiothi_board.ai.player import AIPlayer
from kiothi_board.ai.thinking import PlayerBase
from kiothi_board.clock import Clock
from kiothi_board.native import Core
from kiothi_board.rules import STANDARD, Variant

__all__ = ["SPEC_HELP", "PlayerOptions", "kinds", "level_player", "make_player", "register"]


@dataclass(frozen=True, slots=True)
class PlayerOptions:
    """What a factory gets besides the part of the spec after the colon."""

    seed: int = 0
    clock: Clock | None = None
    core: Core | None = None
    movetime: float | None = None  # seconds; None: the player's own
    variant: Variant = STANDARD  # the rules an external engine is told


Factory = Callable[[str, PlayerOptions], PlayerBase]
_KINDS: dict[str, tuple[Factory, str]] = {}


def register(kind: str, help_text: str) -> Callable[[Factory], Factory]:
    """Register the factory of the specs `kind[:which]` (`help_text` shows the forms)."""

    def add(factory: Factory) -> Factory:
        if kind in _KINDS:
            raise ValueError(f"player kind {kind!r} is registered twice")
        _KINDS[kind] = (factory, help_text)
        return factory

    return add


def kinds() -> dict[str, str]:
    """Every registered kind and the forms of its specs."""
    return {kind: text for kind, (_, text) in _KINDS.items()}


@register("level", f"level:1…9, level:{ADAPTIVE}, level:baseline")
def _level(which: str, opts: PlayerOptions) -> PlayerBase:
    if which == str(ADAPTIVE):  # LevelChoice's own word for it

        def rung(spec: str, seed: int) -> PlayerBase:
            return make_player(spec, seed=seed, clock=opts.clock, core=opts.core)

        return AdaptivePlayer(opts.seed, make=rung)
    if which == "baseline":
        return AIPlayer(
            BASELINE_LEVEL,
            opts.seed,
            weights=BASELINE,
            extensions=0,
            clock=opts.clock,
            movetime=opts.movetime,
            core=opts.core,
            name="level:baseline",
        )
    lv = level(which)
    return AIPlayer(lv, opts.seed, clock=opts.clock, movetime=opts.movetime, core=opts.core)


@register("novice", "novice:random, novice:greedy, novice:greedy-<p>")
def _novice(which: str, opts: PlayerOptions) -> PlayerBase:
    return NovicePlayer(which, opts.seed)


@register("steer", "steer")
def _steer(which: str, opts: PlayerOptions) -> PlayerBase:
    if which:
        raise ValueError("steer takes no argument")
    return SteerPlayer(opts.seed, core=opts.core)


@register("cmd", 'cmd:"PROGRAM ARGS"')
def _command(which: str, opts: PlayerOptions) -> PlayerBase:
    return ExternalEngine(which, movetime=opts.movetime, variant=opts.variant, clock=opts.clock)


SPEC_HELP = ", ".join(text for _, text in _KINDS.values()) + " (options: ,core=…,movetime=MS)"


def make_player(
    spec: str,
    *,
    seed: int = 0,
    clock: Clock | None = None,
    core: Core | None = None,
    movetime: float | None = None,
    variant: Variant = STANDARD,
) -> PlayerBase:
    """The player named by `spec`; ValueError naming the spec when it is not one.

    Options in the spec (`,core=…`, `,movetime=MS`) win over the keyword arguments."""
    if spec.startswith("cmd:"):  # a command line: its commas are its own
        kind, which, options = "cmd", spec[4:], dict[str, str]()
    else:
        head, options = _split_options(spec)
        kind, _, which = head.partition(":")
    entry = _KINDS.get(kind)
    if entry is None:
        raise ValueError(f"bad player {spec!r}: expected {SPEC_HELP}")
    try:
        for key, value in options.items():
            if key == "core":
                if value not in ("native", "python"):
                    raise ValueError(f"core must be native or python, got {value!r}")
                core = value  # type: ignore[assignment]
            elif key == "movetime":
                if not value.isdigit() or int(value) < 1:
                    raise ValueError(f"movetime must be a whole number of ms ≥ 1, got {value!r}")
                movetime = int(value) / 1000
            else:
                raise ValueError(f"unknown option {key!r} (core, movetime)")
        opts = PlayerOptions(seed, clock, core, movetime, variant)
        player = entry[0](which, opts)
    except ValueError as exc:
        raise ValueError(f"bad player {spec!r}: {exc}") from None
    player.name = spec
    return player


def _split_options(text: str) -> tuple[str, dict[str, str]]:
    """`head,key=value,…` to `head` and the options."""
    head, *parts = text.split(",")
    options: dict[str, str] = {}
    for part in parts:
        key, eq, value = part.partition("=")
        if not eq or not key.strip():
            raise ValueError(f"bad option {part!r}: expected KEY=VALUE")
        options[key.strip()] = value.strip()
    return head.strip(), options


def level_player(
    choice: LevelChoice, *, seed: int = 0, clock: Clock | None = None, core: Core | None = None
) -> PlayerBase:
    """The board's opponent for a level choice (a ladder level or the adaptive level)."""
    return make_player(f"level:{choice.to_json()}", seed=seed, clock=clock, core=core)


def level_names() -> list[str]:
    """The levels the engine protocol's Level option offers: 1…9 and adaptive."""
    return [*(str(n) for n in LEVELS), str(ADAPTIVE.to_json())]
