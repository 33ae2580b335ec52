"""Pick the next item a user has not seen in this round."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Generic, Protocol, TypeVar


class HasId(Protocol):
    @property
    def id(self) -> str: ...


Item = TypeVar("Item", bound=HasId)


@dataclass(frozen=True, slots=True)
class Pick(Generic[Item]):
    item: Item
    starts_new_round: bool


def pick_fresh(items: Sequence[Item], seen_at: Mapping[str, datetime], rng: random.Random) -> Item:
    """A random item not shown lately; when all were, the one shown longest ago."""
    if not items:
        raise ValueError("nothing to pick from")
    if not seen_at:  # nothing shown lately (most people, most days): any of them
        return rng.choice(items)
    unseen = [item for item in items if item.id not in seen_at]
    if unseen:
        return rng.choice(unseen)
    return min(items, key=lambda item: seen_at[item.id])


def pick_unseen(
    items: Sequence[Item], seen_in_order: Sequence[str], rng: random.Random
) -> Pick[Item]:
    """A random unseen item; once all were seen, a new round begins.

    The item seen last is never picked first in the new round, so the end of
    one round and the start of the next cannot show the same text twice.
    """
    if not items:
        raise ValueError("nothing to pick from")
    seen = set(seen_in_order)
    unseen = [item for item in items if item.id not in seen]
    if unseen:
        return Pick(rng.choice(unseen), starts_new_round=False)
    last = seen_in_order[-1] if seen_in_order else None
    fresh = [item for item in items if item.id != last] or list(items)
    return Pick(rng.choice(fresh), starts_new_round=True)
