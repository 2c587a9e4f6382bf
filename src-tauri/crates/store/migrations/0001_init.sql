-- Skald schema, version 1.
--
-- Conventions: every timestamp is INTEGER unix milliseconds (UTC); JSON is
-- stored as TEXT and checked with json_valid; booleans are INTEGER 0/1;
-- enumerated strings carry a CHECK so a typo never reaches disk.
-- Never edit a migration that has shipped: add 000N_*.sql instead.

-- Permission groups and approval rules --------------------------------------

CREATE TABLE permission_groups (
    name        TEXT PRIMARY KEY NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    builtin     INTEGER NOT NULL DEFAULT 0 CHECK (builtin IN (0, 1)),
    created_at  INTEGER NOT NULL
);

CREATE TRIGGER permission_groups_keep_builtin
BEFORE DELETE ON permission_groups
WHEN OLD.builtin = 1
BEGIN
    SELECT RAISE(ABORT, 'builtin permission group cannot be deleted');
END;

INSERT INTO permission_groups (name, description, builtin, created_at)
VALUES ('default', 'Built-in group used when a session names no other', 1,
        CAST(strftime('%s', 'now') AS INTEGER) * 1000);

CREATE TABLE approval_rules (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    group_name   TEXT NOT NULL
                 REFERENCES permission_groups (name) ON DELETE CASCADE ON UPDATE CASCADE,
    agent_id     TEXT,            -- NULL: any agent
    source       TEXT,            -- NULL: any tool source (builtin, mcp, ...)
    tool_pattern TEXT NOT NULL DEFAULT '*',
    path_pattern TEXT,            -- NULL: any path (or no path)
    action       TEXT NOT NULL CHECK (action IN ('allow', 'require', 'deny')),
    note         TEXT,
    priority     INTEGER NOT NULL DEFAULT 0,
    created_at   INTEGER NOT NULL
);
CREATE INDEX approval_rules_by_group ON approval_rules (group_name, priority DESC, id);

-- Chat sessions, the agent stack and history ----------------------------------

CREATE TABLE chat_sessions (
    -- a random v4 UUID unless the caller supplies one
    id               TEXT PRIMARY KEY NOT NULL DEFAULT (lower(
                         hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' ||
                         substr(hex(randomblob(2)), 2) || '-' ||
                         substr('89ab', 1 + (abs(random()) % 4), 1) ||
                         substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(6)))),
    title            TEXT NOT NULL DEFAULT '',
    agent_id         TEXT NOT NULL,
    working_dir      TEXT,
    permission_group TEXT NOT NULL DEFAULT 'default'
                     REFERENCES permission_groups (name) ON DELETE SET DEFAULT ON UPDATE CASCADE,
    run_context      TEXT CHECK (run_context IS NULL OR json_valid(run_context)),
    created_at       INTEGER NOT NULL,
    updated_at       INTEGER NOT NULL
);
CREATE INDEX chat_sessions_by_updated ON chat_sessions (updated_at DESC);

-- One row per agent frame: depth 0 is the session's root agent, deeper rows are
-- sub-agents called from their parent frame.
CREATE TABLE session_stack (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL REFERENCES chat_sessions (id) ON DELETE CASCADE,
    parent_id  INTEGER REFERENCES session_stack (id) ON DELETE CASCADE,
    depth      INTEGER NOT NULL CHECK (depth >= 0),
    agent_id   TEXT NOT NULL,
    task       TEXT,
    status     TEXT NOT NULL
               CHECK (status IN ('active', 'waiting', 'done', 'failed', 'cancelled')),
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
);
CREATE INDEX session_stack_by_session ON session_stack (session_id, depth, id);
CREATE INDEX session_stack_by_parent ON session_stack (parent_id);

CREATE TABLE chat_history (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id   TEXT NOT NULL REFERENCES chat_sessions (id) ON DELETE CASCADE,
    stack_id     INTEGER REFERENCES session_stack (id) ON DELETE CASCADE,
    role         TEXT NOT NULL CHECK (role IN ('user', 'assistant', 'tool', 'system')),
    content      TEXT NOT NULL DEFAULT '',
    tool_calls   TEXT CHECK (tool_calls IS NULL OR json_valid(tool_calls)),
    tool_call_id TEXT,
    created_at   INTEGER NOT NULL
);
CREATE INDEX chat_history_by_session ON chat_history (session_id, id);
CREATE INDEX chat_history_by_stack ON chat_history (stack_id, id);

