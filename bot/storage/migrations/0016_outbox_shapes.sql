-- Check-ins alike but for their tokens, stored once (bot/delivery/reply_codec.py):
-- an outbox row then names its shape and holds only its token, in `fill`, instead of
-- its own copy of the reply's JSON. A shape holds the bot's own words only.
--   added_at: when it was written, or last found in use after an hour; the daily
--             purge removes shapes no row names that have not been used for a day.
CREATE TABLE outbox_shapes (
    id       TEXT    PRIMARY KEY,
    reply    TEXT    NOT NULL,
    added_at INTEGER NOT NULL
);
ALTER TABLE outbox ADD COLUMN shape_id TEXT;
ALTER TABLE outbox ADD COLUMN fill TEXT;
