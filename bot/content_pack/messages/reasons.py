"""/reasons: the user's own reasons, and the drafts they kept."""

from __future__ import annotations

from enum import StrEnum


class ReasonsMsg(StrEnum):
    REASONS_LIST = "reasons.list"
    REASONS_EMPTY = "reasons.empty"
    REASONS_ADD = "reasons.add"
    REASONS_REMOVE = "reasons.remove"
    REASONS_DONE = "reasons.done"
    REASONS_ASK = "reasons.ask"
    REASONS_ADDED = "reasons.added"
    REASONS_REMOVED = "reasons.removed"
    REASONS_PICK_REMOVE = "reasons.pick_remove"
    REASONS_CLOSED = "reasons.closed"
    REASONS_FULL = "reasons.full"

    # Kept drafts, readable: shown from /reasons.
    REASONS_DRAFTS = "reasons.drafts"
    DRAFTS_LIST = "reasons.drafts_list"
    DRAFTS_EMPTY = "reasons.drafts_empty"
    DRAFTS_REMOVE = "reasons.drafts_remove"
    DRAFTS_PICK_REMOVE = "reasons.drafts_pick_remove"
    DRAFTS_REMOVED = "reasons.drafts_removed"
    DRAFTS_BACK = "reasons.drafts_back"
