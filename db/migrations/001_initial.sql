-- 001_initial.sql: the registry's first schema (see db/README.md).
--
-- Enumerations are stored as the names lib/model.c gives them (cluster_policy_name,
-- connect_method_name, job_state_name) so that the file reads the same as the configuration
-- and the WSDL; the CHECK constraints keep anything else out. Times are unix seconds.
-- String lengths are enforced in C against the fixed-size fields of lib/model.h, not here,
-- so that widening a field needs no migration.

-- One row per cluster, declared by its front-end. Only the DN that registered a cluster may
-- replace or delete it.
CREATE TABLE clusters (
	name              TEXT PRIMARY KEY NOT NULL CHECK (name <> ''),
	policy            TEXT NOT NULL
	                  CHECK (policy IN ('open', 'port-range', 'nat', 'closed')),
	port_min          INTEGER NOT NULL DEFAULT 0 CHECK (port_min BETWEEN 0 AND 65535),
	port_max          INTEGER NOT NULL DEFAULT 0 CHECK (port_max BETWEEN 0 AND 65535),
	public_address    TEXT NOT NULL DEFAULT '',
	private_networks  TEXT NOT NULL DEFAULT '',
	traversal_allowed INTEGER NOT NULL DEFAULT 0 CHECK (traversal_allowed IN (0, 1)),
	frontend_endpoint TEXT NOT NULL DEFAULT '',
	frontend_dn       TEXT NOT NULL CHECK (frontend_dn <> ''),
	registered_at     INTEGER NOT NULL DEFAULT (CAST(strftime('%s', 'now') AS INTEGER)),
	CHECK (port_min <= port_max),
	-- a port-range cluster without a range would make every listener unreachable
	CHECK (policy <> 'port-range' OR port_min >= 1)
);

-- Relay proxies. No foreign key to clusters: a proxy may start before its gateway's
-- front-end has declared the cluster, and cluster is '' for proxies on the WAN.
CREATE TABLE proxies (
	id            INTEGER PRIMARY KEY,
	endpoint      TEXT NOT NULL UNIQUE CHECK (endpoint <> ''),
	networks      TEXT NOT NULL DEFAULT '',
	cluster       TEXT NOT NULL DEFAULT '',
	load          INTEGER NOT NULL DEFAULT 0 CHECK (load >= 0),
	registered_at INTEGER NOT NULL DEFAULT (CAST(strftime('%s', 'now') AS INTEGER))
);
-- registry_list_proxies hands out the least loaded first.
CREATE INDEX proxies_by_load ON proxies (load, id);

CREATE TABLE jobs (
	id          TEXT PRIMARY KEY NOT NULL CHECK (id <> ''),
	owner_dn    TEXT NOT NULL CHECK (owner_dn <> ''),
	state       TEXT NOT NULL
	            CHECK (state IN ('pending', 'running', 'done', 'failed', 'cancelled')),
	submitted   INTEGER NOT NULL DEFAULT 0,
	started     INTEGER NOT NULL DEFAULT 0,
	finished    INTEGER NOT NULL DEFAULT 0,
	exit_code   INTEGER NOT NULL DEFAULT 0,
	description TEXT
);
-- registry_list_jobs: newest first.
CREATE INDEX jobs_by_submitted ON jobs (submitted DESC, id DESC);

-- Listening sockets of a job's processes. (job, port) is the key: clusters may share private
-- ranges, so the address alone does not tell two listeners apart, but ports are unique
-- within a job. A job's or cluster's removal takes its access points with it.
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
-- the cascade from clusters looks rows up by cluster
CREATE INDEX access_points_by_cluster ON access_points (cluster);

-- The connection log: one row per attempt. No foreign keys: the log outlives the jobs and
-- clusters it mentions.
CREATE TABLE connections (
	id           INTEGER PRIMARY KEY,
	job          TEXT NOT NULL,
	from_cluster TEXT NOT NULL,
	from_node    TEXT NOT NULL,
	to_cluster   TEXT NOT NULL,
	to_node      TEXT NOT NULL,
	to_port      INTEGER NOT NULL CHECK (to_port BETWEEN 0 AND 65535),
	method       TEXT NOT NULL CHECK (method IN ('direct', 'port-range', 'reversal',
	                 'traversal', 'relay', 'relay-chain', 'none')),
	succeeded    INTEGER NOT NULL CHECK (succeeded IN (0, 1)),
	setup_usec   INTEGER NOT NULL CHECK (setup_usec >= 0),
	at           INTEGER NOT NULL
);
CREATE INDEX connections_by_job ON connections (job, at, id);
-- registry_prune_connections drops rows by age
CREATE INDEX connections_by_time ON connections (at);

-- Multicast groups handed to jobs; UNIQUE keeps two jobs off the same group.
CREATE TABLE multicast_groups (
	job       TEXT NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
	address   TEXT NOT NULL CHECK (address <> ''),
	port      INTEGER NOT NULL CHECK (port BETWEEN 1 AND 65535),
	allocated INTEGER NOT NULL,
	UNIQUE (address, port)
);
CREATE INDEX multicast_groups_by_job ON multicast_groups (job);
