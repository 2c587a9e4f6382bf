-- Skald schema: rich tool results.
--
-- A call's result may carry content blocks besides its text (an image, a
-- link to a file, structured JSON). They are kept as a JSON array next to
-- the text so history, cards and later requests see them; rows written
-- before this column read as having none (NULL).

ALTER TABLE chat_llm_tools ADD COLUMN blocks TEXT;
