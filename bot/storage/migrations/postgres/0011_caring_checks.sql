-- "Would you like me to check on you tomorrow?", offered after a crisis reply.
-- One row per user at most. No text: only dates and times (the SQLite migration of this
-- number says what each column means).
CREATE TABLE caring_checks (
    user_id             BIGINT  PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    offered_on          TEXT,
    next_due_at         BIGINT,
    asked_at            BIGINT,
    asked_while_stopped INTEGER NOT NULL DEFAULT 0,
    claimed_at          BIGINT
);
CREATE INDEX caring_checks_due ON caring_checks (next_due_at) WHERE next_due_at IS NOT NULL;
