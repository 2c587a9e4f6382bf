-- An MCP server's elicitation is a question too (chat card, Inbox, `skald
-- answer`), with the JSON schema of the form the person fills and the
-- server that asked. NULL for an agent's ask_user_clarification.
ALTER TABLE clarifications ADD COLUMN schema TEXT CHECK (schema IS NULL OR json_valid(schema));
ALTER TABLE clarifications ADD COLUMN server TEXT;
