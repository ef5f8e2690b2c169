-- Where an incremental source's history was read up to (crate::history, sources::Mark as JSON:
-- pg_cron's runid high-water mark, the lowest runid seen, the runids read unfinished), written
-- in the same transaction as the runs read up to it, so a restart continues from it.
CREATE TABLE read_mark (instance TEXT NOT NULL PRIMARY KEY, mark TEXT NOT NULL);
