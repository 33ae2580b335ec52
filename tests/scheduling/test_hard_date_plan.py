"""When a hard date's check-ins fall, as pure rules: check-in times, quiet hours, odd days."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, date, datetime, time

from bot.scheduling.hard_date_plan import DateRule, moment_time, next_upcoming, replanned
from bot.storage.hard_dates import Moment, Upcoming
from bot.storage.users import ALL_WEEKDAYS_MASK, QuietHours, User, weekdays_from_mask

ANA = User(
    id=1,
    platform="test",
    platform_user_id="ana",
    chat_id="chat-ana",
    locale="en",
    timezone="Europe/Berlin",
    weekdays=weekdays_from_mask(ALL_WEEKDAYS_MASK),
    quiet_hours=None,
    paused_until=None,
    checkins_stopped=False,
    unreachable_since=None,
    last_reply_id=None,
    country=None,
    discreet=True,
    created_at=datetime(2026, 1, 1, tzinfo=UTC),
    onboarded_at=None,
)


def test_the_morning_and_evening_follow_the_checkin_times_that_fit_them() -> None:
    assert moment_time(Moment.DAY, ["07:15", "21:00"], None) == time(7, 15)
    assert moment_time(Moment.EVE, ["07:15", "21:00"], None) == time(21, 0)
    assert moment_time(Moment.DAY, ["13:00"], None) == time(9, 0)  # no morning check-in
    assert moment_time(Moment.EVE, ["13:00"], None) == time(19, 0)  # no evening one
    assert moment_time(Moment.DAY, [], None) == time(9, 0)


def test_quiet_hours_move_a_moment_or_leave_it_out() -> None:
    late_nights = QuietHours(time(22, 0), time(9, 30))
    assert moment_time(Moment.DAY, ["08:00"], late_nights) == time(9, 30)
    early_evenings = QuietHours(time(18, 0), time(8, 0))
    assert moment_time(Moment.EVE, [], early_evenings) == time(17, 0)
    long_mornings = QuietHours(time(0, 0), time(13, 0))
    assert moment_time(Moment.DAY, [], long_mornings) is None  # no morning left
    afternoons = QuietHours(time(12, 30), time(23, 0))
    assert moment_time(Moment.EVE, [], afternoons) is None  # an hour before is morning


def test_a_yearly_29_february_and_the_turn_of_the_year() -> None:
    rule = DateRule(2, 29)
    assert [rule.on(year) for year in (2027, 2028)] == [date(2027, 2, 28), date(2028, 2, 29)]
    new_year = DateRule(1, 1)
    after = datetime(2026, 12, 31, 12, 0, tzinfo=UTC)
    upcoming = next_upcoming(ANA, ["08:00"], new_year, after)
    assert upcoming == Upcoming(
        datetime(2026, 12, 31, 18, 0, tzinfo=UTC), Moment.EVE, date(2027, 1, 1)
    )


def test_a_morning_in_the_autumn_overlap_fires_once_at_the_first() -> None:
    # Berlin's clocks go back from 03:00 to 02:00 on 25 October 2026: 02:30 happens twice.
    rule = DateRule(10, 25)
    morning = next_upcoming(ANA, ["02:30"], rule, datetime(2026, 10, 24, 20, 0, tzinfo=UTC))
    assert morning is not None and morning.moment is Moment.DAY
    assert morning.due_at == datetime(2026, 10, 25, 0, 30, tzinfo=UTC)  # 02:30 CEST, the first
    following = next_upcoming(ANA, ["02:30"], rule, morning.due_at)
    assert following is not None and following.on == date(2027, 10, 25)  # never the second


def test_a_one_off_date_ends_the_night_after_and_then_has_nothing() -> None:
    rule = DateRule(3, 10, 2026)
    day = Upcoming(datetime(2026, 3, 10, 8, 0, tzinfo=UTC), Moment.DAY, date(2026, 3, 10))
    end = next_upcoming(ANA, [], rule, day.due_at)
    assert end == Upcoming(datetime(2026, 3, 10, 23, 0, tzinfo=UTC), Moment.END, date(2026, 3, 10))
    assert next_upcoming(ANA, [], rule, end.due_at) is None


def test_planning_again_keeps_the_pending_moment_or_moves_past_it() -> None:
    rule = DateRule(3, 10, 2026)
    eve = Upcoming(datetime(2026, 3, 9, 18, 0, tzinfo=UTC), Moment.EVE, date(2026, 3, 10))
    evening_checkin = replanned(ANA, ["20:30"], rule, eve)
    assert evening_checkin == replace(eve, due_at=datetime(2026, 3, 9, 19, 30, tzinfo=UTC))
    quiet = replace(ANA, quiet_hours=QuietHours(time(12, 30), time(8, 0)))
    assert replanned(quiet, [], rule, eve) == Upcoming(
        datetime(2026, 3, 10, 8, 0, tzinfo=UTC), Moment.DAY, date(2026, 3, 10)
    )  # no evening fits: the morning comes next, at the end of the quiet hours
