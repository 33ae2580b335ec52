-- Indexes the daily purge and a group's move need.

-- The purge of old sent-message records finds them by age, not by reading every row.
CREATE INDEX sent_messages_by_time ON sent_messages (sent_at);

-- A group that gets a new chat id (a Telegram group upgraded to a supergroup) takes the
-- people who wrote from it along: found by chat, not by reading every user.
CREATE INDEX users_by_chat ON users (platform, chat_id);
