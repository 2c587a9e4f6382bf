-- Skald schema: sub-agent frames know the call that started them.
--
-- A sync `execute_task` call runs its sub-agent in a child frame of the
-- caller's frame. After a crash the caller's call row is still `running`;
-- resume finds the child frame by this column and continues it from its
-- persisted history instead of starting the sub-agent again.

ALTER TABLE session_stack ADD COLUMN parent_call_id TEXT;
CREATE UNIQUE INDEX session_stack_by_parent_call ON session_stack (parent_call_id)
    WHERE parent_call_id IS NOT NULL;
