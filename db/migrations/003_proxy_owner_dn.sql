-- 003_proxy_owner_dn.sql: who registered each proxy.
--
-- Like clusters.frontend_dn: the DN (of a proxy-role certificate) that registered the endpoint
-- owns the row; only that DN (or an admin) may replace or delete it, and only it may read the
-- endpoint's event queue (relay ids). Rows from schema 2 have no known owner (''): the first
-- DN that registers the endpoint again claims it, and until then only an admin may delete it.
ALTER TABLE proxies ADD COLUMN owner_dn TEXT NOT NULL DEFAULT '';
