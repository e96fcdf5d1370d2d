-- Auth change signals: pg_notify on envace_auth whenever something a web process may have remembered about
-- a caller stops being true (server/lib/caller-cache.ts): a session ends or is shortened, a user's role,
-- name or email changes or the user is deleted, an API token is revoked or deleted. Every web process
-- forgets its remembered callers on such a signal, so a change made anywhere (another web process, the
-- CLI, SQL) takes effect at once. The payload names the table and carries no data.
-- The migration runner splits at every semicolon, comments included: function bodies spell theirs \073 (docs/ARCHITECTURE.md).

CREATE OR REPLACE FUNCTION envace_notify_auth() RETURNS trigger LANGUAGE plpgsql AS E'BEGIN PERFORM pg_notify(''envace_auth'', TG_TABLE_NAME)\073 RETURN NULL\073 END\073';

CREATE TRIGGER session_auth_notify_delete AFTER DELETE ON "session"
  FOR EACH STATEMENT EXECUTE FUNCTION envace_notify_auth();

-- Extending a session (better-auth refreshes expiresAt) changes nothing a remembered caller relies on.
CREATE TRIGGER session_auth_notify AFTER UPDATE ON "session"
  FOR EACH ROW
  WHEN (NEW."expiresAt" < OLD."expiresAt" OR NEW."userId" IS DISTINCT FROM OLD."userId" OR NEW."token" IS DISTINCT FROM OLD."token")
  EXECUTE FUNCTION envace_notify_auth();

CREATE TRIGGER user_auth_notify_delete AFTER DELETE ON "user"
  FOR EACH STATEMENT EXECUTE FUNCTION envace_notify_auth();

CREATE TRIGGER user_auth_notify AFTER UPDATE ON "user"
  FOR EACH ROW
  WHEN (NEW."role" IS DISTINCT FROM OLD."role" OR NEW."name" IS DISTINCT FROM OLD."name" OR NEW."email" IS DISTINCT FROM OLD."email")
  EXECUTE FUNCTION envace_notify_auth();

CREATE TRIGGER api_token_auth_notify_delete AFTER DELETE ON "api_token"
  FOR EACH STATEMENT EXECUTE FUNCTION envace_notify_auth();

-- lastUsedAt (written once per remembered period) signals nothing.
CREATE TRIGGER api_token_auth_notify AFTER UPDATE ON "api_token"
  FOR EACH ROW
  WHEN (NEW."revokedAt" IS DISTINCT FROM OLD."revokedAt" OR NEW."userId" IS DISTINCT FROM OLD."userId" OR NEW."tokenHash" IS DISTINCT FROM OLD."tokenHash")
  EXECUTE FUNCTION envace_notify_auth();
