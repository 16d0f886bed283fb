-- 005_job_state_queued.sql: jobs may be 'queued' (recorded, waiting for nodes that other jobs
-- hold; qcg-submit --reserve-timeout). SQLite cannot change a CHECK constraint in place, so
-- the jobs table is rebuilt: create the new one, copy, drop the old, rename. registry_open
-- runs this in one BEGIN IMMEDIATE transaction, so a failure leaves the schema at 4.
--
-- Foreign keys are ON and cannot be turned off inside a transaction, and access_points and
-- multicast_groups reference jobs ON DELETE CASCADE: dropping jobs with them in place would
-- delete their rows, and renaming a table rewrites the references to it. So they are set
-- aside in temporary copies, dropped first, and rebuilt as 001 made them, after jobs.
CREATE TABLE jobs_new (
	id          TEXT PRIMARY KEY NOT NULL CHECK (id <> ''),
	owner_dn    TEXT NOT NULL CHECK (owner_dn <> ''),
	state       TEXT NOT NULL
	            CHECK (state IN ('pending', 'running', 'done', 'failed', 'cancelled',
	                             'queued')),
	submitted   INTEGER NOT NULL DEFAULT 0,
	started     INTEGER NOT NULL DEFAULT 0,
	finished    INTEGER NOT NULL DEFAULT 0,
	exit_code   INTEGER NOT NULL DEFAULT 0,
	description TEXT
);
INSERT INTO jobs_new (id, owner_dn, state, submitted, started, finished, exit_code,
	description)
	SELECT id, owner_dn, state, submitted, started, finished, exit_code, description FROM jobs;

CREATE TEMP TABLE access_points_kept AS SELECT * FROM access_points;
CREATE TEMP TABLE multicast_groups_kept AS SELECT * FROM multicast_groups;
DROP TABLE access_points;
DROP TABLE multicast_groups;
DROP TABLE jobs;
ALTER TABLE jobs_new RENAME TO jobs;
CREATE INDEX jobs_by_submitted ON jobs (submitted DESC, id DESC);

CREATE TABLE access_points (
	job           TEXT NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
	cluster       TEXT NOT NULL REFERENCES clusters (name) ON DELETE CASCADE,
	node          TEXT NOT NULL DEFAULT '',
	address       TEXT NOT NULL CHECK (address <> ''),
	port          INTEGER NOT NULL CHECK (port BETWEEN 1 AND 65535),
	process       TEXT NOT NULL DEFAULT '',
	registered_at INTEGER NOT NULL DEFAULT (CAST(strftime('%s', 'now') AS INTEGER)),
	UNIQUE (job, port)
);
CREATE INDEX access_points_by_cluster ON access_points (cluster);
INSERT INTO access_points (job, cluster, node, address, port, process, registered_at)
	SELECT job, cluster, node, address, port, process, registered_at FROM access_points_kept;

CREATE TABLE multicast_groups (
	job       TEXT NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
	address   TEXT NOT NULL CHECK (address <> ''),
	port      INTEGER NOT NULL CHECK (port BETWEEN 1 AND 65535),
	allocated INTEGER NOT NULL,
	UNIQUE (address, port)
);
CREATE INDEX multicast_groups_by_job ON multicast_groups (job);
INSERT INTO multicast_groups (job, address, port, allocated)
	SELECT job, address, port, allocated FROM multicast_groups_kept;

DROP TABLE temp.access_points_kept;
DROP TABLE temp.multicast_groups_kept;
