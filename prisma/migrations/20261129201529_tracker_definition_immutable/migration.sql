-- A locked TrackerDefinition is immutable (DESIGN.md §3): every edit after a lock is a new version.
-- The application never updates a locked row; this trigger makes that a database guarantee too.
--  * UPDATE of a row whose OLD."lockedAt" IS NOT NULL raises (this also forbids unlocking).
--    Locking itself (lockedAt NULL → timestamp) is allowed.
--  * DELETE of a locked row raises, unless it is a cascade from deleting its tracker (or user):
--    a cascade runs inside the foreign key's own trigger, so pg_trigger_depth() is > 1 there,
--    while a direct DELETE statement fires this trigger at depth 1.
-- Plain PL/pgSQL, EXECUTE FUNCTION: PostgreSQL 11+ (tested on 15+ and on PGlite).

CREATE FUNCTION "TrackerDefinition_forbid_locked_change"() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF OLD."lockedAt" IS NOT NULL THEN
    IF TG_OP = 'DELETE' AND pg_trigger_depth() > 1 THEN
      RETURN OLD;
    END IF;
    RAISE EXCEPTION 'TrackerDefinition % (tracker %, version %) is locked and cannot be changed; save a new version instead',
      OLD."id", OLD."trackerId", OLD."version"
      USING ERRCODE = 'restrict_violation';
  END IF;
  IF TG_OP = 'DELETE' THEN
    RETURN OLD;
  END IF;
  RETURN NEW;
END;
$$;

CREATE TRIGGER "TrackerDefinition_locked_immutable"
BEFORE UPDATE OR DELETE ON "TrackerDefinition"
FOR EACH ROW EXECUTE FUNCTION "TrackerDefinition_forbid_locked_change"();
