-- Skald schema: context management and failed turns.
--
-- An assistant message whose stream was cut is kept but flagged `incomplete`, so it is shown
-- as such and never sent back to the model as a finished answer. A failed turn keeps its
-- error on the last message it stored (the person's own message when nothing else was), so
-- the history shows it and Retry can run the turn again.
--
-- A summary stands in for the oldest messages of a frame once the context window fills (or
-- when the person compacts): later requests send it in place of every message of the frame
-- up to `last_message_id`. The messages themselves stay in `chat_history` for the person.

ALTER TABLE chat_history ADD COLUMN incomplete INTEGER NOT NULL DEFAULT 0
    CHECK (incomplete IN (0, 1));
ALTER TABLE chat_history ADD COLUMN error TEXT;

CREATE TABLE chat_summaries (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id       TEXT NOT NULL REFERENCES chat_sessions (id) ON DELETE CASCADE,
    stack_id         INTEGER REFERENCES session_stack (id) ON DELETE CASCADE,
    content          TEXT NOT NULL,
    first_message_id INTEGER NOT NULL,
    last_message_id  INTEGER NOT NULL,
    message_count    INTEGER NOT NULL,
    covered_tokens   INTEGER NOT NULL,
    manual           INTEGER NOT NULL DEFAULT 0 CHECK (manual IN (0, 1)),
    created_at       INTEGER NOT NULL
);
CREATE INDEX chat_summaries_by_stack ON chat_summaries (stack_id, last_message_id);
CREATE INDEX chat_summaries_by_session ON chat_summaries (session_id, id);
