-- 007_relays.sql: the relays the broker handed out, so that a relay can be resumed on another
-- proxy when its proxy dies (issue 14). Resolve records every relay decision; ResumeRelay
-- checks a resume against the row (only the two ends named here may resume it: same job, same
-- cluster, same node), and records the new relay as a row whose resumed_from names the old
-- one. The old row's successor then names the new one, so that both ends asking to resume the
-- same relay get the same new relay (idempotent). A resume row is what qcg-query connections
-- shows as a resume: when (decided_at), from which proxy (the old row's), to which (its own).
-- No foreign keys: like the connection log, the rows outlive the jobs they mention and are
-- pruned by age with it. Times are unix seconds; ids are the 32 hex digits of lib/relay_id.h.
CREATE TABLE relays (
	id             TEXT PRIMARY KEY NOT NULL CHECK (length(id) = 32),
	job            TEXT NOT NULL CHECK (job <> ''),
	from_cluster   TEXT NOT NULL CHECK (from_cluster <> ''),
	from_node      TEXT NOT NULL,
	to_cluster     TEXT NOT NULL CHECK (to_cluster <> ''),
	to_node        TEXT NOT NULL,
	to_address     TEXT NOT NULL CHECK (to_address <> ''),
	to_port        INTEGER NOT NULL CHECK (to_port BETWEEN 1 AND 65535),
	method         TEXT NOT NULL CHECK (method IN ('relay', 'relay-chain')),
	proxy0         TEXT NOT NULL CHECK (proxy0 <> ''),
	proxy1         TEXT NOT NULL DEFAULT '',
	decided_at     INTEGER NOT NULL,
	resumed_from   TEXT NOT NULL DEFAULT '',
	successor      TEXT NOT NULL DEFAULT '',
	bytes_replayed INTEGER NOT NULL DEFAULT 0 CHECK (bytes_replayed >= 0)
);
-- qcg-query connections lists a job's resumes; the pruner drops rows by age.
CREATE INDEX relays_by_job ON relays (job, decided_at);
CREATE INDEX relays_by_time ON relays (decided_at);
