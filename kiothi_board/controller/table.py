"""The house's command table: one `CommandSpec` per command (kiothi_board/controller/spec.py).

Every door of the API (api/dispatcher.py), the terminal's keys (sim.py), the board's chords
and control buttons (`chords`, `controls`), the operator page's and the twin's buttons and
the twin's keys (`help`'s `button`), the fleet dashboard's staff actions (`fleet`), the JSON
schemas (docs/api/make_schemas.py, the replies' from controller/replies.py), the help
(`kiothi-board help`, the API's `help`) and docs/api.md's command reference read this table
(tests/test_one_list.py: no other list of command names). A new command is one
entry here (or one `CommandTable.add` from the part that serves it).
"""

from __future__ import annotations

from typing import Any

import kiothi_board.controller.commands as c
import kiothi_board.controller.replies as r
from kiothi_board.controller.commands import Commanded
from kiothi_board.controller.events import Abandon, Walk
from kiothi_board.controller.kinds import (
    Choice,
    Flag,
    Integer,
    LevelArg,
    Number,
    Pit,
    SideOf,
    Text,
    Topics,
    VariantOf,
)
from kiothi_board.controller.replies import TOPICS
from kiothi_board.controller.spec import Arg, Button, CommandSpec, CommandTable, keyed
from kiothi_board.controller.table_voice import VOICE_COMMANDS
from kiothi_board.guide import PALETTES
from kiothi_board.i18n import available, tr

__all__ = ["TABLE", "TOPICS", "CommandTable", "Commanded"]

_ASK_NEW = tr(
    "Start a new game? Press y to confirm (this game is stored as abandoned); "
    "any other key keeps playing."
)
_ASK_RESIGN = tr(
    "Resign? Press y to confirm: the player to move resigns and the other wins (R13); "
    "any other key keeps playing."
)
_ASK_RESIGN_AI = tr(
    "Resign? Press y to confirm: you resign and the AI wins (R13); any other key keeps playing."
)
_ASK_AGREE = tr(
    "End by agreement? Press y to confirm: each player takes the seeds left in their own "
    "row and the higher count wins (R13); any other key keeps playing."
)
_ASK_AGREE_AI = tr(
    "End by agreement with the AI? It always agrees. Press y to confirm: each of you takes "
    "the seeds left in your own row and the higher count wins (R13); any other key keeps "
    "playing."
)
_SECRET = Text(256)
_LANG = Choice(available, "^[a-z]{2,3}(_[A-Z]{2})?$")  # the catalogs installed
_OPTIONS = "`mode`, `sides`, `level`, `pace`, `variant`"
_GAME_ARGS = (
    Arg("mode", Choice(("two", "ai", "demo"))),
    Arg("sides", Choice(("S", "N", "SN", "NS", ""))),
    Arg("level", LevelArg()),
    Arg("pace", Choice(("step", "flow", "instant"))),
    Arg("variant", VariantOf()),
)


def _door(name: str, help_: Any, *args: Arg, role: Any = "spectator", **kw: Any) -> CommandSpec:
    """A command the doors serve themselves (no handler on the controller)."""
    return CommandSpec(name, help_, role, args, **kw)


def _gesture(name: str, help_: Any, handler: Any) -> CommandSpec:
    """A command the board's own gestures fire on a pit (not on the API)."""
    return CommandSpec(name, help_, "control", (Arg("pit", Pit(), True),), handler, door=False)


