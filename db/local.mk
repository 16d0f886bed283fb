# db/: the SQLite schema, its numbered migrations and the registry (the only SQL in the tree).
# Consumers link db/libqcgdb.a lib/libqcgcommon.a $(SQLITE3_LIBS).

# The migrations, in order. Adding one: create db/migrations/NNN_what.sql and list it here.
db_migrations = \
	db/migrations/001_initial.sql \
	db/migrations/002_proxy_control_endpoint.sql \
	db/migrations/003_proxy_owner_dn.sql \
	db/migrations/004_liveness.sql \
	db/migrations/005_job_state_queued.sql \
	db/migrations/006_job_clusters.sql \
	db/migrations/007_relays.sql \
	db/migrations/008_access_points_by_listener.sql

noinst_LIBRARIES += db/libqcgdb.a
db_libqcgdb_a_CPPFLAGS = $(AM_CPPFLAGS) $(SQLITE3_CFLAGS)
db_libqcgdb_a_SOURCES = \
	db/registry.h db/registry_internal.h db/migrations.h \
	db/registry_sql.c \
	db/registry_cache.c \
	db/registry_open.c \
	db/registry_clusters.c \
	db/registry_proxies.c \
	db/registry_jobs.c \
	db/registry_access_points.c \
	db/registry_connections.c \
	db/registry_multicast.c \
	db/registry_liveness.c \
	db/registry_job_clusters.c \
	db/registry_relays.c
nodist_db_libqcgdb_a_SOURCES = db/migrations_embedded.c

# The migrations become a C table at build time (never committed). Prerequisites are found
# through VPATH; the command names them under $(srcdir) so out-of-tree builds work.
BUILT_SOURCES += db/migrations_embedded.c
CLEANFILES += db/migrations_embedded.c
EXTRA_DIST += $(db_migrations) db/embed_migrations.sh db/README.md
db/migrations_embedded.c: $(db_migrations) db/embed_migrations.sh
	$(AM_V_GEN)$(MKDIR_P) db && \
	$(SHELL) $(srcdir)/db/embed_migrations.sh $(srcdir) $(db_migrations) > $@-t && \
	mv -f $@-t $@

check_PROGRAMS += tests/unit/test_registry
TESTS += tests/unit/test_registry
tests_unit_test_registry_SOURCES = tests/unit/test_registry.c tests/unit/check.h
tests_unit_test_registry_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests/unit $(SQLITE3_CFLAGS)
tests_unit_test_registry_LDADD = db/libqcgdb.a lib/libqcgcommon.a $(SQLITE3_LIBS)
