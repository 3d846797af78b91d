-- The event store on PostgreSQL, version 1: streams, their batches and events, the global log,
-- the tag index, secrets and records. Applied once, in one transaction, by the store itself.
-- Every name is compared byte by byte (COLLATE "C"), as on sled, so that listings come in the
-- same order whatever the database's locale.

-- What identifies this store (event ids carry it), and anything else the store keeps about itself.
CREATE TABLE store_meta (
    key   text COLLATE "C" PRIMARY KEY,
    value text NOT NULL
);

-- The global log's head: the last position handed out. One row; an append locks it as the last
-- thing before it commits, so positions are handed out, and become visible, in commit order
-- (see postgres/mod.rs, "A global order no reader can skip").
CREATE TABLE log_head (
    only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
    position bigint NOT NULL
);
INSERT INTO log_head (only_row, position) VALUES (true, 0);

-- One row per stream: its head (version of its last event) and its tags as last set.
CREATE TABLE streams (
    name       text COLLATE "C" PRIMARY KEY,
    head       bigint NOT NULL,
    tag_names  text[] NOT NULL DEFAULT '{}',
    tag_values text[] NOT NULL DEFAULT '{}'
);

-- One row per appended batch (a command's events), with what caused it.
CREATE TABLE batches (
    stream         text COLLATE "C" NOT NULL REFERENCES streams (name),
    first_version  bigint NOT NULL,
    last_version   bigint NOT NULL,
    last_position  bigint NOT NULL,
    command_id     text COLLATE "C",
    actor          text NOT NULL,
    command        json,
    -- Nanoseconds since the epoch: timestamptz keeps microseconds only.
    recorded_at_ns bigint NOT NULL,
    PRIMARY KEY (stream, first_version)
);
-- The idempotency key: one batch per command id in a stream.
CREATE UNIQUE INDEX batches_command_id ON batches (stream, command_id) WHERE command_id IS NOT NULL;

-- One row per event, by global position; (stream, version) is unique and gapless per stream.
-- Payloads are `json`, kept as the exact text written.
CREATE TABLE events (
    position            bigint PRIMARY KEY,
    stream              text COLLATE "C" NOT NULL,
    version             bigint NOT NULL,
    batch_first_version bigint NOT NULL,
    event_type          text NOT NULL,
    schema_version      integer NOT NULL,
    payload             json NOT NULL,
    UNIQUE (stream, version),
    FOREIGN KEY (stream, batch_first_version) REFERENCES batches (stream, first_version)
);

-- The tag index: which streams carry tag name = value.
CREATE TABLE stream_tags (
    name   text COLLATE "C" NOT NULL,
    value  text COLLATE "C" NOT NULL,
    stream text COLLATE "C" NOT NULL REFERENCES streams (name),
    PRIMARY KEY (name, value, stream)
);
CREATE INDEX stream_tags_by_stream ON stream_tags (stream);

CREATE TABLE secrets (
    stream text COLLATE "C" NOT NULL REFERENCES streams (name),
    name   text COLLATE "C" NOT NULL,
    value  bytea NOT NULL,
    PRIMARY KEY (stream, name)
);

CREATE TABLE records (
    tree  text COLLATE "C" NOT NULL,
    key   text COLLATE "C" NOT NULL,
    value bytea NOT NULL,
    PRIMARY KEY (tree, key)
);

-- Appends one batch, whole or not at all, in one statement (one round trip, one transaction).
-- Answers `outcome` = 'appended', 'duplicate' (the command id is already in the stream: the
-- versions and position are the first batch's) or 'conflict' (`last_version` is the head).
CREATE FUNCTION avalanche_append(
    p_stream          text,
    p_expected        bigint,
    p_actor           text,
    p_command_id      text,
    p_command         json,
    p_recorded_at_ns  bigint,
    p_types           text[],
    p_schema_versions integer[],
    p_payloads        json[],
    p_set_tags        boolean,
    p_tag_names       text[],
    p_tag_values      text[],
    p_secret_names    text[],
    p_secret_values   bytea[],
    OUT outcome       text,
    OUT first_version bigint,
    OUT last_version  bigint,
    OUT last_position bigint
) LANGUAGE plpgsql AS $$
DECLARE
    v_head  bigint;
    v_count bigint := cardinality(p_types);
BEGIN
    -- The stream's row lock orders the appends to one stream; each statement below reads
    -- what is committed once it holds it (READ COMMITTED takes a snapshot per statement).
    SELECT s.head INTO v_head FROM streams s WHERE s.name = p_stream FOR UPDATE;
    IF NOT FOUND THEN
        IF p_expected <> 0 THEN
            outcome := 'conflict';
            last_version := 0;
            RETURN;
        END IF;
        INSERT INTO streams (name, head) VALUES (p_stream, 0) ON CONFLICT (name) DO NOTHING;
        -- Either our row, or the row of a creator that committed while we waited.
        SELECT s.head INTO v_head FROM streams s WHERE s.name = p_stream FOR UPDATE;
    END IF;

    IF p_command_id IS NOT NULL THEN
        SELECT b.first_version, b.last_version, b.last_position
            INTO first_version, last_version, last_position
            FROM batches b WHERE b.stream = p_stream AND b.command_id = p_command_id;
        IF FOUND THEN
            outcome := 'duplicate';
            RETURN;
        END IF;
    END IF;

    IF v_head <> p_expected THEN
        outcome := 'conflict';
        first_version := NULL;
        last_version := v_head;
        RETURN;
    END IF;

    first_version := v_head + 1;
    last_version := v_head + v_count;
    UPDATE streams SET head = last_version WHERE name = p_stream;
    IF p_set_tags THEN
        UPDATE streams SET tag_names = p_tag_names, tag_values = p_tag_values WHERE name = p_stream;
        DELETE FROM stream_tags WHERE stream = p_stream;
        INSERT INTO stream_tags (name, value, stream)
            SELECT t.name, t.value, p_stream FROM unnest(p_tag_names, p_tag_values) AS t(name, value)
            ON CONFLICT DO NOTHING;
    END IF;
    INSERT INTO secrets (stream, name, value)
        SELECT p_stream, s.name, s.value FROM unnest(p_secret_names, p_secret_values) AS s(name, value)
        ON CONFLICT (stream, name) DO UPDATE SET value = excluded.value;

    -- Last of all, the global position: the lock on the log's head is held from here to the
    -- commit, so the next append anywhere takes its positions only once these are visible.
    UPDATE log_head SET position = position + v_count RETURNING position INTO last_position;
    INSERT INTO batches (stream, first_version, last_version, last_position, command_id, actor,
                         command, recorded_at_ns)
        VALUES (p_stream, first_version, last_version, last_position, p_command_id, p_actor,
                p_command, p_recorded_at_ns);
    INSERT INTO events (position, stream, version, batch_first_version, event_type,
                        schema_version, payload)
        SELECT last_position - v_count + e.ordinal, p_stream, v_head + e.ordinal, first_version,
               e.event_type, e.schema_version, e.payload
        FROM unnest(p_types, p_schema_versions, p_payloads)
            WITH ORDINALITY AS e(event_type, schema_version, payload, ordinal);
    -- Other nodes wake their waiting readers on this (delivered at commit, in commit order).
    PERFORM pg_notify('avalanche_appends',
                      last_version::text || ' ' || last_position::text || ' ' || p_stream);
    outcome := 'appended';
END;
$$;
