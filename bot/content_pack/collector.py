"""The cyclic garbage collector held off while the pack and its rules are built.

Building them allocates hundreds of thousands of objects (YAML nodes, models, pattern
parse trees) that mostly live as long as the process, and the rest are freed by reference
counting as soon as they are dropped. Each full collection the allocations trigger walks
every object of the process, the new ones included: at start-up that was ~0.15 s of work
that frees nothing. The collector runs as before once the building is done.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Iterator[None]:
    """No cyclic collection inside the block; left as it was found (nested blocks, or a
    caller that turned the collector off itself, keep it off)."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
