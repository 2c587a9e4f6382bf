-- Skald schema, version 4: the session's companion tools.
--
-- The scratchpad as entries (update_scratchpad upserts one key; the person
-- edits or deletes single entries in the Scratchpad panel). The old
-- whole-text session_scratchpad stays for compatibility; its text, if any,
-- becomes the entry "notes".
CREATE TABLE scratchpad_entries (
    session_id TEXT NOT NULL REFERENCES chat_sessions (id) ON DELETE CASCADE,
    key        TEXT NOT NULL CHECK (length(key) > 0),
    value      TEXT NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (session_id, key)
);

INSERT OR IGNORE INTO scratchpad_entries (session_id, key, value, updated_at)
SELECT session_id, 'notes', content, updated_at FROM session_scratchpad
WHERE length(content) > 0;

-- Questions an agent asked the person (ask_user_clarification). A question
-- is the pending tool call `tool_call_id`; it stays `pending` across a
-- restart (and is asked again) until answered or withdrawn by Stop.
CREATE TABLE clarifications (
    tool_call_id TEXT PRIMARY KEY NOT NULL,
    session_id   TEXT NOT NULL REFERENCES chat_sessions (id) ON DELETE CASCADE,
    frame_id     INTEGER,
    agent_id     TEXT NOT NULL,
    title        TEXT NOT NULL,
    question     TEXT NOT NULL,
    suggestions  TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(suggestions)),
    status       TEXT NOT NULL DEFAULT 'pending'
                 CHECK (status IN ('pending', 'answered', 'withdrawn')),
    answer       TEXT,
    created_at   INTEGER NOT NULL,
    answered_at  INTEGER
);

CREATE INDEX clarifications_pending ON clarifications (status, created_at);
