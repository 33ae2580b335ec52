-- Reminders that a group's admins schedule for the group (a Telegram group, a
-- Discord channel). They belong to the group, not to a person: the admin who
-- made one is kept only so they can be told privately if the bot may no longer
-- post there, and is cleared when that admin uses /forget.
CREATE TABLE group_reminders (
    id                  INTEGER PRIMARY KEY AUTOINCREMENT,
    platform            TEXT    NOT NULL,
    chat_id             TEXT    NOT NULL,
    number              INTEGER NOT NULL,  -- what admins type: 1, 2, 3 ... within the chat
    creator_user_id     TEXT,              -- the admin's platform id; NULL after their /forget
    locale              TEXT    NOT NULL,
    timezone            TEXT    NOT NULL,
    local_time          TEXT    NOT NULL,  -- HH:MM
    weekdays            INTEGER NOT NULL,  -- bit 0 = Monday
    theme               TEXT,              -- affirmations of this theme; NULL = every theme
    own_text            BLOB,              -- the admin's own words, encrypted; NULL = affirmations
    posts               INTEGER NOT NULL DEFAULT 0,  -- how far the affirmation rotation got
    paused              TEXT,              -- NULL (active), 'admin' or 'no_permission'
    creator_told_at     INTEGER,           -- the admin heard about lost permission (once)
    next_due_at         INTEGER,           -- UTC epoch seconds; NULL while paused
    next_local_date     TEXT,
    last_local_date     TEXT,              -- the local date last claimed: never posted twice
    created_at          INTEGER NOT NULL,
    UNIQUE (platform, chat_id, number)
);
CREATE INDEX group_reminders_due ON group_reminders (next_due_at) WHERE next_due_at IS NOT NULL;
