-- Skald schema, version 3.
--
-- An assistant message keeps the reasoning that came with it (the provider-shaped parts as
-- JSON, so the next request can send back what the provider requires) and the usage of the
-- request that produced it (token counts; cost when the provider reports one). Older rows
-- and other roles leave them NULL.
--
-- A model gets its reasoning setting: how much it should think where the API lets a client
-- say (Anthropic's thinking budget, OpenAI-style reasoning effort); NULL is the provider's
-- default.

ALTER TABLE chat_history ADD COLUMN reasoning TEXT
    CHECK (reasoning IS NULL OR json_valid(reasoning));
ALTER TABLE chat_history ADD COLUMN input_tokens INTEGER;
ALTER TABLE chat_history ADD COLUMN output_tokens INTEGER;
ALTER TABLE chat_history ADD COLUMN cache_read_tokens INTEGER;
ALTER TABLE chat_history ADD COLUMN cache_write_tokens INTEGER;
ALTER TABLE chat_history ADD COLUMN reasoning_tokens INTEGER;
ALTER TABLE chat_history ADD COLUMN cost_usd REAL;

ALTER TABLE models ADD COLUMN reasoning TEXT
    CHECK (reasoning IS NULL OR reasoning IN ('off', 'low', 'medium', 'high'));
