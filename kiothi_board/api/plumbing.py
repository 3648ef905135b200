"""How a door's client is served, whatever the door: a session whose outbox wakes the
door's pump, its lines run through the dispatcher on the one command worker (in batches,
a PIN over the limits waiting its turn), and its outbox sent as the client reads.

`ClientPlumbing` is a mixin that `ApiServer` (kiothi_board/api/server.py) inherits; the
socket, web and serial doors call these.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from kiothi_board.api.access import AccessPolicy
from kiothi_board.api.dispatcher import ClientSession, Dispatcher
from kiothi_board.api.limits import SummedLog
from kiothi_board.api.lines import MALFORMED_RUN

__all__ = ["ClientPlumbing"]

log = logging.getLogger("kiothi_board.api.server")  # the server's lines, as before

_BATCH = 256  # lines handled per trip to the command worker: others' commands run between


class ClientPlumbing:
    """A client's session, its lines to the worker and its outbox back (see the module
    docstring); `ApiServer` sets these fields."""

    access: AccessPolicy
    dispatcher: Dispatcher
    loop: asyncio.AbstractEventLoop
    _worker: concurrent.futures.ThreadPoolExecutor
    _malformed_log: SummedLog

    def open_session(
        self,
        transport: str,
        peer: str,
        *,
        trusted: bool,
        cut_off: Callable[[str], None] | None = None,
        pending: Callable[[], int] | None = None,
    ) -> tuple[ClientSession, asyncio.Event]:
        """A session whose outbox wakes an asyncio.Event on this loop.

        `cut_off(reason)` runs on this loop when the client goes over its byte budget;
        `pending` is the bytes its transport holds unsent.
        """
        wake = asyncio.Event()
        loop = self.loop

        def waker() -> None:
            loop.call_soon_threadsafe(wake.set)

        on_over = None
        if cut_off is not None:
            over = cut_off

            def on_over(reason: str) -> None:
                said = f"api: {transport} client {peer} disconnected: {reason}"
                if reason.endswith(MALFORMED_RUN):  # a peer may reconnect for more: summed
                    self._malformed_log.note(said)
                else:
                    log.warning("%s", said)
                loop.call_soon_threadsafe(over, reason)

        session = self.dispatcher.open_session(
            transport, peer, trusted=trusted, wake=waker, on_over=on_over, pending=pending
        )
        session.can_wait = True  # `dispatch` lets a held PIN wait its turn
        return session, wake

    async def dispatch(self, session: ClientSession, line: Any) -> None:
        """Run one line through the dispatcher on the command worker; a PIN over the limits
        (`session.held`) waits its turn here, blocking only its own client, then runs again."""
        await self.loop.run_in_executor(self._worker, self.dispatcher.handle_line, session, line)
        if session.held:
            session.held = False
            if await self.access.wait_turn(session.peer, session.alive):
                await self.loop.run_in_executor(
                    self._worker, self.dispatcher.handle_line, session, line
                )

    async def dispatch_lines(self, session: ClientSession, lines: list[Any]) -> None:
        """`dispatch` for the lines of one read, a batch per trip to the command worker (a
        trip per line cost a flood of `{}` most of a core); a held PIN waits between."""
        done = 0
        while done < len(lines):
            done = await self.loop.run_in_executor(
                self._worker, self._handle_batch, session, lines, done
            )
            if session.held:  # lines[done - 1] waits its turn, then runs again
                session.held = False
                if await self.access.wait_turn(session.peer, session.alive):
                    await self.dispatch(session, lines[done - 1])

    def _handle_batch(self, session: ClientSession, lines: list[Any], start: int) -> int:
        """Handle lines from `start` (on the worker) up to a held one, a cut-off or
        _BATCH of them; returns the index after the last one handled."""
        end = min(len(lines), start + _BATCH)
        for i in range(start, end):
            if session.outbox.over is not None:
                return len(lines)  # cut off: what it sent after is not worth an answer
            self.dispatcher.handle_line(session, lines[i])
            if session.held:
                return i + 1
        return end

    async def pump(
        self,
        session: ClientSession,
        wake: asyncio.Event,
        send: Callable[[list[bytes]], Awaitable[None]],
    ) -> None:
        """Send the session's outbox for as long as the client is connected.

        `drain()` inside `send` holds the pump while the client reads slowly, so the
        backlog waits in the bounded outbox (which overflows), never in an unbounded buffer.
        """
        while True:
            await wake.wait()
            wake.clear()
            lines = session.outbox.take()
            if lines:
                await send(lines)
