"""A 429 on a reply is waited out by the adapter itself; /metrics counts it apart from the
outbox's own."""

from __future__ import annotations

from bot.observability.metrics import Metrics
from tests.helpers.telegram_world import TelegramWorld

ANA = 1001


def rate_limited(metrics: Metrics, retried_by: str) -> float | None:
    return metrics.registry.get_sample_value(
        "steady_rate_limited_total", {"platform": "telegram", "retried_by": retried_by}
    )


async def test_a_429_on_a_telegram_reply_counts_for_the_adapter(telegram: TelegramWorld) -> None:
    metrics = telegram.services.metrics
    fault = telegram.tg.inject_retry_after(1, method="sendMessage")
    await telegram.says(ANA, "/about")
    await telegram.tg.wait_for(lambda c: c.method == "sendMessage" and c.ok, timeout=30)
    assert fault.hits == 1
    assert rate_limited(metrics, "adapter") == 1
    assert rate_limited(metrics, "outbox") is None
