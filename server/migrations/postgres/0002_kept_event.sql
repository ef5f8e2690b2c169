-- Every line of a scheduler's own log Sundial has read (crate::history): the engine's LogEvent
-- as JSON, keyed by its instant (microseconds) and the SHA-256 of the JSON.
CREATE TABLE kept_event (instance TEXT NOT NULL, at_us BIGINT NOT NULL, digest TEXT NOT NULL,
    event TEXT NOT NULL, PRIMARY KEY (instance, at_us, digest));
