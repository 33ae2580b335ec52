"""What bench/burst.py measured, its targets, and the "Burst" section it writes."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from bench.burst_world import FIRST_BURST_CHAT, KINDS, MESSAGES, SHOWN, URGENT_KINDS, Sample
from bench.common import Check, Figure, Machine, percentile
from bot.coordination.send_budget import BULK_SHARE, TELEGRAM_OVERALL
from tests.fakes.telegram_api import FakeTelegram

CAP = TELEGRAM_OVERALL.sends / TELEGRAM_OVERALL.window_seconds  # messages a second
TARGET_URGENT_P99_S = 0.1
TARGET_URGENT_OVER_IDLE = 3.0
TARGET_OTHER_P99_S = 0.5
TARGET_DRAIN_SHARE = 0.9  # of the cap
TARGET_429_SHARE = 0.01
KIND_NAMES = {
    "crisis": "crisis message (crisis or danger)",
    "sos": "/sos",
    "press": "button press (a mood)",
    "answer": "check-in answer (a typed note)",
}


@dataclass(frozen=True)
class Latency:
    samples: int
    unanswered: int
    p50_s: float
    p99_s: float
    max_s: float

    @classmethod
    def of(cls, samples: Sequence[Sample], kind: str) -> Latency:
        mine = [sample for sample in samples if sample.kind == kind]
        values = [sample.latency_s for sample in mine if sample.answered]
        return cls(
            samples=len(mine),
            unanswered=sum(1 for sample in mine if not sample.answered),
            p50_s=percentile(values, 0.5),
            p99_s=percentile(values, 0.99),
            max_s=max(values, default=math.nan),
        )


@dataclass(frozen=True)
class Outcome:
    users: int
    idle: dict[str, Latency]
    burst: dict[str, Latency]
    due_to_first_s: float
    due_to_last_s: float
    checkins_per_s: float  # between the first check-in's arrival and the last's
    messages_per_s: float  # every message the fake accepted over that span
    sends_attempted: int  # messages and edits the bot asked for, refused ones included
    refused_429: int
    missing: int  # due users sent no check-in
    twice: int  # due users sent more than one
    exit_code: int
    logged: dict[str, int]  # warnings and errors, by event
    loads: list[float]  # the machine's 1-minute load average, before and after

    @classmethod
    def of(
        cls,
        tg: FakeTelegram,
        users: int,
        due_at: float,
        idle: Sequence[Sample],
        burst: Sequence[Sample],
        exit_code: int,
        log: str,
        loads: list[float],
    ) -> Outcome:
        last_chat = FIRST_BURST_CHAT + users - 1
        accepted = [c for c in tg.calls if c.method in MESSAGES and c.ok]
        checkins = [c for c in accepted if FIRST_BURST_CHAT <= c.params["chat_id"] <= last_chat]
        per_chat = Counter(c.params["chat_id"] for c in checkins)
        arrivals = sorted(c.arrived for c in checkins)
        first, last = (arrivals[0], arrivals[-1]) if arrivals else (math.nan, math.nan)
        span = last - first
        during = [c for c in accepted if first <= c.arrived <= last]
        tried = [c for c in tg.calls if c.method in (*MESSAGES, *SHOWN)]
        return cls(
            users=users,
            idle={kind: Latency.of(idle, kind) for kind in KINDS},
            burst={kind: Latency.of(burst, kind) for kind in KINDS},
            due_to_first_s=first - due_at,
            due_to_last_s=last - due_at,
            checkins_per_s=(len(checkins) - 1) / span if span > 0 else math.nan,
            messages_per_s=(len(during) - 1) / span if span > 0 else math.nan,
            sends_attempted=len(tried),
            refused_429=sum(1 for c in tried if c.status == 429),
            missing=users - len(per_chat),
            twice=sum(1 for count in per_chat.values() if count > 1),
            exit_code=exit_code,
            logged=logged_problems(log),
            loads=loads,
        )


def logged_problems(log: str) -> dict[str, int]:
    found: Counter[str] = Counter()
    for line in log.splitlines():
        words = line.split(" ")
        if words[1:2] in (["warning"], ["error"]):
            found[next((w[6:] for w in words if w.startswith("event=")), "?")] += 1
    return dict(found)


def ratio(burst: float, idle: float) -> float:
    return burst / idle if idle > 0 else math.nan


def figures(outcome: Outcome) -> dict[str, Figure]:
    shown: dict[str, Figure] = {"users": outcome.users}
    for kind in KINDS:
        for phase, found in (("idle", outcome.idle[kind]), ("burst", outcome.burst[kind])):
            shown[f"{kind}_{phase}_p50_s"] = found.p50_s
            shown[f"{kind}_{phase}_p99_s"] = found.p99_s
            shown[f"{kind}_{phase}_max_s"] = found.max_s
            shown[f"{kind}_{phase}_probes"] = found.samples
        shown[f"{kind}_burst_over_idle_p99"] = ratio(
            outcome.burst[kind].p99_s, outcome.idle[kind].p99_s
        )
    shown["probes_unanswered"] = sum(
        found.unanswered for phase in (outcome.idle, outcome.burst) for found in phase.values()
    )
    shown["checkins_per_s"] = outcome.checkins_per_s
    shown["messages_per_s"] = outcome.messages_per_s
    shown["cap_per_s"] = CAP
    shown["cap_over_drain_rate"] = CAP / outcome.messages_per_s
    shown["due_to_first_checkin_s"] = outcome.due_to_first_s
    shown["due_to_last_checkin_s"] = outcome.due_to_last_s
    shown["sends_attempted"] = outcome.sends_attempted
    shown["refused_429"] = outcome.refused_429
    shown["share_429"] = outcome.refused_429 / max(1, outcome.sends_attempted)
    shown["checkins_not_sent_once"] = outcome.missing + outcome.twice
    return shown


def targets() -> dict[str, float]:
    limits = {f"{kind}_burst_p99_s": TARGET_URGENT_P99_S for kind in URGENT_KINDS}
    limits |= {f"{kind}_burst_over_idle_p99": TARGET_URGENT_OVER_IDLE for kind in URGENT_KINDS}
    limits |= {
        f"{kind}_burst_p99_s": TARGET_OTHER_P99_S for kind in KINDS if kind not in URGENT_KINDS
    }
    return limits | {
        "cap_over_drain_rate": 1 / TARGET_DRAIN_SHARE,
        "share_429": TARGET_429_SHARE,
        "checkins_not_sent_once": 0,
        "probes_unanswered": 0,
    }


def checks(outcome: Outcome) -> list[Check]:
    found: list[Check] = []
    for kind in KINDS:
        burst, idle = outcome.burst[kind], outcome.idle[kind]
        name = f"{KIND_NAMES[kind]}, p99 during the burst"
        if kind in URGENT_KINDS:
            met = burst.p99_s <= TARGET_URGENT_P99_S
            found.append(Check(name, "≤ 0.1 s", seconds(burst.p99_s), met))
            over = ratio(burst.p99_s, idle.p99_s)
            met = over <= TARGET_URGENT_OVER_IDLE
            found.append(Check(f"{name} ÷ idle", "≤ 3×", f"{over:.2f}×", met))
        else:
            met = burst.p99_s <= TARGET_OTHER_P99_S
            found.append(Check(name, "≤ 0.5 s", seconds(burst.p99_s), met))
    share = outcome.messages_per_s / CAP
    found.append(
        Check(
            "Drain rate (every message, first check-in to last) ÷ cap",
            "≥ 90%",
            f"{share:.1%} ({outcome.messages_per_s:.1f} of {CAP:.0f}/s)",
            share >= TARGET_DRAIN_SHARE,
        )
    )
    share_429 = outcome.refused_429 / max(1, outcome.sends_attempted)
    found.append(
        Check(
            "429s drawn ÷ sends",
            "≤ 1%",
            f"{share_429:.2%} ({outcome.refused_429} of {outcome.sends_attempted:,})",
            share_429 <= TARGET_429_SHARE,
        )
    )
    sent = outcome.users - outcome.missing
    found.append(
        Check(
            "Every due check-in sent exactly once",
            f"{outcome.users:,} once",
            f"{sent:,} sent, {outcome.missing} missing, {outcome.twice} twice",
            outcome.missing + outcome.twice == 0,
        )
    )
    unanswered = sum(f.unanswered for p in (outcome.idle, outcome.burst) for f in p.values())
    found.append(Check("Probes answered", "all", f"{unanswered} unanswered", unanswered == 0))
    return found


def seconds(value: float) -> str:
    return "—" if math.isnan(value) else f"{value * 1000:.1f} ms"


def render(outcome: Outcome, host: Machine, command: str) -> tuple[str, bool]:
    found = checks(outcome)
    missed = [check for check in found if not check.passed]
    result = "all targets met" if not missed else f"{len(missed)} of {len(found)} targets missed"
    lines = [
        f"Command, from the repo root: `{command}`",
        "",
        host.describe(),
        "",
        f"**Result: {result}.**",
        "",
        "| Reply to | Probes idle / burst | Idle p50 / p99 / max | Burst p50 / p99 / max"
        " | Burst ÷ idle (p99) |",
        "|---|---:|---:|---:|---:|",
    ]
    for kind in KINDS:
        idle, burst = outcome.idle[kind], outcome.burst[kind]
        lines.append(
            f"| {KIND_NAMES[kind]} | {idle.samples} / {burst.samples}"
            f" | {seconds(idle.p50_s)} / {seconds(idle.p99_s)} / {seconds(idle.max_s)}"
            f" | {seconds(burst.p50_s)} / {seconds(burst.p99_s)} / {seconds(burst.max_s)}"
            f" | {ratio(burst.p99_s, idle.p99_s):.2f}× |"
        )
    share = outcome.checkins_per_s / CAP
    lines += [
        "",
        "| Burst figure | Value |",
        "|---|---:|",
        f"| Check-ins due at one minute | {outcome.users:,} |",
        f"| Due → first / last check-in at the platform (s) | {outcome.due_to_first_s:.2f}"
        f" / {outcome.due_to_last_s:.2f} |",
        f"| Every message accepted, first check-in to last (per s) | {outcome.messages_per_s:.2f}"
        f" ({outcome.messages_per_s / CAP:.1%} of the cap) |",
        f"| … of them check-ins (per s) | {outcome.checkins_per_s:.2f} ({share:.1%} of the cap,"
        f" {share / BULK_SHARE:.1%} of bulk's share) |",
        f"| 429s drawn / messages and edits asked for | {outcome.refused_429}"
        f" / {outcome.sends_attempted:,} |",
        f"| Due users sent no check-in / more than one | {outcome.missing} / {outcome.twice} |",
        f"| steady run: exit code at SIGTERM / warnings and errors logged | {outcome.exit_code}"
        f" / {', '.join(f'{k} × {v}' for k, v in outcome.logged.items()) or 'none'} |",
        f"| Machine load average (1 min) before / after | {outcome.loads[0]:.2f}"
        f" / {outcome.loads[-1]:.2f} |",
        "",
        "| Target | Limit | Measured | Result |",
        "|---|---|---|---|",
        *(
            f"| {c.name} | {c.limit} | {c.measured} | {'pass' if c.passed else 'FAIL'} |"
            for c in found
        ),
        "",
        "How to read it:",
        "",
        *HOW_TO_READ,
    ]
    return "\n".join(lines), not missed


HOW_TO_READ = [
    "- The bot is `steady run` in a process of its own on SQLite, polling; the fake Bot API,"
    " the probes and this script share another process. The fake keeps Telegram's limits on"
    " arrival (tests/fakes/flood_limits.py): 30 messages a second for the bot, a burst of 5"
    " then one a second per private chat, 20 a minute per group; edits (a pressed button's"
    " message changed) are counted by neither it nor the bot, as Telegram counts messages"
    " sent.",
    "- Lanes (bot/adapters/lanes.py): bulk (the check-ins) sends at most 90% of the cap, 27"
    " of 30 a second, spread evenly; replies go first, and may take the rest but the last"
    " message, which is kept for crisis replies. So a burst alone drains a little under 27"
    " a second (each message counts from its call's return, so each slot is free again a"
    " round trip after a whole second: the longer the round trip, the lower the rate), and"
    " with people writing, up to 29 in all. The drain target is on every message the"
    " platform accepted over the burst, the replies to the probes included, against the cap;"
    " the probes' replies (more than the 3 a second kept for replies) take some of bulk's"
    " room, so check-ins alone drain slower than 27 while they do.",
    "- Idle: the probes one at a time before the due minute (nothing else to do), one every"
    " half second (back to back, their own replies passed the cap of 30 a second). Burst: one"
    " probe starts every half second from the first check-in's arrival until the last's, each"
    " a person of their own (a private chat's own limit is never what is measured). A press"
    " and a note are timed after their check-in was opened (untimed).",
    "- Latency: from the update pushed into the fake to the first message (sendMessage, or"
    " editMessageText) the fake accepted for that chat, on the fake's monotonic clock.",
    "- The machine is shared: the load average row says how busy it was. Ratios are taken in"
    " one run, side by side.",
]
