-- The pause-before-acting flow, crisis resources by country, and progress without shame.

ALTER TABLE users ADD COLUMN country TEXT; -- ISO 3166 code: which helplines to show

-- The user's own "reasons I left", encrypted.
CREATE TABLE reasons (
    id         INTEGER PRIMARY KEY,
    user_id    INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    body       BLOB    NOT NULL,
    created_at INTEGER NOT NULL
);
CREATE INDEX reasons_by_user ON reasons (user_id, id);

-- Messages written and not sent, kept only when the user asked, encrypted.
CREATE TABLE drafts (
    id         INTEGER PRIMARY KEY,
    user_id    INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    body       BLOB    NOT NULL,
    created_at INTEGER NOT NULL
);

-- Each pause taken, and how it ended, for progress counts. No text.
CREATE TABLE urge_pauses (
    id          INTEGER PRIMARY KEY,
    user_id     INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    started_at  INTEGER NOT NULL,
    outcome     TEXT CHECK (outcome IN ('passed', 'reached_out')),
    resolved_at INTEGER
);
CREATE INDEX urge_pauses_by_user ON urge_pauses (user_id, started_at);

-- "How is the wave now?" after an urge timer. Claimed by one process (claimed_by)
-- and marked delivered after the send. Only a claim of another, earlier process
-- is taken over, after a lease: so a restart re-delivers an unsent one (at least
-- once), and a slow send in this process is never duplicated.
CREATE TABLE followups (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id      INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    due_at       INTEGER NOT NULL,
    claimed_at   INTEGER,
    claimed_by   TEXT,
    delivered_at INTEGER
);
CREATE INDEX followups_pending ON followups (due_at) WHERE delivered_at IS NULL;

-- Optional /nocontact counter. Resetting keeps the longest stretch.
CREATE TABLE no_contact (
    user_id      INTEGER PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    since        INTEGER NOT NULL,
    longest_days INTEGER NOT NULL DEFAULT 0,
    restarts     INTEGER NOT NULL DEFAULT 0
);
