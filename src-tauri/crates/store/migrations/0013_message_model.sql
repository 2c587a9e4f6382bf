-- Skald schema: which model answered, and a chat's own model.
--
-- An assistant message keeps the provider and the model that wrote it, so the chat can name
-- the model on each answer (and a chat switched from one model to another shows which said
-- what). Older rows and other roles leave them NULL.
--
-- A chat may pick its own model (the chat header's switcher): every later turn of that chat
-- asks it, other chats keep the default. `model_provider` is the provider's id (or `env:KIND`
-- for an endpoint set up through environment variables); NULL `model` means the default.

ALTER TABLE chat_history ADD COLUMN model TEXT;
ALTER TABLE chat_history ADD COLUMN model_provider TEXT;

ALTER TABLE chat_sessions ADD COLUMN model TEXT;
ALTER TABLE chat_sessions ADD COLUMN model_provider TEXT;
