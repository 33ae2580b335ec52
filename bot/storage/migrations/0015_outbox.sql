-- Scheduled messages waiting to be sent, written in the same transaction that claims
-- them, so a worker that dies before sending leaves them for another (or for itself
-- after a restart) instead of losing them.
--   id:           from outbox_ids, never reused: a worker holding an old id in memory
--                 can never send a newer row by mistake.
--   user_id:      whose message it is (NULL for a group's post), so /forget removes it
--                 (no foreign key: a message for a user forgotten since is simply dropped).
--   reply:        the bot's own words, encoded (bot/delivery/reply_codec.py); a reply
--                 carrying someone's own words is sealed instead, in sealed_for_user
--                 (bound to user_id) or sealed_for_reminder (bound to guard_id).
--   guard_*:      what must still be there when it is sent (bot/storage/still_there.py);
--                 on_delivered / on_refused name what then happens to that same target.
--   leased_by:    the worker sending it; another takes it over once lease_until passes.
--   attempt_at:   written and committed before the request goes out. From then on the
--                 message may have reached the platform, and it is never sent again.
CREATE TABLE outbox (
    id                  INTEGER PRIMARY KEY,
    platform            TEXT    NOT NULL,
    chat_id             TEXT    NOT NULL,
    platform_user_id    TEXT    NOT NULL,
    is_group            INTEGER NOT NULL,
    user_id             INTEGER,
    reply               TEXT,
    sealed_for_user     BLOB,
    sealed_for_reminder BLOB,
    guard_target        TEXT,
    guard_id            INTEGER,
    guard_stamp         INTEGER,
    on_delivered        TEXT,
    on_refused          TEXT,
    queued_at           INTEGER NOT NULL,
    leased_by           TEXT    NOT NULL,
    lease_until         INTEGER NOT NULL,
    attempt_at          INTEGER
);
-- No index beyond the key: the table holds only what is on its way (thousands at the
-- most, for a moment), and every index would be written three times per message
-- (queued, attempted, deleted) in the busiest minute of the day.

-- The next outbox id: taken a chunk at a time, by one UPDATE.
CREATE TABLE outbox_ids (
    next INTEGER NOT NULL
);
INSERT INTO outbox_ids (next) VALUES (1);
