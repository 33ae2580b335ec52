-- Sends by every worker together, so that a platform's limits (Telegram: about 30
-- messages a second per bot, 20 a minute in one group) hold across all of them. Only
-- workers sharing a PostgreSQL database write here; rows older than a minute are purged.
-- No user id or text: a scope names a platform, or a group chat on it.
CREATE TABLE send_budget (
    id      INTEGER PRIMARY KEY AUTOINCREMENT,
    scope   TEXT    NOT NULL,
    sent_at INTEGER NOT NULL   -- milliseconds since the epoch
);
CREATE INDEX send_budget_scope ON send_budget (scope, sent_at);
