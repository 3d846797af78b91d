-- Version 4: the foreign keys from events to batches and from batches to streams go. Each
-- inserted row checked its key with a query of its own at the end of the statement, a fifth
-- of what a group append of eight batches cost PostgreSQL (BENCHMARKS.md), and they check
-- nothing the writers do not already hold: `avalanche_append_group` (and the single append
-- of version 1) writes a batch's stream row, its batch row and its events together in one
-- transaction, with the stream's row locked, and nothing deletes from these tables. The keys
-- of `stream_tags` and `secrets`, written for a few batches only, stay. The keys are found by
-- what they join rather than by name, so that one renamed (or already dropped) by hand
-- neither stays nor stops the migration.

DO $$
DECLARE
    v_key record;
BEGIN
    FOR v_key IN
        SELECT c.conrelid::regclass AS on_table, c.conname AS name
        FROM pg_constraint c
        WHERE c.contype = 'f'
          AND ((c.conrelid = 'events'::regclass AND c.confrelid = 'batches'::regclass)
               OR (c.conrelid = 'batches'::regclass AND c.confrelid = 'streams'::regclass))
    LOOP
        EXECUTE format('ALTER TABLE %s DROP CONSTRAINT %I', v_key.on_table, v_key.name);
    END LOOP;
END;
$$;
