"""/contacted: after they got in touch, what kind of contact it was and what to do now."""

from __future__ import annotations

from enum import StrEnum


class ContactedMsg(StrEnum):
    CT_OFFER = "contacted.offer"
    CT_INTRO = "contacted.intro"
    CT_Q_KIND = "contacted.q_kind"
    CT_PRACTICAL = "contacted.practical"
    CT_EMOTIONAL = "contacted.emotional"
    CT_UNSURE = "contacted.unsure"
    CT_Q_TIMING = "contacted.q_timing"
    CT_CAN_WAIT = "contacted.can_wait"
    CT_SOON = "contacted.soon"
    CT_Q_PROTECT = "contacted.q_protect"
    CT_PEACE = "contacted.peace"
    CT_BOUNDARIES = "contacted.boundaries"
    CT_TIME = "contacted.time"
    CT_SAFETY = "contacted.safety"

    # They say they changed, apologise, send gifts, or threaten to hurt themselves.
    CT_PRESSURE = "contacted.pressure"
    CT_PRESSURE_REPLY = "contacted.pressure_reply"
    CT_EMERGENCY_NUMBER = "contacted.emergency_number"
    CT_EMERGENCY_GENERIC = "contacted.emergency_generic"
    CT_SUMMARY = "contacted.summary"
    CT_ADVICE_PRACTICAL = "contacted.advice_practical"
    CT_ADVICE_EMOTIONAL = "contacted.advice_emotional"
    CT_ADVICE_UNSURE = "contacted.advice_unsure"
    CT_ADVICE_WAIT = "contacted.advice_wait"
    CT_ADVICE_SOON = "contacted.advice_soon"
    CT_ADVICE_PEACE = "contacted.advice_peace"
    CT_ADVICE_BOUNDARIES = "contacted.advice_boundaries"
    CT_ADVICE_TIME = "contacted.advice_time"
    CT_ADVICE_SAFETY = "contacted.advice_safety"

    CT_PRESSURE_WHICH = "contacted.pressure_which"
    CT_THREAT_SELF = "contacted.threat_self"
    CT_THREAT_ME = "contacted.threat_me"
    CT_PROMISE = "contacted.promise"
    CT_THREAT_ME_REPLY = "contacted.threat_me_reply"
    CT_PROMISE_REPLY = "contacted.promise_reply"
    CT_WHAT_NOW = "contacted.what_now"
    CT_NEXT_PAUSE = "contacted.next_pause"
    CT_NEXT_SOS = "contacted.next_sos"
    CT_NEXT_DONE = "contacted.next_done"
    CT_DONE_REPLY = "contacted.done_reply"
