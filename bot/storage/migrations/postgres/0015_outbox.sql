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
CREATE INDEX outbox_waiting ON outbox (lease_until) WHERE attempt_at IS NULL;
CREATE INDEX outbox_user ON outbox (user_id) WHERE user_id IS NOT NULL;
CREATE INDEX outbox_attempted ON outbox (attempt_at) WHERE attempt_at IS NOT NULL;

CREATE TABLE outbox_ids (
    next BIGINT NOT NULL
);
INSERT INTO outbox_ids (next) VALUES (1);
