-- As SQLite's 0013: content_seen records each opening with its time; this copy was
-- written for every due check-in and read by nothing but the export.
ALTER TABLE users DROP COLUMN last_opening_id;
