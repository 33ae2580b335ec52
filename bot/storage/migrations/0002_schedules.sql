-- Daily check-in schedules driven by the database: each slot is a row with its
-- next due instant, so one tick can claim what is due and nothing lives in memory.

ALTER TABLE users ADD COLUMN weekdays INTEGER NOT NULL DEFAULT 127; -- bit 0 = Monday
ALTER TABLE users ADD COLUMN quiet_start TEXT;                      -- 'HH:MM' or NULL
ALTER TABLE users ADD COLUMN quiet_end TEXT;
ALTER TABLE users ADD COLUMN paused_until INTEGER;                  -- no check-ins before this
ALTER TABLE users ADD COLUMN checkins_stopped INTEGER NOT NULL DEFAULT 0;
ALTER TABLE users ADD COLUMN unreachable_since INTEGER;             -- blocked us / closed DMs
ALTER TABLE users ADD COLUMN last_opening_id TEXT;                  -- never the same opening twice running
ALTER TABLE users ADD COLUMN last_reply_id TEXT;                    -- never the same reply twice running

CREATE TABLE checkin_slots (
    id              INTEGER PRIMARY KEY,
    user_id         INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    local_time      TEXT    NOT NULL,  -- 'HH:MM' in the user's time zone
    next_due_at     INTEGER,           -- UTC; NULL while check-ins are stopped or unscheduled
    next_local_date TEXT,              -- the local date next_due_at belongs to
    last_local_date TEXT,              -- the last local date claimed: never claimed twice
    UNIQUE (user_id, local_time)
);
CREATE INDEX checkin_slots_due ON checkin_slots (next_due_at) WHERE next_due_at IS NOT NULL;

-- A check-in asked again later ("in 1 hour"). At most one per user.
CREATE TABLE checkin_snoozes (
    user_id INTEGER PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    due_at  INTEGER NOT NULL
);
CREATE INDEX checkin_snoozes_due ON checkin_snoozes (due_at);

INSERT INTO checkin_slots (user_id, local_time)
SELECT id, checkin_time FROM users WHERE checkin_time IS NOT NULL;

ALTER TABLE users DROP COLUMN checkin_time;
