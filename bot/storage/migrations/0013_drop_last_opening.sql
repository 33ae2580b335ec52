-- Which opening a user was shown last is kept in content_seen (with when, for the
-- no-repeat window); this copy was written for every due check-in and read by nothing
-- but the export, which lists content_seen too.
ALTER TABLE users DROP COLUMN last_opening_id;