TABLE = CommandTable(
    (
        _door(
            "hello",
            tr("greet the board: its protocol, commands, languages; a secret gives control"),
            *(Arg(k, _SECRET) for k in ("token", "pin", "ticket")),
            Arg("client", Text(64)),
            Arg("lang", _LANG),
            returns="`protocol`, `version`, `role`, `commands`, `topics`, `board`, `levels`, "
            "`languages`, … (below)",
            reply_schema=r.HELLO,
        ),
        _door(
            "auth",
            tr("take control with the token, the staff PIN or a session ticket"),
            *(Arg(k, _SECRET) for k in ("token", "pin", "ticket")),
            returns="`role`, `ticket`",
            reply_schema=r.AUTH,
            schema_extra={"minProperties": 1, "maxProperties": 1},
        ),
        _door("ping", tr("check that the board answers"), returns="`time`", reply_schema=r.PING),
        _door("state", tr("read the game's state"), returns="`state`, `seq`", reply_schema=r.STATE),
        _door(
            "frame",
            tr("read the LED frame"),
            returns="`leds_per_ring`, `frame`",
            reply_schema=r.FRAME,
        ),
        _door(
            "subscribe",
            tr("receive events (by default all but LED frames)"),
            Arg("topics", Topics(TOPICS)),
            returns="`topics`, `seq`",
            reply_schema=r.SUBSCRIBE,
        ),
        _door(
            "unsubscribe",
            tr("stop receiving events"),
            Arg("topics", Topics(TOPICS)),
            returns="`topics`",
            reply_schema=r.UNSUBSCRIBE,
        ),
        CommandSpec(
            "settings.get",
            tr("read the settings"),
            "spectator",
            handler=lambda ctl, _: ctl.get_settings(),
            reply=keyed("settings"),
            returns="`settings`",
            reply_schema=r.SETTINGS,
        ),
        CommandSpec(
            "settings.set",
            tr("change the settings"),
            "staff",
            (
                Arg("palette", Choice(tuple(PALETTES))),
                Arg("brightness", Number(0.0, 1.0)),
                *_GAME_ARGS,
            ),
            lambda ctl, values: ctl.apply_settings(
                {k: v for k, v in values.items() if v is not None}
            ),
            keyed("settings"),
            "`settings`",
            r.SETTINGS,
            least=1,
            fleet=True,
        ),
        CommandSpec(
            "games.list",
            tr("list the stored games, newest first"),
            "spectator",
            (
                Arg("limit", Integer(1, 200), default=50),
                Arg("offset", Integer(0, 10**9), default=0),
            ),
            lambda ctl, a: ctl.list_games(a["limit"], a["offset"]),
            keyed("games"),
            "`games`: `id`, `started`, `finished`, `result`",
            r.GAMES_LIST,
            on_loop=False,
        ),
        CommandSpec(
            "games.get",
            tr("read one stored game"),
            "spectator",
            (Arg("id", Integer(1, 2**62), True),),
            c.game_get,
            keyed("game"),
            "`game`: a `kiothi-game/1` record, or the current game's meta and events",
            {"type": "object", "required": ["game"], "properties": {"game": {"type": "object"}}},
            on_loop=False,
        ),
        _door(
            "health",
            tr("read the board's health"),
            returns="`status`, `uptime`, … (below)",
            reply_schema=r.HEALTH,
        ),
        _door(
            "lang",
            tr("choose this session's language (none: follow the board)"),
            Arg("lang", _LANG),
            returns="`lang`, `board_lang`, `languages`, `levels`",
            reply_schema=r.LANG,
        ),
        _door(
            "help",
            tr("list the commands this session may run, with their help"),
            returns="`commands`: `name`, `args`, `role`, `help`, `allowed`, `button` (how a "
            "page shows it, or null: below)",
            reply_schema=r.HELP,
            key="?",
        ),
        _door(
            "seat_link",
            tr("make a one-time link that seats a player on the web as one side"),
            Arg("side", SideOf(), True),
            Arg("expires", Integer(30, 7 * 86400), default=600),
            role="control",
            returns="`side`, `link` (`#seat=…`), `url`, `expires` (wall time) — good once, "
            "`expires` seconds (default 600), for a session that plays `side` only",
            reply_schema=r.SEAT_LINK,
        ),
        CommandSpec(
            "new_game",
            tr("start a game"),
            "control",
            (
                *_GAME_ARGS,
                Arg("long_move_laps", Integer(0, 1000)),
                Arg("web", Choice(("S", "N", ""))),
            ),
            lambda ctl, a: c.start(ctl.session, ctl.get_settings(), a),
            keyed("game_id"),
            f"`game_id`; missing {_OPTIONS} come from the settings (`long_move_laps`: the laps "
            "past which a move's counts are set at once, by default 30; `web`: the side a seat "
            "on the web plays, see `seat_link`)",
            r.GAME_ID,
            button=Button(
                tr("New game"),
                ("twin",),
                50,
                confirm=tr("Start a new game? This one will be kept as abandoned."),
                yes=tr("Yes, new game"),
                key="n",
            ),
            fleet=True,
        ),
        _door(
            "press",
            tr("press a pit, as a finger on the board"),
            Arg("pit", Pit(), True),
            Arg("hold", Flag()),
            role="seat",
            turn=True,
            reply=c.pit_reply,
            returns="`pit` — a tap (or with `hold` a long press)",
            reply_schema=r.PIT,
        ),
        CommandSpec(
            "tutorial",
            tr("start the tutorial"),
            handler=lambda ctl, _: ctl.start_tutorial(),
            reply=keyed("game_id"),
            returns="`game_id` — South against the AI, the opening and a relay move guided",
            reply_schema=r.GAME_ID,
            key="g",
            button=Button(tr("Tutorial"), ("twin",), 60),
        ),
        CommandSpec(
            "move",
            tr("play a move"),
            "seat",
            (Arg("pit", Pit(), True),),
            lambda ctl, pit: c.move(ctl.session, pit),
            c.pit_reply,
            "`pit` — the guide then leads the hand",
            r.PIT,
            turn=True,
        ),
        CommandSpec(
            "opening",
            tr("play an opening"),
            "seat",
            (Arg("action", c.OPENING, True),),
            lambda ctl, action: c.opening(ctl.session, action),
            lambda r, a: {"action": a["action"]},
            "`action`",
            {
                "type": "object",
                "required": ["action"],
                "properties": {"action": {"type": "string"}},
            },
            turn=True,
        ),
        CommandSpec(
            "undo",
            tr("undo a move"),
            "seat",
            (Arg("side", SideOf()),),
            lambda ctl, side: c.agreed(ctl.session, "undo", side),
            returns="`{}` (with a web seat: asks the other player, or accepts their ask)",
            key="z",
            chords=((4, 5, None), (14, 15, None)),
            controls=(0,),
            button=Button(tr("Undo"), ("operator", "twin"), 10, done=tr("Undone")),
            needs_game=True,
        ),
        CommandSpec(
            "hint",
            tr("ask for a hint"),
            handler=lambda ctl, how: ctl.session.hint(offered=how == "offer"),
            returns="`{}`; the answer comes as a `hint` event",
            key="h",
            controls=(1,),
            button=Button(tr("Hint"), ("operator", "twin"), 20, done=tr("Hint asked for")),
            needs_game=True,
        ),
        CommandSpec(
            "resign",
            tr("resign"),
            "seat",
            (Arg("side", SideOf()),),
            lambda ctl, side: c.resign(ctl.session, side),
            returns="`{}` (`side` default: the side to move)",
            key="x",
            chords=((0, 1, "S"), (10, 11, "N")),
            button=Button(
                tr("Resign"),
                rank=90,
                confirm=tr("Resign for the side to move?"),
                done=tr("Resigned"),
                danger=True,
            ),
            needs_game=True,
            ask=_ASK_RESIGN,
            ask_ai=_ASK_RESIGN_AI,
        ),
        CommandSpec(
            "end",
            tr("end the game by agreement"),
            "seat",
            (Arg("side", SideOf()),),
            lambda ctl, side: c.agreed(ctl.session, "end", side),
            returns="`{}` (R13: each player takes the seeds in their own row; with a web seat: "
            "asks the other player, or accepts their ask)",
            key="a",
            chords=((9, 10, None),),
            button=Button(
                tr("End by agreement"),
                rank=40,
                confirm=tr("End the game by agreement?"),
                done=tr("Game ended"),
            ),
            needs_game=True,
            ask=_ASK_AGREE,
            ask_ai=_ASK_AGREE_AI,
        ),
        CommandSpec(
            "check",
            tr("check the board"),
            args=(Arg("on", Flag()),),
            handler=lambda ctl, on: c.check(ctl.session, on),
            reply=keyed("check"),
            returns="`check` (`on`: true/false; null toggles)",
            reply_schema={
                "type": "object",
                "required": ["check"],
                "properties": {"check": {"type": "boolean"}},
            },
            key="c",
            chords=((0, 9, None), (10, 19, None)),
            controls=(2,),
            button=Button(tr("Board check"), rank=30),
            needs_game=True,
        ),
        CommandSpec(
            "walk",
            tr("walk a long move drop by drop"),
            handler=lambda ctl, _: ctl.session.commit(Walk()),
            key="v",
            needs_game=True,
        ),
        CommandSpec(
            "pause",
            tr("pause or resume a flowing move"),
            args=(Arg("paused", Flag()),),
            handler=lambda ctl, paused: ctl.session.set_pause(paused),
            reply=keyed("paused"),
            returns="`paused` (`paused`: true/false; null toggles)",
            reply_schema={
                "type": "object",
                "required": ["paused"],
                "properties": {"paused": {"type": "boolean"}},
            },
            key=" ",
            needs_game=True,
        ),
        CommandSpec(
            "new",
            tr("start another game like this one"),
            handler=lambda ctl, _: ctl.session.begin(
                c.NewGame.same_as(ctl.session.settings).settings()
            ),
            door=False,
            key="n",
            chords=((0, 19, None),),
            controls=(3,),
            ask=_ASK_NEW,
        ),
        CommandSpec(
            "abandon",
            tr("leave the game unfinished"),
            handler=lambda ctl, _: c.ending(ctl.session, Abandon()),
            door=False,
        ),
        CommandSpec(
            "language",
            tr("switch the board to its next language"),
            args=(Arg("lang", Text(16)),),
            handler=lambda ctl, lang: ctl.choose_language(lang),
            door=False,
            chords=((8, 9, None), (18, 19, None)),
        ),
        *VOICE_COMMANDS,
        _gesture("tap", tr("a press on a pit"), lambda ctl, pit: c.tap(ctl.session, pit)),
        _gesture("hold", tr("a long press on a pit"), lambda ctl, pit: c.hold(ctl.session, pit)),
        _gesture("drop", tr("a seed sensed in a pit"), lambda ctl, pit: c.drop(ctl.session, pit)),
        _gesture("revert", tr("take a press back"), lambda ctl, pit: ctl.session.revert(pit)),
        _gesture("release", tr("a press ends"), lambda ctl, pit: ctl.session.release(pit)),
    )
)
"""The built-in commands (see the module docstring)."""
