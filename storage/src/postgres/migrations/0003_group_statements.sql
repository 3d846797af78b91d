-- Version 3: a group's batches and events written with one statement each, not two a batch,
-- and one notice for the group's appends (in parts under PostgreSQL's 8000 bytes), not one a
-- batch: every node's listener is woken and handed every notice, so on three nodes each
-- batch cost three deliveries (see postgres/mod.rs and postgres/listener.rs). The checks,
-- the locks and their order, the positions and the answers are those of version 2. A notice
-- is "v3" and a line a batch, each "<head> <position> <characters of the name> <name>", every
-- line ended by "\n"; the function of version 1 still sends its single
-- "<head> <position> <name>", which listeners read too.

CREATE OR REPLACE FUNCTION avalanche_append_group(
    p_streams         text[],
    p_expected        bigint[],
    p_actors          text[],
    p_command_ids     text[],
    p_commands        json[],
    p_recorded_at_ns  bigint[],
    p_set_tags        boolean[],
    p_event_from      integer[],
    p_event_count     integer[],
    p_types           text[],
    p_schema_versions integer[],
    p_payloads        json[],
    p_tag_from        integer[],
    p_tag_count       integer[],
    p_tag_names       text[],
    p_tag_values      text[],
    p_secret_from     integer[],
    p_secret_count    integer[],
    p_secret_names    text[],
    p_secret_values   bytea[],
    OUT outcomes       text[],
    OUT first_versions bigint[],
    OUT last_versions  bigint[],
    OUT last_positions bigint[]
) LANGUAGE plpgsql AS $$
DECLARE
    v_n       integer := coalesce(cardinality(p_streams), 0);
    v_head    bigint;
    v_total   bigint := 0;
    v_end     bigint;
    v_next    bigint;
    v_first   bigint;
    v_last    bigint;
    v_position bigint;
    v_appended integer := 0;
    v_from    integer;
    v_to      integer;
    -- For a batch that repeats a command id of an earlier batch of this group: that batch.
    v_dup_of  integer[] := '{}';
    -- The batches appended, in order.
    v_appended_at integer[] := '{}';
    -- The notice of the group's appends, one line a batch (sent in parts under 8000 bytes).
    v_notice  text := E'v3\n';
    v_line    text;
    i         integer;
    j         integer;
