-- Skald schema: background tasks (execute_task async) and cron jobs.
--
-- `scheduled_jobs` holds both: a cron job (`kind` cron) is due again and
-- again by its expression, evaluated in `time_zone`; an async task (`kind`
-- async) is a job run once, at once, whose ending is delivered to the
-- conversation and call that started it (`parent_session_id`,
-- `parent_call_id`). Cron results go to the Home conversation.
ALTER TABLE scheduled_jobs ADD COLUMN kind TEXT NOT NULL DEFAULT 'cron'
    CHECK (kind IN ('cron', 'async'));
ALTER TABLE scheduled_jobs ADD COLUMN description TEXT;
ALTER TABLE scheduled_jobs ADD COLUMN time_zone TEXT;
ALTER TABLE scheduled_jobs ADD COLUMN parent_session_id TEXT
    REFERENCES chat_sessions (id) ON DELETE SET NULL;
ALTER TABLE scheduled_jobs ADD COLUMN parent_call_id TEXT;
ALTER TABLE scheduled_jobs ADD COLUMN working_dir TEXT;

-- Runs gain `interrupted` (a crash ended it; reported, never re-run), the
-- run's last output, a stop request any process can make (the runner polls
-- it), when the ending was delivered, and what started it. SQLite cannot
-- change a CHECK in place, so the table is rebuilt; nothing references it.
CREATE TABLE job_runs_v8 (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    job_id         INTEGER NOT NULL REFERENCES scheduled_jobs (id) ON DELETE CASCADE,
    session_id     TEXT REFERENCES chat_sessions (id) ON DELETE SET NULL,
    status         TEXT NOT NULL
                   CHECK (status IN ('running', 'done', 'failed', 'cancelled', 'interrupted')),
    started_at     INTEGER NOT NULL,
    finished_at    INTEGER,
    error          TEXT,
    output         TEXT,
    stop_requested INTEGER NOT NULL DEFAULT 0 CHECK (stop_requested IN (0, 1)),
    delivered_at   INTEGER,
    trigger        TEXT NOT NULL DEFAULT 'schedule'
                   CHECK (trigger IN ('schedule', 'missed', 'manual', 'async'))
);
INSERT INTO job_runs_v8 (id, job_id, session_id, status, started_at, finished_at, error)
SELECT id, job_id, session_id, status, started_at, finished_at, error FROM job_runs;
DROP TABLE job_runs;
ALTER TABLE job_runs_v8 RENAME TO job_runs;
CREATE INDEX job_runs_by_job ON job_runs (job_id, started_at DESC);
CREATE INDEX job_runs_open ON job_runs (status) WHERE status = 'running';
-- One running run per job: a second tick (or `cron run`) cannot start a
-- job that is still running.
CREATE UNIQUE INDEX job_runs_one_running ON job_runs (job_id) WHERE status = 'running';
