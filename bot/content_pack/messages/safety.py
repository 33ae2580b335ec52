"""The crisis and danger replies: emergency numbers, helplines, how to reach them, their hours."""

from __future__ import annotations

from enum import StrEnum


class SafetyMsg(StrEnum):
    SAFETY_CRISIS_INTRO = "safety.crisis_intro"
    SAFETY_DANGER_INTRO = "safety.danger_intro"
    SAFETY_EMERGENCY = "safety.emergency"
    SAFETY_EMERGENCY_GENERIC = "safety.emergency_generic"
    SAFETY_RESOURCE_LINE = "safety.resource_line"
    SAFETY_NO_COUNTRY = "safety.no_country"
    SAFETY_DIRECTORY = "safety.directory"
    SAFETY_GROUP_PUBLIC = "safety.group_public"
    SAFETY_GROUP_FALLBACK = "safety.group_fallback"
    SAFETY_MISREAD_BUTTON = "safety.misread_button"
    SAFETY_MISREAD_REPLY = "safety.misread_reply"
    SAFETY_SHOW_BUTTON = "safety.show_button"

    # Crisis reply layout: numbers by service, hope, more helplines, the safety card
    SAFETY_EMERGENCY_POLICE_FIRST = "safety.emergency_police_first"
    SAFETY_EMERGENCY_AMBULANCE_FIRST = "safety.emergency_ambulance_first"
    SAFETY_EMERGENCY_ALSO = "safety.emergency_also"
    SAFETY_EMERGENCY_SMS = "safety.emergency_sms"
    SAFETY_NOT_SURE = "safety.not_sure"
    SAFETY_HOPE_CRISIS = "safety.hope_crisis"
    SAFETY_HOPE_DANGER = "safety.hope_danger"
    SAFETY_MORE_BUTTON = "safety.more_button"
    SAFETY_MORE_INTRO = "safety.more_intro"
    SAFETY_CARD_BUTTON = "safety.card_button"
    SAFETY_CARD = "safety.card"
    SAFETY_COUNTRY_SAVED = "safety.country_saved"

    # The graded reply: a short check when crisis words are softened by their context.
    SAFETY_CHECK = "safety.check"
    SAFETY_CHECK_SAFE_BUTTON = "safety.check_safe_button"
    SAFETY_CHECK_HELP_BUTTON = "safety.check_help_button"
    SAFETY_CHECK_SAFE_REPLY = "safety.check_safe_reply"

    # How opening hours read in crisis replies
    HOURS_DAILY = "hours.daily"
    HOURS_VARY = "hours.vary"

    # The crisis reply in every screened language (content/<locale>/messages_crisis_reply.yaml
    # and content/replies/<language>.yaml): opening hours around the clock, numbers no two
    # sources confirm, numbers at a glance when the country is unknown, and a helpline's
    # contact told in the words of a language its data is not written in.
    HOURS_ALWAYS = "hours.always"
    SAFETY_OR = "safety.or"
    SAFETY_UNCONFIRMED = "safety.unconfirmed"
    SAFETY_UNCONFIRMED_POLICE_FIRST = "safety.unconfirmed_police_first"
    SAFETY_UNCONFIRMED_AMBULANCE_FIRST = "safety.unconfirmed_ambulance_first"
    SAFETY_UNCONFIRMED_FALLBACK = "safety.unconfirmed_fallback"
    SAFETY_UNCONFIRMED_ALSO = "safety.unconfirmed_also"
    SAFETY_UNCONFIRMED_NEARBY = "safety.unconfirmed_nearby"
    SAFETY_WIDE_NUMBERS = "safety.wide_numbers"
    SAFETY_GLANCE = "safety.glance"
    SAFETY_GLANCE_ONLY = "safety.glance_only"
    SAFETY_GLANCE_EMERGENCY = "safety.glance_emergency"
    SAFETY_GLANCE_EMERGENCY_TWO = "safety.glance_emergency_two"
    SAFETY_GLANCE_UNCONFIRMED = "safety.glance_unconfirmed"
    SAFETY_GLANCE_HELPLINE = "safety.glance_helpline"
    SAFETY_LINE_LANGUAGES = "safety.line_languages"
    SAFETY_LINE_UNCONFIRMED = "safety.line_unconfirmed"
    CONTACT_CALL = "contact.call"
    CONTACT_TEXT = "contact.text"
    CONTACT_CALL_OR_TEXT = "contact.call_or_text"
    CONTACT_TEXT_KEYWORD = "contact.text_keyword"
    CONTACT_WHATSAPP = "contact.whatsapp"
    CONTACT_CHAT = "contact.chat"
    CONTACT_FREE = "contact.free"
    CONTACT_LANDLINE = "contact.landline"
    CONTACT_OPTION = "contact.option"
    CONTACT_CALLBACK = "contact.callback"
    CONTACT_EITHER = "contact.either"
