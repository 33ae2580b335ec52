"""Steady's counters and gauges, in a registry of its own.

Not prometheus_client's global registry: tests, and several apps in one process, each
get their own numbers. Labels are bounded sets only (a platform, a kind of due work, a
reply level): never a user id, a chat id or anything a user wrote.

A `Metrics` nobody reads costs a few objects, so it is also the default wherever none
is passed (tests, tools): counting never needs an `if`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

# A tick is milliseconds on a quiet minute and seconds when thousands fall due at once.
TICK_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)


@dataclass(frozen=True, slots=True)
class QueueState:
    """One platform's outbox queue: messages not yet finished, and since when the oldest
    of them waits (None when it is empty)."""

    depth: int
    oldest_since: datetime | None


QueueStates = Callable[[], Mapping[str, QueueState]]


class Metrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        registry = self.registry
        self.tick_duration = Histogram(
            "steady_tick_duration_seconds",
            "How long one scheduler tick took, from its first claim to its last hand-over.",
            buckets=TICK_BUCKETS,
            registry=registry,
        )
        self.tick_lag = Gauge(
            "steady_tick_lag_seconds",
            "At the start of the latest tick: how late the earliest due work was (0: on time).",
            registry=registry,
        )
        self.last_tick = Gauge(
            "steady_last_tick_timestamp_seconds",
            "When the latest tick finished (Unix time).",
            registry=registry,
        )
        self.due_backlog = Gauge(
            "steady_due_backlog",
            "Scheduled rows whose time has come and that no tick has taken yet (all kinds).",
            registry=registry,
        )
        self.handed_over = Counter(
            "steady_due_handed_over",
            "Scheduled messages a tick handed to the outbox, by kind of due work.",
            ["kind"],
            registry=registry,
        )
        self.sends = Counter(
            "steady_sends",
            "Scheduled messages the platform accepted (or most likely did: an answer that"
            " timed out after the request went out).",
            ["platform"],
            registry=registry,
        )
        self.refusals = Counter(
            "steady_refusals",
            "Scheduled messages the platform refused for good (blocked, chat gone).",
            ["platform"],
            registry=registry,
        )
        self.give_ups = Counter(
            "steady_send_give_ups",
            "Scheduled messages given up on after their retries (network errors, long 429s).",
            ["platform"],
            registry=registry,
        )
        # Who waited the 429 out: the outbox (a scheduled message, before any of it is
        # out), or the adapter (a reply to someone, or the rest of a message in pieces).
        # discord.py waits out short ones inside its own call, unseen here.
        self.rate_limited = Counter(
            "steady_rate_limited",
            "Answers of 429 (retry after) from the platform, by platform and by who waited.",
            ["platform", "retried_by"],
            registry=registry,
        )
        self.crisis_replies = Counter(
            "steady_crisis_replies",
            "Crisis replies given to what someone wrote, by level (crisis, danger).",
            ["level"],
            registry=registry,
        )
        # A reply to someone in crisis or danger (or /sos) that never reached them, after
        # every retry: the one failure an operator must hear about at once (an alert pages).
        self.urgent_undelivered = Counter(
            "steady_urgent_replies_undelivered",
            "Crisis, danger and /sos replies the platform did not take after every retry,"
            " by platform.",
            ["platform"],
            registry=registry,
        )
        # Counted by whoever wins or loses a leader role. Today one process holds every
        # role for as long as it runs (SQLite's single-instance lock), so nothing changes
        # hands and this stays 0; it exists so dashboards and alerts need not change when
        # several workers share the roles.
        self.leader_changes = Counter(
            "steady_leader_changes",
            "Times a leader role (polling, gateway, scheduler) changed hands in this process.",
            registry=registry,
        )
        # For the operator's alerts (deploy/prometheus): set at each scrape of /metrics by
        # its bounded read of the database, and by each worker contending for a role.
        self.database_reachable = Gauge(
            "steady_database_reachable",
            "1 when the database answered this scrape's bounded read in time, else 0.",
            registry=registry,
        )
        self.leader_role_held = Gauge(
            "steady_leader_role_held",
            "1 while this worker holds the leader role, 0 while it waits for it (workers"
            " sharing PostgreSQL only: a single SQLite process holds every role).",
            ["role"],
            registry=registry,
        )
        self._outbox = _OutboxCollector()
        registry.register(self._outbox)
        self._safety_model = _SafetyModelCollector()
        registry.register(self._safety_model)
        self.last_tick_at: datetime | None = None

    def tick_done(
        self,
        finished: datetime,
        seconds: float,
        lag: float | None,  # None: not known this time (the gauge keeps the last)
        handed_over: Mapping[str, int],
    ) -> None:
        self.tick_duration.observe(seconds)
        if lag is not None:
            self.tick_lag.set(lag)
        self.last_tick.set(finished.timestamp())
        self.last_tick_at = finished
        for kind, count in handed_over.items():
            self.handed_over.labels(kind).inc(count)

    def adapter_rate_limited(self, platform: str) -> Callable[[], None]:
        """What an adapter calls for each 429 it waits out itself."""
        return self.rate_limited.labels(platform, "adapter").inc

    def urgent_reply_undelivered(self, platform: str) -> Callable[[], None]:
        """What an adapter calls for each crisis, danger or /sos reply it could not send."""
        return self.urgent_undelivered.labels(platform).inc

    def crisis_reply(self, level: str) -> None:
        self.crisis_replies.labels(level).inc()

    def watch_outbox(self, states: QueueStates, now: Callable[[], datetime]) -> None:
        """Read the outbox's queues whenever the metrics are read."""
        self._outbox.states = states
        self._outbox.now = now

    def watch_safety_model(self, state: Callable[[], Mapping[str, str | None]]) -> None:
        """Read the learned safety stage's state (as /healthz shows it) at every scrape."""
        self._safety_model.state = state

    def exposition(self) -> bytes:
        """Everything, in the Prometheus text format."""
        return generate_latest(self.registry)


