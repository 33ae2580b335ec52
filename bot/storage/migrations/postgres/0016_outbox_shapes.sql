-- As SQLite's 0016: replies alike but for their buttons' token, stored once; an outbox
-- row names its shape and holds its token in `fill`.
CREATE TABLE outbox_shapes (
    id       TEXT   PRIMARY KEY,
    reply    TEXT   NOT NULL,
    added_at BIGINT NOT NULL
);
ALTER TABLE outbox ADD COLUMN shape_id TEXT;
ALTER TABLE outbox ADD COLUMN fill TEXT;
