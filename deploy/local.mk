# deploy/: admin scripts.

# qcg-ca: the grid certificate authority (CA, host/user certificates, CRL, RFC 3820 proxies).
dist_sbin_SCRIPTS += deploy/qcg-ca
TESTS += tests/integration/test_qcg_ca.sh
EXTRA_DIST += tests/integration/test_qcg_ca.sh
dist_man_MANS += doc/qcg-ca.1

# qcg-deploy: grid description -> every service's configuration, certificates, systemd units.
# The generator (qcg-genconf.sh), the parser and the unit templates
# are installed in $(pkgdatadir), where qcg-deploy looks when they are not next to it.
dist_sbin_SCRIPTS += deploy/qcg-deploy
dist_pkgdata_DATA += deploy/qcg-genconf.sh deploy/qcg-deploy-parse.sh \
	deploy/systemd/qcg-broker.service deploy/systemd/qcg-proxy.service \
	deploy/systemd/qcg-frontend@.service deploy/systemd/qcg-helper.service
TESTS += tests/deploy/test_deploy_errors.sh tests/deploy/test_deploy_services.sh \
	tests/deploy/test_deploy_units.sh tests/deploy/test_deploy_certs.sh \
	tests/deploy/test_testbed_uses_deploy.sh tests/deploy/test_testbed_grid.sh
EXTRA_DIST += tests/deploy/lib.sh tests/deploy/grid-errors.list \
	tests/deploy/test_deploy_errors.sh tests/deploy/test_deploy_services.sh \
	tests/deploy/test_deploy_units.sh tests/deploy/test_deploy_certs.sh \
	tests/deploy/test_testbed_uses_deploy.sh tests/deploy/test_testbed_grid.sh \
	doc/qcg-grid.example doc/qcg-broker.conf.example doc/qcg-proxy.conf.example deploy/README.md
# Man pages of the commands and daemons (qcg-rsh.1 and qcg-proxy-init.1 are in launcher/local.mk).
dist_man_MANS += doc/qcg-deploy.8 doc/qcg-broker.8 doc/qcg-proxy.8 doc/qcg-frontend.8 \
	doc/qcg-helper.8 doc/qcg-submit.1 doc/qcg-status.1 doc/qcg-cancel.1 doc/qcg-query.1

# The Debian packaging (debian/README.source) and its end-to-end test (root, minutes: not in
# make check), so that a release tarball can be packaged too.
EXTRA_DIST += deploy/test-packages.sh debian/changelog debian/control debian/copyright \
	debian/rules debian/source/format debian/README.source \
	debian/qcg-broker.install debian/qcg-broker.postinst debian/qcg-broker.README.Debian \
	debian/qcg-frontend.install debian/qcg-frontend.postinst debian/qcg-frontend.README.Debian \
	debian/qcg-proxy.install debian/qcg-proxy.postinst debian/qcg-proxy.README.Debian \
	debian/qcg-tools.install debian/qcg-tools.lintian-overrides \
	debian/openmpi-coll-qcg.install debian/openmpi-coll-qcg.docs \
	debian/qcg-examples.install \
	debian/qcg-testbed.install debian/qcg-testbed.docs debian/qcg-testbed.lintian-overrides
