-- How long a user wants their check-in history, notes and kept drafts kept, in days.
-- NULL: as long as the operator's STEADY_RETENTION_DAYS allows. Never longer than that.
ALTER TABLE users ADD COLUMN keep_days BIGINT; -- BIGINT: `now - keep_days * 86400` is in epoch seconds
