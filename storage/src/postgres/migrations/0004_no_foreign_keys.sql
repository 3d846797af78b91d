-- Version 4: the foreign keys from events to batches and from batches to streams go. Each
-- inserted row checked its key with a query of its own at the end of the statement, a sixth
-- of what a group append cost PostgreSQL (BENCHMARKS.md), and they check nothing the writers
-- do not already hold: `avalanche_append_group` (and the single append of version 1) writes a
-- batch's stream row, its batch row and its events together in one transaction, with the
-- stream's row locked, and nothing deletes from these tables. The keys of `stream_tags` and
-- `secrets`, written for a few batches only, stay.

ALTER TABLE events DROP CONSTRAINT events_stream_batch_first_version_fkey;
ALTER TABLE batches DROP CONSTRAINT batches_stream_fkey;
