-- 008_access_points_by_listener.sql: an access point is unique by (job, address, port,
-- cluster), no longer by (job, port). Two ranks on different nodes may bind the same port
-- (each node has its own port space), and with (job, port) the second registration replaced
-- the first: every connect to the first then failed ("no process listens"), at P >= 256 on
-- loopback and on real machines alike (issue 15). The address tells the nodes of a cluster
-- apart; the cluster is part of the key because clusters may use the same private range.
-- The key's columns are in this order so that its index also serves Resolve's lookup by
-- (job, address, port).
--
-- SQLite cannot change a UNIQUE constraint in place: the table is rebuilt (create, copy, drop,
-- rename), keeping every row; registry_open runs this in one transaction. Nothing references
-- access_points, so dropping it cascades nowhere. Old rows are unique by (job, port) and so by
-- the new key too.
CREATE TABLE access_points_new (
	job           TEXT NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
	cluster       TEXT NOT NULL REFERENCES clusters (name) ON DELETE CASCADE,
	node          TEXT NOT NULL DEFAULT '',
	address       TEXT NOT NULL CHECK (address <> ''),
	port          INTEGER NOT NULL CHECK (port BETWEEN 1 AND 65535),
	process       TEXT NOT NULL DEFAULT '',
	registered_at INTEGER NOT NULL DEFAULT (CAST(strftime('%s', 'now') AS INTEGER)),
	UNIQUE (job, address, port, cluster)
);
INSERT INTO access_points_new (job, cluster, node, address, port, process, registered_at)
	SELECT job, cluster, node, address, port, process, registered_at FROM access_points;
DROP TABLE access_points;
ALTER TABLE access_points_new RENAME TO access_points;
-- the cascade from clusters looks rows up by cluster
CREATE INDEX access_points_by_cluster ON access_points (cluster);
