-- What each user was shown lately, so check-in replies, openings and reflections do not
-- repeat within a month. Only item ids from the content pack, never text.
CREATE TABLE content_seen (
    user_id BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    kind    TEXT   COLLATE "C" NOT NULL CHECK (kind IN ('reply', 'opening', 'reflection')),
    item_id TEXT   COLLATE "C" NOT NULL,
    seen_at BIGINT NOT NULL,
    PRIMARY KEY (user_id, kind, item_id)
);

-- Practical contact (a handover, a bill) is counted apart and never resets the count.
ALTER TABLE no_contact ADD COLUMN practical_contacts INTEGER NOT NULL DEFAULT 0;
