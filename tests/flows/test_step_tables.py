"""The step tables: what they declare is what the flows do, and the names they store stay."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from bot.content_pack.ids import AnswersMsg, DataMsg, GeneralMsg
from bot.content_pack.pack import ContentPack
from bot.core.events import Address
from bot.flows.affirm import Affirm
from bot.flows.base import Flow, Step
from bot.flows.checkin import CheckIn
from bot.flows.contacted import Contacted
from bot.flows.context import Choice, FlowContext, Services
from bot.flows.forget import Forget
from bot.flows.hard_dates import HardDates
from bot.flows.names import FlowName
from bot.flows.no_contact import NoContactCounter
from bot.flows.onboarding import Onboarding
from bot.flows.pause import Pause
from bot.flows.plan import Plan
from bot.flows.reasons import Reasons
from bot.flows.settings import Settings
from bot.safety.screen import SafetyScreen
from bot.storage.flow_positions import FlowPosition


def every_flow(content: ContentPack) -> list[Flow]:
    rng = random.Random(1)
    pause = Pause(rng)
    return [
        Onboarding(),
        CheckIn(rng, pause),
        Settings(),
        Forget(),
        pause,
        Contacted(pause, SafetyScreen(content)),
        Reasons(),
        NoContactCounter(),
        Affirm(rng),
        Plan(SafetyScreen(content)),
        HardDates(),
    ]


# Stored in users' positions and carried in button data already sent: renaming one
# strands every user at that step. This list changes only with a migration.
STORED_NAMES = {
    "ob": {"language", "timezone", "tzpick", "tzconfirm", "time", "country", "mismatch"},
    "ci": {"mood", "urge", "note"},
    "st": {"menu", "timezone", "tzpick", "tzconfirm", "times", "days", "quiet", "pause",
           "country", "keep", "language", "mismatch"},
    "fg": {"confirm"},
    "pa": {"offer", "menu", "bpick", "gpick", "gstep", "after", "remember", "reason", "write",
           "keep", "wait", "followup", "need", "checking"},
    "ct": {"offer", "kind", "timing", "protect", "pressure", "whatnow"},
    "rs": {"list", "add", "remove", "drafts", "dremove"},
    "nc": {"status"},
    "af": {"shown", "group", "theme"},
    "pl": {"signs", "alone", "distract", "people", "lines", "pros", "safer", "reasons", "optin",
           "saved", "view", "pick", "part", "rewrite", "relines", "unline", "delete"},
    "hd": {"list", "kind", "date", "which", "repeat", "label", "pick", "edit"},
}  # fmt: skip


def test_flow_and_step_names_are_the_stored_ones(content: ContentPack) -> None:
    flows = every_flow(content)
    assert {str(flow.name) for flow in flows} == {str(name) for name in FlowName}
    assert {str(flow.name): set(flow.steps) for flow in flows} == STORED_NAMES


async def test_a_press_no_step_declares_is_answered_use_the_buttons_at_every_step(
    services: Services, text_of: Callable[..., str]
) -> None:
    ctx = FlowContext(services, Address("console", "c1", "u1"), "en")
    guarded = 0
    for flow in every_flow(services.content):
        for name, step in flow.steps.items():
            if step.on_choice is None or step.other_choice is not None:
                continue  # no buttons, or buttons built from data that read their own values
            position = FlowPosition(flow.name, name, "t0k3n000", {})
            replies = await step.on_choice(ctx, position, "not-a-button")
            # Refused, with the step's buttons shown again below (a tap, or its number,
            # works at once); a step whose buttons are all built when asked has none here.
            expected = AnswersMsg.USE_BUTTONS_BELOW if step.buttons else GeneralMsg.USE_BUTTONS
            assert [reply.text for reply in replies] == [text_of(expected)], (flow, name)
            assert bool(replies[0].buttons) == bool(step.buttons), (flow, name)
            guarded += 1
    assert guarded >= 20  # the guard is generated, not written per step
    assert await services.db.fetch_one("SELECT id FROM users") is None  # and it wrote nothing


def test_a_button_that_leads_nowhere_is_refused_when_the_table_is_built() -> None:
    class Lost(Flow):
        name = "zz"

        def __init__(self) -> None:
            self.steps = self.table({"ask": Step(buttons=((Choice("yes", DataMsg.FORGET_YES),),))})

    with pytest.raises(ValueError, match="leads nowhere"):
        Lost()


def test_a_button_leading_to_a_step_the_table_lacks_is_refused() -> None:
    class Astray(Flow):
        name = "zz"

        def __init__(self) -> None:
            yes = Choice("yes", DataMsg.FORGET_YES, goes_to="nowhere")
            self.steps = self.table({"ask": Step(asks=DataMsg.FORGET_CONFIRM, buttons=((yes,),))})

    with pytest.raises(ValueError, match="leads to no step"):
        Astray()
