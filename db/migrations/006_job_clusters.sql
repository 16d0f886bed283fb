-- 006_job_clusters.sql: the clusters that hold a job once it is co-allocated, each with the
-- batch system's job that holds its nodes (Slurm's job id; '' where the front-end allocates
-- from its builtin list), for qcg-status and qcg-query. A job's removal takes its rows.
CREATE TABLE job_clusters (
	job          TEXT NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
	cluster      TEXT NOT NULL CHECK (cluster <> ''),
	batch_job_id TEXT NOT NULL DEFAULT '',
	PRIMARY KEY (job, cluster)
);
