-- Skald schema, version 3.
--
-- An assistant message keeps the reasoning that came with it (the provider-shaped parts as
-- JSON, so the next request can send back what the provider requires) and the usage of the
-- request that produced it (token counts; cost when the provider reports one). Older rows
-- and other roles leave them NULL.

ALTER TABLE chat_history ADD COLUMN reasoning TEXT
    CHECK (reasoning IS NULL OR json_valid(reasoning));
ALTER TABLE chat_history ADD COLUMN input_tokens INTEGER;
ALTER TABLE chat_history ADD COLUMN output_tokens INTEGER;
ALTER TABLE chat_history ADD COLUMN cache_read_tokens INTEGER;
ALTER TABLE chat_history ADD COLUMN cache_write_tokens INTEGER;
ALTER TABLE chat_history ADD COLUMN reasoning_tokens INTEGER;
ALTER TABLE chat_history ADD COLUMN cost_usd REAL;
