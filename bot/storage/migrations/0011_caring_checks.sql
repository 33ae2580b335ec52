-- "Would you like me to check on you tomorrow?", offered after a crisis reply.
-- One row per user at most. No text: only dates and times.
--   offered_on:    the user's local date of the last offer (offered at most once a day).
--   next_due_at:   the check the user said yes to, not yet taken by the scheduler;
--                  NULL when none is pending.
--   asked_at:      when they said yes.
--   asked_while_stopped: their check-ins were stopped when they said yes (so a stop
--                  from before does not hold back what they asked for after it).
--   claimed_at:    when the scheduler took it to send; cleared once delivered. The claim
--                  and the move off the schedule are one statement: never sent twice.
CREATE TABLE caring_checks (
    user_id             INTEGER PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    offered_on          TEXT,
    next_due_at         INTEGER,
    asked_at            INTEGER,
    asked_while_stopped INTEGER NOT NULL DEFAULT 0,
    claimed_at          INTEGER
);
CREATE INDEX caring_checks_due ON caring_checks (next_due_at) WHERE next_due_at IS NOT NULL;
