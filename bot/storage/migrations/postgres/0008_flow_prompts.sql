-- The question last shown at a user's current step, so it can be shown again after an
-- interruption (a crisis reply, /sos, /help) or a restart. Sealed like any user text:
-- a question may echo what the user wrote. Buttons as JSON [[label, data], ...].
ALTER TABLE flow_positions ADD COLUMN prompt BYTEA;
ALTER TABLE flow_positions ADD COLUMN prompt_buttons TEXT;
