-- 004_liveness.sql: leases for the services that long-poll the broker.
--
-- A front-end (its cluster's row) and a proxy renew their lease with every WaitEvents poll:
-- last_seen is when the broker last heard from them, lease_expires when it stops believing
-- they are alive without hearing again (the poll's timeout plus broker.lease_grace), and
-- withdrawn_at when it withdrew them (their poll's connection closed, or the lease ran out);
-- 0 while they are alive. A withdrawn proxy is never chosen for a relay, a withdrawn cluster's
-- front-end is not asked to take part in a connection, until they poll again. Times are unix
-- seconds.
ALTER TABLE clusters ADD COLUMN last_seen INTEGER NOT NULL DEFAULT 0;
ALTER TABLE clusters ADD COLUMN lease_expires INTEGER NOT NULL DEFAULT 0;
ALTER TABLE clusters ADD COLUMN withdrawn_at INTEGER NOT NULL DEFAULT 0;
ALTER TABLE proxies ADD COLUMN last_seen INTEGER NOT NULL DEFAULT 0;
ALTER TABLE proxies ADD COLUMN lease_expires INTEGER NOT NULL DEFAULT 0;
ALTER TABLE proxies ADD COLUMN withdrawn_at INTEGER NOT NULL DEFAULT 0;
-- Rows from before leases existed: take their registration as the last sign of life and give
-- them two minutes to poll again (a service still running does within its poll timeout), so
-- that an upgrade neither withdraws live services at once nor keeps dead ones for ever.
UPDATE clusters SET last_seen = registered_at,
	lease_expires = CAST(strftime('%s', 'now') AS INTEGER) + 120;
UPDATE proxies SET last_seen = registered_at,
	lease_expires = CAST(strftime('%s', 'now') AS INTEGER) + 120;
-- The sweeper looks for live rows whose lease ran out.
CREATE INDEX clusters_by_lease ON clusters (withdrawn_at, lease_expires);
CREATE INDEX proxies_by_lease ON proxies (withdrawn_at, lease_expires);
