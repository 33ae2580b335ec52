"""Burst benchmark: does a person who writes wait behind a due minute's check-ins?

Run from the repo root:

    .venv/bin/python bench/burst.py --json

`steady run` (a process of its own, as an operator starts it, SQLite) talks to a fake Bot
API in this process that keeps Telegram's limits as strictly as Telegram does, counted on
arrival: 30 messages a second for the bot (the 31st in any second gets 429 with
retry_after), 20 a minute in a group, about one a second in a private chat after a burst
of 5 (tests/fakes/flood_limits.py). 2,000 users have their check-in due at one minute
(bench/burst_world.py prepares them). While the bot is idle, and again while those
check-ins drain, people write to it (the probes): a crisis message (words of crisis or of
danger), /sos, a check-in answer (a typed note) and a button press (a mood); each reply
is timed from the update to the first message the fake accepted for that chat.

Figures: reply latency by kind (p50, p99, max) in the burst and idle and their ratio, the
rate the burst drained at against the cap, the 429s drawn, and each due check-in sent
exactly once. The figures go to the "Burst" section of bench/RESULTS.md (`--no-write`:
print only); with `--json` the last line is one JSON object of every figure and target.
The exit status is 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import sys
import tempfile
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run as a script

from bench.burst_report import Outcome, figures, render, targets
from bench.burst_world import (
    FIRST_BURST_CHAT,
    KINDS,
    MESSAGES,
    Probes,
    due_minute,
    prepare,
    start_bot,
    stop_bot,
)
from bench.common import machine, print_json_figures, shown_command
from bench.results import write_section
from tests.fakes.telegram_api import FakeTelegram

SECTION = "Burst"
DEFAULT_USERS = 2_000
DEFAULT_IDLE_ROUNDS = 15  # probes of each kind while the bot is idle
DEFAULT_PROBE_EVERY_S = 0.5  # during the burst, one probe starts this often (kinds in turn)
# Start-up and the idle probes (60 at one every half second), before the due minute.
LEAD_S = 45.0
DRAIN_TIMEOUT_S = 600.0


def delivered(tg: FakeTelegram, first: int, last: int) -> int:
    """Check-ins the fake accepted so far (a call's status is set when it is answered)."""
    return sum(
        1
        for call in tg.calls
        if call.method in MESSAGES and call.ok and first <= call.params["chat_id"] <= last
    )


def load_average() -> float:
    with open("/proc/loadavg", encoding="utf-8") as load:
        return float(load.read().split()[0])


async def run(users: int, idle_rounds: int, probe_every: float, folder: Path) -> Outcome:
    due = due_minute(LEAD_S)
    await prepare(folder / "steady.db", users, due)
    async with FakeTelegram(flood_limits=True, bot_username="steady_burst_bot") as tg:
        bot = await start_bot(tg, folder)
        loads = [load_average()]
        try:
            probes = Probes(tg)
            for kind in itertools.chain.from_iterable(itertools.repeat(KINDS, idle_rounds)):
                # One at a time, at the burst's pace: back to back, the probes' own replies
                # passed the platform's 30 a second, and the lanes rightly held the next
                # reply until the second was over (a press or a note waited 0.8 s), so
                # "idle" measured the cap rather than a bot with nothing else to do.
                started = time.monotonic()
                await probes.probe(kind)
                await asyncio.sleep(max(0.0, probe_every - (time.monotonic() - started)))
            idle = list(probes.samples)
            probes.samples.clear()
            early_s = (due - datetime.now(UTC)).total_seconds()
            if early_s < 1.0:
                raise RuntimeError("the idle probes ran into the due minute: raise LEAD_S")
            await asyncio.sleep(early_s)  # until the due minute, by the wall clock
            due_at = time.monotonic()
            last_chat = FIRST_BURST_CHAT + users - 1
            running: list[asyncio.Task[None]] = []
            kinds = itertools.cycle(KINDS)
            deadline = due_at + DRAIN_TIMEOUT_S
            while (sent := delivered(tg, FIRST_BURST_CHAT, last_chat)) < users:
                if time.monotonic() > deadline:
                    break
                if sent:  # the burst is draining: a person writes
                    running.append(asyncio.create_task(probes.probe(next(kinds))))
                await asyncio.sleep(probe_every)
            await asyncio.gather(*running)
            loads.append(load_average())
        finally:
            exit_code = await stop_bot(bot)
        log = (folder / "output.log").read_text(encoding="utf-8")
        return Outcome.of(tg, users, due_at, idle, probes.samples, exit_code, log, loads)


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--users", type=int, default=DEFAULT_USERS, help="check-ins due at once")
    parser.add_argument("--idle-rounds", type=int, default=DEFAULT_IDLE_ROUNDS)
    parser.add_argument("--probe-every", type=float, default=DEFAULT_PROBE_EVERY_S)
    parser.add_argument("--no-write", action="store_true", help="print only, leave RESULTS.md")
    parser.add_argument("--keep", type=Path, help="run in this folder and keep it (the log)")
    parser.add_argument("--json", action="store_true", help="end with one JSON line of figures")
    return parser.parse_args(argv)


def main(argv: Sequence[str]) -> int:
    args = parse_args(argv)
    host = machine(["python-telegram-bot"])
    if args.keep is not None:
        args.keep.mkdir(parents=True)
        outcome = asyncio.run(run(args.users, args.idle_rounds, args.probe_every, args.keep))
    else:
        with tempfile.TemporaryDirectory(prefix="steady-burst-") as temporary:
            folder = Path(temporary)
            outcome = asyncio.run(run(args.users, args.idle_rounds, args.probe_every, folder))
    shown = figures(outcome)
    body, met = render(outcome, host, shown_command(["bench/burst.py", *argv]))
    print(body)
    if not args.no_write:
        write_section(SECTION, body)
    if args.json:
        print_json_figures(shown, targets(), host.commit)
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
