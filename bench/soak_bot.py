"""Steady as `steady run` starts it, on an accelerated clock: the bot process of bench/soak.py.

    python bench/soak_bot.py --sim-anchor 1938556800 --real-anchor 1764450000.5 --speed 1080

Settings come from the environment as for `steady run` (TELEGRAM_BOT_TOKEN,
TELEGRAM_API_BASE_URL, STEADY_DATA_DIR, STEADY_TICK_SECONDS, ...); no `.env` file is read,
so a developer's own settings cannot leak into a soak run.

Telegram's flood limits for the bot and for a private chat (30 messages a second overall,
about one a second in a chat, kept by the lanes) are switched off here, as
bench/telegram_roundtrip.py does: they are limits per real second, and the soak compresses
days into minutes, so they would cap the simulated users at a rate a thousand times below
what the same users send over real days. A 429 with retry_after still makes the refused
message wait that long before it is sent again.

Simulated time is `sim-anchor + (time.time() - real-anchor) * speed` (Unix seconds). The soak
process computes it with the same formula from the same three numbers, so the fake Bot API
server's message dates and the bot's clock agree, and a bot restarted after a kill -9
carries on at the simulated instant the world has reached, as a real restart would.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run as a script

import bot.adapters.telegram.outbound as telegram_outbound
from bot.adapters.lanes import UNLIMITED, Caps
from bot.app import run_platforms
from bot.config import Settings
from bot.logs import configure_logging


class AcceleratedClock:
    """Simulated time running `speed` times faster than the wall clock."""

    def __init__(self, sim_anchor: float, real_anchor: float, speed: float) -> None:
        self._sim_anchor = sim_anchor
        self._real_anchor = real_anchor
        self._speed = speed

    def timestamp(self) -> float:
        return self._sim_anchor + (time.time() - self._real_anchor) * self._speed

    def now(self) -> datetime:
        return datetime.fromtimestamp(self.timestamp(), UTC)


def without_flood_limits() -> None:
    """The lanes with no limit for the bot or a private chat (a group's is kept); read
    when the adapter is made."""
    kept = telegram_outbound.TELEGRAM_CAPS
    telegram_outbound.TELEGRAM_CAPS = Caps(UNLIMITED.overall, group=kept.group)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--sim-anchor", type=float, required=True, help="simulated Unix time")
    parser.add_argument("--real-anchor", type=float, required=True, help="its real Unix time")
    parser.add_argument("--speed", type=float, required=True, help="simulated s per real s")
    args = parser.parse_args(argv)
    settings = Settings(_env_file=None)  # type: ignore[call-arg]
    configure_logging(settings.log_level)
    # Swapped at run time in this process only; no file is changed.
    without_flood_limits()
    clock = AcceleratedClock(args.sim_anchor, args.real_anchor, args.speed)
    asyncio.run(run_platforms(settings, clock=clock))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