-- Every tool call the model made; `id` is the durable tool_call_id.
CREATE TABLE chat_llm_tools (
    id              TEXT PRIMARY KEY NOT NULL,
    session_id      TEXT NOT NULL REFERENCES chat_sessions (id) ON DELETE CASCADE,
    message_id      INTEGER REFERENCES chat_history (id) ON DELETE SET NULL,
    name            TEXT NOT NULL,
    arguments       TEXT NOT NULL DEFAULT '{}',
    result          TEXT,
    status          TEXT NOT NULL
                    CHECK (status IN ('running', 'pending', 'done', 'failed', 'cancelled', 'rejected')),
    result_type     TEXT,
    old_preview     TEXT,
    new_preview     TEXT,
    decision        TEXT,
    decision_reason TEXT,
    created_at      INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL,
    finished_at     INTEGER
);
CREATE INDEX chat_llm_tools_by_session ON chat_llm_tools (session_id, created_at);
CREATE INDEX chat_llm_tools_by_status ON chat_llm_tools (status);
CREATE INDEX chat_llm_tools_by_message ON chat_llm_tools (message_id);

-- Every tool ever offered to a model, so any of them can be gated by a rule.
CREATE TABLE known_tools (
    name        TEXT PRIMARY KEY NOT NULL,
    description TEXT,
    source      TEXT NOT NULL,
    first_seen  INTEGER NOT NULL,
    last_seen   INTEGER NOT NULL
);

-- MCP server (and reserved "config") grants ----------------------------------

CREATE TABLE session_mcp_grants (
    session_id TEXT NOT NULL REFERENCES chat_sessions (id) ON DELETE CASCADE,
    name       TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (session_id, name)
) WITHOUT ROWID;

CREATE TABLE stack_mcp_grants (
    stack_id   INTEGER NOT NULL REFERENCES session_stack (id) ON DELETE CASCADE,
    name       TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (stack_id, name)
) WITHOUT ROWID;

CREATE TABLE session_scratchpad (
    session_id TEXT PRIMARY KEY NOT NULL REFERENCES chat_sessions (id) ON DELETE CASCADE,
    content    TEXT NOT NULL,
    updated_at INTEGER NOT NULL
);

-- Scheduled jobs -------------------------------------------------------------

CREATE TABLE scheduled_jobs (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    name        TEXT NOT NULL DEFAULT '',
    cron_expr   TEXT NOT NULL,
    prompt      TEXT NOT NULL,
    agent_id    TEXT NOT NULL,
    enabled     INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
    run_context TEXT CHECK (run_context IS NULL OR json_valid(run_context)),
    next_run_at INTEGER,
    last_run_at INTEGER,
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL
);
CREATE INDEX scheduled_jobs_due ON scheduled_jobs (enabled, next_run_at);

CREATE TABLE job_runs (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    job_id      INTEGER NOT NULL REFERENCES scheduled_jobs (id) ON DELETE CASCADE,
    session_id  TEXT REFERENCES chat_sessions (id) ON DELETE SET NULL,
    status      TEXT NOT NULL CHECK (status IN ('running', 'done', 'failed', 'cancelled')),
    started_at  INTEGER NOT NULL,
    finished_at INTEGER,
    error       TEXT
);
CREATE INDEX job_runs_by_job ON job_runs (job_id, started_at DESC);

-- Secrets, settings, providers and models ------------------------------------

CREATE TABLE secrets (
    name       TEXT PRIMARY KEY NOT NULL,
    value      TEXT NOT NULL,
    updated_at INTEGER NOT NULL
);

CREATE TABLE settings (
    key        TEXT PRIMARY KEY NOT NULL,
    value      TEXT NOT NULL CHECK (json_valid(value)),
    updated_at INTEGER NOT NULL
);

CREATE TABLE providers (
    id             TEXT PRIMARY KEY NOT NULL,
    kind           TEXT NOT NULL CHECK (kind IN ('openai', 'anthropic', 'ollama')),
    name           TEXT NOT NULL,
    base_url       TEXT,
    api_key_secret TEXT,          -- name of a row in `secrets`, never the key itself
    enabled        INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
    created_at     INTEGER NOT NULL,
    updated_at     INTEGER NOT NULL
);

CREATE TABLE models (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    provider_id    TEXT NOT NULL REFERENCES providers (id) ON DELETE CASCADE ON UPDATE CASCADE,
    name           TEXT NOT NULL,
    context_window INTEGER CHECK (context_window IS NULL OR context_window > 0),
    is_default     INTEGER NOT NULL DEFAULT 0 CHECK (is_default IN (0, 1)),
    UNIQUE (provider_id, name)
);
-- at most one default model
CREATE UNIQUE INDEX models_one_default ON models (is_default) WHERE is_default = 1;
