-- The safety plan a user writes for themselves: one row per part they filled in, the
-- words sealed like reasons (bound to the user's row id). No row: the part is empty.
CREATE TABLE safety_plan_parts (
    user_id    BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    part       TEXT   COLLATE "C" NOT NULL,
    body       BYTEA  NOT NULL,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (user_id, part)
);

-- Whether the user has a plan, kept on their own row: the crisis reply reads that row
-- already (within its short bound), so its "My plan" button costs no read of its own.
ALTER TABLE users ADD COLUMN has_plan INTEGER NOT NULL DEFAULT 0;

-- The offer to look the plan over every four weeks, asked for by the user. No row: off.
CREATE TABLE plan_reviews (
    user_id      BIGINT PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    next_due_at  BIGINT NOT NULL,  -- UTC
    last_sent_at BIGINT
);
CREATE INDEX plan_reviews_due ON plan_reviews (next_due_at);
