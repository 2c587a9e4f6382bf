-- Skald schema: a finished write keeps its diff whatever allowed it.
--
-- Every write that runs stores its before/after previews (before, only
-- writes a person was asked about did). A large file's are cut down to the
-- changed lines; this says so on the card. NULL: the previews are whole.

ALTER TABLE chat_llm_tools ADD COLUMN preview_note TEXT;
