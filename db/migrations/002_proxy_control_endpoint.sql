-- 002_proxy_control_endpoint.sql: where a proxy answers statistics queries.
--
-- The https URL of the proxy's SOAP control service (wsdl/proxy.wsdl, GetStatistics), as the
-- proxy registered it; '' when it runs none. qcg-query proxies reads it to show each proxy's
-- live statistics next to the registry's row.
ALTER TABLE proxies ADD COLUMN control_endpoint TEXT NOT NULL DEFAULT '';
