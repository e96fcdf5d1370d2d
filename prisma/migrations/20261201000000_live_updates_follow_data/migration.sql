-- Live updates follow the data: a change signal (pg_notify on envace_events) fires only when something a
-- view shows has changed. Before, every UPDATE of "run" signalled, including the worker's heartbeat once
-- a second, so every open run page, runs table and chart refetched while nothing had changed.
-- The migration runner splits at every semicolon, comments included: function bodies spell theirs \073 (docs/ARCHITECTURE.md).

-- run: a new run, or an update of anything but the bookkeeping columns (heartbeat, updatedAt, the holding worker).
DROP TRIGGER IF EXISTS run_notify ON "run";

CREATE TRIGGER run_notify_insert AFTER INSERT ON "run"
  FOR EACH ROW EXECUTE FUNCTION envace_notify_run();

CREATE TRIGGER run_notify AFTER UPDATE ON "run"
  FOR EACH ROW
  WHEN ((to_jsonb(OLD) - 'heartbeatAt' - 'updatedAt' - 'workerId') IS DISTINCT FROM (to_jsonb(NEW) - 'heartbeatAt' - 'updatedAt' - 'workerId'))
  EXECUTE FUNCTION envace_notify_run();

-- step: a committed training or evaluation step (charts, trajectories).
CREATE OR REPLACE FUNCTION envace_notify_step() RETURNS trigger LANGUAGE plpgsql AS E'BEGIN PERFORM pg_notify(''envace_events'', json_build_object(''t'', ''step'', ''id'', NEW."runId")::text)\073 RETURN NULL\073 END\073';

CREATE TRIGGER step_notify AFTER INSERT ON "step"
  FOR EACH ROW EXECUTE FUNCTION envace_notify_step();

-- checkpoint: a saved checkpoint.
CREATE OR REPLACE FUNCTION envace_notify_checkpoint() RETURNS trigger LANGUAGE plpgsql AS E'BEGIN PERFORM pg_notify(''envace_events'', json_build_object(''t'', ''checkpoint'', ''id'', NEW."runId")::text)\073 RETURN NULL\073 END\073';

CREATE TRIGGER checkpoint_notify AFTER INSERT ON "checkpoint"
  FOR EACH ROW EXECUTE FUNCTION envace_notify_checkpoint();

-- node: added, removed, or changed in anything but updatedAt (an unchanged probe result signals nothing).
DROP TRIGGER IF EXISTS node_notify ON "node";

CREATE TRIGGER node_notify_insert AFTER INSERT ON "node"
  FOR EACH ROW EXECUTE FUNCTION envace_notify_node();

CREATE TRIGGER node_notify AFTER UPDATE ON "node"
  FOR EACH ROW
  WHEN ((to_jsonb(OLD) - 'updatedAt') IS DISTINCT FROM (to_jsonb(NEW) - 'updatedAt'))
  EXECUTE FUNCTION envace_notify_node();

CREATE OR REPLACE FUNCTION envace_notify_node_deleted() RETURNS trigger LANGUAGE plpgsql AS E'BEGIN PERFORM pg_notify(''envace_events'', json_build_object(''t'', ''node'', ''id'', OLD.id)::text)\073 RETURN NULL\073 END\073';

CREATE TRIGGER node_notify_delete AFTER DELETE ON "node"
  FOR EACH ROW EXECUTE FUNCTION envace_notify_node_deleted();
