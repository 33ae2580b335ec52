from bot.flows.checkin import CheckIn
from bot.scheduling.dispatcher import CHECKIN_FLOW


def test_the_tick_knows_the_check_in_flow_by_the_name_its_positions_are_stored_under() -> None:
    # The tick replaces an unanswered check-in rather than waiting for it: it must
    # recognise a check-in position without importing the flow.
    assert CheckIn.name == CHECKIN_FLOW
