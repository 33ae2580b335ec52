-- The first schema. Times are integer Unix seconds (UTC).
-- Only what features need: no names, no usernames, no message text in clear.

CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value BLOB NOT NULL
);

-- AUTOINCREMENT: a forgotten user's id is never given to someone else (ciphertexts are
-- bound to the id, and nothing that still names an old id may find a new person).
CREATE TABLE users (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    platform         TEXT    NOT NULL,
    platform_user_id TEXT    NOT NULL,
    chat_id          TEXT    NOT NULL,
    locale           TEXT    NOT NULL,
    timezone         TEXT,
    checkin_time     TEXT,
    discreet         INTEGER NOT NULL DEFAULT 1,
    created_at       INTEGER NOT NULL,
    onboarded_at     INTEGER,
    UNIQUE (platform, platform_user_id)
);

-- Where each user stands in a conversation. `token` changes at every step so
-- a button from an earlier step can be recognised as stale.
CREATE TABLE flow_positions (
    user_id    INTEGER PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    flow       TEXT    NOT NULL,
    step       TEXT    NOT NULL,
    token      TEXT    NOT NULL,
    data       TEXT    NOT NULL DEFAULT '{}',
    updated_at INTEGER NOT NULL
);

CREATE TABLE checkins (
    id          INTEGER PRIMARY KEY,
    user_id     INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    answered_at INTEGER NOT NULL,
    mood        INTEGER NOT NULL CHECK (mood BETWEEN 1 AND 5),
    urge        TEXT    NOT NULL CHECK (urge IN ('none', 'some', 'strong')),
    note        BLOB -- encrypted; NULL when the user skipped it
);
CREATE INDEX checkins_by_user ON checkins (user_id, answered_at);

CREATE TABLE affirmations_seen (
    user_id        INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    affirmation_id TEXT    NOT NULL,
    seen_at        INTEGER NOT NULL,
    PRIMARY KEY (user_id, affirmation_id)
);
