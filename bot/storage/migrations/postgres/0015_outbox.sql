-- As SQLite's 0015: scheduled messages waiting to be sent, written in the transaction
-- that claims them, so a worker that dies before sending leaves them to another.
-- attempt_at is committed before the request goes out: such a row is never sent again.
CREATE TABLE outbox (
    id                  BIGINT  PRIMARY KEY,
    platform            TEXT    NOT NULL,
    chat_id             TEXT    NOT NULL,
    platform_user_id    TEXT    NOT NULL,
    is_group            INTEGER NOT NULL,
    user_id             BIGINT,
    reply               TEXT,
    sealed_for_user     BYTEA,
    sealed_for_reminder BYTEA,
    guard_target        TEXT,
    guard_id            BIGINT,
    guard_stamp         BIGINT,
    on_delivered        TEXT,
    on_refused          TEXT,
    queued_at           BIGINT  NOT NULL,
    leased_by           TEXT    NOT NULL,
    lease_until         BIGINT  NOT NULL,
    attempt_at          BIGINT
);
-- No index beyond the key: the table holds only what is on its way (thousands at the
-- most, for a moment), and every index would be written three times per message
-- (queued, attempted, deleted) in the busiest minute of the day.

CREATE TABLE outbox_ids (
    next BIGINT NOT NULL
);
INSERT INTO outbox_ids (next) VALUES (1);