BEGIN
    outcomes := '{}';
    first_versions := '{}';
    last_versions := '{}';
    last_positions := '{}';
    -- The rows of the group's existing streams, locked in one order (the names'), so that two
    -- groups of two nodes touching the same streams wait for each other instead of deadlocking.
    PERFORM 1 FROM streams s WHERE s.name = ANY (p_streams) ORDER BY s.name FOR UPDATE;

    -- First pass: every check, and every write that needs no global position.
    FOR i IN 1 .. v_n LOOP
        v_dup_of[i] := NULL;
        SELECT s.head INTO v_head FROM streams s WHERE s.name = p_streams[i] FOR UPDATE;
        IF NOT FOUND THEN
            IF p_expected[i] <> 0 THEN
                outcomes[i] := 'conflict';
                last_versions[i] := 0;
                CONTINUE;
            END IF;
            INSERT INTO streams (name, head) VALUES (p_streams[i], 0) ON CONFLICT (name) DO NOTHING;
            -- Either our row, or the row of a creator that committed while we waited.
            SELECT s.head INTO v_head FROM streams s WHERE s.name = p_streams[i] FOR UPDATE;
        END IF;

        IF p_command_ids[i] IS NOT NULL THEN
            FOR j IN 1 .. i - 1 LOOP
                IF outcomes[j] = 'appended' AND p_streams[j] = p_streams[i]
                   AND p_command_ids[j] = p_command_ids[i] THEN
                    v_dup_of[i] := j;
                    EXIT;
                END IF;
            END LOOP;
            IF v_dup_of[i] IS NOT NULL THEN
                outcomes[i] := 'duplicate';
                first_versions[i] := first_versions[v_dup_of[i]];
                last_versions[i] := last_versions[v_dup_of[i]];
                CONTINUE;
            END IF;
            SELECT b.first_version, b.last_version, b.last_position
                INTO v_first, v_last, v_position
                FROM batches b WHERE b.stream = p_streams[i] AND b.command_id = p_command_ids[i];
            IF FOUND THEN
                outcomes[i] := 'duplicate';
                first_versions[i] := v_first;
                last_versions[i] := v_last;
                last_positions[i] := v_position;
                CONTINUE;
            END IF;
        END IF;

        IF v_head <> p_expected[i] THEN
            outcomes[i] := 'conflict';
            first_versions[i] := NULL;
            last_versions[i] := v_head;
            last_positions[i] := NULL;
            CONTINUE;
        END IF;

        outcomes[i] := 'appended';
        v_appended := v_appended + 1;
        first_versions[i] := v_head + 1;
        last_versions[i] := v_head + p_event_count[i];
        v_total := v_total + p_event_count[i];
        IF p_set_tags[i] THEN
            v_from := p_tag_from[i];
            v_to := p_tag_from[i] + p_tag_count[i] - 1;
            UPDATE streams SET head = last_versions[i],
                               tag_names = coalesce(p_tag_names[v_from:v_to], '{}'),
                               tag_values = coalesce(p_tag_values[v_from:v_to], '{}')
                WHERE name = p_streams[i];
            DELETE FROM stream_tags WHERE stream = p_streams[i];
            INSERT INTO stream_tags (name, value, stream)
                SELECT t.name, t.value, p_streams[i]
                FROM unnest(p_tag_names[v_from:v_to], p_tag_values[v_from:v_to]) AS t(name, value)
                ON CONFLICT DO NOTHING;
        ELSE
            UPDATE streams SET head = last_versions[i] WHERE name = p_streams[i];
        END IF;
        IF p_secret_count[i] > 0 THEN
            v_from := p_secret_from[i];
            v_to := p_secret_from[i] + p_secret_count[i] - 1;
            INSERT INTO secrets (stream, name, value)
                SELECT p_streams[i], s.name, s.value
                FROM unnest(p_secret_names[v_from:v_to], p_secret_values[v_from:v_to]) AS s(name, value)
                ON CONFLICT (stream, name) DO UPDATE SET value = excluded.value;
        END IF;
    END LOOP;

    IF v_appended = 0 THEN
        RETURN;
    END IF;
    -- Second pass, the global positions: the lock on the log's head is taken here, once for the
    -- group, and held to the commit, so the next group anywhere takes its positions only once
    -- these are visible. No stream row is locked after it (no deadlock with a group waiting for
    -- one of ours while holding the head).
    UPDATE log_head SET position = position + v_total RETURNING position INTO v_end;
    v_next := v_end - v_total;
    FOR i IN 1 .. v_n LOOP
        IF outcomes[i] <> 'appended' THEN
            CONTINUE;
        END IF;
        v_appended_at := v_appended_at || i;
        v_next := v_next + p_event_count[i];
        last_positions[i] := v_next;
        -- "<head> <position> <characters of the name> <name>": a name may hold any character.
        v_line := last_versions[i]::text || ' ' || last_positions[i]::text || ' '
                  || length(p_streams[i])::text || ' ' || p_streams[i] || E'\n';
        IF octet_length(v_notice) + octet_length(v_line) > 7900 THEN
            PERFORM pg_notify('avalanche_appends', v_notice);
            v_notice := E'v3\n';
        END IF;
        v_notice := v_notice || v_line;
    END LOOP;
    -- The group's batches and events, each in one statement.
    INSERT INTO batches (stream, first_version, last_version, last_position, command_id,
                         actor, command, recorded_at_ns)
        SELECT p_streams[a.i], first_versions[a.i], last_versions[a.i], last_positions[a.i],
               p_command_ids[a.i], p_actors[a.i], p_commands[a.i], p_recorded_at_ns[a.i]
        FROM unnest(v_appended_at) AS a(i);
    INSERT INTO events (position, stream, version, batch_first_version, event_type,
                        schema_version, payload)
        SELECT last_positions[a.i] - p_event_count[a.i] + k, p_streams[a.i],
               first_versions[a.i] - 1 + k, first_versions[a.i],
               p_types[p_event_from[a.i] + k - 1], p_schema_versions[p_event_from[a.i] + k - 1],
               p_payloads[p_event_from[a.i] + k - 1]
        FROM unnest(v_appended_at) AS a(i), generate_series(1, p_event_count[a.i]) AS k;
    -- Other nodes wake their waiting readers on this (delivered at commit, in commit order).
    PERFORM pg_notify('avalanche_appends', v_notice);
    FOR i IN 1 .. v_n LOOP
        IF v_dup_of[i] IS NOT NULL THEN
            last_positions[i] := last_positions[v_dup_of[i]];
        END IF;
    END LOOP;
END;
$$;
