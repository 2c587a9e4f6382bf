-- Skald schema, version 2.
--
-- Concurrent first starts of older builds could seed the built-in rules more
-- than once; deleting a seeded rule then left an identical copy in force.
-- Keep the oldest of every set of identical seeded rules (same group,
-- filters, patterns, action, priority and note). Rules a person wrote are
-- never touched: only rows whose note marks them as seeded.

DELETE FROM approval_rules
WHERE note LIKE 'Seeded:%'
  AND EXISTS (
      SELECT 1 FROM approval_rules AS older
      WHERE older.id < approval_rules.id
        AND older.group_name = approval_rules.group_name
        AND older.agent_id IS approval_rules.agent_id
        AND older.source IS approval_rules.source
        AND older.tool_pattern = approval_rules.tool_pattern
        AND older.path_pattern IS approval_rules.path_pattern
        AND older.action = approval_rules.action
        AND older.priority = approval_rules.priority
        AND older.note IS approval_rules.note
  );
