-- Messages the bot sent in a user's private chat: ids and times only, never text.
-- /wipe deletes those the platform still allows deleting (Telegram: under 48 hours).
CREATE TABLE sent_messages (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id    INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    chat_id    TEXT    NOT NULL,
    message_id TEXT    NOT NULL,
    sent_at    INTEGER NOT NULL
);
CREATE INDEX sent_messages_by_user ON sent_messages (user_id, sent_at);

-- A button pressed by someone else (in a group) is recognised by its token.
CREATE INDEX flow_positions_by_token ON flow_positions (token);
