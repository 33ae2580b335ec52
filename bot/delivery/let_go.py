"""The last check before a scheduled message leaves: the rows senders are about to send,
checked (`StillThere`) and marked attempted, many in one round.

The outbox (`bot.delivery.outbox`) asks here just before each send; the SQL of a round
is `bot.storage.outbox_rows.let_go`'s.
"""

from __future__ import annotations

import asyncio
from functools import partial

from bot.core.clock import Clock
from bot.storage import outbox_rows
from bot.storage.db import Database


class LetGo:
    """The rows senders are about to send, marked attempted in one round.

    A sender asks here and waits; every ask made while no round is running joins the
    next one, and so do the rows finished meanwhile (deleted). So each message is
    checked and marked right before its own send, for one round trip to the database
    per round of sends (`outbox_rows.let_go`, run beside the writer where it can).
    """

    def __init__(self, db: Database, clock: Clock, worker: str) -> None:
        self._db = db
        self._clock = clock
        self._worker = worker
        self._asked: list[tuple[int, asyncio.Future[bool]]] = []
        self._finished: list[int] = []
        self._answering: asyncio.Task[None] | None = None
        self.rounds = 0

    def may_send(self, row_id: int) -> asyncio.Future[bool]:
        """Resolves once the row's round is written: True when it may be sent."""
        answer: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._asked.append((row_id, answer))
        self._wake()
        return answer

    def finished(self, row_id: int) -> None:
        self._finished.append(row_id)
        self._wake()

    async def settled(self) -> None:
        """Until nothing asked or finished is left unwritten."""
        while self._answering is not None:
            await asyncio.shield(self._answering)

    async def close(self) -> None:
        """Stop a transaction in flight (its senders are being stopped too)."""
        if self._answering is not None:
            self._answering.cancel()
            await asyncio.gather(self._answering, return_exceptions=True)

    def _wake(self) -> None:
        if self._answering is None:
            # Started as a task, it first runs once the other senders woken with this
            # one have asked too.
            self._answering = asyncio.create_task(self._answer(), name="outbox-let-go")

    async def _answer(self) -> None:
        try:
            while self._asked or self._finished:
                asked, self._asked = self._asked, []
                finished, self._finished = self._finished, []
                ids = [row_id for row_id, _ in asked]
                now = self._clock.now()
                try:
                    self.rounds += 1
                    allowed = await self._db.outside_the_writer(
                        partial(
                            outbox_rows.let_go,
                            asked=ids,
                            finished=finished,
                            worker=self._worker,
                            now=now,
                        )
                    )
                except Exception as error:  # each sender counts its own message as failed
                    # Finished rows stay marked attempted, never sent again; the daily
                    # purge removes them.
                    for _, answer in asked:
                        if not answer.done():
                            answer.set_exception(error)
                    continue
                for row_id, answer in asked:
                    if not answer.done():  # not a sender cancelled while it waited
                        answer.set_result(row_id in allowed)
        finally:
            self._answering = None
