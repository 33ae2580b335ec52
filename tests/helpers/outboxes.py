"""An outbox wired as the app wires it: the effects of sent and refused messages, and
the cipher that seals a reminder's own words while they wait."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bot.core.clock import Clock
from bot.core.platform import Adapter
from bot.delivery.outbox import Outbox
from bot.engine.due_work import outbox_effects
from bot.flows.context import Services


def outbox_for(
    services: Services, clock: Clock, adapters: Mapping[str, Adapter], *args: Any, **options: Any
) -> Outbox:
    return Outbox(
        services.db,
        clock,
        adapters,
        *args,
        effects=outbox_effects(services),
        cipher=services.cipher,
        **options,
    )
