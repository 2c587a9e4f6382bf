-- Skald schema: MCP servers.
--
-- One row per configured server. `spec` is the transport as the mcp crate
-- reads it ({"transport":"stdio","command":…} or {"transport":"http","url":…});
-- the store keeps it opaque. `${NAME}` placeholders in env and headers stay
-- as written: secrets are filled in at connect time, never stored here.

CREATE TABLE mcp_servers (
    name        TEXT PRIMARY KEY NOT NULL
                CHECK (length(name) BETWEEN 1 AND 64 AND name NOT LIKE '%\_\_%' ESCAPE '\'),
    spec        TEXT NOT NULL CHECK (json_valid(spec)),
    enabled     INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
    timeout_ms  INTEGER NOT NULL DEFAULT 60000 CHECK (timeout_ms > 0),
    description TEXT NOT NULL DEFAULT '',
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL
) WITHOUT ROWID;
