-- Maintenance windows added from the triage page, and occurrences ended early (crate::maintenance).
-- Nothing is deleted: who added or ended what, when and why stays (milliseconds).
CREATE TABLE maintenance_added (id TEXT PRIMARY KEY, name TEXT NOT NULL, reason TEXT NOT NULL,
    scope TEXT NOT NULL, zone TEXT NOT NULL, start_ms BIGINT NOT NULL, end_ms BIGINT NOT NULL,
    "by" TEXT NOT NULL, at BIGINT NOT NULL);
CREATE TABLE maintenance_ended (id TEXT NOT NULL, start_ms BIGINT NOT NULL, "by" TEXT NOT NULL,
    at BIGINT NOT NULL, why TEXT NOT NULL, PRIMARY KEY (id, start_ms));
