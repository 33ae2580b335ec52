-- Hard days on the calendar (/dates): an anniversary, a court date, a handover. Steady
-- sends an extra check-in the evening before and on the morning of each one.
--
-- The label is the user's own words, encrypted. The date is kept as month and day, with
-- a year only for a one-off date (NULL: every year; 29 February then falls on the 28th
-- in other years). The next extra check-in is one row of state: when (`next_due_at`,
-- UTC), which moment ('eve' the evening before, 'day' the morning of, 'end' the night
-- after a one-off date, when the row itself goes) and the date it is for. The scheduler
-- claims a due row and moves it on in the same transaction, so a message is never sent
-- twice for the same moment.
CREATE TABLE hard_dates (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id       INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    kind          TEXT    NOT NULL
                  CHECK (kind IN ('anniversary', 'birthday', 'holiday', 'legal', 'children', 'other')),
    label         BLOB    NOT NULL,
    month         INTEGER NOT NULL CHECK (month BETWEEN 1 AND 12),
    day           INTEGER NOT NULL CHECK (day BETWEEN 1 AND 31),
    year          INTEGER,
    next_due_at   INTEGER,
    next_moment   TEXT    CHECK (next_moment IN ('eve', 'day', 'end')),
    next_date     TEXT,
    created_at    INTEGER NOT NULL
);
CREATE INDEX hard_dates_by_user ON hard_dates (user_id, id);
CREATE INDEX hard_dates_due ON hard_dates (next_due_at) WHERE next_due_at IS NOT NULL;
