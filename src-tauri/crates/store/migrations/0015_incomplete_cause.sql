-- Skald schema: why an answer is incomplete.
--
-- An answer cut before it finished was told apart by its `error`: none when the person
-- stopped it, the connection's error when the stream broke. Retry, regenerate and edit
-- clear every error of the session, so an older cut answer then read as stopped. The cause
-- is now its own column, written once when the answer is kept and never cleared:
-- 'stopped' (the person's Stop) or 'cut' (the connection, with its error in
-- `incomplete_detail`). Rows kept before this read their cause from the error they still
-- have (a cleared one reads as stopped, as it did).

ALTER TABLE chat_history ADD COLUMN incomplete_cause TEXT
    CHECK (incomplete_cause IS NULL OR incomplete_cause IN ('stopped', 'cut'));
ALTER TABLE chat_history ADD COLUMN incomplete_detail TEXT;

UPDATE chat_history
   SET incomplete_cause = CASE WHEN error IS NULL THEN 'stopped' ELSE 'cut' END,
       incomplete_detail = error
 WHERE incomplete = 1;