class _OutboxCollector(Collector):
    """The outbox's depth and its oldest message's age, read at the moment of a scrape
    (kept as gauges, they would be stale between sends)."""

    def __init__(self) -> None:
        self.states: QueueStates | None = None
        self.now: Callable[[], datetime] | None = None

    def collect(self) -> Iterator[Metric]:
        depth = GaugeMetricFamily(
            "steady_outbox_depth",
            "Scheduled messages queued or being sent, by platform.",
            labels=["platform"],
        )
        age = GaugeMetricFamily(
            "steady_outbox_oldest_age_seconds",
            "How long the oldest message queued or being sent has waited (0: none).",
            labels=["platform"],
        )
        if self.states is not None and self.now is not None:
            now = self.now()
            for platform, state in sorted(self.states().items()):
                depth.add_metric([platform], state.depth)
                since = state.oldest_since
                waited = 0.0 if since is None else max(0.0, (now - since).total_seconds())
                age.add_metric([platform], waited)
        yield depth
        yield age

    def describe(self) -> Iterator[Metric]:
        return iter(())  # not known before the first scrape: no names to reserve


class _SafetyModelCollector(Collector):
    """Whether the learned safety stage is loaded, read at the moment of a scrape: an alert
    on 0 says the rules are screening alone (why is in /healthz)."""

    def __init__(self) -> None:
        self.state: Callable[[], Mapping[str, str | None]] | None = None

    def collect(self) -> Iterator[Metric]:
        if self.state is None:
            return
        loaded = GaugeMetricFamily(
            "steady_safety_model_loaded",
            "1 when the learned safety stage is loaded and screening behind the rules, else 0.",
        )
        loaded.add_metric([], 1.0 if self.state().get("state") == "loaded" else 0.0)
        yield loaded

    def describe(self) -> Iterator[Metric]:
        return iter(())
